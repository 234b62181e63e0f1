# SPDX-License-Identifier: Apache-2.0
# Memory density (hypervisor/src/density/): the balloon map (what may be discarded, PFN
# parsing), zero and same pages on real anonymous memory, kernel pages shared between VMs.
set(_dn ${CMAKE_CURRENT_LIST_DIR})
cc_add_check_test(NAME test-balloon-map LABEL unit
  SOURCES ${_dn}/test-balloon-map.c LIBS vmm-internal)
cc_add_check_test(NAME test-zero-pages LABEL unit
  SOURCES ${_dn}/test-zero-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-same-pages LABEL unit
  SOURCES ${_dn}/test-same-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-kernel-pages LABEL unit
  SOURCES ${_dn}/test-kernel-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-kernel-pages-fill LABEL unit
  SOURCES ${_dn}/test-kernel-pages-fill.c LIBS cccommon)
