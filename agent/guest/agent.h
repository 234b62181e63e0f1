/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* cc-agent internals (one program: agent-main.c, agent-spawn.c, agent-relay.c, agent-util.c). */

#include <stdbool.h>
#include <sys/types.h>

#include "agent-io.h"
#include "cc/error.h"
#include "agent-proto.h"
#include "enter-run.h"

/* Exit codes reported for a command that could not run (as shells and `podman exec` do). */
#define AGENT_CODE_SETUP    125 /* enter/agent-side failure: unknown app, bad request ... */
#define AGENT_CODE_NOEXEC   126 /* the command exists but cannot be executed */
#define AGENT_CODE_NOTFOUND 127 /* the command was not found */
#define AGENT_STAGE2	    "/opt/stage2"
#define AGENT_ENTER_DIR	    "/etc/cc/enter"
#define AGENT_APPS_FILE	    "/etc/cc/apps"
#define AGENT_SYSTEMCTL	    "/bin/systemctl"

/* A started command: its unit's main process and our ends of its stdio. */
struct agent_child {
	pid_t pid; /* not our child: systemd's */
	int pidfd; /* -1 when it had already ended */
	bool tty;
	int in;			   /* stdin pipe, or the pty master (-1 once closed) */
	int out;		   /* stdout pipe, or the pty master (shared with in) */
	int err;		   /* stderr pipe, -1 with a pty */
	char unit[ENTER_UNIT_MAX]; /* the command's transient service */
};

/*
 * Start e->argv in app e->app's context. On failure before the command runs, returns a
 * negative errno with *err: one line for the host, and as its status the exit code the host
 * should report (125, or 126/127 for a command that cannot be run or is not found, or
 * systemd's code for a unit that could not set it up).
 */
int agent_spawn(const struct agent_exec *e, struct agent_child *ret, struct cc_error *err);
void agent_child_close(struct agent_child *c);
/* A command whose unit failed to start: how systemd saw its main process end (200 CHDIR,
 * 203 EXEC ...), else fallback; the unit is reset. */
int agent_unit_code(const char *unit, int fallback);
/* The command's main process ended: its exit status, or 128 + signal, as systemd recorded
 * it; then its unit is stopped (what it left running ends) or reset. */
int agent_unit_finish(const char *unit);
/* The host went away: kill the command's unit (every process of it) and remove it. */
void agent_unit_kill(const char *unit);

/* Relay stdio between the host connection and the child until it ends; sends EXIT.
 * Returns a negative errno when the host broke the protocol or went away. */
int agent_relay(int fd, struct agent_reader *rd, struct agent_child *c);

/* Run argv (absolute path) and wait. Its stdout is captured into *ret_out (up to max
 * bytes) when ret_out is non-NULL. Returns the exit status or a negative errno. */
int agent_run(char *const argv[], char **ret_out, size_t max);

/* Send an ERROR frame (code, message). */
int agent_send_error(int fd, int code, const char *msg);
