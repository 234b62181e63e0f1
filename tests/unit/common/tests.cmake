# SPDX-License-Identifier: Apache-2.0
cc_add_check_test(NAME test-common LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-fileio.c
  LIBS cccommon)
