# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/altinstr.c
  ${CMAKE_CURRENT_LIST_DIR}/bzimage.c
  ${CMAKE_CURRENT_LIST_DIR}/elf.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel.c
)
