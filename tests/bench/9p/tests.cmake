# SPDX-License-Identifier: Apache-2.0
# The 9p worker's request cost (a benchmark, not a CTest test): bin/bench/bench-9p-worker-cost.
add_executable(bench-9p-worker-cost ${CMAKE_CURRENT_LIST_DIR}/9p-worker-cost.c)
set_target_properties(bench-9p-worker-cost PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/bench)
target_link_libraries(bench-9p-worker-cost PRIVATE vmm-internal)
