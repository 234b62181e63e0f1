/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "vmm-cgroup.h"

/* Control files are short; cgroup.procs of a leftover cgroup is the longest we read. */
#define CG_FILE_MAX (64u * 1024u)

static const char *const controllers[] = {"memory", "pids"};

bool vmm_cgroup_path_valid(const char *path)
{
	size_t n = path ? strlen(path) : 0, comp = 0;

	if (n == 0 || n > VMM_CGROUP_PATH_MAX || path[0] == '/' || path[n - 1] == '/')
		return false;
	for (size_t i = 0; i <= n; i++) {
		char ch = path[i];

		if (ch == '/' || ch == '\0') {
			/* Empty, "." and ".." components. */
			if (comp == 0 || (comp <= 2 && strncmp(path + i - comp, "..", comp) == 0))
				return false;
			comp = 0;
			continue;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.'))
			return false;
		comp++;
	}
	return true;
}

/* openat2 beneath dir_fd, no symlinks at all; O_NOFOLLOW openat where there is no openat2. */
static int open_beneath(int dir_fd, const char *path, int flags)
{
	struct open_how how = {
		/* openat2() refuses O_PATH with any flag beyond O_DIRECTORY and O_CLOEXEC. */
		.flags = (uint64_t) (flags | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY)),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int) syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		fd = openat(dir_fd, path, (int) how.flags | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

static int file_read(int dir_fd, const char *name, char **ret)
{
	_cleanup_close_ int fd = -1;

	fd = open_beneath(dir_fd, name, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	return read_full_fd(fd, CG_FILE_MAX, ret, NULL);
}

/* One write() of s: a cgroup control file takes one value per write. */
static int file_write(int dir_fd, const char *name, const char *s)
{
	_cleanup_close_ int fd = -1;
	ssize_t n;

	fd = open_beneath(dir_fd, name, O_WRONLY);
	if (fd < 0)
		return fd;
	n = write(fd, s, strlen(s));
	if (n < 0)
		return -errno;
	return (size_t) n == strlen(s) ? 0 : -EIO;
}

static int file_write_u64(int dir_fd, const char *name, uint64_t v)
{
	char buf[24];

	(void) snprintf(buf, sizeof(buf), "%" PRIu64 "\n", v);
	return file_write(dir_fd, name, buf);
}

/* Whether word is one of the space-separated words of list. */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Enable for the children of the cgroup dir_fd (called name) what it offers of ours. */
static int controllers_delegate(int dir_fd, const char *name, struct cc_error *err)
{
	_cleanup_free_ char *avail = NULL, *enabled = NULL;
	char ops[32];
	size_t n = 0;
	int r;

	r = file_read(dir_fd, "cgroup.controllers", &avail);
	if (r >= 0)
		r = file_read(dir_fd, "cgroup.subtree_control", &enabled);
	if (r < 0)
		return cc_error_set(err, r, "cgroup %s: cannot read its controllers: %m", name);
	for (size_t i = 0; i < ARRAY_SIZE(controllers); i++)
		if (word_in(avail, controllers[i]) && !word_in(enabled, controllers[i]))
			n += (size_t) snprintf(ops + n, sizeof(ops) - n, "%s+%s", n ? " " : "",
					       controllers[i]);
	if (n == 0)
		return 0;
	/* One write for all: the kernel takes a space-separated list. */
	r = file_write(dir_fd, "cgroup.subtree_control", ops);
	if (r < 0)
		return cc_error_set(err, r,
				    "cgroup %s: cannot enable %s for its children (a cgroup that "
				    "holds processes cannot): %m",
				    name, ops);
	return 0;
}

static int dir_open(int dir_fd, const char *name)
{
	return open_beneath(dir_fd, name, O_PATH | O_DIRECTORY);
}

/* A cgroup left by an earlier attempt is reused only when no process is in it. */
static int leaf_check_empty(int fd, const char *path, struct cc_error *err)
{
	_cleanup_free_ char *procs = NULL;
	int r = file_read(fd, "cgroup.procs", &procs);

	if (r < 0)
		return cc_error_set(err, r, "cgroup %s: cannot read cgroup.procs: %m", path);
	if (procs[strspn(procs, " \n")] != '\0')
		return cc_error_set(err, -EBUSY, "cgroup %s exists and holds processes", path);
	return 0;
}

static int leaf_configure(int fd, const char *path, const struct vmm_bound *b,
			  struct vmm_cgroup *cg, struct cc_error *err)
{
	_cleanup_free_ char *avail = NULL;
	int r;

	r = file_read(fd, "cgroup.controllers", &avail);
	if (r < 0)
		return cc_error_set(err, r, "cgroup %s: cannot read cgroup.controllers: %m", path);
	if (word_in(avail, "memory")) {
		r = file_write_u64(fd, "memory.max", b->memory_max);
		if (r < 0)
			return cc_error_set(err, r, "cgroup %s: cannot set memory.max: %m", path);
		r = file_write(fd, "memory.swap.max", "0\n");
		if (r < 0 && r != -ENOENT) /* ENOENT: a kernel without swap accounting */
			return cc_error_set(err, r, "cgroup %s: cannot set memory.swap.max: %m",
					    path);
		cg->swap = r == 0;
		/* One OOM kill takes the whole cgroup: no helper outlives its VMM. */
		r = file_write(fd, "memory.oom.group", "1\n");
		if (r < 0)
			return cc_error_set(err, r, "cgroup %s: cannot set memory.oom.group: %m",
					    path);
		cg->memory = true;
	}
	if (word_in(avail, "pids")) {
		r = file_write_u64(fd, "pids.max", b->pids_max);
		if (r < 0)
			return cc_error_set(err, r, "cgroup %s: cannot set pids.max: %m", path);
		cg->pids = true;
	}
	return 0;
}

int vmm_cgroup_create(int root_fd, const char *path, const struct vmm_bound *b,
		      struct vmm_cgroup *ret, struct cc_error *reterr_error)
{
	_cleanup_(vmm_cgroup_done) struct vmm_cgroup cg = VMM_CGROUP_NULL;
	_cleanup_close_ int level = -1;
	char comp[VMM_CGROUP_PATH_MAX + 1];
	const char *p = path, *slash;
	bool made = false;
	int r;

	assert_return(b && ret, -EINVAL);
	if (!vmm_cgroup_path_valid(path))
		return cc_error_set(reterr_error, -EINVAL, "invalid cgroup path \"%s\"",
				    path ? path : "");
	level = dir_open(root_fd, ".");
	if (level < 0)
		return cc_error_set(reterr_error, level, "cannot open the cgroup root: %m");
	for (;;) {
		char here[VMM_CGROUP_PATH_MAX + 2];
		int next;

		slash = strchr(p, '/');
		(void) snprintf(comp, sizeof(comp), "%.*s",
				(int) (slash ? (size_t) (slash - p) : strlen(p)), p);
		/* This level's name: "/" for the root, else the path up to it. */
		(void) snprintf(here, sizeof(here), "%.*s", p == path ? 1 : (int) (p - path - 1),
				p == path ? "/" : path);
		r = controllers_delegate(level, here, reterr_error);
		if (r < 0)
			return r;
		if (mkdirat(level, comp, 0755) < 0) {
			if (errno != EEXIST)
				return cc_error_set(reterr_error, errno,
						    "cgroup %s: cannot create %s: %m", path, comp);
		} else if (!slash)
			made = true;
		if (!slash)
			break;
		next = dir_open(level, comp);
		if (next < 0)
			return cc_error_set(reterr_error, next, "cgroup %s: cannot open %s: %m",
					    path, comp);
		safe_close(level);
		level = next;
		p = slash + 1;
	}
	/* level: the parent; comp: the pod's cgroup. */
	cg.dir_fd = dir_open(level, comp);
	if (cg.dir_fd < 0) {
		r = cc_error_set(reterr_error, cg.dir_fd, "cgroup %s: cannot open it: %m", path);
		goto undo;
	}
	(void) snprintf(cg.path, sizeof(cg.path), "%s", path);
	r = made ? 0 : leaf_check_empty(cg.dir_fd, path, reterr_error);
	if (r >= 0)
		r = leaf_configure(cg.dir_fd, path, b, &cg, reterr_error);
	if (r < 0)
		goto undo;
	*ret = cg;
	cg.dir_fd = -1;
	return 0;
undo:
	if (made)
		(void) unlinkat(level, comp, AT_REMOVEDIR);
	return r;
}

int vmm_cgroup_attach(const struct vmm_cgroup *cg, pid_t pid)
{
	char buf[24];

	assert_return(cg && cg->dir_fd >= 0 && pid > 0, -EINVAL);
	(void) snprintf(buf, sizeof(buf), "%d\n", (int) pid);
	return file_write(cg->dir_fd, "cgroup.procs", buf);
}

/* The value of "key <u64>" in a flat-keyed file (memory.events, cgroup.events). */
static int keyed_u64(int dir_fd, const char *name, const char *key, uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = strlen(key);
	int r;

	r = file_read(dir_fd, name, &buf);
	if (r < 0)
		return r;
	for (char *line = buf; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ' ') {
			char *end;

			errno = 0;
			*ret = strtoull(line + n + 1, &end, 10);
			if (errno || end == line + n + 1 || (*end != '\n' && *end != '\0'))
				return -EBADMSG;
			return 0;
		}
	return -ENOENT;
}

int vmm_cgroup_oom_kills(int dir_fd, uint64_t *ret)
{
	assert_return(dir_fd >= 0 && ret, -EINVAL);
	return keyed_u64(dir_fd, "memory.events", "oom_kill", ret);
}

int vmm_cgroup_of_pid(int root_fd, pid_t pid, char *name, size_t n)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	char path[64], *line, *end;
	int r;

	assert_return(pid > 0 && name && n > 0, -EINVAL);
	(void) snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = read_full_fd(fd, CG_FILE_MAX, &buf, NULL);
	if (r < 0)
		return r;
	line = strncmp(buf, "0::/", 4) == 0 ? buf : strstr(buf, "\n0::/");
	if (!line)
		return -ENOMEDIUM;
	line += line == buf ? 4 : 5;
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	(void) snprintf(name, n, "%s", *line ? line : ".");
	return open_beneath(root_fd, *line ? line : ".", O_PATH | O_DIRECTORY);
}

/* SIGKILL to each process of cgroup.procs (kernels before 5.14 have no cgroup.kill). */
static int procs_kill(int fd)
{
	_cleanup_free_ char *procs = NULL;
	char *p, *end;
	int r;

	r = file_read(fd, "cgroup.procs", &procs);
	if (r < 0)
		return r;
	for (p = procs; *p; p = end) {
		long pid;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0)
			return -EBADMSG;
		if (kill((pid_t) pid, SIGKILL) < 0 && errno != ESRCH)
			return -errno;
		end += strspn(end, "\n");
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

int vmm_cgroup_remove(int root_fd, const char *path, unsigned timeout_ms)
{
	_cleanup_close_ int fd = -1, parent = -1;
	char dir[VMM_CGROUP_PATH_MAX + 1];
	const char *last;
	uint64_t deadline = now_ms() + timeout_ms, populated = 1;
	bool has_kill;
	int r;

	if (!vmm_cgroup_path_valid(path))
		return -EINVAL;
	last = strrchr(path, '/');
	(void) snprintf(dir, sizeof(dir), "%.*s", last ? (int) (last - path) : 1,
			last ? path : ".");
	last = last ? last + 1 : path;
	parent = dir_open(root_fd, dir);
	if (parent == -ENOENT)
		return 0;
	if (parent < 0)
		return parent;
	fd = dir_open(parent, last);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = file_write(fd, "cgroup.kill", "1\n");
	has_kill = r != -ENOENT;
	if (r < 0 && has_kill)
		return r;
	for (;;) {
		if (!has_kill) {
			r = procs_kill(fd);
			if (r < 0)
				return r;
		}
		r = keyed_u64(fd, "cgroup.events", "populated", &populated);
		if (r < 0)
			return r;
		if (populated == 0)
			break;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		(void) usleep(10000);
	}
	if (unlinkat(parent, last, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int vmm_cgroup_root_open(const char **ret_path)
{
	static const char *const roots[] = {VMM_CGROUP_ROOT_DEFAULT, VMM_CGROUP_ROOT_HYBRID};
	const char *env = secure_getenv("CC_STAGE1_CGROUP_ROOT");
	int fd;

	if (env && *env) {
		fd = open(env, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ret_path)
			*ret_path = env;
		return fd;
	}
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		struct statfs sfs;

		fd = open(roots[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstatfs(fd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC) {
			if (ret_path)
				*ret_path = roots[i];
			return fd;
		}
		safe_close(fd);
	}
	return -ENOMEDIUM;
}

void vmm_cgroup_done(struct vmm_cgroup *cg)
{
	cg->dir_fd = safe_close(cg->dir_fd);
}
