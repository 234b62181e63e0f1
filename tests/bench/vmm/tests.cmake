# SPDX-License-Identifier: Apache-2.0
# The vmm-overhead benchmark driver (run through tests/bench/vmm-overhead; not a CTest test).
add_executable(bench-vmm-overhead ${CMAKE_CURRENT_LIST_DIR}/vmm-overhead.c)
set_target_properties(bench-vmm-overhead PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/bench)
