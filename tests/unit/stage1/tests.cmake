# SPDX-License-Identifier: Apache-2.0
# libccstage1: flags, users, quoting, isolators, VM sizing, and the pod layer (golden files in
# tests/data/stage1/golden; CC_UPDATE_GOLDEN=1 rewrites them).
cc_add_check_test(NAME test-stage1-flags LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-flags.c
  LIBS ccstage1)
cc_add_check_test(NAME test-stage1-user LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-user.c
  LIBS ccstage1)
cc_add_check_test(NAME test-stage1-units LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-units.c
  LIBS ccstage1)
cc_add_check_test(NAME test-stage1-podlayer LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-podlayer.c
  LIBS ccstage1)
cc_add_check_test(NAME test-stage1-pod-options LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-pod-options.c
  LIBS ccstage1)

cc_add_fuzzer(NAME fuzz-stage1-flags
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-stage1-flags.c
  LIBS ccstage1
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/stage1-flags)
