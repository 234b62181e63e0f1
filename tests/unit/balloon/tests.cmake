# SPDX-License-Identifier: Apache-2.0
# virtio-balloon: the device model on fake guest memory, with a recording discard and with the
# real madvise().
cc_add_check_test(NAME test-vballoon LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vballoon.c ${CMAKE_SOURCE_DIR}/tests/unit/devices/devtest.c
  LIBS vmm-internal)

# The guest-facing parser: PFN arrays and reported ranges against a map with holes.
cc_add_fuzzer(NAME fuzz-balloon
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-balloon.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-balloon)
