/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the 9p server with a sequence of 9P messages against a fresh temporary export.
 *
 * Input: concatenated messages, each taken as its own size[4] field says (clamped to what is
 * left, at least 1 byte), so the fuzzer can make both well-formed sequences and lying sizes.
 * Each run starts versioned and attached (fid 0 is the root), over a small tree that has
 * symlinks pointing out of the export. Oracle besides the sanitizers: a canary file next to the
 * export must be untouched afterwards, and nothing else may appear next to it.
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

static void send_msg(struct p9_server *srv, const void *msg, size_t len)
{
	size_t n = p9_server_handle(srv, msg, len, resp, P9_MSIZE_MAX);

	if (n > P9_MSIZE_MAX)
		abort();
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
	unsigned n_msgs = 0;

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
	p9_server_set_max_fids(srv, 64);
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
	p9_server_free(srv);
	check_canary(top);
	(void) nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
