/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/fileio.h"
#include "cc/rm-rf.h"
#include "cctest.h"

const char *cctest_source_dir(void)
{
	const char *e = getenv("CC_SOURCE_DIR");
	return e ? e : CC_SOURCE_DIR_DEFAULT;
}

const char *cctest_build_dir(void)
{
	const char *e = getenv("CC_BUILD_DIR");
	return e ? e : CC_BUILD_DIR_DEFAULT;
}

char *cctest_mkdtemp(void)
{
	char tmpl[] = "/tmp/cctest-XXXXXX";
	char *p = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(p);
	p = strdup(p);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* dir/rel into p (1024 bytes); fails the test when it does not fit. */
static void path_at(char p[static 1024], const char *dir, const char *rel)
{
	ck_assert_int_lt(snprintf(p, 1024, "%s/%s", dir, rel), 1024);
}

void cctest_mkdir_at(const char *dir, const char *rel)
{
	char p[1024];

	path_at(p, dir, rel);
	ck_assert_msg(mkdir(p, 0755) == 0, "cannot create %s", p);
}

void cctest_write_at(const char *dir, const char *rel, const char *s)
{
	char p[1024];
	FILE *f;

	path_at(p, dir, rel);
	f = fopen(p, "we");
	ck_assert_msg(f, "cannot create %s", p);
	ck_assert_int_ge(fputs(s, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

const char *cctest_read_at(const char *dir, const char *rel)
{
	static char *last;
	char p[1024];

	free(last);
	last = NULL;
	path_at(p, dir, rel);
	ck_assert_msg(read_full_file(p, 1 << 20, &last, NULL) >= 0, "cannot read %s", p);
	return last;
}

unsigned cctest_fds_on(pid_t pid, const char *path, bool prefix)
{
	char dir[64], link[512], dest[4200];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	(void) snprintf(dir, sizeof(dir), "/proc/%d/fd", (int) pid);
	d = opendir(dir);
	ck_assert_msg(d, "cannot list %s", dir);
	while ((de = readdir(d))) {
		ssize_t k;

		(void) snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		k = readlink(link, dest, sizeof(dest) - 1);
		if (k <= 0)
			continue;
		dest[k] = '\0';
		n += prefix ? strncmp(dest, path, strlen(path)) == 0 : strcmp(dest, path) == 0;
	}
	closedir(d);
	return n;
}

int cctest_rm_rf(const char *path)
{
	return rm_rf(path) < 0 ? -1 : 0;
}

/* Where a forked test records that it skipped (cctest_skip()), and the runner's pid. */
static char cctest_skip_marker[64];
static pid_t cctest_runner;

int cctest_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	bool skipped;
	int failed;

	cctest_runner = getpid();
	(void) snprintf(cctest_skip_marker, sizeof(cctest_skip_marker), "/tmp/cctest-skip.%d",
			(int) cctest_runner);
	(void) unlink(cctest_skip_marker);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	skipped = unlink(cctest_skip_marker) == 0;
	if (failed)
		return EXIT_FAILURE;
	return skipped ? 77 : EXIT_SUCCESS;
}

void cctest_skip(const char *fmt, ...)
{
	va_list ap;
	int fd;

	fputs("skipped: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* Before the suite runs, or with CK_FORK=no: the program itself is the test. */
	if (cctest_runner == 0 || getpid() == cctest_runner)
		exit(77);
	fd = open(cctest_skip_marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "cannot record the skip in %s: %m\n", cctest_skip_marker);
		_exit(1);
	}
	(void) close(fd);
	_exit(0);
}

void cctest_require_privileged(int ns_flags)
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		cctest_skip("needs root");
	pid = fork();
	if (pid == 0)
		_exit(unshare(ns_flags) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		cctest_skip("cannot create namespaces (unshare 0x%x)", ns_flags);
}

unsigned cctest_count_mappings(const void *lo, const void *hi, const char *needle)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024];
	unsigned n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a >= (uintptr_t) lo &&
		    b <= (uintptr_t) hi && strstr(line, needle))
			n++;
	}
	fclose(f);
	return n;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCTEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CCTEST_ASAN 1
#endif
#ifdef CCTEST_ASAN
/* ASan's allocator (libasan exports it; gcc ships no header for it). */
size_t __sanitizer_get_current_allocated_bytes(void);

size_t cctest_heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
#include <malloc.h>

size_t cctest_heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}
#endif

unsigned cctest_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}
