/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's side of fs-broker.h: classify what the worker names, apply the policy, then do
 * the operation with fs-passthrough, as the in-process server would.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "9p/fs-broker.h"
#include "9p/hostvol-policy.h"
#include "cc/cleanup.h"
#include "cc/log.h"

#define FSB_REQ_MAX	(sizeof(struct fsb_req) + FSB_NAME_MAX + FSB_NAME2_MAX + FSB_VALUE_MAX)
#define FSB_EXPORTS_MAX 64u

/* Which descriptor slots each op needs, and which it may have. */
static const struct {
	uint8_t need, may;
	bool name, name2; /* required */
} fsb_ops[_FSB_OP_MAX] = {
	[FSB_LOOKUP] = {1, 1, true, false},    [FSB_REOPEN] = {1, 3, false, false},
	[FSB_CREATE] = {1, 1, true, false},    [FSB_MKDIR] = {1, 1, true, false},
	[FSB_SYMLINK] = {1, 1, true, true},    [FSB_MKNOD] = {1, 1, true, false},
	[FSB_LINK] = {7, 7, true, true},       [FSB_RENAME] = {3, 3, true, true},
	[FSB_UNLINK] = {1, 1, true, false},    [FSB_CHECK_SAME] = {1, 1, true, false},
	[FSB_SETATTR] = {1, 7, false, false},  [FSB_DROP_SUID] = {3, 3, true, false},
	[FSB_XATTR_GET] = {1, 3, true, false}, [FSB_XATTR_LIST] = {1, 3, false, false},
	[FSB_XATTR_SET] = {1, 3, true, false}, [FSB_XATTR_REMOVE] = {1, 3, true, false},
};

struct fsb_export_state {
	dev_t dev;
	ino_t ino;
	bool read_only;
	struct p9_hostvol *vols; /* the export's volumes, and its root when it is one */
	unsigned n_vols;
};

struct fsb {
	struct fsb_export_state ex[FSB_EXPORTS_MAX];
	unsigned n;
	struct fsp *fs; /* for fs-passthrough's /proc/self/fd */
};

/* Where a node is: its export, and its host volume there (-1: none). */
struct fsb_class {
	unsigned export;
	int vol;
};

/* One request, as received. */
struct fsb_msg {
	struct fsb_req q;
	int fd[FSB_FDS_MAX]; /* by slot; -1 when not sent */
	char name[FSB_NAME_MAX + 1];
	char name2[FSB_NAME2_MAX + 1];
	const uint8_t *value;
};

static int fsb_vol_at(const struct fsb_export_state *e, const struct stat *st)
{
	for (unsigned i = 0; i < e->n_vols; i++)
		if (e->vols[i].dev == st->st_dev && e->vols[i].ino == st->st_ino)
			return (int) i;
	return -1;
}

/*
 * The export and volume of directory fd, by walking ".." up to an export root: the innermost
 * volume root on the way is its volume. -EXDEV when no export root is on the way.
 */
static int fsb_classify_dir(const struct fsb *b, int fd, struct fsb_class *ret)
{
	_cleanup_close_ int cur = -1;
	int vol[FSB_EXPORTS_MAX];
	struct stat st;

	for (unsigned e = 0; e < b->n; e++)
		vol[e] = -1;
	for (unsigned depth = 0; depth <= FSB_DEPTH_MAX; depth++) {
		struct stat up;
		int next;

		if (fstat(fd, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		for (unsigned e = 0; e < b->n; e++) {
			if (vol[e] < 0)
				vol[e] = fsb_vol_at(&b->ex[e], &st);
			if (b->ex[e].dev == st.st_dev && b->ex[e].ino == st.st_ino) {
				*ret = (struct fsb_class){e, vol[e]};
				return 0;
			}
		}
		next = openat(fd, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return -errno;
		if (fstat(next, &up) < 0 || (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			(void) close(next);
			return -EXDEV; /* the root: no export on the way */
		}
		safe_close(cur);
		fd = cur = next;
	}
	return -ELOOP;
}

/*
 * A node: a directory is classified by itself; anything else by the directory it was reached
 * from (dir, name), which must still name that very inode. st gets the node's.
 */
static int fsb_classify(const struct fsb *b, int node, int dir, const char *name, struct stat *st,
			struct fsb_class *ret)
{
	struct stat now;
	int r, vol;

	if (fstatat(node, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISDIR(st->st_mode))
		return fsb_classify_dir(b, node, ret);
	if (dir < 0 || !name[0] || !fsp_name_valid(name))
		return -EINVAL;
	if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return -ESTALE;
	r = fsb_classify_dir(b, dir, ret);
	if (r < 0)
		return r;
	/* A volume may be a single file. */
	vol = fsb_vol_at(&b->ex[ret->export], st);
	if (vol >= 0)
		ret->vol = vol;
	return 0;
}

static const struct p9_hostvol *fsb_vol(const struct fsb *b, const struct fsb_class *c)
{
	return c->vol < 0 ? NULL : &b->ex[c->export].vols[c->vol];
}

/* A node just made in a volume that the policy does not allow (the kernel may give it the
 * directory's group, say): undone, -EPERM. */
static int fsb_check_new(const struct fsb *b, const struct fsb_class *c, int dir, const char *name)
{
	const struct p9_hostvol *v = fsb_vol(b, c);
	struct stat st;
	int r;

	if (!v)
		return 0;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (hostvol_policy_allows(v, &st))
		return 0;
	r = fsp_unlink(b->fs, dir, name, S_ISDIR(st.st_mode));
	return r < 0 ? r : -EPERM;
}

/* Whether the file open as fd is in a volume: its directory's (c), or its own. */
static bool fsb_file_in_vol(const struct fsb *b, const struct fsb_class *c, int fd)
{
	struct stat st;

	if (fsb_vol(b, c))
		return true;
	/* Unknown: treated as in one, so its setuid bits go rather than stay. */
	if (fstat(fd, &st) < 0)
		return true;
	return fsb_vol_at(&b->ex[c->export], &st) >= 0;
}

static int fsb_op_node(struct fsb *b, struct fsb_msg *m, int *ret_fds, unsigned *ret_n,
		       uint8_t *data, uint32_t *ret_len)
{
	const struct fsb_req *q = &m->q;
	struct fsb_class c, c2;
	struct stat st;
	int r, fd = -1;

	/* The node's name comes in name, but for xattrs (name: the attribute; name2: its). */
	const char *node_name =
		q->op >= FSB_XATTR_GET && q->op <= FSB_XATTR_REMOVE ? m->name2 : m->name;

	r = fsb_classify(b, m->fd[0], m->fd[1], node_name, &st, &c);
	if (r < 0)
		return r;
	switch (q->op) {
	case FSB_REOPEN:
		if (fsp_opens_for_write((int) q->flags) && b->ex[c.export].read_only)
			return -EROFS;
		r = fsp_reopen(b->fs, m->fd[0], -1, "", (int) q->flags, &fd);
		if (r < 0)
			return r;
		if (fsp_opens_for_write((int) q->flags) && fsb_vol(b, &c))
			r = fsp_drop_suid(b->fs, fd, -1, "");
		if (r < 0) {
			(void) close(fd);
			return r;
		}
		ret_fds[(*ret_n)++] = fd;
		return 0;
	case FSB_LINK:
		if (b->ex[c.export].read_only)
			return -EROFS;
		r = fsb_classify_dir(b, m->fd[2], &c2);
		if (r < 0)
			return r;
		if (c2.export != c.export || c2.vol != c.vol)
			return -EXDEV;
		return fsp_link(b->fs, m->fd[0], -1, "", m->fd[2], m->name2);
	case FSB_SETATTR: {
		struct fsp_setattr a = q->attr;
		int open_fd = m->fd[2];
		struct stat ost;

		if (b->ex[c.export].read_only)
			return -EROFS;
		/* Its open file, only if it is the same inode. */
		if (open_fd >= 0 && (fstat(open_fd, &ost) < 0 || ost.st_dev != st.st_dev ||
				     ost.st_ino != st.st_ino))
			open_fd = -1;
		r = hostvol_policy_setattr(fsb_vol(b, &c), &st, &a);
		if (r < 0)
			return r;
		return fsp_setattr(b->fs, m->fd[0], open_fd, S_ISDIR(st.st_mode) ? -1 : m->fd[1],
				   m->name, &a);
	}
	case FSB_DROP_SUID:
		/* What the worker asks for files of a host volume only (9p-hostvol.c). */
		if (b->ex[c.export].read_only)
			return -EROFS;
		if (!fsb_vol(b, &c))
			return -EPERM;
		return fsp_drop_suid(b->fs, m->fd[0], -1, "");
	case FSB_XATTR_GET:
	case FSB_XATTR_LIST:
		if (q->flags > FSB_VALUE_MAX)
			return -EINVAL;
		r = q->op == FSB_XATTR_GET
			    ? fsp_xattr_get(b->fs, m->fd[0], -1, "", m->name, data, q->flags)
			    : fsp_xattr_list(b->fs, m->fd[0], -1, "", (char *) data, q->flags);
		if (r >= 0 && q->flags)
			*ret_len = (uint32_t) r;
		return r;
	case FSB_XATTR_SET:
	case FSB_XATTR_REMOVE:
		if (b->ex[c.export].read_only)
			return -EROFS;
		/* What the server lets the guest set: user.* only (docs/9p.md, "Xattrs"). */
		if (strncmp(m->name, "user.", 5) != 0 || !m->name[5])
			return -EOPNOTSUPP;
		if (q->op == FSB_XATTR_REMOVE)
			return fsp_xattr_remove(b->fs, m->fd[0], -1, "", m->name);
		return fsp_xattr_set(b->fs, m->fd[0], -1, "", m->name, m->value, q->value_len,
				     (int) q->flags);
	default:
		return -EINVAL;
	}
}

static int fsb_op_dir(struct fsb *b, struct fsb_msg *m, int *ret_fds, unsigned *ret_n)
{
	const struct fsb_req *q = &m->q;
	const struct p9_hostvol *v;
	uint32_t uid = q->uid, gid = q->gid;
	mode_t mode = q->mode;
	struct fsb_class c, c2;
	int r, fds[2];

	r = fsb_classify_dir(b, m->fd[0], &c);
	if (r < 0)
		return r;
	v = fsb_vol(b, &c);
	switch (q->op) {
	case FSB_LOOKUP:
		r = fsp_lookup(b->fs, m->fd[0], m->name, &fds[0]);
		if (r >= 0)
			ret_fds[(*ret_n)++] = fds[0];
		return r;
	case FSB_CHECK_SAME:
		if (!fsp_name_valid(m->name))
			return -EINVAL;
		return fsp_check_same(
			b->fs, m->fd[0], m->name,
			&(struct stat){.st_dev = (dev_t) q->dev, .st_ino = (ino_t) q->ino});
	default:
		break;
	}
	if (b->ex[c.export].read_only)
		return -EROFS;
	hostvol_policy_owner(v, &uid, &gid);
	switch (q->op) {
	case FSB_CREATE:
		mode = hostvol_policy_mode(v, S_IFREG, mode & 07777);
		r = fsp_create(b->fs, m->fd[0], m->name, (int) q->flags, mode, uid, gid, &fds[0],
			       &fds[1]);
		if (r < 0)
			return r;
		if (r == 1) {
			int k = fsb_check_new(b, &c, m->fd[0], m->name);

			if (k < 0) {
				(void) close(fds[0]);
				(void) close(fds[1]);
				return k;
			}
		} else if (fsp_opens_for_write((int) q->flags) && fsb_file_in_vol(b, &c, fds[0])) {
			/* An existing file, in a volume or one itself (a volume may be a file). */
			int k = fsp_drop_suid(b->fs, fds[0], -1, "");

			if (k < 0) {
				(void) close(fds[0]);
				(void) close(fds[1]);
				return k;
			}
		}
		ret_fds[(*ret_n)++] = fds[0];
		ret_fds[(*ret_n)++] = fds[1];
		return r;
	case FSB_MKDIR:
		r = fsp_mkdir(b->fs, m->fd[0], m->name,
			      hostvol_policy_mode(v, S_IFDIR, mode & 07777), uid, gid);
		break;
	case FSB_SYMLINK:
		r = fsp_symlink(b->fs, m->fd[0], m->name, m->name2, uid, gid);
		break;
	case FSB_MKNOD:
		r = fsp_mknod(b->fs, m->fd[0], m->name,
			      (mode & S_IFMT) | hostvol_policy_mode(v, mode & S_IFMT, mode & 07777),
			      uid, gid);
		break;
	case FSB_RENAME:
		r = fsb_classify_dir(b, m->fd[1], &c2);
		if (r < 0)
			return r;
		if (c2.export != c.export || c2.vol != c.vol)
			return -EXDEV;
		return fsp_rename(b->fs, m->fd[0], m->name, m->fd[1], m->name2);
	case FSB_UNLINK:
		return fsp_unlink(b->fs, m->fd[0], m->name, q->flags & 1);
	default:
		return -EINVAL;
	}
	if (r < 0)
		return r;
	return fsb_check_new(b, &c, m->fd[0], m->name);
}

/* A byte string of the message as a C string: no NUL inside. */
static int fsb_take_str(const uint8_t **p, uint32_t len, uint32_t max, char *out)
{
	if (len > max || memchr(*p, 0, len))
		return -EBADMSG;
	memcpy(out, *p, len);
	out[len] = '\0';
	*p += len;
	return 0;
}

/* Reads one request into m: 1, 0 at EOF, -EBADMSG for a malformed one. */
static int fsb_recv(int sock, uint8_t *buf, struct fsb_msg *m)
{
	int got[FSB_FDS_MAX];
	unsigned n_got = 0, want = 0;
	const uint8_t *p;
	bool truncated;
	ssize_t n;
	int r = 0;

	for (unsigned i = 0; i < FSB_FDS_MAX; i++)
		m->fd[i] = -1;
	n = fsb_recv_fds(sock, &(struct iovec){buf, FSB_REQ_MAX}, 1, got, &n_got, &truncated);
	if (n < 0)
		return (int) n;
	if (n == 0 && n_got == 0)
		return 0;
	if ((size_t) n < sizeof(m->q) || truncated)
		r = -EBADMSG;
	if (r == 0) {
		memcpy(&m->q, buf, sizeof(m->q));
		if (m->q.op == 0 || m->q.op >= _FSB_OP_MAX ||
		    (m->q.fd_mask & ~(uint32_t) fsb_ops[m->q.op].may) ||
		    (m->q.fd_mask & fsb_ops[m->q.op].need) != fsb_ops[m->q.op].need ||
		    (uint64_t) n != sizeof(m->q) + (uint64_t) m->q.name_len + m->q.name2_len +
					    m->q.value_len ||
		    m->q.value_len > FSB_VALUE_MAX)
			r = -EBADMSG;
	}
	if (r == 0) {
		p = buf + sizeof(m->q);
		r = fsb_take_str(&p, m->q.name_len, FSB_NAME_MAX, m->name);
		if (r >= 0)
			r = fsb_take_str(&p, m->q.name2_len, FSB_NAME2_MAX, m->name2);
		m->value = p;
		if (r >= 0 && ((fsb_ops[m->q.op].name && !m->name[0]) ||
			       (fsb_ops[m->q.op].name2 && !m->name2[0])))
			r = -EBADMSG;
	}
	for (unsigned i = 0; r == 0 && i < FSB_FDS_MAX; i++)
		want += (m->q.fd_mask >> i) & 1;
	if (r == 0 && want != n_got)
		r = -EBADMSG;
	for (unsigned i = 0, k = 0; i < FSB_FDS_MAX; i++) {
		if (r == 0 && (m->q.fd_mask & (1u << i)))
			m->fd[i] = got[k++];
	}
	if (r < 0)
		for (unsigned i = 0; i < n_got; i++)
			(void) close(got[i]);
	return r < 0 ? r : 1;
}

static int fsb_reply(int sock, int result, const int *fds, unsigned n_fds, const void *data,
		     uint32_t len)
{
	struct fsb_resp a = {.result = result, .n_fds = n_fds, .data_len = len};

	return fsb_send(sock, (struct iovec[]){{&a, sizeof(a)}, {(void *) data, len}}, len ? 2 : 1,
			fds, n_fds);
}

static void fsb_free(struct fsb *b)
{
	for (unsigned e = 0; e < b->n; e++)
		free(b->ex[e].vols);
	fsp_free(b->fs);
}

static int fsb_init(struct fsb *b, const struct fsb_export *exports, unsigned n)
{
	int r;

	if (n == 0 || n > FSB_EXPORTS_MAX)
		return -EINVAL;
	for (unsigned e = 0; e < n; e++) {
		const struct fsb_export *x = &exports[e];
		struct fsb_export_state *s = &b->ex[e];
		struct stat st;

		if (fstat(x->root_fd, &st) < 0)
			return -errno;
		b->n = e + 1;
		s->dev = st.st_dev;
		s->ino = st.st_ino;
		s->read_only = x->read_only;
		s->vols = calloc(x->n_hostvols + 1, sizeof(*s->vols));
		if (!s->vols)
			return -ENOMEM;
		if (x->n_hostvols)
			memcpy(s->vols, x->hostvols, x->n_hostvols * sizeof(*s->vols));
		s->n_vols = x->n_hostvols;
		if (x->hostvol_root)
			s->vols[s->n_vols++] =
				(struct p9_hostvol){st.st_dev, st.st_ino, st.st_uid, st.st_gid};
	}
	r = fsp_new_at(exports[0].root_fd, &b->fs);
	return r;
}

int fsb_serve(int sock, const struct fsb_export *exports, unsigned n)
{
	_cleanup_free_ uint8_t *buf = NULL, *data = NULL;
	_cleanup_free_ struct fsb_msg *m = NULL;
	struct fsb b = {0};
	int r;

	buf = malloc(FSB_REQ_MAX);
	data = malloc(FSB_VALUE_MAX);
	m = malloc(sizeof(*m));
	if (!buf || !data || !m)
		return -ENOMEM;
	r = fsb_init(&b, exports, n);
	while (r >= 0) {
		int fds[FSB_FDS_MAX];
		unsigned n_fds = 0;
		uint32_t len = 0;

		r = fsb_recv(sock, buf, m);
		if (r <= 0)
			break;
		if (m->q.op == FSB_REOPEN || m->q.op == FSB_LINK || m->q.op == FSB_SETATTR ||
		    m->q.op == FSB_DROP_SUID || m->q.op >= FSB_XATTR_GET)
			r = fsb_op_node(&b, m, fds, &n_fds, data, &len);
		else
			r = fsb_op_dir(&b, m, fds, &n_fds);
		for (unsigned i = 0; i < FSB_FDS_MAX; i++)
			safe_close(m->fd[i]);
		r = fsb_reply(sock, r, fds, n_fds, data, len);
		for (unsigned i = 0; i < n_fds; i++)
			(void) close(fds[i]);
	}
	fsb_free(&b);
	if (r == -EBADMSG)
		log_debug("9p broker: a malformed request");
	return r;
}
