/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Shared between podlayer.c (the pod) and podlayer-app.c (one app). */

#include "stage1/hosts.h"
#include "stage1/podlayer.h"
#include "stage1/user.h"
#include "strbuf.h"

/* The lines for the guest's user database (etc/cc/passwd, etc/cc/group), one per id. */
struct guest_users {
	struct strbuf passwd;
	struct strbuf group;
	uint32_t *uids;
	size_t n_uids;
	uint32_t *gids;
	size_t n_gids;
};

int guest_users_add(struct guest_users *gu, const char *app, const struct app_ids *ids);
void guest_users_done(struct guest_users *gu);

struct podlayer_ctx {
	const struct podlayer_params *p;
	const struct dns_files *dns;
	const char *metadata_url; /* NULL: none */
	int units_fd;		  /* etc/systemd/system */
	int env_fd;		  /* etc/cc/env */
	int enter_fd;		  /* etc/cc/enter */
	struct guest_users *users;
	struct cc_warnings *warnings;
	struct cc_error *reterr;
};

/* Write <app>.service, env/<app> and enter/<app> for pod app i. */
int podlayer_app_write(const struct podlayer_ctx *c, size_t i);

/* The pod networks' guest files (podlayer.h): nothing when p->n_net_files is 0. */
int podlayer_net_write(int layer_fd, int units_fd, const struct podlayer_params *p,
		       struct cc_error *reterr);
