# SPDX-License-Identifier: Apache-2.0
# libmanifest: data-driven suites over tests/data/manifest, helpers, and the cc-manifest CLI.
cc_add_check_test(NAME test-manifest-data LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-manifest-data.c
  LIBS manifest)
cc_add_check_test(NAME test-manifest-types LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-manifest-types.c
  LIBS manifest)
cc_add_check_test(NAME test-manifest-helpers LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-manifest-helpers.c
  LIBS manifest)
cc_add_check_test(NAME test-cc-manifest LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-cc-manifest.c
  LIBS cccommon)
add_dependencies(test-cc-manifest cc-manifest)

cc_add_fuzzer(NAME fuzz-pod-manifest
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-pod-manifest.c
  LIBS manifest
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/pod-manifest)
cc_add_fuzzer(NAME fuzz-image-manifest
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-image-manifest.c
  LIBS manifest
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/image-manifest)
target_include_directories(test-manifest-types PRIVATE ${CMAKE_SOURCE_DIR}/manifest/src)
