# SPDX-License-Identifier: Apache-2.0
# kvm tier, kernel page sharing: cc-vmm --share-kernel-pages (sandboxed, seccomp kill: the
# lock, the file's reads and writes and the mapping must be allowed) with the kpage-check
# guest, which patches a page of its text segment and writes the init-start marker.
cc_add_test_guest(NAME kpage-check SOURCES kpage-check.c)

cc_add_check_test(NAME test-vmm-kernel-pages LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-kernel-pages.c
  LIBS vmmrun)
add_dependencies(test-vmm-kernel-pages cc-vmm guest-kpage-check)
