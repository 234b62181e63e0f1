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
 */
#include <dirent.h>
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
	(void) nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
