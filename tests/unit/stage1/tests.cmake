# SPDX-License-Identifier: Apache-2.0
# libccpod: flags, users, quoting, isolators, VM sizing, and the pod layer (golden files in
# tests/data/stage1/golden; CC_UPDATE_GOLDEN=1 rewrites them).
cc_add_check_test(NAME test-stage1-flags LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-flags.c
  LIBS ccpod)
cc_add_check_test(NAME test-stage1-user LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-user.c
  LIBS ccpod)
cc_add_check_test(NAME test-stage1-units LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-units.c
  LIBS ccpod)
cc_add_check_test(NAME test-stage1-podlayer LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-podlayer.c
  LIBS ccpod)
cc_add_check_test(NAME test-stage1-pod-options LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-stage1-pod-options.c
  LIBS ccpod)

cc_add_fuzzer(NAME fuzz-stage1-flags
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-stage1-flags.c
  LIBS ccpod
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/stage1-flags)
