# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/bootparams.c
  ${CMAKE_CURRENT_LIST_DIR}/cpuid.c
  ${CMAKE_CURRENT_LIST_DIR}/e820.c
  ${CMAKE_CURRENT_LIST_DIR}/longmode.c
  ${CMAKE_CURRENT_LIST_DIR}/mptable.c
)
