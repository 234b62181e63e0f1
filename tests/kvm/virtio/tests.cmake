# SPDX-License-Identifier: Apache-2.0
# kvm tier, virtio: a freestanding guest drives cc-vmm's virtio-console as a minimal driver.
# (Included after tests/guests and tests/kvm, whose cc_add_test_guest and vmmrun it uses.)
cc_add_test_guest(NAME virtio-console SOURCES virtio-console.c)

cc_add_check_test(NAME test-virtio-console-guest LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-virtio-console-guest.c
  LIBS vmmrun)
add_dependencies(test-virtio-console-guest cc-vmm guest-virtio-console)
