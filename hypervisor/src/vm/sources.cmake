# SPDX-License-Identifier: Apache-2.0
# The VM: assembles the base, the devices and the density features (lifecycle, KVM, memory,
# vCPUs, the device table, the sandbox). The only layer that includes every other.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/boot.c
  ${CMAKE_CURRENT_LIST_DIR}/cmdline.c
  ${CMAKE_CURRENT_LIST_DIR}/config-hostvol.c
  ${CMAKE_CURRENT_LIST_DIR}/config.c
  ${CMAKE_CURRENT_LIST_DIR}/device-table.c
  ${CMAKE_CURRENT_LIST_DIR}/devices.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-share.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-smap.c
  ${CMAKE_CURRENT_LIST_DIR}/kvm.c
  ${CMAKE_CURRENT_LIST_DIR}/memory.c
  ${CMAKE_CURRENT_LIST_DIR}/memslot.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu-pause.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu-run.c
  ${CMAKE_CURRENT_LIST_DIR}/vcpu.c
  ${CMAKE_CURRENT_LIST_DIR}/vm-9p.c
  ${CMAKE_CURRENT_LIST_DIR}/vm-sandbox.c
  ${CMAKE_CURRENT_LIST_DIR}/vm.c
  ${CMAKE_CURRENT_LIST_DIR}/zero-sweep.c
)
