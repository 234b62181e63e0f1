# SPDX-License-Identifier: Apache-2.0
# kvm tier, kernel page sharing: cc-vmm --share-kernel-pages and --share-kernel-pages-fd
# (sandboxed, seccomp kill: the file's reads, the fill requests and the mapping must be
# allowed) with the kpage-check guest, which patches a page of its text segment and writes the
# init-start marker; the test also plays a hostile VMM's part through a filler of its own.
cc_add_test_guest(NAME kpage-check SOURCES kpage-check.c)

cc_add_check_test(NAME test-vmm-kernel-pages LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-kernel-pages.c
  LIBS vmmrun cccommon)
add_dependencies(test-vmm-kernel-pages cc-vmm guest-kpage-check)
