/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "bus.h"
#include "cc/cleanup.h"
#include "machined.h"

#define MACHINED_NAME	   "org.freedesktop.machine1"
#define MACHINED_PATH	   "/org/freedesktop/machine1"
#define MACHINED_INTERFACE "org.freedesktop.machine1.Manager"
#define MACHINED_NO_SUCH   "org.freedesktop.machine1.NoSuchMachine"

/*
 * Errors that mean "no machined here" rather than a failed call: not installed, or installed
 * but not startable (bus activation failing, as on a host without systemd as init). Only the
 * bus daemon's own errors count: machined relays the same names when systemd is missing.
 */
static bool error_is_absent(const struct bus_reply *r)
{
	const char *name = r->error_name;

	if (!r->sender || strcmp(r->sender, BUS_DAEMON_NAME) != 0)
		return false;
	return strcmp(name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
	       strcmp(name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0 ||
	       strncmp(name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0;
}

/*
 * Send m to machined on a new system bus connection. 0 on success or when the reply is the
 * error ok_error (NULL: none); -EOPNOTSUPP when there is no bus or no machined.
 */
static int machined_call(struct bus_msg *m, const char *what, const char *ok_error,
			 struct cc_error *err)
{
	struct bus b;
	struct bus_reply reply;
	int r;

	r = bus_open(&b, NULL);
	if (r == -ENOENT || r == -ECONNREFUSED || r == -EAFNOSUPPORT)
		return -EOPNOTSUPP;
	if (r < 0)
		return cc_error_set(err, r, "%s: cannot connect to the system bus: %m", what);
	r = bus_call(&b, m, &reply);
	if (r < 0)
		r = cc_error_set(err, r, "%s: %m", what);
	else if (reply.type == BUS_MSG_ERROR && error_is_absent(&reply))
		r = -EOPNOTSUPP;
	else if (reply.type == BUS_MSG_ERROR &&
		 !(ok_error && strcmp(reply.error_name, ok_error) == 0))
		r = cc_error_set(err, EIO, "%s: %s", what,
				 reply.error_message ? reply.error_message : reply.error_name);
	bus_close(&b);
	return r;
}

/* CreateMachine or RegisterMachine: the same arguments, plus no scope properties for Create. */
static void machine_msg(struct bus_msg *msg, const struct machined_machine *m, bool create)
{
	bus_msg_method_call(msg, MACHINED_NAME, MACHINED_PATH, MACHINED_INTERFACE,
			    create ? "CreateMachine" : "RegisterMachine",
			    create ? "sayssusa(sv)" : "sayssus");
	bus_msg_append_string(msg, m->name);
	bus_msg_append_bytes(msg, m->id, sizeof(m->id));
	bus_msg_append_string(msg, m->service);
	bus_msg_append_string(msg, m->class);
	bus_msg_append_u32(msg, (uint32_t) m->leader);
	bus_msg_append_string(msg, m->root_directory);
	if (create) {
		static const char *const names[] = {"MemoryMax", "MemorySwapMax", "TasksMax"};
		const uint64_t values[] = {m->memory_max, 0, m->tasks_max};

		if (m->memory_max && m->tasks_max)
			bus_msg_append_u64_properties(msg, names, values, 3);
		else
			bus_msg_append_empty_array(msg, 8);
	}
}

int machined_register(const struct machined_machine *m, bool *ret_scope, struct cc_error *err)
{
	_cleanup_(bus_msg_done) struct bus_msg create = {}, reg = {};
	struct cc_error create_err = {}, reg_err = {};
	int r;

	*ret_scope = false;
	machine_msg(&create, m, true);
	r = machined_call(&create, "cannot create the pod's machine", NULL, &create_err);
	if (r == 0 || r == -EOPNOTSUPP) {
		*ret_scope = r == 0;
		return r;
	}
	/* machined is there but could not make a scope (no systemd as init): the leader's unit. */
	machine_msg(&reg, m, false);
	r = machined_call(&reg, "cannot register the pod with systemd-machined", NULL, &reg_err);
	if (r < 0 && r != -EOPNOTSUPP)
		(void) cc_error_set(err, r, "%s; %s", create_err.msg, reg_err.msg);
	return r;
}

int machined_unregister(const char *name, struct cc_error *err)
{
	_cleanup_(bus_msg_done) struct bus_msg msg = {};
	int r;

	bus_msg_method_call(&msg, MACHINED_NAME, MACHINED_PATH, MACHINED_INTERFACE,
			    "UnregisterMachine", "s");
	bus_msg_append_string(&msg, name);
	r = machined_call(&msg, "cannot unregister the pod from systemd-machined", MACHINED_NO_SUCH,
			  err);
	return r == -EOPNOTSUPP ? 0 : r;
}
