/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>

#include "9p/hostvol-policy.h"

/* Whether id may own a node of a volume whose root is owned by root_id. */
static bool hostvol_policy_id_ok(uint32_t id, uint32_t root_id)
{
	return id != 0 || id == root_id;
}

mode_t hostvol_policy_mode(const struct p9_hostvol *v, mode_t fmt, mode_t mode)
{
	if (!v)
		return mode;
	/* setgid on a directory only hands its group to new nodes; on a file it is privilege. */
	if (S_ISDIR(fmt))
		return mode & ~(mode_t) S_ISUID;
	return mode & ~(mode_t) (S_ISUID | S_ISGID);
}

void hostvol_policy_owner(const struct p9_hostvol *v, uint32_t *uid, uint32_t *gid)
{
	if (!v)
		return;
	if (!hostvol_policy_id_ok(*uid, v->uid))
		*uid = v->uid;
	if (!hostvol_policy_id_ok(*gid, v->gid))
		*gid = v->gid;
}

bool hostvol_policy_allows(const struct p9_hostvol *v, const struct stat *st)
{
	return !v ||
	       (hostvol_policy_id_ok(st->st_uid, v->uid) &&
		hostvol_policy_id_ok(st->st_gid, v->gid) &&
		(st->st_mode & 07777) == hostvol_policy_mode(v, st->st_mode, st->st_mode & 07777));
}

int hostvol_policy_setattr(const struct p9_hostvol *v, const struct stat *st, struct fsp_setattr *a)
{
	if (!v)
		return 0;
	/* A chown that changes nothing stays allowed (tar and cp -a restore every owner). */
	if ((a->set_uid && a->uid != st->st_uid && !hostvol_policy_id_ok(a->uid, v->uid)) ||
	    (a->set_gid && a->gid != st->st_gid && !hostvol_policy_id_ok(a->gid, v->gid)))
		return -EPERM;
	/*
	 * Bits stripped, not refused: what the kernel does to a chmod g+s by a caller outside
	 * the group, and what keeps tar, cp -a and package managers working in a volume.
	 */
	if (a->set_mode)
		a->mode = hostvol_policy_mode(v, st->st_mode, a->mode & 07777);
	else if (a->set_size && S_ISREG(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID))) {
		/* A truncate is a write: the kernel keeps the bits for a caller with CAP_FSETID. */
		a->set_mode = true;
		a->mode = hostvol_policy_mode(v, st->st_mode, st->st_mode & 07777);
	}
	return 0;
}
