/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "machine1.h"

#define M1_NAME	     "org.freedesktop.machine1"
#define M1_PATH	     "/org/freedesktop/machine1"
#define M1_INTERFACE "org.freedesktop.machine1.Manager"
/* Per call: CreateMachine and RegisterMachine fit in the 10 s run gives the helper. */
#define M1_TIMEOUT_USEC (4ull * 1000 * 1000)

static void bus_unrefp(sd_bus **b)
{
	sd_bus_flush_close_unref(*b);
}

static void msg_unrefp(sd_bus_message **m)
{
	sd_bus_message_unref(*m);
}

/* No bus to talk to: no socket, nobody listening, an address we cannot use. */
static bool bus_is_absent(int r)
{
	return r == -ENOENT || r == -ECONNREFUSED || r == -EAFNOSUPPORT || r == -ENOTDIR;
}

/*
 * The call failed with an error that may only mean "no machined here" (not installed, or not
 * startable, as on a host without systemd as init). machined relays the same names when
 * systemd is missing, so it counts only if the name has no owner now.
 */
static bool machined_is_absent(sd_bus *bus, const sd_bus_error *e)
{
	_cleanup_(sd_bus_error_free) sd_bus_error owner_err = SD_BUS_ERROR_NULL;
	_cleanup_(msg_unrefp) sd_bus_message *reply = NULL;

	if (!sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
				    SD_BUS_ERROR_NAME_HAS_NO_OWNER) &&
	    strncmp(e->name, "org.freedesktop.DBus.Error.Spawn.", 33) != 0)
		return false;
	return sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				  "org.freedesktop.DBus", "GetNameOwner", &owner_err, &reply, "s",
				  M1_NAME) < 0 &&
	       sd_bus_error_has_name(&owner_err, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

static int bus_open(sd_bus **ret, const char *what, struct cc_error *err)
{
	int r = sd_bus_open_system(ret);

	if (bus_is_absent(r))
		return -EOPNOTSUPP;
	if (r < 0)
		return cc_error_set(err, r, "%s: cannot connect to the system bus: %m", what);
	return 0;
}

/* Send m; 0, -EOPNOTSUPP (no machined), or an error with machined's own words. */
static int m1_call(sd_bus *bus, sd_bus_message *m, const char *what, const char *ok_error,
		   struct cc_error *err)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(msg_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_call(bus, m, M1_TIMEOUT_USEC, &e, &reply);
	if (r >= 0)
		return 0;
	if (ok_error && sd_bus_error_has_name(&e, ok_error))
		return 0;
	if (machined_is_absent(bus, &e))
		return -EOPNOTSUPP;
	/* sd-bus names its own failures (the connection, a timeout) System.Error.<errno>. */
	if (strncmp(e.name, "System.Error.", 13) == 0)
		return bus_is_absent(r) ? -EOPNOTSUPP : cc_error_set(err, r, "%s: %m", what);
	/* -EIO whatever errno sd-bus maps the name to: -EOPNOTSUPP means "no machined". */
	return cc_error_set(err, -EIO, "%s: %s", what, e.message ? e.message : e.name);
}

/* CreateMachine ("sayssusa(sv)") or RegisterMachine ("sayssus"). */
static int machine_msg(sd_bus *bus, const struct machined_machine *mm, bool create,
		       sd_bus_message **ret)
{
	_cleanup_(msg_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, M1_NAME, M1_PATH, M1_INTERFACE,
					   create ? "CreateMachine" : "RegisterMachine");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", mm->name);
	if (r >= 0)
		r = sd_bus_message_append_array(m, 'y', mm->id, sizeof(mm->id));
	if (r >= 0)
		r = sd_bus_message_append(m, "ssus", mm->service, mm->class, (uint32_t) mm->leader,
					  mm->root_directory);
	if (r >= 0 && create) {
		r = sd_bus_message_open_container(m, 'a', "(sv)");
		if (r >= 0 && mm->memory_max && mm->tasks_max)
			r = sd_bus_message_append(m, "(sv)(sv)(sv)", "MemoryMax", "t",
						  mm->memory_max, "MemorySwapMax", "t",
						  (uint64_t) 0, "TasksMax", "t", mm->tasks_max);
		if (r >= 0)
			r = sd_bus_message_close_container(m);
	}
	if (r < 0)
		return r;
	*ret = m;
	m = NULL;
	return 0;
}

int machine1_register(const struct machined_machine *mm, bool *ret_scope, struct cc_error *err)
{
	static const char create_what[] = "cannot create the pod's machine";
	static const char reg_what[] = "cannot register the pod with systemd-machined";
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(msg_unrefp) sd_bus_message *create = NULL, *reg = NULL;
	struct cc_error create_err = {0}, reg_err = {0};
	int r;

	*ret_scope = false;
	r = bus_open(&bus, create_what, err);
	if (r < 0)
		return r;
	r = machine_msg(bus, mm, true, &create);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", create_what);
	r = m1_call(bus, create, create_what, NULL, &create_err);
	if (r == 0 || r == -EOPNOTSUPP) {
		*ret_scope = r == 0;
		return r;
	}
	/* machined is there but could not make a scope (no systemd as init): the leader's unit. */
	r = machine_msg(bus, mm, false, &reg);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", reg_what);
	r = m1_call(bus, reg, reg_what, NULL, &reg_err);
	if (r < 0 && r != -EOPNOTSUPP)
		(void) cc_error_set(err, r, "%s; %s", create_err.msg, reg_err.msg);
	return r;
}

int machine1_unregister(const char *name, struct cc_error *err)
{
	static const char what[] = "cannot unregister the pod from systemd-machined";
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(msg_unrefp) sd_bus_message *m = NULL;
	int r;

	r = bus_open(&bus, what, err);
	if (r < 0)
		return r == -EOPNOTSUPP ? 0 : r;
	r = sd_bus_message_new_method_call(bus, &m, M1_NAME, M1_PATH, M1_INTERFACE,
					   "UnregisterMachine");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", name);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", what);
	r = m1_call(bus, m, what, "org.freedesktop.machine1.NoSuchMachine", err);
	return r == -EOPNOTSUPP ? 0 : r;
}
