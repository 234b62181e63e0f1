# SPDX-License-Identifier: Apache-2.0
#
# The stage1 end to end (docs/stage1.md, "Testing").
#
# unit: cc-stage0 against the rkt 1.30 contract with a recording stage1 (no VM; needs root).
# It uses the test app images, which sanitized builds do not make (tests/apps/tests.cmake).
if(NOT CC_SANITIZE AND NOT CC_FUZZ)
  add_test(NAME stage0-contract COMMAND ${CMAKE_CURRENT_LIST_DIR}/stage0-contract)
  set_tests_properties(stage0-contract PROPERTIES
    LABELS unit
    TIMEOUT 120
    SKIP_RETURN_CODE 77
    ENVIRONMENT "CC_SOURCE_DIR=${CMAKE_SOURCE_DIR};CC_BUILD_DIR=${CMAKE_BINARY_DIR}")
endif()

# e2e: pods of the test apps in VMs through cc-stage0 and the stage1 image, in the KVM test
# host; one test-host boot per group (2 and 3 guest boots, plus the refused starts).
cc_add_e2e_test(stage1-apps stage1/pods apps)
cc_add_e2e_test(stage1-lifecycle stage1/pods lifecycle)
# The hostile guest's links and FIFOs where the host reads and writes (one guest boot).
cc_add_e2e_test(stage1-hostile-paths stage1/hostile-paths)
