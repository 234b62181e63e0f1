/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "json-util.h"
#include "net-state.h"
#include "portfwd.h"

#define STATE_SIZE_MAX (64u * 1024u)

int net_file_write(int dir_fd, const char *name, const char *data, size_t len)
{
	_cleanup_close_ int fd = -1;
	char tmp[256];
	int r;

	r = snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	if (r < 0 || (size_t) r >= sizeof(tmp))
		return -EINVAL;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, data, len);
	if (r >= 0)
		r = RET_NERRNO(fsync(fd));
	if (r >= 0)
		r = RET_NERRNO(renameat(dir_fd, tmp, dir_fd, name));
	if (r < 0)
		(void) unlinkat(dir_fd, tmp, 0);
	return r;
}

static int state_dir_open(int pod_fd, int create)
{
	int fd;

	if (create) {
		if (mkdirat(pod_fd, "cc", 0700) < 0 && errno != EEXIST)
			return -errno;
		if (mkdirat(pod_fd, CCNET_STATE_DIR, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = openat(pod_fd, CCNET_STATE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

static bool ifname_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < 16 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789") == n;
}

int net_state_save(int pod_fd, const struct net_state *s)
{
	_cleanup_close_ int dfd = -1;
	json_object *o;
	char name[32];
	const char *txt;
	int r;

	if (!ifname_valid(s->ifname))
		return -EINVAL;
	dfd = state_dir_open(pod_fd, 1);
	if (dfd < 0)
		return dfd;
	(void) snprintf(name, sizeof(name), "%s.conf", s->ifname);
	r = net_file_write(dfd, name, s->conf, s->conf_len);
	if (r < 0)
		return r;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "netName", json_object_new_string(s->net_name));
	json_object_object_add(o, "pluginPath", json_object_new_string(s->plugin));
	json_object_object_add(o, "ifName", json_object_new_string(s->ifname));
	json_object_object_add(o, "args", json_object_new_string(s->args));
	json_object_object_add(o, "netns", json_object_new_string(s->netns));
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	(void) snprintf(name, sizeof(name), "%s.json", s->ifname);
	r = txt ? net_file_write(dfd, name, txt, strlen(txt)) : -ENOMEM;
	json_object_put(o);
	return r;
}

static int ifname_cmp_rev(const void *a, const void *b)
{
	const char *x = a, *y = b;
	size_t lx = strlen(x), ly = strlen(y);

	/* eth10 after eth9: longer names sort later. */
	if (lx != ly)
		return lx < ly ? 1 : -1;
	return -strcmp(x, y);
}

int net_state_list(int pod_fd, char (**ret)[16], size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char(*v)[16] = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int dfd;

	*ret = NULL;
	*ret_n = 0;
	dfd = state_dir_open(pod_fd, 0);
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	d = fdopendir(dfd);
	if (!d) {
		safe_close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= 5 || l - 5 >= 16 || strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		if (n == cap) {
			char(*nv)[16] = reallocarray(v, cap ? cap * 2 : 8, sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 8;
		}
		memcpy(v[n], de->d_name, l - 5);
		v[n][l - 5] = '\0';
		if (ifname_valid(v[n]))
			n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), ifname_cmp_rev);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int copy_field(json_object *o, const char *key, char *dst, size_t size)
{
	const char *v = ccnet_json_get_string(o, key);

	if (!v || strlen(v) >= size)
		return -EBADMSG;
	strcpy(dst, v);
	return 0;
}

int net_state_load(int pod_fd, const char *ifname, struct net_state *ret)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	_cleanup_free_ char *buf = NULL;
	json_object *o = NULL;
	char name[32];
	size_t len;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!ifname_valid(ifname))
		return -EINVAL;
	dfd = state_dir_open(pod_fd, 0);
	if (dfd < 0)
		return dfd;
	(void) snprintf(name, sizeof(name), "%s.json", ifname);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = read_full_fd(fd, STATE_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	r = ccnet_json_parse_object(buf, len, &o);
	if (r < 0)
		return r;
	if (copy_field(o, "netName", ret->net_name, sizeof(ret->net_name)) < 0 ||
	    copy_field(o, "pluginPath", ret->plugin, sizeof(ret->plugin)) < 0 ||
	    copy_field(o, "ifName", ret->ifname, sizeof(ret->ifname)) < 0 ||
	    copy_field(o, "args", ret->args, sizeof(ret->args)) < 0 ||
	    copy_field(o, "netns", ret->netns, sizeof(ret->netns)) < 0 ||
	    strcmp(ret->ifname, ifname) != 0 || ret->plugin[0] != '/')
		r = -EBADMSG;
	json_object_put(o);
	if (r < 0)
		return r;
	fd = safe_close(fd);
	(void) snprintf(name, sizeof(name), "%s.conf", ifname);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	return read_full_fd(fd, STATE_SIZE_MAX, &ret->conf, &ret->conf_len);
}

int net_state_remove(int pod_fd, const char *ifname)
{
	_cleanup_close_ int dfd = state_dir_open(pod_fd, 0);
	char name[32];

	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	(void) snprintf(name, sizeof(name), "%s.json", ifname);
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	(void) snprintf(name, sizeof(name), "%s.conf", ifname);
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	(void) snprintf(name, sizeof(name), "%s.result", ifname);
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int net_state_save_result(int pod_fd, const char *ifname, const char *out, size_t len)
{
	_cleanup_close_ int dfd = -1;
	char name[32];

	if (!ifname_valid(ifname))
		return -EINVAL;
	dfd = state_dir_open(pod_fd, 1);
	if (dfd < 0)
		return dfd;
	(void) snprintf(name, sizeof(name), "%s.result", ifname);
	return net_file_write(dfd, name, out, len);
}

int net_state_load_result(int pod_fd, const char *ifname, char **ret, size_t *ret_len)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	char name[32];

	if (!ifname_valid(ifname))
		return -EINVAL;
	dfd = state_dir_open(pod_fd, 0);
	if (dfd < 0)
		return dfd;
	(void) snprintf(name, sizeof(name), "%s.result", ifname);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	return read_full_fd(fd, CNI_OUTPUT_MAX, ret, ret_len);
}

static json_object *ip_or_null(int family, const uint8_t *addr)
{
	char s[INET6_ADDRSTRLEN];

	if (!addr || !inet_ntop(family, addr, s, sizeof(s)))
		return NULL;
	return json_object_new_string(s);
}

static json_object *net_info_entry(const char *pod_path, const struct ccnet_conf *c,
				   const struct ccnet_nic *nic)
{
	const struct cni_ip *ip4 = cni_result_first_ip(&nic->result, AF_INET);
	json_object *o = json_object_new_object();
	_cleanup_free_ char *conf = NULL;
	uint8_t mask[16] = {};

	if (!o)
		return NULL;
	if (ip4)
		for (unsigned b = 0; b < ip4->prefixlen; b++)
			mask[b / 8] |= (uint8_t) (0x80u >> (b % 8));
	if (asprintf(&conf, "%s/" CCNET_STATE_DIR "/%s.conf", pod_path, nic->ifname) < 0) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "netName", json_object_new_string(c->name));
	json_object_object_add(o, "netConf", json_object_new_string(conf));
	json_object_object_add(o, "pluginPath", json_object_new_string(nic->plugin));
	json_object_object_add(o, "ifName", json_object_new_string(nic->ifname));
	json_object_object_add(o, "ip", ip4 ? ip_or_null(AF_INET, ip4->addr) : NULL);
	json_object_object_add(o, "args", json_object_new_string(c->args));
	json_object_object_add(o, "mask", ip4 ? ip_or_null(AF_INET, mask) : NULL);
	return o;
}

int net_info_write(int pod_fd, const struct ccnet_selection *sel, const struct ccnet_pod *pod)
{
	char link[64], pod_path[4096];
	json_object *arr;
	const char *txt;
	ssize_t n;
	int r;

	(void) snprintf(link, sizeof(link), "/proc/self/fd/%d", pod_fd);
	n = readlink(link, pod_path, sizeof(pod_path) - 1);
	if (n < 0)
		return -errno;
	pod_path[n] = '\0';
	arr = json_object_new_array();
	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < pod->n_nics; i++) {
		json_object *e = net_info_entry(pod_path, &sel->nets[i], &pod->nics[i]);

		if (!e || json_object_array_add(arr, e) < 0) {
			json_object_put(e);
			json_object_put(arr);
			return -ENOMEM;
		}
	}
	txt = json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	r = txt ? net_file_write(pod_fd, CCNET_NET_INFO, txt, strlen(txt)) : -ENOMEM;
	json_object_put(arr);
	return r;
}

int net_ports_mark(int pod_fd, int families)
{
	_cleanup_close_ int dfd = state_dir_open(pod_fd, families != 0);
	char buf[16];

	if (dfd == -ENOENT && families == 0)
		return 0;
	if (dfd < 0)
		return dfd;
	if (families == 0)
		return unlinkat(dfd, "ports", 0) < 0 && errno != ENOENT ? -errno : 0;
	(void) snprintf(buf, sizeof(buf), "%d\n", families);
	return net_file_write(dfd, "ports", buf, strlen(buf));
}

int net_ports_marked(int pod_fd)
{
	_cleanup_close_ int dfd = state_dir_open(pod_fd, 0);
	_cleanup_close_ int fd = -1;
	char buf[16] = "";
	ssize_t n;

	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, "ports", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	/* Anything but a family mask (a damaged file) means: clean up both. */
	if (n < 2 || buf[1] != '\n' || buf[0] < '1' || buf[0] > '3')
		return PORTFWD_IP4 | PORTFWD_IP6;
	return buf[0] - '0';
}
