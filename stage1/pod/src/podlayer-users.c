/* SPDX-License-Identifier: Apache-2.0 */
/* The apps' ids for the guest's user database (etc/cc/passwd, etc/cc/group; cc-init appends them).
 */
#include <errno.h>
#include <stdlib.h>

#include "podlayer-internal.h"

/* Add id to the set; 1 if it was new, 0 if already there, -ENOMEM. */
static int id_set_add(uint32_t **ids, size_t *n, uint32_t id)
{
	uint32_t *p;

	for (size_t i = 0; i < *n; i++)
		if ((*ids)[i] == id)
			return 0;
	p = realloc(*ids, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*ids = p;
	(*ids)[(*n)++] = id;
	return 1;
}

static int group_add(struct guest_users *gu, uint32_t gid, const char *name)
{
	int r = id_set_add(&gu->gids, &gu->n_gids, gid);

	if (r <= 0)
		return r;
	if (name)
		strbuf_printf(&gu->group, "%s:x:%u:\n", name, gid);
	else
		strbuf_printf(&gu->group, "rkt-gid-%u:x:%u:\n", gid, gid);
	return 0;
}

int guest_users_add(struct guest_users *gu, const char *app, const struct app_ids *ids)
{
	int r = id_set_add(&gu->uids, &gu->n_uids, ids->uid);

	if (r < 0)
		return r;
	if (r > 0) {
		if (ids->user_name)
			strbuf_printf(&gu->passwd, "%s:x:", ids->user_name);
		else
			strbuf_printf(&gu->passwd, "rkt-uid-%u:x:", ids->uid);
		strbuf_printf(&gu->passwd, "%u:%u:rkt app %s:%s:%s\n", ids->uid, ids->gid, app,
			      ids->home ? ids->home : "/", ids->shell ? ids->shell : "/bin/sh");
	}
	r = group_add(gu, ids->gid, ids->group_name);
	for (size_t i = 0; r >= 0 && i < ids->n_supplementary_gids; i++)
		r = group_add(gu, ids->supplementary_gids[i], NULL);
	return r;
}

void guest_users_done(struct guest_users *gu)
{
	strbuf_done(&gu->passwd);
	strbuf_done(&gu->group);
	free(gu->uids);
	free(gu->gids);
	*gu = (struct guest_users){};
}
