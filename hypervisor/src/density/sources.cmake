# SPDX-License-Identifier: Apache-2.0
# Memory density: the page maps and the kernel, same and zero pages that the VM runs on its
# guest RAM (vm/zero-sweep.c, vm/kernel-share.c drive them). No device, no struct vm.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/balloon-map.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-pages.c
  ${CMAKE_CURRENT_LIST_DIR}/same-pages.c
  ${CMAKE_CURRENT_LIST_DIR}/zero-pages.c
)
