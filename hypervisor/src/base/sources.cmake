# SPDX-License-Identifier: Apache-2.0
# The base every device uses: guest memory accessors, the I/O bus, interrupts, the event
# loop. Includes nothing else of the VMM.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/evloop.c
  ${CMAKE_CURRENT_LIST_DIR}/gmem.c
  ${CMAKE_CURRENT_LIST_DIR}/iobus.c
)
