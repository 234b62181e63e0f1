/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "enter-config.h"
#include "users.h"

#define USERS_DB_MAX  (4 * 1024 * 1024)
#define USERS_IDS_MAX 4096

struct id_set {
	unsigned ids[USERS_IDS_MAX];
	unsigned gids[USERS_IDS_MAX]; /* primary group, for users */
	size_t n;
};

static bool id_set_has(const struct id_set *s, unsigned id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ids[i] == id)
			return true;
	return false;
}

static int id_set_add(struct id_set *s, unsigned id, unsigned gid)
{
	if (id_set_has(s, id))
		return 0;
	if (s->n == USERS_IDS_MAX)
		return -E2BIG;
	s->ids[s->n] = id;
	s->gids[s->n++] = gid;
	return 0;
}

/* The ids (third field) of a passwd or group file. */
static int users_db_ids(const char *path, struct id_set *ret)
{
	_cleanup_free_ char *text = NULL;
	char *save = NULL;
	int r;

	r = read_full_file(path, USERS_DB_MAX, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return log_error_errno(r, "Failed to read %s: %m", path);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f = strchr(l, ':');
		unsigned long v;
		char *end;

		if (f)
			f = strchr(f + 1, ':');
		if (!f)
			continue;
		v = strtoul(f + 1, &end, 10);
		if (end == f + 1 || *end != ':' || v > 0xfffffffeUL)
			continue;
		r = id_set_add(ret, (unsigned) v, 0);
		if (r < 0)
			return log_error_errno(r, "Too many entries in %s.", path);
	}
	return 0;
}

/* The uids and gids the apps of the pod layer run with. */
static int users_wanted(const char *root, struct id_set *uids, struct id_set *gids)
{
	_cleanup_free_ char *dir = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r;

	if (asprintf(&dir, "%s/etc/cc/enter", root) < 0)
		return log_oom();
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return log_error_errno(errno, "Failed to open %s: %m", dir);
	}
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *text = NULL;
		struct enter_config c;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			return log_oom();
		r = read_full_file(path, ENTER_FILE_MAX, &text, NULL);
		if (r >= 0)
			r = enter_config_parse(text, de->d_name, &c);
		if (r < 0)
			return log_error_errno(r, "Failed to read %s: %m", path);
		r = id_set_add(uids, c.uid, c.gid);
		if (r >= 0)
			r = id_set_add(gids, c.gid, 0);
		for (size_t i = 0; r >= 0 && i < c.n_groups; i++)
			r = id_set_add(gids, c.groups[i], 0);
		enter_config_done(&c);
		if (r < 0)
			return log_error_errno(r, "Too many users and groups in %s.", dir);
	}
	return 0;
}

/* Append to path a line for each id of want that is not in have. Returns the count. */
static int users_append(const char *path, const struct id_set *want, const struct id_set *have,
			bool is_user)
{
	_cleanup_close_ int fd = -EBADF;
	int n = 0, r;

	for (size_t i = 0; i < want->n; i++) {
		char line[128];
		int len;

		if (id_set_has(have, want->ids[i]))
			continue;
		if (fd < 0) {
			char last = '\n';

			fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0)
				return log_error_errno(errno, "Failed to open %s: %m", path);
			/* Never glue our line to an unterminated last one. */
			if (lseek(fd, -1, SEEK_END) >= 0 && read(fd, &last, 1) == 1 && last != '\n')
				(void) loop_write(fd, "\n", 1);
		}
		if (is_user)
			len = snprintf(line, sizeof(line),
				       "cc-uid-%u:x:%u:%u::/:/usr/sbin/nologin\n", want->ids[i],
				       want->ids[i], want->gids[i]);
		else
			len = snprintf(line, sizeof(line), "cc-gid-%u:x:%u:\n", want->ids[i],
				       want->ids[i]);
		r = loop_write(fd, line, (size_t) len);
		if (r < 0)
			return log_error_errno(r, "Failed to write %s: %m", path);
		n++;
	}
	return n;
}

int users_sync(const char *root)
{
	_cleanup_free_ struct id_set *uids = calloc(1, sizeof(*uids));
	_cleanup_free_ struct id_set *gids = calloc(1, sizeof(*gids));
	_cleanup_free_ struct id_set *have = calloc(1, sizeof(*have));
	_cleanup_free_ char *passwd = NULL, *group = NULL;
	int r, n;

	if (!uids || !gids || !have)
		return log_oom();
	if (asprintf(&passwd, "%s/etc/passwd", root) < 0 ||
	    asprintf(&group, "%s/etc/group", root) < 0)
		return log_oom();
	r = users_wanted(root, uids, gids);
	if (r < 0)
		return r;
	if (uids->n == 0)
		return 0;

	r = users_db_ids(passwd, have);
	if (r < 0)
		return r;
	n = users_append(passwd, uids, have, true);
	if (n < 0)
		return n;
	have->n = 0;
	r = users_db_ids(group, have);
	if (r < 0)
		return r;
	r = users_append(group, gids, have, false);
	if (r < 0)
		return r;
	return n + r;
}
