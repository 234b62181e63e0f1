# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/boot.c
  ${CMAKE_CURRENT_LIST_DIR}/cmdline.c
  ${CMAKE_CURRENT_LIST_DIR}/config.c
  ${CMAKE_CURRENT_LIST_DIR}/config-hostvol.c
  ${CMAKE_CURRENT_LIST_DIR}/device-table.c
  ${CMAKE_CURRENT_LIST_DIR}/devices.c
  ${CMAKE_CURRENT_LIST_DIR}/evloop.c
  ${CMAKE_CURRENT_LIST_DIR}/gmem.c
  ${CMAKE_CURRENT_LIST_DIR}/iobus.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-share.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-smap.c
  ${CMAKE_CURRENT_LIST_DIR}/kvm.c
  ${CMAKE_CURRENT_LIST_DIR}/memory.c
  ${CMAKE_CURRENT_LIST_DIR}/memslot.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu-pause.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu-run.c
  ${CMAKE_CURRENT_LIST_DIR}/vm.c
  ${CMAKE_CURRENT_LIST_DIR}/vm-9p.c
  ${CMAKE_CURRENT_LIST_DIR}/vm-sandbox.c
  ${CMAKE_CURRENT_LIST_DIR}/zero-sweep.c
)
