/* SPDX-License-Identifier: Apache-2.0 */
#include <unistd.h>

#include "cc/tty.h"

bool tty_raw_enter(struct tty_raw *t, int fd)
{
	struct termios raw;

	*t = (struct tty_raw){.fd = fd};
	if (!isatty(fd) || tcgetattr(fd, &t->saved) < 0)
		return false;
	raw = t->saved;
	cfmakeraw(&raw);
	t->raw = tcsetattr(fd, TCSANOW, &raw) == 0;
	return t->raw;
}

void tty_raw_leave(struct tty_raw *t)
{
	if (t->raw)
		(void) tcsetattr(t->fd, TCSADRAIN, &t->saved);
	t->raw = false;
}
