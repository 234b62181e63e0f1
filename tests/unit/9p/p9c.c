/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "9p/9p-worker.h"
#include "cctest.h"
#include "p9c.h"

static struct p9_out p9c_msg;

static void p9c_init_common(struct p9c *c, bool read_only, bool attach, bool worker,
			    p9_worker_enter_fn enter)
{
	memset(c, 0, sizeof(*c));
	c->dir = cctest_mkdtemp();
	ck_assert_ptr_nonnull(c->dir);
	if (worker) {
		struct p9_export e = {.dir = c->dir, .read_only = read_only};
		struct p9_export_result res;

		ASSERT_OK(p9_worker_start(&e, 1, NULL, enter, NULL, &c->worker, &res));
		ASSERT_OK(res.error);
	} else {
		ASSERT_OK(p9_server_new(c->dir, read_only, &c->srv));
	}
	c->req = malloc(P9_MSIZE_MAX);
	c->resp = malloc(P9_MSIZE_MAX);
	ck_assert(c->req && c->resp);
	c->resp_cap = P9_MSIZE_MAX;
	if (attach) {
		ck_assert_int_eq(p9c_version(c, 65536, "9P2000.L", NULL, NULL, 0), 0);
		ASSERT_OK(p9c_attach(c, 0, 0));
	}
}

void p9c_init(struct p9c *c, bool read_only, bool attach)
{
	p9c_init_common(c, read_only, attach, false, NULL);
}

void p9c_init_worker(struct p9c *c, bool read_only, bool attach, p9_worker_enter_fn enter)
{
	p9c_init_common(c, read_only, attach, true, enter);
}

void p9c_done(struct p9c *c)
{
	p9_server_free(c->srv);
	p9_worker_free(c->worker);
	(void) cctest_rm_rf(c->dir);
	free(c->dir);
	free(c->req);
	free(c->resp);
}

size_t p9c_raw(struct p9c *c, const void *req, size_t len)
{
	ssize_t n;

	if (!c->worker) {
		c->resp_len = p9_server_handle(c->srv, req, len, c->resp, c->resp_cap);
		return c->resp_len;
	}
	ck_assert_uint_le(len, P9_MSIZE_MAX);
	memcpy(p9_worker_req(c->worker, 0), req, len);
	n = p9_worker_call(c->worker, 0, c->reset, len, c->resp_cap);
	ck_assert_int_ge(n, 0);
	memcpy(c->resp, p9_worker_resp(c->worker, 0), (size_t) n);
	c->reset = false;
	c->resp_len = (size_t) n;
	return c->resp_len;
}

struct p9_out *p9c_begin(struct p9c *c)
{
	p9_out_init(&p9c_msg, c->req, P9_MSIZE_MAX);
	return &p9c_msg;
}

int p9c_send(struct p9c *c, uint8_t type)
{
	uint8_t rtype;
	uint16_t rtag;
	uint32_t ecode;
	int len;

	c->tag++;
	len = p9_out_finish(&p9c_msg, type, c->tag);
	ck_assert_int_gt(len, 0);
	ck_assert_uint_gt(p9c_raw(c, c->req, (size_t) len), 0);
	p9_in_init(&c->in, c->resp, c->resp_len);
	ck_assert_int_eq(p9_get_header(&c->in, &rtype, &rtag), 0);
	ck_assert_uint_eq(rtag, c->tag);
	if (rtype == P9_RLERROR) {
		ck_assert_int_eq(p9_get_u32(&c->in, &ecode), 0);
		ck_assert_uint_gt(ecode, 0);
		ck_assert_uint_eq(p9_in_left(&c->in), 0);
		return -(int) ecode;
	}
	ck_assert_uint_eq(rtype, type + 1);
	return 0;
}

int p9c_version(struct p9c *c, uint32_t msize, const char *version, uint32_t *ret_msize,
		char *ret_version, size_t version_size)
{
	struct p9_out *o = p9c_begin(c);
	char v[64];
	uint32_t m;
	int r;

	p9_put_u32(o, msize);
	p9_put_str(o, version);
	r = p9c_send(c, P9_TVERSION);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u32(&c->in, &m), 0);
	ck_assert_int_eq(p9_get_str(&c->in, v, sizeof(v)), 0);
	if (ret_msize)
		*ret_msize = m;
	if (ret_version)
		snprintf(ret_version, version_size, "%s", v);
	return 0;
}

int p9c_attach(struct p9c *c, uint32_t fid, uint32_t uid)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_u32(o, P9_NOFID);
	p9_put_str(o, "root");
	p9_put_str(o, "");
	p9_put_u32(o, uid);
	return p9c_send(c, P9_TATTACH);
}

int p9c_walk(struct p9c *c, uint32_t fid, uint32_t newfid, const char *const *names,
	     struct p9_qid *ret_last)
{
	struct p9_out *o = p9c_begin(c);
	uint16_t n = 0, nq;
	int r;

	while (names[n])
		n++;
	p9_put_u32(o, fid);
	p9_put_u32(o, newfid);
	p9_put_u16(o, n);
	for (uint16_t i = 0; i < n; i++)
		p9_put_str(o, names[i]);
	r = p9c_send(c, P9_TWALK);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u16(&c->in, &nq), 0);
	ck_assert_uint_le(nq, n);
	for (uint16_t i = 0; i < nq; i++) {
		struct p9_qid q;

		ck_assert_int_eq(p9_get_u8(&c->in, &q.type), 0);
		ck_assert_int_eq(p9_get_u32(&c->in, &q.version), 0);
		ck_assert_int_eq(p9_get_u64(&c->in, &q.path), 0);
		if (ret_last)
			*ret_last = q;
	}
	return nq;
}

int p9c_walk1(struct p9c *c, uint32_t fid, uint32_t newfid, const char *path)
{
	const char *names[P9_MAXWELEM + 2] = {0};
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok && n <= (int) P9_MAXWELEM;
	     tok = strtok_r(NULL, "/", &save))
		names[n++] = tok;
	return p9c_walk(c, fid, newfid, names, NULL);
}

int p9c_lopen(struct p9c *c, uint32_t fid, uint32_t flags)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_u32(o, flags);
	return p9c_send(c, P9_TLOPEN);
}

int p9c_lcreate(struct p9c *c, uint32_t fid, const char *name, uint32_t flags, uint32_t mode)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_str(o, name);
	p9_put_u32(o, flags);
	p9_put_u32(o, mode);
	p9_put_u32(o, (uint32_t) getgid());
	return p9c_send(c, P9_TLCREATE);
}

int p9c_read(struct p9c *c, uint32_t fid, uint64_t off, uint32_t count, void *buf)
{
	struct p9_out *o = p9c_begin(c);
	const uint8_t *data;
	uint32_t n;
	int r;

	p9_put_u32(o, fid);
	p9_put_u64(o, off);
	p9_put_u32(o, count);
	r = p9c_send(c, P9_TREAD);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u32(&c->in, &n), 0);
	ck_assert_uint_le(n, count);
	ck_assert_int_eq(p9_get_data(&c->in, n, &data), 0);
	memcpy(buf, data, n);
	return (int) n;
}

int p9c_write(struct p9c *c, uint32_t fid, uint64_t off, const void *buf, uint32_t count)
{
	struct p9_out *o = p9c_begin(c);
	uint32_t n;
	int r;

	p9_put_u32(o, fid);
	p9_put_u64(o, off);
	p9_put_u32(o, count);
	p9_put_data(o, buf, count);
	r = p9c_send(c, P9_TWRITE);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u32(&c->in, &n), 0);
	return (int) n;
}

static int p9c_fid_only(struct p9c *c, uint8_t type, uint32_t fid)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	return p9c_send(c, type);
}

int p9c_clunk(struct p9c *c, uint32_t fid)
{
	return p9c_fid_only(c, P9_TCLUNK, fid);
}

int p9c_remove(struct p9c *c, uint32_t fid)
{
	return p9c_fid_only(c, P9_TREMOVE, fid);
}

int p9c_fsync(struct p9c *c, uint32_t fid)
{
	return p9c_fid_only(c, P9_TFSYNC, fid);
}

int p9c_fdatasync(struct p9c *c, uint32_t fid)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_u32(o, 1);
	return p9c_send(c, P9_TFSYNC);
}

int p9c_mkdir(struct p9c *c, uint32_t dfid, const char *name, uint32_t mode)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, dfid);
	p9_put_str(o, name);
	p9_put_u32(o, mode);
	p9_put_u32(o, (uint32_t) getgid());
	return p9c_send(c, P9_TMKDIR);
}

int p9c_symlink(struct p9c *c, uint32_t dfid, const char *name, const char *target)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, dfid);
	p9_put_str(o, name);
	p9_put_str(o, target);
	p9_put_u32(o, (uint32_t) getgid());
	return p9c_send(c, P9_TSYMLINK);
}

int p9c_mknod(struct p9c *c, uint32_t dfid, const char *name, uint32_t mode)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, dfid);
	p9_put_str(o, name);
	p9_put_u32(o, mode);
	p9_put_u32(o, 1);
	p9_put_u32(o, 3);
	p9_put_u32(o, (uint32_t) getgid());
	return p9c_send(c, P9_TMKNOD);
}

int p9c_link(struct p9c *c, uint32_t dfid, uint32_t fid, const char *name)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, dfid);
	p9_put_u32(o, fid);
	p9_put_str(o, name);
	return p9c_send(c, P9_TLINK);
}

int p9c_readlink(struct p9c *c, uint32_t fid, char *buf, size_t size)
{
	int r = p9c_fid_only(c, P9_TREADLINK, fid);

	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_str(&c->in, buf, size), 0);
	return 0;
}

int p9c_rename(struct p9c *c, uint32_t fid, uint32_t dfid, const char *name)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_u32(o, dfid);
	p9_put_str(o, name);
	return p9c_send(c, P9_TRENAME);
}

int p9c_renameat(struct p9c *c, uint32_t olddir, const char *oldname, uint32_t newdir,
		 const char *newname)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, olddir);
	p9_put_str(o, oldname);
	p9_put_u32(o, newdir);
	p9_put_str(o, newname);
	return p9c_send(c, P9_TRENAMEAT);
}

int p9c_unlinkat(struct p9c *c, uint32_t dfid, const char *name, uint32_t flags)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, dfid);
	p9_put_str(o, name);
	p9_put_u32(o, flags);
	return p9c_send(c, P9_TUNLINKAT);
}

int p9c_getattr(struct p9c *c, uint32_t fid, struct p9c_attr *ret)
{
	struct p9_out *o = p9c_begin(c);
	uint64_t valid, skip;
	int r;

	p9_put_u32(o, fid);
	p9_put_u64(o, 0x7ff);
	r = p9c_send(c, P9_TGETATTR);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u64(&c->in, &valid), 0);
	ck_assert_uint_eq(valid, 0x7ff);
	ck_assert_int_eq(p9_get_u8(&c->in, &ret->qid.type), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, &ret->qid.version), 0);
	ck_assert_int_eq(p9_get_u64(&c->in, &ret->qid.path), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, &ret->mode), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, &ret->uid), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, &ret->gid), 0);
	ck_assert_int_eq(p9_get_u64(&c->in, &ret->nlink), 0);
	ck_assert_int_eq(p9_get_u64(&c->in, &skip), 0); /* rdev */
	ck_assert_int_eq(p9_get_u64(&c->in, &ret->size), 0);
	for (int i = 0; i < 4; i++) /* blksize blocks atime */
		ck_assert_int_eq(p9_get_u64(&c->in, &skip), 0);
	ck_assert_int_eq(p9_get_u64(&c->in, &ret->mtime_sec), 0);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(p9_get_u64(&c->in, &skip), 0);
	ck_assert_uint_eq(p9_in_left(&c->in), 0);
	return 0;
}

int p9c_setattr(struct p9c *c, uint32_t fid, uint32_t valid, uint32_t mode, uint64_t size,
		uint64_t mtime_sec)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_u32(o, valid);
	p9_put_u32(o, mode);
	p9_put_u32(o, 0);
	p9_put_u32(o, 0);
	p9_put_u64(o, size);
	p9_put_u64(o, 0);
	p9_put_u64(o, 0);
	p9_put_u64(o, mtime_sec);
	p9_put_u64(o, 0);
	return p9c_send(c, P9_TSETATTR);
}

int p9c_statfs(struct p9c *c, uint32_t fid, uint32_t *ret_bsize, uint32_t *ret_namelen)
{
	uint32_t type;
	uint64_t skip;
	int r = p9c_fid_only(c, P9_TSTATFS, fid);

	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u32(&c->in, &type), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, ret_bsize), 0);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(p9_get_u64(&c->in, &skip), 0);
	ck_assert_int_eq(p9_get_u32(&c->in, ret_namelen), 0);
	return 0;
}

int p9c_lock(struct p9c *c, uint32_t fid, uint8_t type, uint64_t start, uint64_t len)
{
	struct p9_out *o = p9c_begin(c);
	uint8_t status;
	int r;

	p9_put_u32(o, fid);
	p9_put_u8(o, type);
	p9_put_u32(o, 0);
	p9_put_u64(o, start);
	p9_put_u64(o, len);
	p9_put_u32(o, 42);
	p9_put_str(o, "guest");
	r = p9c_send(c, P9_TLOCK);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u8(&c->in, &status), 0);
	return status;
}

int p9c_getlock(struct p9c *c, uint32_t fid, uint8_t type, uint8_t *ret_type)
{
	struct p9_out *o = p9c_begin(c);
	int r;

	p9_put_u32(o, fid);
	p9_put_u8(o, type);
	p9_put_u64(o, 0);
	p9_put_u64(o, 0);
	p9_put_u32(o, 42);
	p9_put_str(o, "guest");
	r = p9c_send(c, P9_TGETLOCK);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u8(&c->in, ret_type), 0);
	return 0;
}

int p9c_readdir(struct p9c *c, uint32_t fid, uint64_t *off, uint32_t count, char *buf, size_t size)
{
	struct p9_out *o = p9c_begin(c);
	uint32_t n;
	int r, entries = 0;

	p9_put_u32(o, fid);
	p9_put_u64(o, *off);
	p9_put_u32(o, count);
	r = p9c_send(c, P9_TREADDIR);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u32(&c->in, &n), 0);
	ck_assert_uint_le(n, count);
	ck_assert_uint_eq(p9_in_left(&c->in), n);
	while (p9_in_left(&c->in) > 0) {
		struct p9_qid q;
		uint8_t type;
		char name[256];

		ck_assert_int_eq(p9_get_u8(&c->in, &q.type), 0);
		ck_assert_int_eq(p9_get_u32(&c->in, &q.version), 0);
		ck_assert_int_eq(p9_get_u64(&c->in, &q.path), 0);
		ck_assert_int_eq(p9_get_u64(&c->in, off), 0);
		ck_assert_int_eq(p9_get_u8(&c->in, &type), 0);
		ck_assert_int_eq(p9_get_str(&c->in, name, sizeof(name)), 0);
		ck_assert_uint_lt(strlen(buf) + strlen(name) + 1, size);
		strcat(buf, name);
		strcat(buf, "/");
		entries++;
	}
	return entries;
}

int p9c_xattrwalk(struct p9c *c, uint32_t fid, uint32_t newfid, const char *name,
		  uint64_t *ret_size)
{
	struct p9_out *o = p9c_begin(c);
	int r;

	p9_put_u32(o, fid);
	p9_put_u32(o, newfid);
	p9_put_str(o, name);
	r = p9c_send(c, P9_TXATTRWALK);
	if (r < 0)
		return r;
	ck_assert_int_eq(p9_get_u64(&c->in, ret_size), 0);
	return 0;
}

int p9c_xattrcreate(struct p9c *c, uint32_t fid, const char *name, uint64_t size, uint32_t flags)
{
	struct p9_out *o = p9c_begin(c);

	p9_put_u32(o, fid);
	p9_put_str(o, name);
	p9_put_u64(o, size);
	p9_put_u32(o, flags);
	return p9c_send(c, P9_TXATTRCREATE);
}

char *p9c_host_path(struct p9c *c, const char *rel)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", c->dir, rel);
	return path;
}

void p9c_host_write(struct p9c *c, const char *rel, const char *content)
{
	FILE *f = fopen(p9c_host_path(c, rel), "we");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(content, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}
