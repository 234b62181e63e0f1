/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The jail's mounts (vmm-jail.h, vmm_jail_trees_open()): on a filesystem that can be idmapped,
 * the 9p exports that show host files have host root's at VMM_JAIL_HOST_BASE (their owner in
 * the VMM's namespace is their host number; host root itself is not mapped there), the pod's
 * own exports map no host id but VMM_JAIL_HOST_BASE.. (run's directories there become the
 * guest root's), and the VMM's own files are as they are; on one that cannot (ramfs), plain binds
 * and an identity map, with the reason. Each test in a private mount namespace of its own (root;
 * skipped without).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "pod-paths.h"
#include "vmm-jail.h"

static const char *const pod_dirs[] = {
	"cc",
	POD_LAYER_DIR,
	POD_VM_DIR,
	"stage1",
	"stage1/rootfs",
	"stage1/rootfs/opt",
	POD_STAGE2_DIR,
	POD_GUEST_DIR,
	POD_GUEST_RKT_DIR,
	POD_GUEST_STATUS_DIR,
	POD_JOURNAL_DIR,
};

static void chown_at(const char *dir, const char *rel, uid_t id)
{
	char path[4096];

	(void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(chown(path, id, id), 0);
}

/* The current test's pod dir and the fd on it, for the teardown. */
static char *pod_dir_now;
static int pod_fd_now = -1;

/* A pod dir on a fresh fstype mount in a private mount namespace; *ret_fd on it. */
static char *pod_on(const char *fstype, int *ret_fd)
{
	char *dir = pod_dir_now = cctest_mkdtemp();

	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount(fstype, dir, fstype, 0, NULL), 0);
	for (size_t i = 0; i < sizeof(pod_dirs) / sizeof(pod_dirs[0]); i++)
		cctest_mkdir_at(dir, pod_dirs[i]);
	cctest_write_at(dir, POD_STAGE2_DIR "/root-file", "x");
	cctest_write_at(dir, POD_GUEST_RKT_DIR "/root-file", "x");
	/* What the VMM's 9p server creates as itself, before it gives the node its owner. */
	cctest_write_at(dir, POD_GUEST_RKT_DIR "/vmm-file", "x");
	chown_at(dir, POD_GUEST_RKT_DIR "/vmm-file", VMM_JAIL_HOST_ID);
	cctest_write_at(dir, "vmm", "");
	*ret_fd = pod_fd_now = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(*ret_fd, 0);
	return dir;
}

/* The mount (and what tests attached in it) detached, the directory removed. */
static void pod_teardown(void)
{
	if (!pod_dir_now)
		return;
	pod_fd_now = safe_close(pod_fd_now);
	(void) umount2(pod_dir_now, MNT_DETACH);
	(void) cctest_rm_rf(pod_dir_now);
	pod_dir_now = mfree(pod_dir_now);
}

static void jail_init(struct vmm_jail *j, const char *dir)
{
	static char vmm[4096];

	(void) snprintf(vmm, sizeof(vmm), "%s/vmm", dir);
	*j = (struct vmm_jail){.vmm = vmm};
}

/* The owner the host sees of rel in the directory tree (attached at a fresh mount point). */
static void tree_owner(int tree, const char *dir, const char *rel, uid_t *ret_uid)
{
	char at[4096];
	struct stat st;

	(void) snprintf(at, sizeof(at), "%s/mnt-%d", dir, tree);
	ck_assert_int_eq(mkdir(at, 0700), 0);
	ck_assert_int_eq(move_mount(tree, "", AT_FDCWD, at, MOVE_MOUNT_F_EMPTY_PATH), 0);
	(void) snprintf(at + strlen(at), sizeof(at) - strlen(at), "/%s", rel);
	ck_assert_int_eq(lstat(at, &st), 0);
	*ret_uid = st.st_uid;
}

static uid_t stat_uid(const char *dir, const char *rel)
{
	char path[4096];
	struct stat st;

	(void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_uid;
}

/* The owner the host sees of rel in a tree tree_owner() attached already. */
static uid_t attached_uid(const char *dir, int tree, const char *rel)
{
	char path[4096];

	(void) snprintf(path, sizeof(path), "mnt-%d/%s", tree, rel);
	return stat_uid(dir, path);
}

static bool kernel_idmaps_tmpfs(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	ck_assert_int_eq(uname(&u), 0);
	(void) sscanf(u.release, "%u.%u", &major, &minor);
	return major > 6 || (major == 6 && minor >= 3);
}

/* tmpfs (Linux >= 6.3): the exports idmapped; else the fallback, as on ramfs below. */
START_TEST(test_trees_idmapped)
{
	struct vmm_jail j;
	char map[2048];
	uid_t uid;
	int pod_fd;
	char *dir = pod_on("tmpfs", &pod_fd);

	jail_init(&j, dir);
	ck_assert_int_eq(vmm_jail_trees_open(&j, pod_fd), 0);
	if (!kernel_idmaps_tmpfs()) {
		ck_assert(!j.idmapped);
		ck_assert_int_eq(j.idmap_error, -EINVAL);
		vmm_jail_trees_close(&j);
		return;
	}
	ck_assert(j.idmapped && j.pod_idmapped);
	ck_assert_int_gt(vmm_jail_map_build(&j, false, map, sizeof(map)), 0);
	ck_assert_str_eq(map, "0 2146500608 65536\n65536 2146435072 1\n");
	/* The VMM's own directory: as it is. */
	ck_assert_int_ge(j.trees[0], 0);
	tree_owner(j.trees[4], dir, "", &uid);
	ck_assert_uint_eq(uid, 0);
	/* An export: host root's file at the namespace's 0. */
	tree_owner(j.trees[5], dir, "root-file", &uid);
	ck_assert_uint_eq(uid, VMM_JAIL_HOST_BASE);
	/* The pod's own exports: host root unmapped (the kernel's overflow id); the directories
	 * run made there are the guest root's, host id VMM_JAIL_HOST_BASE on disk and seen. */
	tree_owner(j.trees[6], dir, "root-file", &uid);
	ck_assert_uint_eq(uid, 65534);
	ck_assert_uint_eq(attached_uid(dir, j.trees[6], "vmm-file"), VMM_JAIL_HOST_ID);
	tree_owner(j.trees[7], dir, "", &uid);
	ck_assert_uint_eq(uid, VMM_JAIL_HOST_BASE);
	ck_assert_uint_eq(stat_uid(dir, POD_GUEST_STATUS_DIR), VMM_JAIL_HOST_BASE);
	/* No kernel, no image: no tree. */
	ck_assert_int_eq(j.trees[1], -1);
	ck_assert_int_eq(j.trees[2], -1);
	vmm_jail_trees_close(&j);
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		ck_assert_int_eq(j.trees[i], -1);
}
END_TEST

/* ramfs cannot be idmapped: plain binds, host ids as they are, and why. */
START_TEST(test_trees_fallback)
{
	struct vmm_jail j;
	char map[2048];
	uid_t uid;
	int pod_fd;
	char *dir = pod_on("ramfs", &pod_fd);

	jail_init(&j, dir);
	ck_assert_int_eq(vmm_jail_trees_open(&j, pod_fd), 0);
	ck_assert(!j.idmapped && !j.pod_idmapped);
	ck_assert_int_eq(j.idmap_error, -EINVAL);
	ck_assert_int_gt(vmm_jail_map_build(&j, false, map, sizeof(map)), 0);
	ck_assert_str_eq(map, "0 0 65536\n65536 2146435072 1\n");
	tree_owner(j.trees[5], dir, "root-file", &uid);
	ck_assert_uint_eq(uid, 0);
	ck_assert_uint_eq(stat_uid(dir, POD_GUEST_STATUS_DIR), 0);
	vmm_jail_trees_close(&j);
}
END_TEST

/* rkt's overlayfs app rootfs cannot be idmapped: the host exports plain, the pod's own exports
 * still idmapped (their directories the guest root's, host root unmapped there). */
START_TEST(test_trees_overlay)
{
	struct vmm_jail j;
	char path[4096], opts[4096 * 3];
	uid_t uid;
	int pod_fd;
	char *dir = pod_on("tmpfs", &pod_fd);

	if (!kernel_idmaps_tmpfs())
		return; /* nothing idmaps: test_trees_fallback's case */
	for (size_t i = 0; i < 3; i++)
		cctest_mkdir_at(dir, (const char *[]){"l", "u", "w"}[i]);
	(void) snprintf(opts, sizeof(opts), "lowerdir=%s/l,upperdir=%s/u,workdir=%s/w", dir, dir,
			dir);
	(void) snprintf(path, sizeof(path), "%s/" POD_STAGE2_DIR, dir);
	ck_assert_int_eq(mount("overlay", path, "overlay", 0, opts), 0);
	jail_init(&j, dir);
	ck_assert_int_eq(vmm_jail_trees_open(&j, pod_fd), 0);
	ck_assert(!j.idmapped);
	ck_assert(j.pod_idmapped);
	ck_assert_int_eq(j.idmap_error, -EINVAL);
	tree_owner(j.trees[6], dir, "root-file", &uid);
	ck_assert_uint_eq(uid, 65534);
	ck_assert_uint_eq(attached_uid(dir, j.trees[6], "vmm-file"), VMM_JAIL_HOST_ID);
	/* The guest root's, on disk VMM_JAIL_HOST_BASE: the VMM's (and the host's) 0 here. */
	ck_assert_uint_eq(attached_uid(dir, j.trees[6], "status"), 0);
	ck_assert_uint_eq(stat_uid(dir, POD_GUEST_STATUS_DIR), VMM_JAIL_HOST_BASE);
	vmm_jail_trees_close(&j);
}
END_TEST

/* A missing part of the pod: an error, and nothing left open. */
START_TEST(test_trees_missing)
{
	unsigned fds = cctest_count_fds();
	struct vmm_jail j;
	char path[4096];
	int pod_fd;
	char *dir = pod_on("tmpfs", &pod_fd);

	jail_init(&j, dir);
	(void) snprintf(path, sizeof(path), "%s/" POD_JOURNAL_DIR, dir);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(vmm_jail_trees_open(&j, pod_fd), -ENOENT);
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		ck_assert_int_eq(j.trees[i], -1);
	ck_assert_uint_eq(cctest_count_fds(), fds + 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-vmm-jail-trees");
	TCase *tc = tcase_create("trees");

	tcase_add_checked_fixture(tc, NULL, pod_teardown);
	tcase_add_test(tc, test_trees_idmapped);
	tcase_add_test(tc, test_trees_fallback);
	tcase_add_test(tc, test_trees_overlay);
	tcase_add_test(tc, test_trees_missing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(CLONE_NEWNS | CLONE_NEWUSER);
	return cctest_run_suite(suite());
}
