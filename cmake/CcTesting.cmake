# SPDX-License-Identifier: Apache-2.0
#
# Test helpers. Three tiers, one CTest label each:
#   unit  no KVM, no root beyond what a container gives
#   kvm   tiny test guests on the host's /dev/kvm
#   e2e   real Linux guests, run through ci/kvm-host-run
# Run one tier with `ctest --test-dir build -L <tier>`.
#
# A test that cannot run (no /dev/kvm, no guest kernel) exits 77, which CTest reports as
# skipped with the reason the test printed. ci/test fails a CI run where a tier ran nothing.

# cc_add_check_test(NAME <name> LABEL <tier> SOURCES <src...> [LIBS <lib...>] [TIMEOUT <s>])
function(cc_add_check_test)
  cmake_parse_arguments(T "" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/tests)
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} cctest PkgConfig::CHECK)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS ${T_LABEL}
    TIMEOUT ${T_TIMEOUT}
    SKIP_RETURN_CODE 77
    ENVIRONMENT "CC_SOURCE_DIR=${CMAKE_SOURCE_DIR};CC_BUILD_DIR=${CMAKE_BINARY_DIR}")
endfunction()

# cc_add_fuzzer(NAME <name> SOURCES <src...> [LIBS <lib...>] CORPUS <dir>)
# With CC_FUZZ: a libFuzzer binary build/bin/fuzz/<name>.
# Without: a replay binary (tests/fuzz/fuzz-main.c) that runs every corpus file through the
# target as a `unit` test, so the corpus is a regression suite in every build.
function(cc_add_fuzzer)
  cmake_parse_arguments(F "" "NAME;CORPUS" "SOURCES;LIBS" ${ARGN})
  add_executable(${F_NAME} ${F_SOURCES})
  set_target_properties(${F_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/fuzz)
  target_link_libraries(${F_NAME} PRIVATE ${F_LIBS})
  if(CC_FUZZ)
    target_link_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
  else()
    target_sources(${F_NAME} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-main.c)
    add_test(NAME replay-${F_NAME} COMMAND ${F_NAME} ${F_CORPUS})
    set_tests_properties(replay-${F_NAME} PROPERTIES LABELS unit TIMEOUT 300)
  endif()
  set_property(GLOBAL APPEND PROPERTY CC_FUZZERS "${F_NAME}=${F_CORPUS}")
endfunction()

# cc_add_e2e_test(<name> <script relative to tests/e2e/> [args...])
# e2e tier: real Linux guests, each test run through ci/kvm-host-run (a QEMU TCG test host
# with nested SVM KVM when this machine has no vmx/svm; see docs/testing.md).
# RESOURCE_LOCK: one test host at a time on these 2-core machines, even under ctest -j.
# A test host that hangs or crashes (rarely, in the TCG test host: docs/testing.md) is
# reported with its task dump and console log, and COMMAND is rerun once in a fresh one
# (CC_TESTHOST_RETRIES=1); a failure of COMMAND itself is never rerun. TIMEOUT covers two
# attempts at the harness's own timeout (CC_TESTHOST_TIMEOUT, 900 s; 1400 for the stage1
# pods) plus a first build of the test-host image, so a stuck test host is reported by the
# harness (125) rather than killed by CTest.
function(cc_add_e2e_test NAME SCRIPT)
  add_test(NAME e2e-${NAME} COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e/${SCRIPT} ${ARGN})
  set_tests_properties(e2e-${NAME} PROPERTIES
    LABELS e2e
    TIMEOUT 3100
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK cc-testhost
    ENVIRONMENT "CC_SOURCE_DIR=${CMAKE_SOURCE_DIR};CC_BUILD_DIR=${CMAKE_BINARY_DIR};CC_TESTHOST_RETRIES=1")
endfunction()
