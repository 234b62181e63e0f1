# SPDX-License-Identifier: Apache-2.0
# virtio-balloon: the balloon map (what may be discarded, PFN parsing) and the device model
# on fake guest memory, with a recording discard and with the real madvise().
set(_bl ${CMAKE_CURRENT_LIST_DIR})
cc_add_check_test(NAME test-balloon-map LABEL unit
  SOURCES ${_bl}/test-balloon-map.c LIBS vmm-internal)
cc_add_check_test(NAME test-zero-pages LABEL unit
  SOURCES ${_bl}/test-zero-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-same-pages LABEL unit
  SOURCES ${_bl}/test-same-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-kernel-pages LABEL unit
  SOURCES ${_bl}/test-kernel-pages.c LIBS vmm-internal)
cc_add_check_test(NAME test-kernel-pages-fill LABEL unit
  SOURCES ${_bl}/test-kernel-pages-fill.c LIBS cccommon)
cc_add_check_test(NAME test-vballoon LABEL unit
  SOURCES ${_bl}/test-vballoon.c ${CMAKE_SOURCE_DIR}/tests/unit/devices/devtest.c LIBS vmm-internal)

# The guest-facing parser: PFN arrays and reported ranges against a map with holes.
cc_add_fuzzer(NAME fuzz-balloon
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-balloon.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-balloon)
