/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cctest.h"
#include "vmm-run.h"

extern char **environ;

void vmm_require_kvm(void)
{
	const char *ci = getenv("CI");

	if (access("/dev/kvm", R_OK | W_OK) == 0)
		return;
	if (ci && strcmp(ci, "true") == 0) {
		fprintf(stderr, "FAIL: /dev/kvm is not usable (%s) and CI=true\n", strerror(errno));
		exit(EXIT_FAILURE);
	}
	fprintf(stderr, "SKIP: /dev/kvm is not usable: %s\n", strerror(errno));
	exit(77);
}

const char *vmm_binary(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/bin/cc-vmm", cctest_build_dir());
	return path;
}

const char *vmm_guest(const char *name)
{
	static char paths[4][4096];
	static unsigned slot;
	char *p = paths[slot++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/guests/%s.elf", cctest_build_dir(), name);
	return p;
}

int vmm_spawn(char *const argv[], struct vmm_proc *ret)
{
	posix_spawn_file_actions_t fa;
	int out[2], err[2];
	char *full[64];
	unsigned n = 0;
	int r;

	full[n++] = (char *) vmm_binary();
	for (unsigned i = 0; argv[i] && n < 63; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	r = posix_spawn(&ret->pid, full[0], &fa, NULL, full, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	ck_assert_msg(r == 0, "cannot spawn %s: %s", full[0], strerror(r));
	ret->out_fd = out[0];
	ret->err_fd = err[0];
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void append(int fd, char *buf, size_t size)
{
	size_t len = strlen(buf);
	ssize_t n;

	if (len + 1 >= size) {
		char junk[512];
		(void) !read(fd, junk, sizeof(junk));
		return;
	}
	n = read(fd, buf + len, size - len - 1);
	if (n > 0)
		buf[len + (size_t) n] = '\0';
}

/* Pumps both pipes until stop() or EOF on stdout or the deadline. */
static bool pump(struct vmm_proc *p, struct vmm_result *res, long long deadline, const char *needle)
{
	for (;;) {
		struct pollfd pfd[2] = {{.fd = p->out_fd, .events = POLLIN},
					{.fd = p->err_fd, .events = POLLIN}};
		long long left = deadline - now_ms();

		if (needle && strstr(res->out, needle))
			return true;
		if (left <= 0)
			return false;
		if (poll(pfd, 2, (int) left) <= 0)
			continue;
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			size_t before = strlen(res->err);
			append(p->err_fd, res->err, sizeof(res->err));
			if ((pfd[1].revents & POLLHUP) && strlen(res->err) == before)
				p->err_fd = -p->err_fd - 2; /* stop polling it */
		}
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			size_t before = strlen(res->out);
			append(p->out_fd, res->out, sizeof(res->out));
			if ((pfd[0].revents & POLLHUP) && strlen(res->out) == before && !needle)
				return true; /* EOF */
			if ((pfd[0].revents & POLLHUP) && strlen(res->out) == before)
				return strstr(res->out, needle) != NULL;
		}
	}
}

bool vmm_wait_output(struct vmm_proc *p, const char *needle, int timeout_ms, struct vmm_result *res)
{
	return pump(p, res, now_ms() + timeout_ms, needle);
}

void vmm_finish(struct vmm_proc *p, int timeout_ms, struct vmm_result *res)
{
	long long deadline = now_ms() + timeout_ms;
	int st;

	(void) pump(p, res, deadline, NULL);
	for (;;) {
		pid_t w = waitpid(p->pid, &st, WNOHANG);

		if (w == p->pid)
			break;
		if (now_ms() > deadline) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			res->status = -1;
			goto out;
		}
		usleep(2000);
	}
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (p->err_fd >= 0)
		append(p->err_fd, res->err, sizeof(res->err));
out:
	if (p->err_fd < -1)
		p->err_fd = -p->err_fd - 2;
	close(p->out_fd);
	close(p->err_fd);
}

void vmm_run(char *const argv[], int timeout_ms, struct vmm_result *res)
{
	struct vmm_proc p;

	memset(res, 0, sizeof(*res));
	vmm_spawn(argv, &p);
	vmm_finish(&p, timeout_ms, res);
}

const char *vmm_tail(const char *s)
{
	size_t len = strlen(s);
	const char *t, *nl;

	if (len <= 3000)
		return s;
	t = s + len - 3000;
	nl = strchr(t, '\n');
	return nl && nl[1] ? nl + 1 : t;
}

long long vmm_kv(const char *out, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s=", key);
	if (strncmp(out, pat + 1, strlen(pat) - 1) == 0)
		p = out + strlen(pat) - 1;
	else if ((p = strstr(out, pat)))
		p += strlen(pat);
	else
		return -1;
	return strtoll(p, NULL, 16);
}

unsigned vmm_count_threads(pid_t pid)
{
	char path[64], comm[64];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char cpath[512];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "%s/%s/comm", path, de->d_name);
		f = fopen(cpath, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && strncmp(comm, "kvm-", 4) != 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

int vmm_count_fds(pid_t pid, const char *prefix)
{
	return (int) cctest_fds_on(pid, prefix, true);
}

pid_t vmm_child(pid_t pid, const char *comm)
{
	char want[64];
	struct dirent *de;
	pid_t found = -1;
	unsigned n = 0;
	DIR *d = opendir("/proc");

	snprintf(want, sizeof(want), "(%s)", comm);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char path[300], line[512], *close_paren;
		int ppid = -1;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && (close_paren = strrchr(line, ')')) &&
		    sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == pid &&
		    strstr(line, want)) {
			found = atoi(de->d_name);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	ck_assert_msg(n == 1, "%d has %u children named %s", (int) pid, n, comm);
	return found;
}

pid_t vmm_9p_worker(pid_t pid)
{
	return vmm_child(pid, "cc-vmm-9p");
}

pid_t vmm_9p_broker(pid_t worker)
{
	return vmm_child(worker, "cc-vmm-9p-fs");
}
