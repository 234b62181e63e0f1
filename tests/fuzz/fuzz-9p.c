/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the 9p server with a sequence of 9P messages against a fresh temporary export.
 *
 * Input: concatenated messages, each taken as its own size[4] field says (clamped to what is
 * left, at least 1 byte), so the fuzzer can make both well-formed sequences and lying sizes.
 * Each run starts versioned and attached (fid 0 is the root), over a small tree that has
 * symlinks pointing out of the export. Oracles besides the sanitizers: a canary file next to the
 * export must be untouched afterwards, and nothing else may appear next to it; after every
 * message the server holds no more than its budget (fids, host descriptors, xattr bytes), the
 * process's real descriptors match what it accounts, and a new session gives it all back.
 * "dir" is a host volume (docs/9p.md, "Host volumes") owned by FUZZ_VOL_ID: afterwards nothing
 * beneath it may be setuid or setgid (but a directory's setgid), a device, or root's unless it
 * was there before; and no device node anywhere in the export.
 */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "9p/9p-pdu.h"
#include "9p/9p.h"

#define FUZZ_MAX_MSGS 256
#define FUZZ_VOL_ID   1234u

/* Small budgets, so that inputs reach them: fds below 2 x fids, xattrs of 4 full values. */
static const struct p9_limits fuzz_limits = {
	.max_fids = 64,
	.max_fds = 48,
	.max_xattr_bytes = 256 * 1024,
};

static uint8_t *resp;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	(void) remove(path);
	return 0;
}

static void write_file(const char *path, const char *content)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		abort();
	if (write(fd, content, strlen(content)) != (ssize_t) strlen(content))
		abort();
	close(fd);
}

static void make_tree(const char *top, const char *export)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/canary", top);
	write_file(p, "canary");
	if (mkdir(export, 0755) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/file", export);
	write_file(p, "hello 9p");
	snprintf(p, sizeof(p), "%s/dir", export);
	if (mkdir(p, 0755) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/dir/inner", export);
	write_file(p, "inner");
	snprintf(p, sizeof(p), "%s/up", export);
	if (symlink("../canary", p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/abs", export);
	if (symlink(top, p) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/dir/updir", export);
	if (symlink("../..", p) < 0)
		abort();
}

/* The canary next to the export is intact and alone. */
static void check_canary(const char *top)
{
	char p[4096], buf[16] = {0};
	struct dirent *de;
	struct stat st;
	unsigned n = 0;
	DIR *d;
	int fd;

	snprintf(p, sizeof(p), "%s/canary", top);
	if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_mode & 07777) != 0644 || st.st_size != 6)
		abort();
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != 6 || strcmp(buf, "canary") != 0)
		abort();
	close(fd);
	d = opendir(top);
	if (!d)
		abort();
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	if (n != 2)
		abort();
}

static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		abort();
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* What the server holds is within its budget, and consistent. */
static void check_budget(struct p9_server *srv)
{
	struct p9_usage u;

	p9_server_get_usage(srv, &u);
	if (u.fids > fuzz_limits.max_fids || u.fds > fuzz_limits.max_fds ||
	    u.fds != u.nodes + u.open_files || u.nodes < 1 ||
	    u.xattr_bytes > fuzz_limits.max_xattr_bytes)
		abort();
}

/* The nodes that were in the volume before the session (root's when the fuzzer is). */
static const char *const vol_initial[] = {"dir", "dir/inner", "dir/updir"};
static ino_t vol_inodes[3];
static char vol_path[4096]; /* where the volume root is now (the guest may rename it) */

static int find_vol(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) flag;
	(void) ftw;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		abort(); /* no device anywhere */
	if (S_ISDIR(st->st_mode) && st->st_ino == vol_inodes[0])
		snprintf(vol_path, sizeof(vol_path), "%s", path);
	return 0;
}

static int check_vol_node(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	bool initial = false;

	(void) path;
	(void) flag;
	(void) ftw;
	for (size_t i = 0; i < sizeof(vol_inodes) / sizeof(vol_inodes[0]); i++)
		initial |= st->st_ino == vol_inodes[i];
	if ((st->st_mode & S_ISUID) || ((st->st_mode & S_ISGID) && !S_ISDIR(st->st_mode)))
		abort();
	if ((st->st_uid == 0 || st->st_gid == 0) && !initial)
		abort();
	return 0;
}

static void send_msg(struct p9_server *srv, const void *msg, size_t len)
{
	size_t n = p9_server_handle(srv, msg, len, resp, P9_MSIZE_MAX);

	if (n > P9_MSIZE_MAX)
		abort();
	check_budget(srv);
}

static void start_session(struct p9_server *srv)
{
	uint8_t buf[128];
	struct p9_out o;
	int len;

	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, 65536);
	p9_put_str(&o, "9P2000.L");
	len = p9_out_finish(&o, P9_TVERSION, P9_NOTAG);
	send_msg(srv, buf, (size_t) len);
	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, 0);
	p9_put_u32(&o, P9_NOFID);
	p9_put_str(&o, "root");
	p9_put_str(&o, "");
	p9_put_u32(&o, 0);
	len = p9_out_finish(&o, P9_TATTACH, 1);
	send_msg(srv, buf, (size_t) len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* tmpfs when there is one: Tfsync there costs nothing. */
	char top[] = "/dev/shm/fuzz-9p-XXXXXX", export[64];
	struct p9_server *srv = NULL;
	unsigned n_msgs = 0, fds_base;
	struct p9_usage u;

	if (!resp) {
		resp = malloc(P9_MSIZE_MAX);
		if (!resp)
			abort();
	}
	if (access("/dev/shm", W_OK) < 0)
		memcpy(top, "/tmp/fuzz-9p-XXXXXX", sizeof("/tmp/fuzz-9p-XXXXXX"));
	if (!mkdtemp(top))
		abort();
	snprintf(export, sizeof(export), "%s/export", top);
	make_tree(top, export);
	if (p9_server_new(export, data[0 % (size ? size : 1)] == 'R' && size, &srv) < 0)
		abort();
	{
		char p[128];
		struct stat st;

		for (size_t i = sizeof(vol_initial) / sizeof(vol_initial[0]); i-- > 0;) {
			snprintf(p, sizeof(p), "%s/%s", export, vol_initial[i]);
			if (lstat(p, &st) < 0)
				abort();
			vol_inodes[i] = st.st_ino;
		}
		/* st is dir's now */
		if (p9_server_add_hostvol(srv, &(struct p9_hostvol){st.st_dev, st.st_ino,
								    FUZZ_VOL_ID, FUZZ_VOL_ID}) < 0)
			abort();
	}
	p9_server_set_limits(srv, &fuzz_limits);
	fds_base = count_fds(); /* the export root's node and the backend's descriptors */
	start_session(srv);
	while (size > 0 && n_msgs++ < FUZZ_MAX_MSGS) {
		size_t len = size;

		if (size >= 4) {
			uint32_t declared = (uint32_t) data[0] | (uint32_t) data[1] << 8 |
					    (uint32_t) data[2] << 16 | (uint32_t) data[3] << 24;
			len = declared == 0 ? 1 : (declared < size ? declared : size);
		}
		send_msg(srv, data, len);
		data += len;
		size -= len;
	}
	/* Every accounted descriptor is a real one, and none is missing from the account. */
	p9_server_get_usage(srv, &u);
	if (count_fds() - fds_base != u.fds - 1)
		abort();
	/* A reset (as a new session or a device reset does) gives everything back. */
	p9_server_reset(srv);
	p9_server_get_usage(srv, &u);
	if (u.fids || u.nodes != 1 || u.open_files || u.xattr_bytes || count_fds() != fds_base)
		abort();
	p9_server_free(srv);
	check_canary(top);
	vol_path[0] = '\0';
	if (nftw(export, find_vol, 16, FTW_PHYS) < 0)
		abort();
	if (vol_path[0] && nftw(vol_path, check_vol_node, 16, FTW_PHYS) < 0)
		abort();
	(void) nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
