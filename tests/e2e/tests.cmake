# SPDX-License-Identifier: Apache-2.0
#
# e2e tier: real Linux guests, each test run through ci/kvm-host-run (a QEMU TCG test host
# with nested SVM KVM when this machine has no vmx/svm; see docs/testing.md).
# cc_add_e2e_test() is in cmake/CcTesting.cmake.

cc_add_e2e_test(guest-smoke guest-smoke)
cc_add_e2e_test(kvm-negative-control kvm-negative-control)
cc_add_e2e_test(testhost-contract testhost-contract)
