/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "machined.h"
#include "pod-journal.h"
#include "pod-resources.h"
#include "vmm-cgroup.h"

#define NETNS_DIR "/run/netns"

_Static_assert(VMM_CGROUP_PATH_MAX <= POD_RESOURCE_NAME_MAX, "a cgroup path fits a record");

static const char *const kind_names[_POD_RESOURCE_KIND_MAX] = {
	[POD_RESOURCE_TAP] = "tap",
	[POD_RESOURCE_NETNS] = "netns",
	[POD_RESOURCE_JOURNAL_LINK] = "journal-link",
	[POD_RESOURCE_MACHINE] = "machine",
	[POD_RESOURCE_CGROUP] = "cgroup",
};

const char *pod_resource_kind_to_string(enum pod_resource_kind k)
{
	if (k < 0 || k >= _POD_RESOURCE_KIND_MAX)
		return NULL;
	return kind_names[k];
}

enum pod_resource_kind pod_resource_kind_from_string(const char *s)
{
	for (int k = 0; k < _POD_RESOURCE_KIND_MAX; k++)
		if (s && strcmp(s, kind_names[k]) == 0)
			return (enum pod_resource_kind) k;
	return _POD_RESOURCE_KIND_INVALID;
}

static int name_chars_valid(const char *name, size_t max)
{
	size_t n = strlen(name);

	if (n == 0 || n > max)
		return 0;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

static int machine_id_valid(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++)
		if (!((name[n] >= '0' && name[n] <= '9') || (name[n] >= 'a' && name[n] <= 'f')))
			return 0;
	return n == 32;
}

int pod_resource_name_valid(enum pod_resource_kind kind, const char *name)
{
	switch (kind) {
	case POD_RESOURCE_TAP:
		return name_chars_valid(name, IFNAMSIZ - 1);
	case POD_RESOURCE_NETNS:
	case POD_RESOURCE_MACHINE:
		return name_chars_valid(name, POD_RESOURCE_NAME_MAX);
	case POD_RESOURCE_JOURNAL_LINK:
		return machine_id_valid(name);
	case POD_RESOURCE_CGROUP:
		return vmm_cgroup_path_valid(name);
	default:
		return 0;
	}
}

int pod_resources_append(int dir_fd, enum pod_resource_kind kind, const char *name)
{
	_cleanup_close_ int fd = -1;
	char line[POD_RESOURCE_NAME_MAX + 32];
	const char *k = pod_resource_kind_to_string(kind);
	int r;

	assert_return(k && name, -EINVAL);
	if (!pod_resource_name_valid(kind, name))
		return -EINVAL;
	r = snprintf(line, sizeof(line), "%s %s\n", k, name);
	if (r < 0 || (size_t) r >= sizeof(line))
		return -EINVAL;
	fd = openat(dir_fd, POD_RESOURCES_PATH,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, line, (size_t) r);
	if (r < 0)
		return r;
	return RET_NERRNO(fsync(fd));
}

int pod_resources_record(void *userdata, const char *kind, const char *name)
{
	enum pod_resource_kind k = pod_resource_kind_from_string(kind);

	assert_return(userdata, -EINVAL);
	if (k < 0)
		return -EINVAL;
	return pod_resources_append(*(const int *) userdata, k, name);
}

static int parse_line(char *line, struct pod_resource *ret)
{
	char *sp = strchr(line, ' ');
	enum pod_resource_kind k;

	if (!sp)
		return -EBADMSG;
	*sp = '\0';
	k = pod_resource_kind_from_string(line);
	if (k < 0 || !pod_resource_name_valid(k, sp + 1))
		return -EBADMSG;
	ret->kind = k;
	strcpy(ret->name, sp + 1);
	return 0;
}

int pod_resources_parse(const char *buf, size_t len, struct pod_resource **ret, size_t *ret_n,
			unsigned *reterr_line)
{
	_cleanup_free_ struct pod_resource *v = NULL;
	_cleanup_free_ char *copy = NULL;
	size_t n = 0, cap = 0;
	unsigned lineno = 0;
	char *p;

	assert_return(buf || len == 0, -EINVAL);
	if (len > POD_RESOURCES_SIZE_MAX)
		return -EFBIG;
	if (len > 0 && buf[len - 1] != '\n') {
		/* A torn last line (crash during the append): the resource was never created. */
		const char *nl = memrchr(buf, '\n', len);

		len = nl ? (size_t) (nl - buf) + 1 : 0;
	}
	if (len > 0 && memchr(buf, '\0', len)) {
		if (reterr_line)
			*reterr_line = 0;
		return -EBADMSG;
	}
	copy = strndup(buf ? buf : "", len);
	if (!copy)
		return -ENOMEM;
	p = copy;
	while (*p) {
		char *nl = strchr(p, '\n');
		int r;

		*nl = '\0';
		lineno++;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct pod_resource *nv = reallocarray(v, ncap, sizeof(*v));

			if (!nv)
				return -ENOMEM;
			v = nv;
			cap = ncap;
		}
		r = parse_line(p, &v[n]);
		if (r < 0) {
			if (reterr_line)
				*reterr_line = lineno;
			return r;
		}
		n++;
		p = nl + 1;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

int pod_resources_load(int dir_fd, struct pod_resource **ret, size_t *ret_n, unsigned *reterr_line)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	fd = openat(dir_fd, POD_RESOURCES_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	r = read_full_fd(fd, POD_RESOURCES_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return pod_resources_parse(buf, len, ret, ret_n, reterr_line);
}

static int tap_remove(const char *name)
{
	_cleanup_close_ int fd = -1;
	struct ifreq ifr = {};

	if (if_nametoindex(name) == 0)
		return errno == ENODEV || errno == ENXIO ? 0 : -errno;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Attaching to an existing persistent tap and clearing persistence deletes it on close. */
	memcpy(ifr.ifr_name, name, strlen(name)); /* valid names are < IFNAMSIZ */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	/* EBUSY: still attached to a live process (gc kills the VMM first). */
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		return -errno;
	return RET_NERRNO(ioctl(fd, TUNSETPERSIST, 0));
}

static int netns_remove(const char *name)
{
	char path[sizeof(NETNS_DIR) + POD_RESOURCE_NAME_MAX + 2];

	(void) snprintf(path, sizeof(path), NETNS_DIR "/%s", name);
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* Kill what is left in it, then rmdir; no cgroup2 hierarchy: it cannot exist. */
static int cgroup_remove(const char *path)
{
	_cleanup_close_ int root_fd = vmm_cgroup_root_open(NULL);

	if (root_fd == -ENOMEDIUM || root_fd == -ENOENT)
		return 0;
	if (root_fd < 0)
		return root_fd;
	return vmm_cgroup_remove(root_fd, path, VMM_CGROUP_KILL_TIMEOUT_MS);
}

int pod_resource_remove(const struct pod_resource *r)
{
	assert_return(r, -EINVAL);
	if (!pod_resource_name_valid(r->kind, r->name))
		return -EINVAL;
	switch (r->kind) {
	case POD_RESOURCE_TAP:
		return tap_remove(r->name);
	case POD_RESOURCE_NETNS:
		return netns_remove(r->name);
	case POD_RESOURCE_JOURNAL_LINK:
		return pod_journal_unlink(r->name);
	case POD_RESOURCE_MACHINE:
		return machined_unregister(r->name, NULL);
	case POD_RESOURCE_CGROUP:
		return cgroup_remove(r->name);
	default:
		return -EINVAL;
	}
}
