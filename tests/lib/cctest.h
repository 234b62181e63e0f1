/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Helpers shared by the Check suites. */

#include <check.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

#define ASSERT_OK(expr)                                                                      \
	do {                                                                                 \
		int _r = (expr);                                                             \
		ck_assert_msg(_r >= 0, "%s failed: %s", #expr, strerror(_r < 0 ? -_r : _r)); \
	} while (0)

#define ASSERT_ERRNO(expr, e)                                                             \
	do {                                                                              \
		int _r = (expr);                                                          \
		ck_assert_msg(_r == -(e), "%s returned %d (%s), expected -%s", #expr, _r, \
			      _r < 0 ? strerror(-_r) : "success", #e);                    \
	} while (0)

/* Source tree root, from CC_SOURCE_DIR (set by CTest) or the compiled-in default. */
const char *cctest_source_dir(void);
/* Build tree root, from CC_BUILD_DIR (set by CTest) or the compiled-in default. */
const char *cctest_build_dir(void);
/* A fresh temporary directory, removed with cctest_rm_rf(). Returns a static buffer copy. */
char *cctest_mkdtemp(void);
/* Descriptors this process holds now (the directory stream's own one cancels out). */
unsigned cctest_count_fds(void);
/* How many fds of process pid link to path (exactly, or any name starting with it when
 * prefix); fails the test when /proc/PID/fd cannot be read. */
unsigned cctest_fds_on(pid_t pid, const char *path, bool prefix);
/* Bytes the process has allocated with malloc() now (under ASan: its allocator's count). */
size_t cctest_heap_bytes(void);
int cctest_rm_rf(const char *path);
/* Create the directory dir/rel (0755); fails the test on error. */
void cctest_mkdir_at(const char *dir, const char *rel);
/* Write s to dir/rel (created or truncated); fails the test on error. */
void cctest_write_at(const char *dir, const char *rel, const char *s);
/* The contents of dir/rel (up to 1 MiB); fails the test on error. The buffer is the helper's
 * and stays valid until the next call. */
const char *cctest_read_at(const char *dir, const char *rel);

/*
 * This test cannot run here (a tool, a kernel feature or a privilege is missing): says why on
 * stderr and ends the test. The program then exits 77, CTest's "skipped" (unless another test
 * failed), never 0: ci/test fails a skipped test in CI. Works in main() before the suite and
 * inside a test.
 */
_Noreturn void cctest_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For suites that need root and new namespaces (CLONE_NEW* flags): skipped (cctest_skip()) when
 * this process is not root or cannot create them.
 */
void cctest_require_privileged(int ns_flags);

/* The mappings of this process (/proc/self/maps) inside [lo, hi) whose line has needle (a
 * file's name or path); fails the test when maps cannot be read. */
unsigned cctest_count_mappings(const void *lo, const void *hi, const char *needle);

/* Run a suite with the Check runner; returns the process exit code. */
int cctest_run_suite(Suite *s);
