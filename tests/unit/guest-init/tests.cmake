# SPDX-License-Identifier: Apache-2.0
# The guest init stage and the boot-marker helper (guest-image/).
cc_add_check_test(NAME test-guest-cmdline LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-cmdline.c
  LIBS ccguest)
cc_add_check_test(NAME test-guest-overlay LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-overlay.c
  LIBS ccguest)
cc_add_check_test(NAME test-guest-marker LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-marker.c
  LIBS ccmarker)
# Needs root (mount namespaces, tmpfs, overlayfs); exits 77 otherwise.
cc_add_check_test(NAME test-guest-root LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-root.c
  LIBS ccguestroot)
# cc.mount=<tag>:<path> (repeatable, strict).
cc_add_check_test(NAME test-guest-cmdline-mount LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-cmdline-mount.c
  LIBS ccguest)
# The pod layer's users and groups, appended to the guest's database by cc-init.
cc_add_check_test(NAME test-guest-users LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-users.c
  LIBS ccguestroot)
# The 9p shares' readahead, set by cc-init through sysfs.
cc_add_check_test(NAME test-guest-readahead LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-readahead.c
  LIBS ccguest)
