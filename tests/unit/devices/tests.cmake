# SPDX-License-Identifier: Apache-2.0
# Device models (virtio-blk, virtio-net, virtio-rng) and their backends.
set(_dev ${CMAKE_CURRENT_LIST_DIR})
cc_add_check_test(NAME test-vblk LABEL unit
  SOURCES ${_dev}/test-vblk.c ${_dev}/devtest.c LIBS vmm-internal)
cc_add_check_test(NAME test-blkbe-raw LABEL unit
  SOURCES ${_dev}/test-blkbe-raw.c ${_dev}/devtest.c LIBS vmm-internal)
cc_add_check_test(NAME test-vrng LABEL unit
  SOURCES ${_dev}/test-vrng.c ${_dev}/devtest.c LIBS vmm-internal)
cc_add_check_test(NAME test-vnet LABEL unit
  SOURCES ${_dev}/test-vnet.c ${_dev}/devtest.c LIBS vmm-internal)
cc_add_check_test(NAME test-netbe-tap LABEL unit
  SOURCES ${_dev}/test-netbe-tap.c ${_dev}/devtest.c LIBS vmm-internal)
cc_add_check_test(NAME test-devices-mmio LABEL unit
  SOURCES ${_dev}/test-devices-mmio.c ${_dev}/devtest.c LIBS vmm-internal)

# Fuzzers: the guest's memory image drives the device models (see the sources' headers).
cc_add_fuzzer(NAME fuzz-blk
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-blk.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-blk)
cc_add_fuzzer(NAME fuzz-net
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-net.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-net)
