/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "legacy/bootmarker.h"

void bootmarker_init(struct bootmarker *b, int fd, uint64_t start_ns)
{
	memset(b, 0, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
	b->fd = fd;
	b->start_ns = start_ns;
}

void bootmarker_done(struct bootmarker *b)
{
	pthread_mutex_destroy(&b->lock);
}

uint64_t bootmarker_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

const char *bootmarker_name(int code)
{
	switch (code) {
	case BOOTMARKER_FIRST_KVM_RUN:
		return "first-kvm-run";
	case BOOTMARKER_INIT_START:
		return "init-start";
	case 2:
		return "systemd-exec";
	case 3:
		return "app-started";
	default:
		return NULL;
	}
}

int bootmarker_format(char *buf, size_t size, int code, uint64_t ns)
{
	const char *name = bootmarker_name(code);
	int n;

	if (name)
		n = snprintf(buf, size, "{\"code\":%d,\"name\":\"%s\",\"ns\":%llu}\n", code, name,
			     (unsigned long long) ns);
	else
		n = snprintf(buf, size, "{\"code\":%d,\"name\":\"marker-%d\",\"ns\":%llu}\n", code,
			     code, (unsigned long long) ns);
	if (n < 0 || (size_t) n >= size)
		return -ENOBUFS;
	return n;
}

void bootmarker_record(struct bootmarker *b, int code)
{
	uint64_t now = bootmarker_now_ns();
	uint64_t ns = now > b->start_ns ? now - b->start_ns : 0;
	char line[96];
	int n;

	pthread_mutex_lock(&b->lock);
	if (b->n < BOOTMARKER_MAX)
		b->entries[b->n++] = (struct bootmarker_entry){.code = code, .ns = ns};
	n = bootmarker_format(line, sizeof(line), code, ns);
	if (b->fd >= 0 && n > 0)
		while (write(b->fd, line, (size_t) n) < 0 && errno == EINTR)
			;
	pthread_mutex_unlock(&b->lock);
}

static void bootmarker_write(void *opaque, uint64_t off, const void *data, uint32_t len)
{
	struct bootmarker *b = opaque;
	int code;

	if (off != 0 || len < 1)
		return;
	code = *(const uint8_t *) data;
	bootmarker_record(b, code);
	if (b->notify)
		b->notify(b->notify_opaque, code);
}

const struct iobus_ops bootmarker_iobus_ops = {
	.write = bootmarker_write,
};
