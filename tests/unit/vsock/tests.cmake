# SPDX-License-Identifier: Apache-2.0
cc_add_check_test(NAME test-vsock-packet LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-packet.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vsock-conn LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-conn.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vsock-handshake LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-handshake.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vsock-muxer LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-muxer.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vsock-budget LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-budget.c
  LIBS vmm-internal)
# Through the vdev ops, on the virtio suites' fake guest memory helpers.
cc_add_check_test(NAME test-vsock-device LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-device.c ${CMAKE_SOURCE_DIR}/tests/unit/virtio/vtest.c
  LIBS vmm-internal)
target_include_directories(test-vsock-device PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit/virtio)

cc_add_fuzzer(NAME fuzz-vsock
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-vsock.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-vsock)
