/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tree store: each ACI is rendered once into <dir>/cas/tree/deps-sha512-<hash>/ (its
 * manifest and rootfs), keyed by the image ID (the sha512 of the uncompressed tar), as rkt's
 * tree store. Plain and gzipped ACIs; members outside manifest and rootfs/, absolute names and
 * `..` components are refused before anything is extracted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "manifest/image-manifest.h"
#include "manifest/limits.h"
#include "stage0.h"

#define LISTING_MAX (64u * 1024u * 1024u)
#define COPY_BLOCK  (1024u * 1024u)

static int member_check(const char *name)
{
	const char *p = name;

	if (name[0] == '/')
		return -EPERM;
	if (strncmp(p, "./", 2) == 0)
		p += 2;
	if (!streq(p, "manifest") && !streq(p, "rootfs") && !streq(p, "rootfs/") &&
	    strncmp(p, "rootfs/", 7) != 0)
		return -EPERM;
	for (const char *s = name; *s;) {
		size_t l = strcspn(s, "/");

		if (l == 2 && s[0] == '.' && s[1] == '.')
			return -EPERM;
		s += l;
		s += strspn(s, "/");
	}
	return 0;
}

static int listing_check(const char *aci, const char *tar)
{
	_cleanup_free_ char *out = NULL;
	int r;

	r = spawn_capture((const char *const[]){"tar", "-tf", tar, NULL}, LISTING_MAX, &out);
	if (r < 0)
		return log_error_errno(r, "%s: not a readable tar archive", aci);
	for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (member_check(l) < 0)
			return log_error_errno(EPERM, "%s: refusing the archive member '%s'", aci,
					       l);
	return 0;
}

static int is_gzip(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char m[2];

	if (fd < 0)
		return -errno;
	if (loop_read(fd, m, 2) != 2)
		return 0;
	return m[0] == 0x1f && m[1] == 0x8b;
}

static int copy_file(const char *from, const char *to)
{
	_cleanup_close_ int in = open(from, O_RDONLY | O_CLOEXEC), out = -1;
	_cleanup_free_ char *buf = malloc(COPY_BLOCK);
	ssize_t n;
	int r;

	if (in < 0)
		return -errno;
	if (!buf)
		return -ENOMEM;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		return -errno;
	while ((n = loop_read(in, buf, COPY_BLOCK)) > 0) {
		r = loop_write(out, buf, (size_t) n);
		if (r < 0)
			return r;
	}
	return n < 0 ? (int) n : 0;
}

static int unpack_gzip(const char *from, const char *to)
{
	_cleanup_close_ int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int r;

	if (out < 0)
		return -errno;
	r = spawn_wait((const char *const[]){"gzip", "-dc", "--", from, NULL}, NULL, out);
	return r == 0 ? 0 : -EINVAL;
}

static int image_hash(const char *tar, char **ret_id)
{
	_cleanup_free_ char *out = NULL;
	int r;

	r = spawn_capture((const char *const[]){"sha512sum", "--", tar, NULL}, 4096, &out);
	if (r < 0)
		return r;
	if (strspn(out, "0123456789abcdef") < 128)
		return -EIO;
	out[128] = '\0';
	if (asprintf(ret_id, "sha512-%s", out) < 0)
		return -ENOMEM;
	return 0;
}

static int tree_load(struct store_image *img)
{
	_cleanup_free_ char *mpath = NULL;
	_cleanup_(image_manifest_freep) struct image_manifest *m = NULL;
	struct cc_error err = {};
	int r;

	if (asprintf(&mpath, "%s/manifest", img->tree) < 0)
		return -ENOMEM;
	r = read_full_file(mpath, MANIFEST_SIZE_MAX, &img->manifest, &img->manifest_len);
	if (r < 0)
		return log_error_errno(r, "%s: %m", mpath);
	r = image_manifest_parse(img->manifest, img->manifest_len, &m, &err);
	if (r < 0)
		return log_error_errno(r, "%s: invalid image manifest: %s: %s", mpath, err.context,
				       err.msg);
	return 0;
}

static int extract(const char *aci, const char *tar, const char *into)
{
	_cleanup_free_ char *rootfs = NULL;
	struct stat st;
	int r;

	r = listing_check(aci, tar);
	if (r < 0)
		return r;
	r = spawn_wait((const char *const[]){"tar", "-xf", tar, "-C", into, "--numeric-owner",
					     "--no-overwrite-dir", NULL},
		       NULL, -1);
	if (r != 0)
		return log_error_errno(r < 0 ? r : EIO, "%s: extracting the image failed", aci);
	if (asprintf(&rootfs, "%s/rootfs", into) < 0)
		return -ENOMEM;
	if (stat(rootfs, &st) < 0 || !S_ISDIR(st.st_mode))
		return log_error_errno(EINVAL, "%s: the image has no rootfs/ directory", aci);
	return 0;
}

/*
 * A known file skips the copy and the hash: <dir>/cas/keys/<dev>-<ino>-<size>-<mtime> holds
 * the image ID of the file that had that identity when it was imported.
 */
static int key_path(const struct stage0_ctx *ctx, const char *aci, char **ret)
{
	struct stat st;

	if (stat(aci, &st) < 0)
		return -errno;
	if (asprintf(ret, "%s/cas/keys/%llx-%llx-%llx-%lld.%09ld", ctx->dir,
		     (unsigned long long) st.st_dev, (unsigned long long) st.st_ino,
		     (unsigned long long) st.st_size, (long long) st.st_mtim.tv_sec,
		     st.st_mtim.tv_nsec) < 0)
		return -ENOMEM;
	return 0;
}

static int key_lookup(const struct stage0_ctx *ctx, const char *aci, struct store_image *img)
{
	_cleanup_free_ char *key = NULL, *id = NULL;
	struct stat st;

	if (key_path(ctx, aci, &key) < 0 || read_full_file(key, 256, &id, NULL) < 0)
		return -ENOENT;
	id[strcspn(id, "\n")] = '\0';
	if (strncmp(id, "sha512-", 7) != 0 || strspn(id + 7, "0123456789abcdef") != 128 ||
	    id[135] != '\0')
		return -ENOENT;
	if (asprintf(&img->tree_id, "deps-%s", id) < 0 ||
	    asprintf(&img->tree, "%s/cas/tree/%s", ctx->dir, img->tree_id) < 0)
		return -ENOMEM;
	img->id = TAKE_PTR(id);
	if (stat(img->tree, &st) < 0)
		return -ENOENT;
	return 0;
}

static void key_save(const struct stage0_ctx *ctx, const char *aci, const char *id)
{
	_cleanup_free_ char *key = NULL, *dir = NULL;

	if (key_path(ctx, aci, &key) < 0 || asprintf(&dir, "%s/cas/keys", ctx->dir) < 0 ||
	    mkdir_p(dir, 0700) < 0)
		return;
	(void) write_string_file_atomic(key, id, 0600);
}

int store_import(const struct stage0_ctx *ctx, const char *aci, struct store_image *ret)
{
	_cleanup_free_ char *tmpdir = NULL, *plain = NULL, *staged = NULL;
	struct store_image img = {};
	const char *tar;
	struct stat st;
	int r, gz;

	gz = is_gzip(aci);
	if (gz < 0)
		return log_error_errno(gz, "%s: %m", aci);
	r = key_lookup(ctx, aci, &img);
	if (r == -ENOMEM)
		return log_oom();
	if (r >= 0) {
		r = tree_load(&img);
		if (r < 0) {
			store_image_done(&img);
			return r;
		}
		*ret = img;
		return 0;
	}
	store_image_done(&img);
	if (asprintf(&tmpdir, "%s/cas/tmp", ctx->dir) < 0)
		return log_oom();
	r = mkdir_p(tmpdir, 0700);
	if (r < 0)
		return log_error_errno(r, "%s: %m", tmpdir);
	free(tmpdir);
	if (asprintf(&tmpdir, "%s/cas/tmp/import-XXXXXX", ctx->dir) < 0 || !mkdtemp(tmpdir))
		return log_error_errno(errno, "cannot create a directory in %s/cas/tmp: %m",
				       ctx->dir);
	/* One sequential read of the ACI, in large blocks: the hash and tar then read a local
	 * copy (on a 9p share, as in the test host, tar's small reads are slow). */
	if (asprintf(&plain, "%s/image.tar", tmpdir) < 0)
		return log_oom();
	r = gz ? unpack_gzip(aci, plain) : copy_file(aci, plain);
	if (r < 0) {
		(void) rm_rf(tmpdir);
		return gz ? log_error_errno(EINVAL, "%s: not a valid gzip file", aci)
			  : log_error_errno(r, "%s: %m", aci);
	}
	tar = plain;

	r = image_hash(tar, &img.id);
	if (r >= 0 && (asprintf(&img.tree_id, "deps-%s", img.id) < 0 ||
		       asprintf(&img.tree, "%s/cas/tree/%s", ctx->dir, img.tree_id) < 0))
		r = -ENOMEM;
	if (r < 0) {
		(void) rm_rf(tmpdir);
		store_image_done(&img);
		return log_error_errno(r, "%s: cannot hash the image: %m", aci);
	}
	if (stat(img.tree, &st) < 0) {
		if (asprintf(&staged, "%s/tree", tmpdir) < 0 || mkdir(staged, 0755) < 0)
			r = log_error_errno(errno, "cannot create %s/tree: %m", tmpdir);
		if (r >= 0)
			r = extract(aci, tar, staged);
		if (r >= 0) {
			_cleanup_free_ char *parent = NULL;

			if (asprintf(&parent, "%s/cas/tree", ctx->dir) < 0)
				r = log_oom();
			else if ((r = mkdir_p(parent, 0700)) < 0)
				log_error_errno(r, "%s: %m", parent);
			/* A concurrent import of the same image may have won: keep its tree. */
			else if (rename(staged, img.tree) < 0 && errno != EEXIST &&
				 errno != ENOTEMPTY)
				r = log_error_errno(errno, "cannot rename into %s: %m", img.tree);
		}
	}
	(void) rm_rf(tmpdir);
	if (r >= 0)
		r = tree_load(&img);
	if (r >= 0)
		key_save(ctx, aci, img.id);
	if (r < 0) {
		store_image_done(&img);
		return r;
	}
	*ret = img;
	return 0;
}

void store_image_done(struct store_image *img)
{
	free(img->id);
	free(img->tree_id);
	free(img->tree);
	free(img->manifest);
	*img = (struct store_image){};
}
