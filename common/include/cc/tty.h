/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stdbool.h>
#include <termios.h>

/*
 * A terminal in raw mode for as long as a session forwards it (enter's pty, run --interactive's
 * console): keys, Ctrl-C included, go to the guest as bytes.
 */
struct tty_raw {
	int fd;
	bool raw;
	struct termios saved;
};

/* Put fd in raw mode when it is a terminal; false (and nothing changed) otherwise. */
bool tty_raw_enter(struct tty_raw *t, int fd);

/* Restore the saved mode, once output has drained; a no-op when tty_raw_enter() did nothing. */
void tty_raw_leave(struct tty_raw *t);
