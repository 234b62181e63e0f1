/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 9p broker (fs-broker.h) against a hostile worker: the test speaks its protocol directly,
 * as a 9p worker a guest took over would, with descriptors and names of its own choosing. The
 * broker acts only beneath its exports, applies the host-volume policy and read-only exports
 * itself, and ends on a malformed message. Needs root (owners and modes of others' files).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "9p/fs-broker.h"
#include "cc/cleanup.h"
#include "cctest.h"

#define VOL_UID 1234u
#define VOL_GID 2345u

static char *top;			   /* holds the three below */
static char rw[4200], ro[4200], out[4200]; /* an export, a read-only one, outside both */
static int sock = -1;
static pid_t broker = -1;
static int rw_fd = -1, ro_fd = -1, out_fd = -1;

static int opath(const char *dir, const char *rel)
{
	char p[8400];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", p, strerror(errno));
	return fd;
}

static struct stat stat_at(const char *dir, const char *rel)
{
	char p[8400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	ck_assert_msg(lstat(p, &st) == 0, "%s: %s", p, strerror(errno));
	return st;
}

static void setup(void)
{
	static const struct p9_hostvol vol_template = {0, 0, VOL_UID, VOL_GID};
	static struct p9_hostvol vol[2];
	struct fsb_export ex[2];
	struct stat st;
	int sv[2];

	top = cctest_mkdtemp();
	snprintf(rw, sizeof(rw), "%s/rw", top);
	snprintf(ro, sizeof(ro), "%s/ro", top);
	snprintf(out, sizeof(out), "%s/out", top);
	cctest_mkdir_at(top, "rw");
	cctest_mkdir_at(top, "ro");
	cctest_mkdir_at(top, "out");
	cctest_mkdir_at(rw, "vol");
	cctest_mkdir_at(rw, "app");
	cctest_write_at(rw, "vol/file", "v");
	cctest_write_at(rw, "app/file", "a");
	cctest_write_at(rw, "app/hostfile", "h"); /* a volume that is one file */
	cctest_write_at(out, "file", "o");
	cctest_write_at(ro, "file", "r");
	ck_assert_int_eq(chown(strcat(strcpy((char[8400]){0}, rw), "/vol"), VOL_UID, VOL_GID), 0);
	st = stat_at(rw, "vol");
	vol[0] = vol_template;
	vol[0].dev = st.st_dev;
	vol[0].ino = st.st_ino;
	st = stat_at(rw, "app/hostfile");
	vol[1] = vol_template;
	vol[1].dev = st.st_dev;
	vol[1].ino = st.st_ino;
	rw_fd = opath(top, "rw");
	ro_fd = opath(top, "ro");
	out_fd = opath(top, "out");
	ex[0] = (struct fsb_export){.root_fd = rw_fd, .hostvols = vol, .n_hostvols = 2};
	ex[1] = (struct fsb_export){.root_fd = ro_fd, .read_only = true};
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	broker = fork();
	ck_assert_int_ge(broker, 0);
	if (broker == 0) {
		int r;

		(void) close(sv[0]);
		r = fsb_serve(sv[1], ex, 2);
		_exit(r < 0 ? (r == -EBADMSG ? 2 : 1) : 0);
	}
	(void) close(sv[1]);
	sock = sv[0];
}

static void teardown(void)
{
	sock = safe_close(sock);
	if (broker > 0)
		(void) waitpid(broker, NULL, 0);
	rw_fd = safe_close(rw_fd);
	ro_fd = safe_close(ro_fd);
	out_fd = safe_close(out_fd);
	cctest_rm_rf(top);
}

/* One call, descriptors in slot order (-1: none); fds that come back are closed. */
static int ask(struct fsb_req q, int f0, int f1, int f2, const char *name, const char *name2,
	       const void *value)
{
	int slots[3] = {f0, f1, f2}, fds[3], got[FSB_FDS_MAX];
	unsigned n = 0, n_got = 0;
	char data[256];
	int r;

	for (unsigned i = 0; i < 3; i++)
		if (slots[i] >= 0) {
			q.fd_mask |= 1u << i;
			fds[n++] = slots[i];
		}
	r = fsb_call(sock, &q, fds, n, name, name2, value, got, &n_got, data, sizeof(data));
	for (unsigned i = 0; i < n_got; i++)
		(void) close(got[i]);
	return r;
}

/* Nothing outside an export, whatever descriptor the worker holds. */
START_TEST(test_outside_the_exports)
{
	_cleanup_close_ int file = opath(out, "file"), app = opath(rw, "app");
	_cleanup_close_ int root = open("/", O_PATH | O_CLOEXEC);
	char v[8];

	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_LOOKUP}, out_fd, -1, -1, "file", NULL, NULL),
		     EXDEV);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_MKDIR, .mode = 0755}, out_fd, -1, -1, "new",
			 NULL, NULL),
		     EXDEV);
	/* The root of the host, by a descriptor on it */
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_LOOKUP}, root, -1, -1, "etc", NULL, NULL),
		     EXDEV);
	/* A file outside, passed off as a name of a directory inside: the name must be it. */
	ASSERT_ERRNO(
		ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_mode = true, .mode = 04755}},
		    file, app, -1, "file", NULL, NULL),
		ESTALE);
	ASSERT_ERRNO(
		ask((struct fsb_req){.op = FSB_DROP_SUID}, file, out_fd, -1, "file", NULL, NULL),
		EXDEV);
	/* A node that is not a directory needs its directory. */
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_XATTR_SET, .value_len = 1}, file, -1, -1,
			 "user.x", NULL, "x"),
		     EINVAL);
	ck_assert_uint_eq(stat_at(out, "file").st_mode & 07777, 0644);
	ck_assert_int_eq(
		getxattr(strcat(strcpy((char[8400]){0}, out), "/file"), "user.x", v, sizeof(v)),
		-1);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_MKDIR, .mode = 0755}, rw_fd, -1, -1, "..", NULL,
			 NULL),
		     EINVAL);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_LOOKUP}, rw_fd, -1, -1, "app/file", NULL, NULL),
		     EINVAL);
	/* no path of several components, through which the broker would resolve '..' */
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_CHECK_SAME}, rw_fd, -1, -1, "../out/file", NULL,
			 NULL),
		     EINVAL);
}
END_TEST

/* Inside the export, what the guest may do: the broker does it with its capabilities. */
START_TEST(test_inside_the_export)
{
	_cleanup_close_ int app = opath(rw, "app"), file = opath(rw, "app/file");

	ASSERT_OK(ask((struct fsb_req){.op = FSB_MKDIR, .mode = 04755, .uid = 7, .gid = 8}, app, -1,
		      -1, "d", NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "app/d").st_mode & 07777, 04755);
	ck_assert_uint_eq(stat_at(rw, "app/d").st_uid, 7);
	/* setuid root is the pod's business in its own rootfs */
	ASSERT_OK(
		ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_mode = true, .mode = 04755}},
		    file, app, -1, "file", NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "app/file").st_mode & 07777, 04755);
	ASSERT_OK(ask((struct fsb_req){.op = FSB_LOOKUP}, app, -1, -1, "file", NULL, NULL));
	ASSERT_OK(ask((struct fsb_req){.op = FSB_RENAME}, app, rw_fd, -1, "d", "moved", NULL));
	ck_assert(S_ISDIR(stat_at(rw, "moved").st_mode));
	ASSERT_OK(ask((struct fsb_req){.op = FSB_UNLINK, .flags = 1}, rw_fd, -1, -1, "moved", NULL,
		      NULL));
	ASSERT_OK(ask((struct fsb_req){.op = FSB_XATTR_SET, .value_len = 1}, file, app, -1,
		      "user.x", "file", "x"));
	/* Only user.*: trusted.* and security.* are the host's. */
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_XATTR_SET, .value_len = 1}, file, app, -1,
			 "trusted.x", "file", "x"),
		     EOPNOTSUPP);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_XATTR_SET, .value_len = 1}, file, app, -1,
			 "security.capability", "file", "x"),
		     EOPNOTSUPP);
}
END_TEST

/* In a host volume: no setuid, no root's files, nothing in or out of it by link or rename. */
START_TEST(test_host_volume_policy)
{
	_cleanup_close_ int vol = opath(rw, "vol"), file = opath(rw, "vol/file"),
			    app = opath(rw, "app");
	struct stat st;

	ASSERT_OK(ask((struct fsb_req){.op = FSB_MKDIR, .mode = 06755, .uid = 0, .gid = 0}, vol, -1,
		      -1, "d", NULL, NULL));
	st = stat_at(rw, "vol/d");
	ck_assert_uint_eq(st.st_mode & 07777, 02755); /* setgid stays on a directory */
	ck_assert_uint_eq(st.st_uid, VOL_UID);
	ck_assert_uint_eq(st.st_gid, VOL_GID);
	ASSERT_OK(
		ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_mode = true, .mode = 06755}},
		    file, vol, -1, "file", NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "vol/file").st_mode & 07777, 0755);
	/* a chown that changes nothing stays allowed: the file must be someone else's first */
	ck_assert_int_eq(chown(strcat(strcpy((char[8400]){0}, rw), "/vol/file"), VOL_UID, VOL_GID),
			 0);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_uid = true, .uid = 0}},
			 file, vol, -1, "file", NULL, NULL),
		     EPERM);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_LINK}, file, vol, app, "file", "stolen", NULL),
		     EXDEV);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_RENAME}, vol, app, -1, "file", "stolen", NULL),
		     EXDEV);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_RENAME}, app, vol, -1, "file", "planted", NULL),
		     EXDEV);
	/* A create as root: given to the volume's owner, without its setuid bit */
	ASSERT_OK(ask((struct fsb_req){.op = FSB_CREATE, .flags = O_RDWR, .mode = 04755}, vol, -1,
		      -1, "new", NULL, NULL));
	st = stat_at(rw, "vol/new");
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert_uint_eq(st.st_uid, VOL_UID);
	/* A setuid file the host put there loses its bit when the guest opens it for writing. */
	ck_assert_int_eq(chmod(strcat(strcpy((char[8400]){0}, rw), "/vol/file"), 04755), 0);
	ASSERT_OK(ask((struct fsb_req){.op = FSB_REOPEN, .flags = O_WRONLY}, file, vol, -1, "file",
		      NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "vol/file").st_mode & 07777, 0755);
	/* A truncate through another inode's open file truncates nothing of that inode. */
	ASSERT_OK(ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_size = true, .size = 0}},
		      file, vol,
		      open(strcat(strcpy((char[8400]){0}, out), "/file"), O_RDWR | O_CLOEXEC),
		      "file", NULL, NULL));
	ck_assert_int_eq(stat_at(out, "file").st_size, 1);
	ck_assert_int_eq(stat_at(rw, "vol/file").st_size, 0);
}
END_TEST

/* A file that is a volume by itself, opened again by a create: its setuid bit goes too. */
START_TEST(test_single_file_volume)
{
	_cleanup_close_ int app = opath(rw, "app"), hf = -1;

	ck_assert_int_eq(chmod(strcat(strcpy((char[8400]){0}, rw), "/app/hostfile"), 04755), 0);
	ASSERT_OK(ask((struct fsb_req){.op = FSB_CREATE, .flags = O_RDWR | O_TRUNC, .mode = 0644},
		      app, -1, -1, "hostfile", NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "app/hostfile").st_mode & 07777, 0755);
	/* and a setattr on it follows the volume's policy */
	hf = opath(rw, "app/hostfile");
	ASSERT_OK(
		ask((struct fsb_req){.op = FSB_SETATTR, .attr = {.set_mode = true, .mode = 04755}},
		    hf, app, -1, "hostfile", NULL, NULL));
	ck_assert_uint_eq(stat_at(rw, "app/hostfile").st_mode & 07777, 0755);
	/* Outside a volume, dropping setuid bits is not the worker's to ask. */
	ck_assert_int_eq(chmod(strcat(strcpy((char[8400]){0}, rw), "/app/file"), 04755), 0);
	{
		_cleanup_close_ int f = open(strcat(strcpy((char[8400]){0}, rw), "/app/file"),
					     O_RDONLY | O_CLOEXEC);

		ASSERT_ERRNO(
			ask((struct fsb_req){.op = FSB_DROP_SUID}, f, app, -1, "file", NULL, NULL),
			EPERM);
	}
	ck_assert_uint_eq(stat_at(rw, "app/file").st_mode & 07777, 04755);
}
END_TEST

START_TEST(test_read_only_export)
{
	_cleanup_close_ int file = opath(ro, "file");

	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_MKDIR, .mode = 0755}, ro_fd, -1, -1, "d", NULL,
			 NULL),
		     EROFS);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_REOPEN, .flags = O_RDWR}, file, ro_fd, -1,
			 "file", NULL, NULL),
		     EROFS);
	ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_XATTR_SET, .value_len = 1}, file, ro_fd, -1,
			 "user.x", "file", "x"),
		     EROFS);
	ASSERT_OK(ask((struct fsb_req){.op = FSB_REOPEN, .flags = O_RDONLY}, file, ro_fd, -1,
		      "file", NULL, NULL));
	{
		_cleanup_close_ int f =
			open(strcat(strcpy((char[8400]){0}, ro), "/file"), O_RDONLY | O_CLOEXEC);

		ck_assert_int_eq(chmod(strcat(strcpy((char[8400]){0}, ro), "/file"), 04755), 0);
		ASSERT_ERRNO(ask((struct fsb_req){.op = FSB_DROP_SUID}, f, ro_fd, -1, "file", NULL,
				 NULL),
			     EROFS);
		ck_assert_uint_eq(stat_at(ro, "file").st_mode & 07777, 04755);
	}
}
END_TEST

/* A message the protocol does not allow ends the broker (exit 2); it never guesses. */
static void send_raw(const void *buf, size_t len, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {(void *) buf, len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&ctl.h), &fd, sizeof(int));
	}
	ck_assert_int_ge(sendmsg(sock, &mh, MSG_NOSIGNAL), 0);
}

static void assert_broker_refused(void)
{
	int status;

	ck_assert_int_eq(waitpid(broker, &status, 0), broker);
	broker = -1;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %#x", status);
}

START_TEST(test_malformed)
{
	struct {
		struct fsb_req q;
		char name[8];
	} m = {.q = {.op = FSB_LOOKUP, .fd_mask = 1, .name_len = 4}, .name = "file"};

	switch (_i) {
	case 0: /* an op that does not exist */
		m.q.op = _FSB_OP_MAX;
		send_raw(&m, sizeof(m.q) + 4, rw_fd);
		break;
	case 1: /* a descriptor announced, none sent */
		send_raw(&m, sizeof(m.q) + 4, -1);
		break;
	case 2: /* lengths that do not add up */
		m.q.name_len = 8;
		send_raw(&m, sizeof(m.q) + 4, rw_fd);
		break;
	case 3: /* a NUL inside a name */
		m.name[1] = '\0';
		send_raw(&m, sizeof(m.q) + 4, rw_fd);
		break;
	case 4: /* a slot the op has no use for */
		m.q.fd_mask = 3;
		send_raw(&m, sizeof(m.q) + 4, rw_fd);
		break;
	default: /* shorter than a header */
		send_raw(&m, 3, -1);
		break;
	}
	assert_broker_refused();
}
END_TEST

static Suite *broker_suite(void)
{
	Suite *s = suite_create("9p-broker");
	TCase *tc = tcase_create("broker");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_outside_the_exports);
	tcase_add_test(tc, test_inside_the_export);
	tcase_add_test(tc, test_host_volume_policy);
	tcase_add_test(tc, test_single_file_volume);
	tcase_add_test(tc, test_read_only_export);
	tcase_add_loop_test(tc, test_malformed, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(0);
	return cctest_run_suite(broker_suite());
}
