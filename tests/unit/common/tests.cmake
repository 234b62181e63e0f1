# SPDX-License-Identifier: Apache-2.0
cc_add_check_test(NAME test-common LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-fileio.c
  LIBS cccommon)
# beneath.h: hostile trees (links, "..", magic links, FIFOs, devices, huge files).
cc_add_check_test(NAME test-common-beneath LABEL unit TIMEOUT 60
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-beneath.c
  LIBS cccommon)
# The same without /proc (root and a mount namespace; skipped without).
cc_add_check_test(NAME test-common-beneath-noproc LABEL unit TIMEOUT 60
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-beneath-noproc.c
  LIBS cccommon)
# cc/rm-rf.h: trees, symlinks, mount points (root and a mount namespace for the last).
cc_add_check_test(NAME test-common-rm-rf LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-rm-rf.c
  LIBS cccommon)
# cc/spawn.h: output, stdin, stderr modes, limits, timeouts, PATH, exec failure, fds.
cc_add_check_test(NAME test-common-spawn LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-spawn.c
  LIBS cccommon)
# cc/error.h and cc/warnings.h: errno agreement, %m, wrapping, truncation, the warning bound.
cc_add_check_test(NAME test-common-error LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-error.c
  LIBS cccommon)
