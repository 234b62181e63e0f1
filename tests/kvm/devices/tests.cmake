# SPDX-License-Identifier: Apache-2.0
# kvm tier, devices: cc-vmm's --9p, --vsock, --net, --blk and --rng options. A freestanding
# guest lists the virtio-mmio windows declared on its command line (device ID, features, the
# start of config space); the tests check each option made its device, in table order.
# (Uses cc_add_test_guest from tests/guests and vmmrun from tests/kvm.)
cc_add_test_guest(NAME devices-check SOURCES devices-check.c)

cc_add_check_test(NAME test-vmm-devices LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-devices.c ${CMAKE_CURRENT_LIST_DIR}/devices-util.c
  LIBS vmmrun vmm)
add_dependencies(test-vmm-devices cc-vmm guest-devices-check guest-idle guest-hello
  guest-virtio-console)

cc_add_check_test(NAME test-vmm-net LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-net.c ${CMAKE_CURRENT_LIST_DIR}/devices-util.c
  LIBS vmmrun)
add_dependencies(test-vmm-net cc-vmm guest-devices-check guest-idle)

# Minimal drivers (test-vmm-devices): one request each to rng, 9p and blk; a vsock stream to
# a host unix socket.
cc_add_test_guest(NAME devices-io SOURCES devices-io.c)
add_dependencies(test-vmm-devices guest-devices-io)
cc_add_test_guest(NAME vsock-ping SOURCES vsock-ping.c)
add_dependencies(test-vmm-devices guest-vsock-ping)
cc_add_test_guest(NAME net-ping SOURCES net-ping.c)
add_dependencies(test-vmm-net guest-net-ping)
