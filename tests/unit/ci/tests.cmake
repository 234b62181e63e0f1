# SPDX-License-Identifier: Apache-2.0
# ci/check-layering against a small tree of its own (git and bash only).
add_test(NAME test-check-layering COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-check-layering)
set_tests_properties(test-check-layering PROPERTIES LABELS unit TIMEOUT 60)
# ci/testhost/soak's classification of a run (ok, lost test host, lost pod, failed).
add_test(NAME test-soak-classify COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-soak-classify)
set_tests_properties(test-soak-classify PROPERTIES LABELS unit TIMEOUT 60)
