/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/macro.h"
#include "marker.h"

static const struct {
	uint8_t code;
	const char *name;
} marker_names[] = {
	{MARKER_INIT_START, "init-start"},
	{MARKER_SYSTEMD_EXEC, "systemd-exec"},
	{MARKER_APP_STARTED, "app-started"},
};

const char *marker_to_name(uint8_t code)
{
	for (size_t i = 0; i < ARRAY_SIZE(marker_names); i++)
		if (marker_names[i].code == code)
			return marker_names[i].name;
	return NULL;
}

int marker_parse(const char *s, uint8_t *ret_code)
{
	unsigned long v;
	char *end;

	if (!s || !ret_code || s[0] == '\0')
		return -EINVAL;

	for (size_t i = 0; i < ARRAY_SIZE(marker_names); i++)
		if (strcmp(s, marker_names[i].name) == 0) {
			*ret_code = marker_names[i].code;
			return 0;
		}

	/* Numbers only: strtoul alone would accept blanks, signs and trailing junk. */
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno != 0 || *end != '\0' || end == s || v < 1 || v > 255)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] == '\0')
		return -EINVAL;
	*ret_code = (uint8_t) v;
	return 0;
}

int marker_uptime_parse(const char *text, char *ret, size_t size)
{
	size_t whole, frac, n;

	if (!text || !ret)
		return -EINVAL;
	whole = strspn(text, "0123456789");
	if (whole == 0 || text[whole] != '.')
		return -EINVAL;
	frac = strspn(text + whole + 1, "0123456789");
	if (frac == 0)
		return -EINVAL;
	n = whole + 1 + frac;
	if (text[n] != '\0' && text[n] != ' ' && text[n] != '\n')
		return -EINVAL;
	if (n + 1 > size)
		return -ENOBUFS;
	memcpy(ret, text, n);
	ret[n] = '\0';
	return 0;
}

int marker_format_line(uint8_t code, const char *uptime, char *buf, size_t size)
{
	const char *name = marker_to_name(code);
	char unknown[8];
	int n;

	if (!uptime || !buf)
		return -EINVAL;
	if (!name) {
		(void) snprintf(unknown, sizeof(unknown), "0x%02x", code);
		name = unknown;
	}
	n = snprintf(buf, size, "cc-marker: %s uptime=%s\n", name, uptime);
	if (n < 0)
		return -EINVAL;
	if ((size_t) n >= size)
		return -ENOBUFS;
	return n;
}

int marker_write_port(uint8_t code)
{
	_cleanup_close_ int fd = -1;

	/*
	 * Prefer /dev/port: the kernel does the outb, so no I/O permission bitmap is involved.
	 * Nested SVM under QEMU TCG (our test host) faults a user-mode outb even after a
	 * successful ioperm(). ioperm() is the fallback for a kernel without CONFIG_DEVPORT.
	 */
	fd = open("/dev/port", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		ssize_t n = pwrite(fd, &code, 1, MARKER_PORT);
		if (n == 1)
			return 0;
		return n < 0 ? -errno : -EIO;
	}
	if (ioperm(MARKER_PORT, 1, 1) < 0)
		return -errno;
	outb(code, MARKER_PORT);
	return 0;
}

static int marker_write_console(uint8_t code)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	char uptime[32], line[MARKER_LINE_MAX];
	int r, n;

	r = read_full_file("/proc/uptime", 256, &text, NULL);
	if (r < 0)
		return r;
	r = marker_uptime_parse(text, uptime, sizeof(uptime));
	if (r < 0)
		return r;
	n = marker_format_line(code, uptime, line, sizeof(line));
	if (n < 0)
		return n;

	fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return loop_write(fd, line, (size_t) n);
}

int marker_emit(uint8_t code, bool console)
{
	int r, ret = 0;

	/* The console line first: the uptime is read as close to the event as possible. */
	if (console) {
		r = marker_write_console(code);
		if (r < 0)
			ret = r;
	}
	r = marker_write_port(code);
	if (r < 0 && ret == 0)
		ret = r;
	return ret;
}
