/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <string.h>

#include "manifest/types.h"

const char *manifest_volume_kind_to_string(enum manifest_volume_kind k)
{
	switch (k) {
	case MANIFEST_VOLUME_HOST:
		return "host";
	case MANIFEST_VOLUME_EMPTY:
		return "empty";
	default:
		return NULL;
	}
}

const char *manifest_kv_list_get(const struct manifest_kv_list *l, const char *name)
{
	if (!l || !name)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].name, name) == 0)
			return l->items[i].value;
	return NULL;
}

void manifest_kv_list_done(struct manifest_kv_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].value);
	}
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

void manifest_strv_done(struct manifest_strv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->n = 0;
}

void manifest_port_done(struct manifest_port *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->protocol);
	p->name = p->protocol = NULL;
}

void manifest_volume_done(struct manifest_volume *v)
{
	if (!v)
		return;
	free(v->name);
	free(v->source);
	free(v->mode_str);
	v->name = v->source = v->mode_str = NULL;
}

void manifest_app_done(struct manifest_app *a)
{
	if (!a)
		return;
	manifest_strv_done(&a->exec);
	free(a->user);
	free(a->group);
	free(a->supplementary_gids);
	free(a->working_directory);
	manifest_kv_list_done(&a->environment);
	for (size_t i = 0; i < a->n_event_handlers; i++) {
		free(a->event_handlers[i].name);
		manifest_strv_done(&a->event_handlers[i].exec);
	}
	free(a->event_handlers);
	manifest_isolator_list_done(&a->isolators);
	for (size_t i = 0; i < a->n_mount_points; i++) {
		free(a->mount_points[i].name);
		free(a->mount_points[i].path);
	}
	free(a->mount_points);
	for (size_t i = 0; i < a->n_ports; i++)
		manifest_port_done(&a->ports[i]);
	free(a->ports);
	manifest_kv_list_done(&a->user_annotations);
	manifest_kv_list_done(&a->user_labels);
	memset(a, 0, sizeof(*a));
}
