/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <strings.h>

#include "caps.h"
#include "cc/macro.h"

static const char *const cap_names[CAP_NAME_COUNT] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

int cap_from_name(const char *name)
{
	const char *bare = name;

	if (!name)
		return -EINVAL;
	if (strncasecmp(name, "CAP_", 4) == 0)
		bare = name + 4;
	for (int i = 0; i < CAP_NAME_COUNT; i++)
		if (strcasecmp(bare, cap_names[i] + 4) == 0)
			return i;
	return -EINVAL;
}

const char *cap_to_name(int cap)
{
	return cap >= 0 && cap < CAP_NAME_COUNT ? cap_names[cap] : NULL;
}

uint64_t cap_default_set(void)
{
	static const char *const defaults[] = {
		"CAP_AUDIT_WRITE",	"CAP_CHOWN",	  "CAP_DAC_OVERRIDE", "CAP_FSETID",
		"CAP_FOWNER",		"CAP_KILL",	  "CAP_MKNOD",	      "CAP_NET_RAW",
		"CAP_NET_BIND_SERVICE", "CAP_SETUID",	  "CAP_SETGID",	      "CAP_SETPCAP",
		"CAP_SETFCAP",		"CAP_SYS_CHROOT",
	};
	uint64_t set = 0;

	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++)
		set |= UINT64_C(1) << cap_from_name(defaults[i]);
	return set;
}
