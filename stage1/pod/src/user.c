/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "stage1/rootfs.h"
#include "stage1/user.h"

/* A decimal id 0..4294967294 (4294967295 is (uid_t) -1, never a valid id). */
static int parse_id(const char *s, size_t n, uint32_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t) (s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t) v;
	return 0;
}

/*
 * Find name in a passwd or group database (colon-separated, the id in the third field) and
 * return that id. -ESRCH when there is no such entry; malformed lines are skipped, as
 * glibc's files backend skips them.
 */
static int etc_db_lookup(const char *buf, size_t len, const char *name, uint32_t *ret)
{
	size_t name_len = strlen(name);

	for (size_t pos = 0; pos < len;) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t) (nl - line) : len - pos;
		const char *f2, *f3, *end = line + line_len;

		pos += line_len + 1;
		if (line_len <= name_len || memcmp(line, name, name_len) != 0 ||
		    line[name_len] != ':')
			continue;
		f2 = memchr(line + name_len + 1, ':', (size_t) (end - (line + name_len + 1)));
		if (!f2)
			continue;
		f2++;
		f3 = memchr(f2, ':', (size_t) (end - f2));
		if (parse_id(f2, (size_t) ((f3 ? f3 : end) - f2), ret) < 0)
			continue;
		return 0;
	}
	return -ESRCH;
}

static bool name_is_sane(const char *s)
{
	/* A name we would look up: no ':' or newline can match a database entry. */
	return *s && !strpbrk(s, ":\n");
}

static int id_resolve(int rootfs_fd, const char *value, bool is_user, uint32_t *ret,
		      struct cc_error *reterr)
{
	const char *what = is_user ? "user" : "group";
	const char *db = is_user ? "/etc/passwd" : "/etc/group";
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	uint32_t id;
	int r, read_r;

	if (!value || !*value)
		return cc_error_set(reterr, -EINVAL, "empty %s", what);

	if (value[0] == '/') {
		struct stat st;

		r = rootfs_stat(rootfs_fd, value, &st);
		if (r < 0)
			return cc_error_set(reterr, r == -ENOENT ? -ESRCH : r,
					    "%s '%.256s': cannot stat that path in the app's "
					    "rootfs: %s",
					    what, value, strerror(-r));
		*ret = is_user ? (uint32_t) st.st_uid : (uint32_t) st.st_gid;
		return 0;
	}

	read_r = name_is_sane(value)
			 ? rootfs_read_file(rootfs_fd, db, STAGE1_ETC_FILE_MAX, &buf, &len)
			 : -ENOENT;
	if (read_r == -ENOSYS || read_r == -ENOMEM)
		return cc_error_set(reterr, read_r, "cannot read the app's %s: %s", db,
				    strerror(-read_r));
	if (read_r >= 0 && etc_db_lookup(buf, len, value, &id) >= 0) {
		*ret = id;
		return 0;
	}
	r = parse_id(value, strlen(value), &id);
	if (r >= 0) {
		*ret = id;
		return 0;
	}
	if (r == -ERANGE)
		return cc_error_set(reterr, -ERANGE, "%s '%.256s': id out of range", what, value);
	if (read_r < 0 && read_r != -ENOENT)
		return cc_error_set(reterr, -ESRCH,
				    "%s '%.256s' not found: cannot read the app's %s: %s", what,
				    value, db, strerror(-read_r));
	return cc_error_set(reterr, -ESRCH, "%s '%.256s' not found in the app's %s", what, value,
			    db);
}

bool user_entry_field_is_safe(const char *s, bool is_name)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > (is_name ? 31u : 255u))
		return false;
	if (is_name && (s[0] == '-' || strchr(s, '/')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == ':')
			return false;
	return true;
}

/* Field k (0-based) of a colon-separated line as a heap copy: 1, 0 if absent, or -ENOMEM. */
static int line_field(const char *line, size_t len, unsigned k, char **ret)
{
	const char *p = line, *end = line + len, *q;

	*ret = NULL;
	for (unsigned i = 0; i < k; i++) {
		p = memchr(p, ':', (size_t) (end - p));
		if (!p)
			return 0;
		p++;
	}
	q = memchr(p, ':', (size_t) (end - p));
	*ret = strndup(p, (size_t) ((q ? q : end) - p));
	return *ret ? 1 : -ENOMEM;
}

/*
 * The first line of a database whose id (third field) is id, as a pointer into buf and its
 * length; -ESRCH when there is none.
 */
static int etc_db_find_id(const char *buf, size_t len, uint32_t id, const char **ret_line,
			  size_t *ret_len)
{
	for (size_t pos = 0; pos < len;) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t) (nl - line) : len - pos;
		_cleanup_free_ char *f = NULL;
		uint32_t v;
		int r = line_field(line, line_len, 2, &f);

		if (r < 0)
			return r;
		pos += line_len + 1;
		if (r > 0 && parse_id(f, strlen(f), &v) >= 0 && v == id) {
			*ret_line = line;
			*ret_len = line_len;
			return 0;
		}
	}
	return -ESRCH;
}

/* Fields (0-based indexes) of the entry of id in db, NULL when missing or unsafe. */
static int entry_fields(int rootfs_fd, const char *db, uint32_t id, const unsigned *idx,
			char **const *out, size_t n)
{
	_cleanup_free_ char *buf = NULL;
	const char *line;
	size_t len, line_len;
	int r;

	r = rootfs_read_file(rootfs_fd, db, STAGE1_ETC_FILE_MAX, &buf, &len);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	r = etc_db_find_id(buf, len, id, &line, &line_len);
	if (r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		char *f;

		r = line_field(line, line_len, idx[i], &f);
		if (r < 0)
			return r;
		if (r > 0 && !user_entry_field_is_safe(f, idx[i] == 0)) {
			free(f);
			f = NULL;
		}
		*out[i] = f;
	}
	return 0;
}

int app_user_resolve(int rootfs_fd, const char *user, uint32_t *ret_uid, struct cc_error *reterr)
{
	assert_return(rootfs_fd >= 0 && ret_uid, -EINVAL);
	return id_resolve(rootfs_fd, user, true, ret_uid, reterr);
}

int app_group_resolve(int rootfs_fd, const char *group, uint32_t *ret_gid, struct cc_error *reterr)
{
	assert_return(rootfs_fd >= 0 && ret_gid, -EINVAL);
	return id_resolve(rootfs_fd, group, false, ret_gid, reterr);
}

int app_ids_resolve(int rootfs_fd, const struct manifest_app *app, struct app_ids *ret,
		    struct cc_error *reterr)
{
	struct app_ids ids = {};
	int r;

	assert_return(rootfs_fd >= 0 && app && ret, -EINVAL);
	r = app_user_resolve(rootfs_fd, app->user, &ids.uid, reterr);
	if (r < 0)
		return r;
	r = app_group_resolve(rootfs_fd, app->group, &ids.gid, reterr);
	if (r < 0)
		return r;
	if (app->n_supplementary_gids > 0) {
		ids.supplementary_gids = calloc(app->n_supplementary_gids, sizeof(uint32_t));
		if (!ids.supplementary_gids)
			return -ENOMEM;
		for (size_t i = 0; i < app->n_supplementary_gids; i++) {
			if (app->supplementary_gids[i] == UINT32_MAX) {
				free(ids.supplementary_gids);
				return cc_error_set(reterr, -ERANGE,
						    "supplementary GID %u is not a valid id",
						    app->supplementary_gids[i]);
			}
			ids.supplementary_gids[i] = app->supplementary_gids[i];
		}
		ids.n_supplementary_gids = app->n_supplementary_gids;
	}
	r = entry_fields(rootfs_fd, "/etc/passwd", ids.uid, (const unsigned[]){0, 5, 6},
			 (char **const[]){&ids.user_name, &ids.home, &ids.shell}, 3);
	if (r >= 0)
		r = entry_fields(rootfs_fd, "/etc/group", ids.gid, (const unsigned[]){0},
				 (char **const[]){&ids.group_name}, 1);
	if (r < 0) {
		app_ids_done(&ids);
		return r;
	}
	*ret = ids;
	return 0;
}

void app_ids_done(struct app_ids *ids)
{
	if (!ids)
		return;
	free(ids->supplementary_gids);
	free(ids->user_name);
	free(ids->home);
	free(ids->shell);
	free(ids->group_name);
	*ids = (struct app_ids){};
}
