/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host-volume policy (docs/9p.md, "Host volumes"), spoken as a hostile guest root would:
 * an export holding a passthrough directory (an app rootfs) and, under it, a host directory
 * bind-mounted the way run mounts a kind=host volume. In the volume nothing the guest does
 * leaves a setuid or setgid file or a root-owned one on the host; in the rest of the export
 * everything behaves as before (setuid allowed). Needs root and a mount namespace.
 */
#include <cap-ng.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cctest.h"
#include "p9c.h"

#define DOTL_RDONLY 0u
#define DOTL_WRONLY 1u
#define DOTL_RDWR   2u
#define DOTL_EXCL   0200u
#define DOTL_TRUNC  01000u

#define SETATTR_MODE 0x1u
#define SETATTR_UID  0x2u
#define SETATTR_GID  0x4u
#define SETATTR_SIZE 0x8u

/* The host user who owns the volume's source directory. */
#define VOL_UID 1234u
#define VOL_GID 2345u

static struct p9c c;
static char *src; /* the volume's host source, outside the export */

/* Fids: 0 the export root, 1 "app" (passthrough), 2 "app/vol" (the volume). */
static void setup(void)
{
	struct stat st;

	p9c_init(&c, false, false);
	src = cctest_mkdtemp();
	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(chown(src, VOL_UID, VOL_GID), 0);
	ck_assert_int_eq(chmod(src, 0755), 0);
	cctest_mkdir_at(c.dir, "app");
	cctest_mkdir_at(c.dir, "app/vol");
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount(src, p9c_host_path(&c, "app/vol"), NULL, MS_BIND, NULL), 0);
	/* The export is opened again in this namespace, after the mount, as the VMM does. */
	p9_server_free(c.srv);
	ASSERT_OK(p9_server_new(c.dir, false, &c.srv));
	ck_assert_int_eq(stat(src, &st), 0);
	ASSERT_OK(p9_server_add_hostvol(
		c.srv, &(struct p9_hostvol){st.st_dev, st.st_ino, st.st_uid, st.st_gid}));
	ASSERT_OK(p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&c, 0, 0));
	ck_assert_int_eq(p9c_walk1(&c, 0, 1, "app"), 1);
	ck_assert_int_eq(p9c_walk1(&c, 0, 2, "app/vol"), 2);
}

static void teardown(void)
{
	/* The bind first, so that the export's directory can go too. */
	(void) umount2(p9c_host_path(&c, "app/vol"), MNT_DETACH);
	p9c_done(&c);
	(void) cctest_rm_rf(src);
	free(src);
}

/* What the host sees at the volume's source (or, with src NULL, in the export). */
static struct stat host_stat(const char *base, const char *rel)
{
	char p[4096];
	struct stat st;

	(void) snprintf(p, sizeof(p), "%s/%s", base, rel);
	ck_assert_msg(lstat(p, &st) == 0, "%s: %s", p, strerror(errno));
	return st;
}

static bool host_exists(const char *base, const char *rel)
{
	char p[4096];
	struct stat st;

	(void) snprintf(p, sizeof(p), "%s/%s", base, rel);
	return lstat(p, &st) == 0;
}

static void host_file(const char *base, const char *rel, mode_t mode, uid_t uid, gid_t gid)
{
	char p[4096];

	cctest_write_at(base, rel, "#!/bin/sh\n");
	(void) snprintf(p, sizeof(p), "%s/%s", base, rel);
	ck_assert_int_eq(chown(p, uid, gid), 0);
	ck_assert_int_eq(chmod(p, mode), 0);
}

/* Tsetattr of owner (the p9c helper only sets mode, size and mtime). */
static int chown_valid_on(struct p9c *cl, uint32_t fid, uint32_t valid, uint32_t uid, uint32_t gid)
{
	struct p9_out *o = p9c_begin(cl);

	p9_put_u32(o, fid);
	p9_put_u32(o, valid);
	p9_put_u32(o, 0);
	p9_put_u32(o, uid);
	p9_put_u32(o, gid);
	for (int i = 0; i < 5; i++)
		p9_put_u64(o, 0);
	return p9c_send(cl, P9_TSETATTR);
}

static int chown_fid(uint32_t fid, uint32_t valid, uint32_t uid, uint32_t gid)
{
	return chown_valid_on(&c, fid, valid, uid, gid);
}

static int chown_fid_on(struct p9c *cl, uint32_t fid, uint32_t uid, uint32_t gid)
{
	return chown_valid_on(cl, fid, SETATTR_UID | SETATTR_GID, uid, gid);
}

static int chmod_fid(uint32_t fid, uint32_t mode)
{
	return p9c_setattr(&c, fid, SETATTR_MODE, mode, 0, 0);
}

/* Tlcreate with an explicit gid (p9c_lcreate sends the test's own). */
static int lcreate_gid(uint32_t fid, const char *name, uint32_t mode, uint32_t gid)
{
	struct p9_out *o = p9c_begin(&c);

	p9_put_u32(o, fid);
	p9_put_str(o, name);
	p9_put_u32(o, DOTL_RDWR | DOTL_EXCL);
	p9_put_u32(o, mode);
	p9_put_u32(o, gid);
	return p9c_send(&c, P9_TLCREATE);
}

static void assert_mode_owner(const struct stat *st, mode_t mode, uid_t uid, gid_t gid)
{
	ck_assert_msg((st->st_mode & 07777) == mode, "mode %04o, expected %04o",
		      st->st_mode & 07777, mode);
	ck_assert_uint_eq(st->st_uid, uid);
	ck_assert_uint_eq(st->st_gid, gid);
}

/* The attack: touch; chown 0:0; chmod 4755 from guest root. */
START_TEST(test_chown_root_then_chmod_setuid)
{
	struct stat st;

	ck_assert_int_eq(p9c_walk1(&c, 2, 3, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 3, "f", DOTL_RDWR, 0644));
	assert_mode_owner((st = host_stat(src, "f"), &st), 0644, VOL_UID, VOL_GID);
	ASSERT_ERRNO(chown_fid(3, SETATTR_UID | SETATTR_GID, 0, 0), EPERM);
	ASSERT_ERRNO(chown_fid(3, SETATTR_UID, 0, 0), EPERM);
	ASSERT_ERRNO(chown_fid(3, SETATTR_GID, 0, 0), EPERM);
	ASSERT_OK(chmod_fid(3, 04755));
	assert_mode_owner((st = host_stat(src, "f"), &st), 0755, VOL_UID, VOL_GID);
	ASSERT_OK(chmod_fid(3, 02755));
	assert_mode_owner((st = host_stat(src, "f"), &st), 0755, VOL_UID, VOL_GID);
	ASSERT_OK(chmod_fid(3, 07755)); /* sticky stays: it grants nothing */
	assert_mode_owner((st = host_stat(src, "f"), &st), 01755, VOL_UID, VOL_GID);
	/* Other ids pass (guest users own their files), and so does a chown that changes nothing.
	 */
	ASSERT_OK(chown_fid(3, SETATTR_UID | SETATTR_GID, 1000, 1000));
	assert_mode_owner((st = host_stat(src, "f"), &st), 01755, 1000, 1000);
	ASSERT_OK(chown_fid(3, SETATTR_UID | SETATTR_GID, VOL_UID, VOL_GID));
	/* mode and owner in one request: refused as a whole, nothing changed */
	ck_assert_int_eq(chmod(p9c_host_path(&c, "app/vol/f"), 0644), 0);
	ASSERT_ERRNO(chown_fid(3, SETATTR_MODE | SETATTR_UID, 0, 0), EPERM);
	assert_mode_owner((st = host_stat(src, "f"), &st), 0644, VOL_UID, VOL_GID);

	/* The same in the app rootfs: passthrough, as before. */
	ck_assert_int_eq(p9c_walk1(&c, 1, 4, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 4, "f", DOTL_RDWR, 0644));
	ASSERT_OK(chown_fid(4, SETATTR_UID | SETATTR_GID, 0, 0));
	ASSERT_OK(chmod_fid(4, 04755));
	assert_mode_owner((st = host_stat(c.dir, "app/f"), &st), 04755, 0, 0);
	ASSERT_OK(chmod_fid(4, 02755));
	assert_mode_owner((st = host_stat(c.dir, "app/f"), &st), 02755, 0, 0);
}
END_TEST

/* A volume whose root is root's: root ownership is the volume's own, setuid still never. */
START_TEST(test_root_owned_volume)
{
	struct p9c v;
	struct stat st;

	p9c_init(&v, false, false);
	cctest_mkdir_at(v.dir, "vol");
	ck_assert_int_eq(stat(p9c_host_path(&v, "vol"), &st), 0);
	ASSERT_OK(p9_server_add_hostvol(v.srv, &(struct p9_hostvol){st.st_dev, st.st_ino, 0, 0}));
	ASSERT_OK(p9c_version(&v, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&v, 0, 0));
	ck_assert_int_eq(p9c_walk1(&v, 0, 1, "vol"), 1);
	ASSERT_OK(p9c_lcreate(&v, 1, "f", DOTL_RDWR, 04755));
	assert_mode_owner((st = host_stat(v.dir, "vol/f"), &st), 0755, 0, 0);
	ASSERT_OK(p9c_setattr(&v, 1, SETATTR_MODE, 06755, 0, 0));
	assert_mode_owner((st = host_stat(v.dir, "vol/f"), &st), 0755, 0, 0);
	p9c_done(&v);

	/* In a volume of another owner, a file of the host's that is already root's: a chown to
	 * root again changes nothing and is allowed; giving another file to root is not. */
	host_file(src, "r", 0755, 0, 0);
	ck_assert_int_eq(p9c_walk1(&c, 2, 3, "r"), 1);
	ASSERT_OK(chown_fid(3, SETATTR_UID | SETATTR_GID, 0, 0));
	host_file(src, "u", 0755, VOL_UID, VOL_GID);
	ck_assert_int_eq(p9c_walk1(&c, 2, 4, "u"), 1);
	ASSERT_ERRNO(chown_fid(4, SETATTR_UID, 0, VOL_GID), EPERM);
}
END_TEST

START_TEST(test_create_modes_stripped)
{
	struct stat st;

	ck_assert_int_eq(p9c_walk1(&c, 2, 3, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 3, "s", DOTL_RDWR | DOTL_EXCL, 04755));
	assert_mode_owner((st = host_stat(src, "s"), &st), 0755, VOL_UID, VOL_GID);
	ck_assert_int_eq(p9c_walk1(&c, 2, 4, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 4, "g", DOTL_RDWR, 02711));
	assert_mode_owner((st = host_stat(src, "g"), &st), 0711, VOL_UID, VOL_GID);
	ASSERT_OK(p9c_mknod(&c, 2, "n", S_IFREG | 06755));
	assert_mode_owner((st = host_stat(src, "n"), &st), 0755, VOL_UID, VOL_GID);
	/* FIFOs and sockets carry no privilege: allowed, with the volume's owner, no setuid. */
	ASSERT_OK(p9c_mknod(&c, 2, "p", S_IFIFO | 04666));
	st = host_stat(src, "p");
	ck_assert(S_ISFIFO(st.st_mode));
	assert_mode_owner(&st, 0666, VOL_UID, VOL_GID);
	ASSERT_OK(p9c_mknod(&c, 2, "k", S_IFSOCK | 0755));
	ck_assert(S_ISSOCK(host_stat(src, "k").st_mode));
	/* Directories keep setgid (new nodes inherit the group), never setuid. */
	ASSERT_OK(p9c_mkdir(&c, 2, "d", 06775));
	st = host_stat(src, "d");
	assert_mode_owner(&st, 02775, VOL_UID, VOL_GID);
	ASSERT_OK(p9c_symlink(&c, 2, "l", "/etc/shadow"));
	st = host_stat(src, "l");
	ck_assert_uint_eq(st.st_uid, VOL_UID);
	ck_assert_uint_eq(st.st_gid, VOL_GID);

	/* Passthrough: exactly what the guest asked, as before. */
	ck_assert_int_eq(p9c_walk1(&c, 1, 5, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 5, "s", DOTL_RDWR | DOTL_EXCL, 04755));
	assert_mode_owner((st = host_stat(c.dir, "app/s"), &st), 04755, 0, 0);
	ASSERT_OK(p9c_mknod(&c, 1, "n", S_IFREG | 06755));
	assert_mode_owner((st = host_stat(c.dir, "app/n"), &st), 06755, 0, 0);
	ASSERT_OK(p9c_mkdir(&c, 1, "d", 06775));
	assert_mode_owner((st = host_stat(c.dir, "app/d"), &st), 06775, 0, 0);
}
END_TEST

/* A guest user's ids pass through; only 0 is squashed to the volume's owner. */
START_TEST(test_guest_user_ids)
{
	struct stat st;

	ASSERT_OK(p9c_attach(&c, 10, 1000));
	ck_assert_int_eq(p9c_walk1(&c, 10, 11, "app/vol"), 2);
	ASSERT_OK(lcreate_gid(11, "u", 0640, 1000));
	assert_mode_owner((st = host_stat(src, "u"), &st), 0640, 1000, 1000);
	ck_assert_int_eq(p9c_walk1(&c, 10, 12, "app/vol"), 2);
	ASSERT_OK(lcreate_gid(12, "v", 0640, 0)); /* uid 1000, gid 0 asked */
	assert_mode_owner((st = host_stat(src, "v"), &st), 0640, 1000, VOL_GID);
	ASSERT_ERRNO(chown_fid(12, SETATTR_GID, 1000, 0), EPERM);
	ASSERT_OK(chown_fid(12, SETATTR_GID, 0, 1000));
}
END_TEST

/* Writing or truncating a setuid file of the host's clears the bits, as the kernel would. */
START_TEST(test_write_clears_setuid)
{
	struct stat st;

	host_file(src, "w", 04755, 0, 0);
	host_file(src, "t", 06755, 0, 0);
	host_file(src, "c", 04755, 0, 0);
	host_file(src, "r", 04755, 0, 0);
	ck_assert_int_eq(p9c_walk1(&c, 2, 3, "r"), 1);
	ASSERT_OK(p9c_lopen(&c, 3, DOTL_RDONLY));
	assert_mode_owner((st = host_stat(src, "r"), &st), 04755, 0, 0); /* reading is fine */
	ck_assert_int_eq(p9c_walk1(&c, 2, 4, "w"), 1);
	ASSERT_OK(p9c_lopen(&c, 4, DOTL_WRONLY));
	assert_mode_owner((st = host_stat(src, "w"), &st), 0755, 0, 0);
	ck_assert_int_eq(p9c_write(&c, 4, 0, "X", 1), 1);
	ck_assert_int_eq(p9c_walk1(&c, 2, 5, "t"), 1);
	ASSERT_OK(p9c_setattr(&c, 5, SETATTR_SIZE, 0, 0, 0));
	assert_mode_owner((st = host_stat(src, "t"), &st), 0755, 0, 0);
	ck_assert_int_eq(st.st_size, 0);
	/* Tlcreate without EXCL opens the existing file: the same as an open for writing. */
	ck_assert_int_eq(p9c_walk1(&c, 2, 6, ""), 0);
	ASSERT_OK(p9c_lcreate(&c, 6, "c", DOTL_WRONLY, 0644));
	assert_mode_owner((st = host_stat(src, "c"), &st), 0755, 0, 0);

	/* The kernel's own chown rule: a chown clears setuid whatever the caller holds. */
	host_file(src, "k", 04755, VOL_UID, VOL_GID);
	ck_assert_int_eq(p9c_walk1(&c, 2, 7, "k"), 1);
	ASSERT_OK(chown_fid(7, SETATTR_UID, 1000, 0));
	assert_mode_owner((st = host_stat(src, "k"), &st), 0755, 1000, VOL_GID);

	/* Passthrough: the VMM keeps CAP_FSETID, so a write leaves the bits (as before). */
	host_file(c.dir, "app/w", 04755, 0, 0);
	ck_assert_int_eq(p9c_walk1(&c, 1, 8, "w"), 1);
	ASSERT_OK(p9c_lopen(&c, 8, DOTL_WRONLY | DOTL_TRUNC));
	ck_assert_int_eq(p9c_write(&c, 8, 0, "X", 1), 1);
	assert_mode_owner((st = host_stat(c.dir, "app/w"), &st), 04755, 0, 0);
}
END_TEST

START_TEST(test_mknod_devices_refused)
{
	ASSERT_ERRNO(p9c_mknod(&c, 2, "c", S_IFCHR | 0666), EPERM);
	ASSERT_ERRNO(p9c_mknod(&c, 2, "b", S_IFBLK | 0666), EPERM);
	ASSERT_ERRNO(p9c_mknod(&c, 1, "c", S_IFCHR | 0666), EPERM);
	ASSERT_ERRNO(p9c_mknod(&c, 1, "b", S_IFBLK | 0666), EPERM);
	ASSERT_ERRNO(p9c_mknod(&c, 0, "c", S_IFCHR | 0666), EPERM);
	ck_assert(!host_exists(src, "c") && !host_exists(src, "b"));
	ck_assert(!host_exists(c.dir, "app/c") && !host_exists(c.dir, "c"));
}
END_TEST

/* Everything reached through the volume root is in the volume; ".." leads back out. */
START_TEST(test_walks_inherit_and_leave)
{
	struct stat st;

	ASSERT_OK(p9c_mkdir(&c, 2, "a", 0755));
	ck_assert_int_eq(p9c_walk1(&c, 2, 3, "a"), 1);
	ASSERT_OK(p9c_mkdir(&c, 3, "b", 0755));
	ck_assert_int_eq(p9c_walk1(&c, 0, 4, "app/vol/a/b"), 4);
	ASSERT_OK(p9c_lcreate(&c, 4, "deep", DOTL_RDWR, 04755));
	assert_mode_owner((st = host_stat(src, "a/b/deep"), &st), 0755, VOL_UID, VOL_GID);
	/* From deep inside back out: app/vol/a/b/../../../x is the app rootfs again. */
	ck_assert_int_eq(p9c_walk1(&c, 0, 5, "app/vol/a/b/../../.."), 7);
	ASSERT_OK(p9c_lcreate(&c, 5, "out", DOTL_RDWR, 04755));
	assert_mode_owner((st = host_stat(c.dir, "app/out"), &st), 04755, 0, 0);
	/* A directory renamed inside the volume stays in it, and so do fids walked before. */
	ASSERT_OK(p9c_renameat(&c, 2, "a", 2, "z"));
	ck_assert_int_eq(p9c_walk1(&c, 2, 6, "z/b"), 2);
	ASSERT_OK(p9c_lcreate(&c, 6, "again", DOTL_RDWR, 04755));
	assert_mode_owner((st = host_stat(src, "z/b/again"), &st), 0755, VOL_UID, VOL_GID);
}
END_TEST

/* Links and renames never move a node in or out of a volume (the kernel agrees: EXDEV). */
START_TEST(test_no_link_or_rename_across)
{
	host_file(c.dir, "app/suid", 04755, 0, 0);
	host_file(src, "in", 0644, VOL_UID, VOL_GID);
	ck_assert_int_eq(p9c_walk1(&c, 1, 3, "suid"), 1);
	ASSERT_ERRNO(p9c_link(&c, 2, 3, "suid"), EXDEV);
	ASSERT_ERRNO(p9c_renameat(&c, 1, "suid", 2, "suid"), EXDEV);
	ASSERT_ERRNO(p9c_rename(&c, 3, 2, "suid"), EXDEV);
	ck_assert_int_eq(p9c_walk1(&c, 2, 4, "in"), 1);
	ASSERT_ERRNO(p9c_renameat(&c, 2, "in", 1, "in"), EXDEV);
	ASSERT_ERRNO(p9c_rename(&c, 4, 1, "in"), EXDEV);
	ASSERT_ERRNO(p9c_link(&c, 1, 4, "in"), EXDEV);
	ck_assert(!host_exists(src, "suid") && !host_exists(c.dir, "app/in"));
	/* Inside the volume both work. */
	ASSERT_OK(p9c_link(&c, 2, 4, "in2"));
	ASSERT_OK(p9c_rename(&c, 4, 2, "in3"));
	ck_assert(host_exists(src, "in2") && host_exists(src, "in3"));
}
END_TEST

/*
 * Without CAP_CHOWN the VMM's chown of a new node fails (it is best effort) and the node would
 * stay root's: it is removed again and the guest gets EPERM.
 */
START_TEST(test_new_node_unchownable_removed)
{
	struct stat vol;
	pid_t pid;
	int st, r;

	ck_assert_int_eq(stat(src, &vol), 0);
	pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		capng_get_caps_process();
		if (capng_update(CAPNG_DROP, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_CHOWN) < 0 ||
		    capng_apply(CAPNG_SELECT_CAPS) < 0)
			_exit(10);
		/* A server of this process: its /proc/self/fd is the parent's otherwise. */
		p9_server_free(c.srv);
		if (p9_server_new(c.dir, false, &c.srv) < 0 ||
		    p9_server_add_hostvol(c.srv, &(struct p9_hostvol){vol.st_dev, vol.st_ino,
								      VOL_UID, VOL_GID}) < 0 ||
		    p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0) < 0 ||
		    p9c_attach(&c, 0, 0) < 0 || p9c_walk1(&c, 0, 1, "app") != 1 ||
		    p9c_walk1(&c, 0, 2, "app/vol") != 2 || p9c_walk1(&c, 2, 3, "") != 0)
			_exit(11);
		r = p9c_lcreate(&c, 3, "f", DOTL_RDWR, 0644);
		if (r != -EPERM) {
			fprintf(stderr, "lcreate: %d\n", r);
			_exit(15);
		}
		if (p9c_mkdir(&c, 2, "d", 0755) != -EPERM ||
		    p9c_symlink(&c, 2, "l", "x") != -EPERM ||
		    p9c_mknod(&c, 2, "p", S_IFIFO | 0644) != -EPERM)
			_exit(12);
		if (host_exists(src, "f") || host_exists(src, "d") || host_exists(src, "l") ||
		    host_exists(src, "p"))
			_exit(13);
		/* Passthrough still creates (root-owned, as the VMM is). */
		if (p9c_mkdir(&c, 1, "d", 0755) != 0)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

/* One export per volume: the export root itself is the volume. */
START_TEST(test_export_root_is_volume)
{
	struct p9c v;
	struct stat st;

	p9c_init(&v, false, false);
	ck_assert_int_eq(stat(v.dir, &st), 0);
	ASSERT_OK(p9_server_add_hostvol(
		v.srv, &(struct p9_hostvol){st.st_dev, st.st_ino, VOL_UID, VOL_GID}));
	ASSERT_ERRNO(p9_server_add_hostvol(v.srv, &(struct p9_hostvol){st.st_dev, st.st_ino, 1, 1}),
		     EEXIST);
	ASSERT_OK(p9c_version(&v, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&v, 0, 0));
	ASSERT_ERRNO(p9_server_add_hostvol(v.srv, &(struct p9_hostvol){1, 2, 3, 4}), EBUSY);
	ASSERT_OK(p9c_walk1(&v, 0, 1, ""));
	ASSERT_OK(p9c_lcreate(&v, 1, "f", DOTL_RDWR, 04755));
	assert_mode_owner((st = host_stat(v.dir, "f"), &st), 0755, VOL_UID, VOL_GID);
	ASSERT_OK(p9c_setattr(&v, 0, SETATTR_MODE, 04755, 0, 0)); /* the root dir: no setuid */
	assert_mode_owner((st = host_stat(v.dir, "."), &st), 0755, 0, 0);
	p9c_done(&v);
}
END_TEST

/* A whole export under the policy, owned by its root's owner (cc-rkt, cc-journal). */
START_TEST(test_whole_export)
{
	struct p9c v;
	struct stat st;

	p9c_init(&v, false, false);
	ck_assert_int_eq(chown(v.dir, VOL_UID, VOL_GID), 0);
	ASSERT_OK(p9_server_add_hostvol_root(v.srv));
	ASSERT_ERRNO(p9_server_add_hostvol_root(v.srv), EEXIST);
	ASSERT_OK(p9c_version(&v, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&v, 0, 0));
	ASSERT_OK(p9c_mkdir(&v, 0, "d", 02755));
	ck_assert_int_eq(p9c_walk1(&v, 0, 1, "d"), 1);
	ASSERT_OK(p9c_lcreate(&v, 1, "f", DOTL_RDWR, 06755));
	assert_mode_owner((st = host_stat(v.dir, "d"), &st), 02755, VOL_UID, VOL_GID);
	assert_mode_owner((st = host_stat(v.dir, "d/f"), &st), 0755, VOL_UID, VOL_GID);
	ASSERT_ERRNO(chown_fid_on(&v, 1, 0, 0), EPERM);
	p9c_done(&v);
}
END_TEST

/* A single-file volume (a host file bound onto a file): the file itself is the volume. */
START_TEST(test_single_file_volume)
{
	struct p9c v;
	struct stat st;

	p9c_init(&v, false, false);
	host_file(v.dir, "conf", 0644, VOL_UID, VOL_GID);
	host_file(v.dir, "other", 0644, VOL_UID, VOL_GID);
	ck_assert_int_eq(lstat(p9c_host_path(&v, "conf"), &st), 0);
	ASSERT_OK(p9_server_add_hostvol(
		v.srv, &(struct p9_hostvol){st.st_dev, st.st_ino, st.st_uid, st.st_gid}));
	ASSERT_OK(p9c_version(&v, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&v, 0, 0));
	ck_assert_int_eq(p9c_walk1(&v, 0, 1, "conf"), 1);
	ASSERT_OK(p9c_setattr(&v, 1, SETATTR_MODE, 04755, 0, 0));
	assert_mode_owner((st = host_stat(v.dir, "conf"), &st), 0755, VOL_UID, VOL_GID);
	ASSERT_ERRNO(chown_fid_on(&v, 1, 0, 0), EPERM);
	/* Its neighbour in the same directory is passthrough. */
	ck_assert_int_eq(p9c_walk1(&v, 0, 2, "other"), 1);
	ASSERT_OK(p9c_setattr(&v, 2, SETATTR_MODE, 04755, 0, 0));
	assert_mode_owner((st = host_stat(v.dir, "other"), &st), 04755, VOL_UID, VOL_GID);
	ASSERT_OK(chown_fid_on(&v, 2, 0, 0));
	assert_mode_owner((st = host_stat(v.dir, "other"), &st), 0755, 0, 0); /* chown cleared it */
	p9c_done(&v);
}
END_TEST

START_TEST(test_hostvol_limit)
{
	struct p9c v;
	unsigned i;

	p9c_init(&v, false, false);
	for (i = 0; i < P9_HOSTVOLS_MAX; i++)
		ASSERT_OK(p9_server_add_hostvol(v.srv, &(struct p9_hostvol){7, i, 1, 1}));
	ASSERT_ERRNO(p9_server_add_hostvol(v.srv, &(struct p9_hostvol){7, i, 1, 1}), E2BIG);
	p9c_done(&v);
}
END_TEST

static Suite *p9_hostvol_suite(void)
{
	Suite *s = suite_create("9p-hostvol");
	TCase *tc = tcase_create("hostvol");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_chown_root_then_chmod_setuid);
	tcase_add_test(tc, test_root_owned_volume);
	tcase_add_test(tc, test_create_modes_stripped);
	tcase_add_test(tc, test_guest_user_ids);
	tcase_add_test(tc, test_write_clears_setuid);
	tcase_add_test(tc, test_mknod_devices_refused);
	tcase_add_test(tc, test_walks_inherit_and_leave);
	tcase_add_test(tc, test_no_link_or_rename_across);
	tcase_add_test(tc, test_new_node_unchownable_removed);
	tcase_add_test(tc, test_export_root_is_volume);
	tcase_add_test(tc, test_whole_export);
	tcase_add_test(tc, test_single_file_volume);
	tcase_add_test(tc, test_hostvol_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(CLONE_NEWNS);
	return cctest_run_suite(p9_hostvol_suite());
}
