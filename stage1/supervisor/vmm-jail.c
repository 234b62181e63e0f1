/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/macro.h"
#include "pod-paths.h"
#include "userns.h"
#include "vmm-jail.h"

/* Where the jail's tmpfs is built, in the child's mount namespace only (every mount in it
 * is made before it is attached). */
#define JAIL_BUILD_DIR "/tmp"

/* How a mount of the jail is idmapped. */
enum jail_idmap {
	JAIL_IDMAP_NONE,
	/* A 9p export that shows host files: each owner keeps its host number in the VMM's
	 * namespace (the VMM's own map). */
	JAIL_IDMAP_HOST,
	/* A 9p export only the pod writes, and the host reads as root: what the guest's ids
	 * 0-65535 create there is owned on the host by VMM_JAIL_HOST_BASE.. (what they are
	 * anyway), never by host root, so that no file left there is setuid-root. */
	JAIL_IDMAP_POD,
	_JAIL_IDMAP_MAX,
};

struct jail_bind {
	const char *source; /* relative: to the pod dir; absolute: a host path */
	const char *target; /* in the jail */
	bool dir, ro;
	enum jail_idmap idmap;
};

/* The directories run makes in the JAIL_IDMAP_POD exports: their guest's root's. */
static const char *const jail_pod_dirs[] = {POD_GUEST_RKT_DIR, POD_GUEST_STATUS_DIR,
					    POD_JOURNAL_DIR};

/* The jail's layout, VMM_JAIL_N_TREES entries; a NULL source is left out. */
static void jail_binds(const struct vmm_jail *j, struct jail_bind *b)
{
	const struct jail_bind binds[VMM_JAIL_N_TREES] = {
		{j->vmm, VMM_JAIL_VMM, false, true, JAIL_IDMAP_NONE},
		{j->kernel, VMM_JAIL_KERNEL, false, true, JAIL_IDMAP_NONE},
		{j->image, VMM_JAIL_IMAGE, false, true, JAIL_IDMAP_NONE},
		{POD_LAYER_DIR, VMM_JAIL_LAYER, true, true, JAIL_IDMAP_HOST},
		/* The VMM's own (VMM_JAIL_HOST_ID's): not an export, not idmapped. */
		{POD_VM_DIR, VMM_JAIL_VM_DIR, true, false, JAIL_IDMAP_NONE},
		/* The apps' rootfs, and the host volumes mounted in them. */
		{POD_STAGE2_DIR, VMM_JAIL_STAGE2, true, false, JAIL_IDMAP_HOST},
		{POD_GUEST_RKT_DIR, VMM_JAIL_RKT, true, false, JAIL_IDMAP_POD},
		{POD_JOURNAL_DIR, VMM_JAIL_JOURNAL, true, false, JAIL_IDMAP_POD},
	};

	memcpy(b, binds, sizeof(binds));
}

int vmm_jail_map_build(const struct vmm_jail *j, bool gid, char *buf, size_t size)
{
	uint32_t seen[VMM_JAIL_EXTRA_IDS_MAX];
	size_t n_seen = 0, len;
	int n;

	n = snprintf(buf, size, "0 %u %u\n%u %u 1\n", j->idmapped ? VMM_JAIL_HOST_BASE : 0,
		     VMM_JAIL_NS_ID, VMM_JAIL_NS_ID, VMM_JAIL_HOST_ID);
	if (n < 0 || (size_t) n >= size)
		return -E2BIG;
	len = (size_t) n;
	for (size_t i = 0; i < j->n_hostvols; i++) {
		uint32_t id = gid ? j->hostvols[i].gid : j->hostvols[i].uid;
		bool dup = false;

		if (id < VMM_JAIL_NS_ID)
			continue;
		if (id == VMM_JAIL_NS_ID || id == VMM_JAIL_HOST_ID)
			return -ERANGE;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = seen[k] == id;
		if (dup)
			continue;
		if (n_seen >= VMM_JAIL_EXTRA_IDS_MAX)
			return -E2BIG;
		seen[n_seen++] = id;
		n = snprintf(buf + len, size - len, "%u %u 1\n", id,
			     j->idmapped ? VMM_JAIL_HOST_EXTRA + (uint32_t) (n_seen - 1) : id);
		if (n < 0 || (size_t) n >= size - len)
			return -E2BIG;
		len += (size_t) n;
	}
	return (int) len;
}

static int jail_map_write(pid_t child, const struct vmm_jail *j, bool gid)
{
	char path[64], map[2048];
	_cleanup_close_ int fd = -1;
	int n;

	n = vmm_jail_map_build(j, gid, map, sizeof(map));
	if (n < 0)
		return n;
	(void) snprintf(path, sizeof(path), "/proc/%d/%s", (int) child,
			gid ? "gid_map" : "uid_map");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One write: the kernel takes a map in a single write only. */
	if (write(fd, map, (size_t) n) != n)
		return -errno;
	return 0;
}

int vmm_jail_map(pid_t child, const struct vmm_jail *j)
{
	int r = jail_map_write(child, j, false);

	return r < 0 ? r : jail_map_write(child, j, true);
}

/* mkdir -p of an absolute path beneath root_fd (the fresh tmpfs: nothing to resolve). */
static int jail_mkdirs(int root_fd, const char *path, bool last_is_file)
{
	char buf[256];
	size_t len = strlen(path);

	if (len >= sizeof(buf) || path[0] != '/')
		return -EINVAL;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(root_fd, buf + 1, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (last_is_file) {
		int fd = openat(root_fd, buf + 1, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);

		if (fd < 0)
			return -errno;
		(void) close(fd);
		return 0;
	}
	return RET_NERRNO(mkdirat(root_fd, buf + 1, 0755));
}

/* The detached recursive bind of b (flags, and idmap when userns_fd >= 0) into *ret_tree. */
static int jail_tree_open(int pod_fd, const struct jail_bind *b, int userns_fd, int *ret_tree)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
	_cleanup_close_ int tree = -1;

	tree = open_tree(b->source[0] == '/' ? AT_FDCWD : pod_fd, b->source,
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
	if (tree < 0)
		return -errno;
	if (b->ro)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (userns_fd >= 0) {
		attr.attr_set |= MOUNT_ATTR_IDMAP;
		attr.userns_fd = (uint64_t) userns_fd;
	}
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return -errno;
	*ret_tree = TAKE_FD(tree);
	return 0;
}

void vmm_jail_trees_close(struct vmm_jail *j)
{
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		j->trees[i] = safe_close(j->trees[i]);
}

/* Every tree, the exports idmapped with userns_fds[their idmap] (none where it is -1). On
 * error, none, and *ret_failed is the bind that failed if it was to be idmapped (else -1). */
static int jail_trees_open_with(struct vmm_jail *j, int pod_fd, const int *userns_fds,
				int *ret_failed)
{
	struct jail_bind b[VMM_JAIL_N_TREES];
	int r = 0;

	jail_binds(j, b);
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		j->trees[i] = -1;
	for (size_t i = 0; r >= 0 && i < VMM_JAIL_N_TREES; i++) {
		if (!b[i].source)
			continue;
		r = jail_tree_open(pod_fd, &b[i], userns_fds[b[i].idmap], &j->trees[i]);
		*ret_failed = r < 0 && userns_fds[b[i].idmap] >= 0 ? (int) i : -1;
	}
	if (r < 0)
		vmm_jail_trees_close(j);
	return r;
}

/* The JAIL_IDMAP_POD exports' directories to the guest's root (run made them as host root,
 * whom their idmap does not map). */
static int jail_pod_dirs_chown(int pod_fd)
{
	for (size_t i = 0; i < sizeof(jail_pod_dirs) / sizeof(jail_pod_dirs[0]); i++) {
		_cleanup_close_ int fd =
			beneath_open(pod_fd, jail_pod_dirs[i], O_RDONLY | O_DIRECTORY, S_IFDIR);

		if (fd < 0)
			return fd;
		if (fchown(fd, VMM_JAIL_HOST_BASE, VMM_JAIL_HOST_BASE) < 0)
			return -errno;
	}
	return 0;
}

/* Whether r, of the idmapped bind failed (-1: none), is an idmap the filesystem refuses. */
static bool jail_idmap_refused(int r, int failed)
{
	return failed >= 0 && (r == -EINVAL || r == -EOPNOTSUPP || r == -ENOSYS);
}

/*
 * One try: the host exports idmapped with the VMM's map when j->idmapped (else plain, the map
 * then the identity), the pod's exports with theirs when pod (on disk VMM_JAIL_HOST_BASE..,
 * whichever the VMM's map).
 */
static int jail_trees_try(struct vmm_jail *j, int pod_fd, bool pod, int *ret_failed)
{
	char uid_map[2048], gid_map[2048], pod_map[128];
	int userns_fds[_JAIL_IDMAP_MAX] = {-1, -1, -1};
	int r = 0;

	*ret_failed = -1;
	if (j->idmapped) {
		r = vmm_jail_map_build(j, false, uid_map, sizeof(uid_map));
		if (r >= 0)
			r = vmm_jail_map_build(j, true, gid_map, sizeof(gid_map));
		if (r >= 0)
			r = userns_fds[JAIL_IDMAP_HOST] = userns_open(uid_map, gid_map);
	}
	if (r >= 0 && pod) {
		/* The guest's ids at VMM_JAIL_HOST_BASE.. on disk; and the VMM's own id as it is:
		 * the 9p server creates a node as itself before it gives it the guest's owner. */
		(void) snprintf(pod_map, sizeof(pod_map), "%u %u %u\n%u %u 1\n", VMM_JAIL_HOST_BASE,
				j->idmapped ? VMM_JAIL_HOST_BASE : 0, VMM_JAIL_NS_ID,
				VMM_JAIL_HOST_ID, VMM_JAIL_HOST_ID);
		r = userns_fds[JAIL_IDMAP_POD] = userns_open(pod_map, pod_map);
	}
	if (r >= 0)
		r = jail_trees_open_with(j, pod_fd, userns_fds, ret_failed);
	if (r >= 0 && pod) {
		r = jail_pod_dirs_chown(pod_fd);
		if (r < 0)
			vmm_jail_trees_close(j);
	}
	safe_close(userns_fds[JAIL_IDMAP_HOST]);
	safe_close(userns_fds[JAIL_IDMAP_POD]);
	return r;
}

int vmm_jail_trees_open(struct vmm_jail *j, int pod_fd)
{
	int r, failed;

	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		j->trees[i] = -1;
	/* All idmapped (its map checks every volume owner, as the identity map would: an
	 * unmappable one fails here, before any fallback); then the pod's exports only (rkt's
	 * overlayfs app rootfs cannot be idmapped, Linux < 6.3 tmpfs neither); then none, with why.
	 */
	j->idmapped = j->pod_idmapped = true;
	j->idmap_error = 0;
	r = jail_trees_try(j, pod_fd, true, &failed);
	if (r >= 0 || !jail_idmap_refused(r, failed))
		return r;
	j->idmapped = false;
	j->idmap_error = r;
	r = jail_trees_try(j, pod_fd, true, &failed);
	if (r >= 0 || !jail_idmap_refused(r, failed))
		return r;
	j->pod_idmapped = false;
	return jail_trees_try(j, pod_fd, false, &failed);
}

static int jail_build(const struct vmm_jail *j)
{
	struct jail_bind binds[VMM_JAIL_N_TREES];
	_cleanup_close_ int root_fd = -1;
	int r;

	jail_binds(j, binds);
	if (mount("tmpfs", JAIL_BUILD_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0755,size=64k,nr_inodes=64") < 0)
		return -errno;
	root_fd = open(JAIL_BUILD_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++) {
		if (!binds[i].source)
			continue;
		if (j->trees[i] < 0)
			return -EBADF;
		r = jail_mkdirs(root_fd, binds[i].target, !binds[i].dir);
		if (r < 0)
			return r;
		if (move_mount(j->trees[i], "", root_fd, binds[i].target + 1,
			       MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return -errno;
	}
	/* The 9p server reopens files through /proc/self/fd: a procfs of the VMM's own PID
	 * namespace, process directories only. */
	r = jail_mkdirs(root_fd, "/proc", false);
	if (r < 0)
		return r;
	if (mount("proc", JAIL_BUILD_DIR "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "subset=pid") < 0)
		return -errno;
	/* The skeleton itself read-only; the binds keep their own flags. */
	return RET_NERRNO(mount(NULL, JAIL_BUILD_DIR, NULL,
				MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
				NULL));
}

static int jail_pivot(void)
{
	if (chdir(JAIL_BUILD_DIR) < 0)
		return -errno;
	/* The old root ends up stacked on the new one, and is detached at once. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return -errno;
	if (umount2(".", MNT_DETACH) < 0)
		return -errno;
	return RET_NERRNO(chdir("/"));
}

/*
 * Become VMM_JAIL_NS_ID (the host's VMM_JAIL_HOST_ID) with caps as permitted, inheritable and
 * ambient capabilities (in the user namespace): a plain exec keeps exactly those.
 */
static int jail_drop_ids(uint64_t caps)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {};

	if (setgroups(0, NULL) < 0 ||
	    setresgid(VMM_JAIL_NS_ID, VMM_JAIL_NS_ID, VMM_JAIL_NS_ID) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    setresuid(VMM_JAIL_NS_ID, VMM_JAIL_NS_ID, VMM_JAIL_NS_ID) < 0)
		return -errno;
	for (unsigned i = 0; i < 2; i++)
		d[i].effective = d[i].permitted = d[i].inheritable = (uint32_t) (caps >> (32 * i));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	for (unsigned c = 0; c < 64; c++)
		if ((caps & (1ull << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long) c, 0, 0) < 0)
			return -errno;
	return 0;
}

int vmm_jail_enter(const struct vmm_jail *j)
{
	int r;

	/* Root of the namespace first: with the exports idmapped, run's own ids (host root's)
	 * are not mapped here, and the jail's files could not be created. Capabilities stay. */
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		return -errno;
	/* Nothing mounted here propagates back to run's namespace (or the host's). */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	r = jail_build(j);
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		safe_close(j->trees[i]);
	if (r < 0)
		return r;
	r = jail_pivot();
	if (r < 0)
		return r;
	return jail_drop_ids(j->caps);
}

bool vmm_jail_wanted(void)
{
	const char *e = secure_getenv("CC_STAGE1_VMM_JAIL");

	return !e || strcmp(e, "0") != 0;
}

int vmm_jail_prepare_pod(int pod_fd)
{
	_cleanup_close_ int vm_fd = -1;

	if (mkdirat(pod_fd, POD_VM_DIR, 0700) < 0 && errno != EEXIST)
		return -errno;
	/* The VMM's own: with the exports idmapped, host root's inodes are not its to write. */
	vm_fd = openat(pod_fd, POD_VM_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (vm_fd < 0)
		return -errno;
	if (fchown(vm_fd, VMM_JAIL_HOST_ID, VMM_JAIL_HOST_ID) < 0 || fchmod(vm_fd, 0700) < 0)
		return -errno;
	/* enter and stop connect to POD_VSOCK_PATH; a stale link or socket goes first. */
	(void) unlinkat(pod_fd, POD_VSOCK_PATH, 0);
	(void) unlinkat(pod_fd, POD_VM_VSOCK, 0);
	return RET_NERRNO(symlinkat("vm/vsock", pod_fd, POD_VSOCK_PATH));
}
