/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VMM's cgroup (vmm-cgroup.h) against a fake cgroup2 root: a temporary directory laid
 * out as the kernel lays out cgroupfs (cgroup.controllers, cgroup.subtree_control, the
 * controllers' files), passed as the root fd. Creation delegates the controllers from the
 * root down and writes the bound; a leftover with processes, a missing controller, a symlink
 * and an error half-way are handled as documented; removal kills (cgroup.kill, or SIGKILL to
 * cgroup.procs) and waits; cgroup records in cc/resources (gc's input) are checked and removed
 * through the same code. Removal down to the rmdir needs the real cgroupfs: that part is
 * tested by test-run-vmm-bound on the host's hierarchy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "pod-resources.h"
#include "vmm-cgroup.h"

#define MIB (UINT64_C(1) << 20)

static char *tmp;
static int root_fd = -1;
static const struct vmm_bound bound = {.memory_max = 196 * MIB, .pids_max = 17};

/* A fake cgroup at tmp/root/rel ("" for the root) whose parent offers controllers. */
static void fake_cgroup(const char *rel, const char *controllers)
{
	char dir[PATH_MAX];

	(void) snprintf(dir, sizeof(dir), "root%s%s", *rel ? "/" : "", rel);
	cctest_mkdir_at(tmp, dir);
	(void) snprintf(dir, sizeof(dir), "%s/root%s%s", tmp, *rel ? "/" : "", rel);
	cctest_write_at(dir, "cgroup.controllers", controllers);
	cctest_write_at(dir, "cgroup.subtree_control", "");
	cctest_write_at(dir, "cgroup.procs", "");
	cctest_write_at(dir, "cgroup.events", "populated 0\nfrozen 0\n");
	cctest_write_at(dir, "cgroup.kill", "");
	cctest_write_at(dir, "memory.max", "max\n");
	cctest_write_at(dir, "memory.swap.max", "max\n");
	cctest_write_at(dir, "memory.oom.group", "0\n");
	cctest_write_at(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	cctest_write_at(dir, "pids.max", "max\n");
}

/* The first line of tmp/root/rel. */
static const char *line_at(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX];

	(void) snprintf(path, sizeof(path), "root/%s", rel);
	(void) snprintf(buf, sizeof(buf), "%s", cctest_read_at(tmp, path));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void setup(void)
{
	char path[PATH_MAX];

	tmp = cctest_mkdtemp();
	fake_cgroup("", "cpuset cpu io memory hugetlb pids rdma misc\n");
	(void) snprintf(path, sizeof(path), "%s/root", tmp);
	root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
	root_fd = safe_close(root_fd);
	cctest_rm_rf(tmp);
	free(tmp);
}

START_TEST(test_path_valid)
{
	static const char *const good[] = {
		"x",	 "clear-containers/0123abcd-4567-89ef-0123-456789abcdef",
		"a/b/c", "a.b/_c-d",
		"...",	 "a/..b"};
	static const char *const bad[] = {
		"",
		"/a",
		"a/",
		"a//b",
		".",
		"..",
		"a/../b",
		"a/./b",
		"../x",
		"a b",
		"a\nb",
		"a/b\\c",
		"caf\xc3\xa9",
		"0123456789012345678901234567890123456789012345678901234567890123456789"};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		ck_assert_msg(vmm_cgroup_path_valid(good[i]), "refused %s", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(!vmm_cgroup_path_valid(bad[i]), "accepted %s", bad[i]);
	ck_assert(!vmm_cgroup_path_valid(NULL));
}
END_TEST

START_TEST(test_create_writes_the_bound)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};
	uint64_t kills = 99;

	fake_cgroup("p", "memory pids\n");
	fake_cgroup("p/pod", "memory pids\n");
	ASSERT_OK(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err));
	ck_assert(cg.memory && cg.swap && cg.pids);
	ck_assert_str_eq(cg.path, "p/pod");
	/* Delegated from the root down, in one write each; the leaf delegates nothing. */
	ck_assert_str_eq(line_at("cgroup.subtree_control"), "+memory +pids");
	ck_assert_str_eq(line_at("p/cgroup.subtree_control"), "+memory +pids");
	ck_assert_str_eq(line_at("p/pod/cgroup.subtree_control"), "");
	ck_assert_str_eq(line_at("p/pod/memory.max"), "205520896");
	ck_assert_str_eq(line_at("p/pod/memory.swap.max"), "0");
	ck_assert_str_eq(line_at("p/pod/memory.oom.group"), "1");
	ck_assert_str_eq(line_at("p/pod/pids.max"), "17");

	ASSERT_OK(vmm_cgroup_attach(&cg, 4242));
	ck_assert_str_eq(line_at("p/pod/cgroup.procs"), "4242");
	ASSERT_OK(vmm_cgroup_oom_kills(cg.dir_fd, &kills));
	ck_assert_uint_eq(kills, 0);
	cctest_write_at(tmp, "root/p/pod/memory.events",
			"low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n");
	ASSERT_OK(vmm_cgroup_oom_kills(cg.dir_fd, &kills));
	ck_assert_uint_eq(kills, 2);
	cctest_write_at(tmp, "root/p/pod/memory.events", "oom_kill x\n");
	ASSERT_ERRNO(vmm_cgroup_oom_kills(cg.dir_fd, &kills), EBADMSG);
	vmm_cgroup_done(&cg);
	ck_assert_int_eq(cg.dir_fd, -1);
}
END_TEST

START_TEST(test_create_keeps_what_is_enabled)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};

	/* systemd's root: both controllers on already; p has memory on, pids not. */
	cctest_write_at(tmp, "root/cgroup.subtree_control", "cpu memory pids\n");
	fake_cgroup("p", "memory pids\n");
	cctest_write_at(tmp, "root/p/cgroup.subtree_control", "memory\n");
	fake_cgroup("p/pod", "memory pids\n");
	ASSERT_OK(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err));
	ck_assert_str_eq(line_at("cgroup.subtree_control"), "cpu memory pids");
	ck_assert_str_eq(line_at("p/cgroup.subtree_control"), "+pidsy");
	vmm_cgroup_done(&cg);
}
END_TEST

START_TEST(test_no_memory_controller)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};

	/* A systemd "hybrid" host: memory is a v1 controller, the v2 root does not offer it. */
	cctest_write_at(tmp, "root/cgroup.controllers", "hugetlb\n");
	fake_cgroup("p", "");
	fake_cgroup("p/pod", "");
	ASSERT_OK(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err));
	ck_assert(!cg.memory && !cg.swap && !cg.pids);
	ck_assert_str_eq(line_at("cgroup.subtree_control"), "");
	ck_assert_str_eq(line_at("p/pod/memory.max"), "max");
	ck_assert_str_eq(line_at("p/pod/pids.max"), "max");
	ASSERT_OK(vmm_cgroup_attach(&cg, 4242));
	vmm_cgroup_done(&cg);
}
END_TEST

START_TEST(test_no_swap_accounting)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};

	fake_cgroup("p", "memory pids\n");
	fake_cgroup("p/pod", "memory pids\n");
	ck_assert_int_eq(unlinkat(root_fd, "p/pod/memory.swap.max", 0), 0);
	ASSERT_OK(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err));
	ck_assert(cg.memory && !cg.swap && cg.pids);
	vmm_cgroup_done(&cg);
}
END_TEST

START_TEST(test_leftover_with_processes)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};

	fake_cgroup("p", "memory pids\n");
	fake_cgroup("p/pod", "memory pids\n");
	cctest_write_at(tmp, "root/p/pod/cgroup.procs", "4242\n");
	ASSERT_ERRNO(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err), EBUSY);
	ck_assert_str_eq(err.msg, "cgroup p/pod exists and holds processes");
	ck_assert_int_eq(cg.dir_fd, -1);
	/* Not ours to remove, not ours to change. */
	ck_assert_str_eq(line_at("p/pod/memory.max"), "max");
}
END_TEST

START_TEST(test_error_removes_what_it_made)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};
	struct stat st;

	/* A directory without the kernel's files: the first read fails, the new dir goes. */
	fake_cgroup("p", "memory pids\n");
	ASSERT_ERRNO(vmm_cgroup_create(root_fd, "p/new", &bound, &cg, &err), ENOENT);
	ck_assert_msg(strstr(err.msg, "cgroup p/new: cannot read cgroup.controllers") == err.msg,
		      "%s", err.msg);
	ck_assert_int_eq(fstatat(root_fd, "p/new", &st, AT_SYMLINK_NOFOLLOW), -1);
	ck_assert_int_eq(errno, ENOENT);
	/* Parents are made on the way (a fresh host): then the same failure. */
	ASSERT_ERRNO(vmm_cgroup_create(root_fd, "q/new", &bound, &cg, &err), ENOENT);
	ck_assert_str_eq(line_at("cgroup.subtree_control"), "+memory +pids");
	ck_assert_int_eq(fstatat(root_fd, "q", &st, 0), 0);
	ck_assert_int_eq(fstatat(root_fd, "q/new", &st, 0), -1);
	ASSERT_ERRNO(vmm_cgroup_create(root_fd, "../p", &bound, &cg, &err), EINVAL);
}
END_TEST

START_TEST(test_symlink_never_followed)
{
	struct vmm_cgroup cg = VMM_CGROUP_NULL;
	struct cc_error err = {};
	char target[PATH_MAX];
	struct stat st;

	/* Another cgroup tree (or any directory), reached through a symlink in the root. */
	fake_cgroup("elsewhere", "memory pids\n");
	fake_cgroup("elsewhere/pod", "memory pids\n");
	(void) snprintf(target, sizeof(target), "%s/root/elsewhere", tmp);
	ck_assert_int_eq(symlinkat(target, root_fd, "p"), 0);
	ASSERT_ERRNO(vmm_cgroup_create(root_fd, "p/pod", &bound, &cg, &err), ELOOP);
	ck_assert_str_eq(line_at("elsewhere/pod/memory.max"), "max");
	ck_assert_str_eq(line_at("elsewhere/cgroup.subtree_control"), "");
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "p/pod", 100), ELOOP);
	ck_assert_str_eq(line_at("elsewhere/pod/cgroup.kill"), "");
	ck_assert_int_eq(fstatat(root_fd, "elsewhere/pod", &st, 0), 0);
}
END_TEST

START_TEST(test_remove_missing_or_invalid)
{
	fake_cgroup("p", "memory pids\n");
	ASSERT_OK(vmm_cgroup_remove(root_fd, "p/none", 100));
	ASSERT_OK(vmm_cgroup_remove(root_fd, "none/none", 100));
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "../p", 100), EINVAL);
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "/p", 100), EINVAL);
}
END_TEST

START_TEST(test_remove_kills_and_waits)
{
	int st;
	pid_t pid;
	char buf[32];

	fake_cgroup("p", "memory pids\n");
	fake_cgroup("p/pod", "memory pids\n");
	/* Still populated after the kill (a fake): cgroup.kill written, then a timeout. */
	cctest_write_at(tmp, "root/p/pod/cgroup.events", "populated 1\nfrozen 0\n");
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "p/pod", 50), ETIMEDOUT);
	ck_assert_str_eq(line_at("p/pod/cgroup.kill"), "1");

	/* A kernel before 5.14 (no cgroup.kill): SIGKILL to each process of cgroup.procs. */
	ck_assert_int_eq(unlinkat(root_fd, "p/pod/cgroup.kill", 0), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	(void) snprintf(buf, sizeof(buf), "%d\n", (int) pid);
	cctest_write_at(tmp, "root/p/pod/cgroup.procs", buf);
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "p/pod", 50), ETIMEDOUT);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cctest_write_at(tmp, "root/p/pod/cgroup.procs", "12x\n");
	ASSERT_ERRNO(vmm_cgroup_remove(root_fd, "p/pod", 50), EBADMSG);
}
END_TEST

/* gc's input: cgroup records in cc/resources, removed through pod_resource_remove(). */
START_TEST(test_record)
{
	static const char rec[] = "netns cc-x\ncgroup clear-containers/0123abcd-4567-89ef-0123-"
				  "456789abcdef\n";
	_cleanup_free_ struct pod_resource *res = NULL;
	char root[PATH_MAX], target[PATH_MAX];
	struct pod_resource r = {.kind = POD_RESOURCE_CGROUP};
	unsigned line = 0;
	size_t n = 0;

	ASSERT_OK(pod_resources_parse(rec, sizeof(rec) - 1, &res, &n, &line));
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(res[1].kind, POD_RESOURCE_CGROUP);
	ck_assert_str_eq(res[1].name, "clear-containers/0123abcd-4567-89ef-0123-456789abcdef");
	ck_assert_str_eq(pod_resource_kind_to_string(POD_RESOURCE_CGROUP), "cgroup");
	ASSERT_ERRNO(pod_resources_parse("cgroup ../../etc\n", 17, &res, &n, &line), EBADMSG);
	ASSERT_ERRNO(pod_resources_parse("cgroup /sys/fs/cgroup\n", 22, &res, &n, &line), EBADMSG);
	ASSERT_ERRNO(pod_resources_append(AT_FDCWD, POD_RESOURCE_CGROUP, "a/../b"), EINVAL);

	/* Removal under the root gc finds ($CC_STAGE1_CGROUP_ROOT here): gone is removed. */
	(void) snprintf(root, sizeof(root), "%s/root", tmp);
	ck_assert_int_eq(setenv("CC_STAGE1_CGROUP_ROOT", root, 1), 0);
	(void) snprintf(r.name, sizeof(r.name), "p/none");
	ASSERT_OK(pod_resource_remove(&r));
	/* A symlink in the recorded path is not followed. */
	fake_cgroup("elsewhere", "memory pids\n");
	fake_cgroup("elsewhere/pod", "memory pids\n");
	(void) snprintf(target, sizeof(target), "%s/root/elsewhere", tmp);
	ck_assert_int_eq(symlinkat(target, root_fd, "p"), 0);
	(void) snprintf(r.name, sizeof(r.name), "p/pod");
	ASSERT_ERRNO(pod_resource_remove(&r), ELOOP);
	ck_assert_str_eq(line_at("elsewhere/pod/cgroup.kill"), "");
	(void) snprintf(r.name, sizeof(r.name), "p/../x");
	ASSERT_ERRNO(pod_resource_remove(&r), EINVAL);
	ck_assert_int_eq(unsetenv("CC_STAGE1_CGROUP_ROOT"), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-cgroup");
	TCase *tc = tcase_create("fake-root");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_path_valid);
	tcase_add_test(tc, test_create_writes_the_bound);
	tcase_add_test(tc, test_create_keeps_what_is_enabled);
	tcase_add_test(tc, test_no_memory_controller);
	tcase_add_test(tc, test_no_swap_accounting);
	tcase_add_test(tc, test_leftover_with_processes);
	tcase_add_test(tc, test_error_removes_what_it_made);
	tcase_add_test(tc, test_symlink_never_followed);
	tcase_add_test(tc, test_remove_missing_or_invalid);
	tcase_add_test(tc, test_remove_kills_and_waits);
	tcase_add_test(tc, test_record);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
