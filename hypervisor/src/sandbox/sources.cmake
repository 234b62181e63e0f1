# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sandbox.c
  ${CMAKE_CURRENT_LIST_DIR}/sandbox-caps.c
  ${CMAKE_CURRENT_LIST_DIR}/sandbox-escape.c
  ${CMAKE_CURRENT_LIST_DIR}/sandbox-fds.c
  ${CMAKE_CURRENT_LIST_DIR}/sandbox-filter.c
  ${CMAKE_CURRENT_LIST_DIR}/sandbox-rules.c
)
