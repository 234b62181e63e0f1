# SPDX-License-Identifier: Apache-2.0
# virtio-net device model: transmit-completion signalling (issue #5), on fake guest memory with
# the device suites' helpers (tests/unit/devices/devtest.c).
cc_add_check_test(NAME test-vnet-tx-signal LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vnet-tx-signal.c
          ${CMAKE_SOURCE_DIR}/tests/unit/devices/devtest.c
  LIBS vmm-internal)
target_include_directories(test-vnet-tx-signal PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit/devices)
