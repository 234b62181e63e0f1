# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/bootmarker.c
  ${CMAKE_CURRENT_LIST_DIR}/i8042.c
  ${CMAKE_CURRENT_LIST_DIR}/serial.c
)
