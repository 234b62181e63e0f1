# SPDX-License-Identifier: Apache-2.0
# stage1 `run` and `gc`: the supervisor pieces (lib ccsupervisor) and the two programs driven
# against hand-laid pod dirs with a fake VMM.
foreach(_t volume-plan root-path pod-exit status-mirror vmm-argv vmm-jail-map resources supervise stdio-relay
    kernel-pages-dir vmm-bound vmm-cgroup)
  cc_add_check_test(NAME test-stage1-${_t} LABEL unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-${_t}.c
    LIBS ccsupervisor)
endforeach()
# machined through cc-stage1-machined, against a private dbus-daemon and a fake machined.
cc_add_check_test(NAME test-stage1-machined LABEL unit TIMEOUT 120
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-machined.c
  LIBS ccsupervisor PkgConfig::SYSTEMD)
add_dependencies(test-stage1-machined cc-stage1-machined)
# Root and private namespaces (mount, net); skipped (77) without them.
foreach(_t volume-mount resources-remove vmm-jail-trees)
  cc_add_check_test(NAME test-stage1-${_t} LABEL unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-${_t}.c
    LIBS ccsupervisor)
endforeach()
# The two programs end to end with a fake VMM (root and namespaces; skipped without).
# The fake VMM proves its --net tap fd works with tap-probe (an ARP exchange with the gateway).
add_executable(cc-test-tap-probe ${CMAKE_CURRENT_LIST_DIR}/tap-probe.c)
# The programs run's VMM child execs run under the VMM's bound (RLIMIT_DATA where there is no
# cgroup v2 memory controller), which leaves no room for a sanitizer's shadow memory: they are
# built without sanitizers in every build (they link nothing of the project).
function(cc_test_vmm_unsanitized TARGET)
  if(CC_SANITIZE OR CC_FUZZ)
    target_compile_options(${TARGET} PRIVATE -fno-sanitize=all)
    target_link_options(${TARGET} PRIVATE -fno-sanitize=all)
  endif()
endfunction()
cc_test_vmm_unsanitized(cc-test-tap-probe)
add_test(NAME test-stage1-run-fake-vmm
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-run-fake-vmm $<TARGET_FILE:cc-stage1-run>
          $<TARGET_FILE:cc-stage1-gc> $<TARGET_FILE:cc-test-tap-probe>)
set_tests_properties(test-stage1-run-fake-vmm PROPERTIES LABELS unit TIMEOUT 120
  SKIP_RETURN_CODE 77)

cc_add_fuzzer(NAME fuzz-stage1-run
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-stage1-run.c
  LIBS ccsupervisor
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/stage1-run)

# run with the real cc-vmm and a tiny test guest (kvm tier).
add_test(NAME test-stage1-run-real-vmm
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-run-real-vmm $<TARGET_FILE:cc-stage1-run>
          $<IF:$<TARGET_EXISTS:cc-vmm-static>,${CMAKE_BINARY_DIR}/bin/cc-vmm-static,$<TARGET_FILE:cc-vmm>>
          ${CMAKE_BINARY_DIR}/guests $<TARGET_FILE:cc-stage1-gc>)
set_tests_properties(test-stage1-run-real-vmm PROPERTIES LABELS kvm TIMEOUT 120
  SKIP_RETURN_CODE 77)

# The VMM's bound (cgroup v2 or RLIMIT_DATA), through run and gc with fake VMMs: one that
# checks its cgroup and limits, and cc-test-mem-hog, which allocates until it is stopped.
add_executable(cc-test-mem-hog ${CMAKE_CURRENT_LIST_DIR}/mem-hog.c)
cc_test_vmm_unsanitized(cc-test-mem-hog)
add_test(NAME test-stage1-run-vmm-bound
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-run-vmm-bound $<TARGET_FILE:cc-stage1-run>
          $<TARGET_FILE:cc-stage1-gc> $<TARGET_FILE:cc-test-mem-hog>)
set_tests_properties(test-stage1-run-vmm-bound PROPERTIES LABELS unit TIMEOUT 120
  SKIP_RETURN_CODE 77)
