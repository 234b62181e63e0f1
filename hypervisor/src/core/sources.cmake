# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/evloop.c
  ${CMAKE_CURRENT_LIST_DIR}/gmem.c
  ${CMAKE_CURRENT_LIST_DIR}/iobus.c
)
