/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm's --9p, --vsock, --blk and --rng options (--net: test-vmm-net.c).
 * - the devices-check guest finds every device at its window and GSI, in table order, with
 *   its device ID, features and config space (9p tag, vsock CID, blk capacity and RO);
 * - the devices-io guest gets answers from rng, 9p (Tversion) and blk (GET_ID); the
 *   vsock-ping guest connects to a host unix socket and exchanges data with it;
 * - bad option values exit 2 with one line; missing directories and images exit 8, an
 *   unusable vsock socket path exits 1, and what was already created is undone;
 * - a running VMM serves its vsock socket, holds the expected fds and threads, and removes
 *   the socket on SIGTERM;
 * - in process: vm_new/vm_run/vm_free with every device leaves no fd or thread behind;
 * - a closed stdout does not kill the VMM (SIGPIPE ignored); RLIMIT_NOFILE is raised.
 */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cctest.h"
#include "devices-util.h"
#include "vmm-run.h"
#include "vmm/vm.h"

#define TIMEOUT_MS 30000

extern char **environ;

static struct vmm_result res;
static char *tmpdir;

static void setup(void)
{
	tmpdir = cctest_mkdtemp();
}

static void teardown(void)
{
	cctest_rm_rf(tmpdir);
	free(tmpdir);
}

/* tmpdir/name in one of a few static buffers. */
static char *tmp_path(const char *name)
{
	static char paths[8][4200];
	static unsigned slot;
	char *p = paths[slot++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", tmpdir, name);
	return p;
}

static char *make_dir(const char *name)
{
	char *p = tmp_path(name);

	ck_assert_int_eq(mkdir(p, 0755), 0);
	return p;
}

static char *make_file(const char *name, off_t size)
{
	char *p = tmp_path(name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
	return p;
}

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

START_TEST(test_devices_listed_in_order)
{
	char *share1 = make_dir("share1"), *share2 = make_dir("share2");
	char *img1 = make_file("disk1.img", 1 << 20),
	     *img2 = make_file("disk2.img", (3 << 20) + 100);
	char *sock = tmp_path("vsock");
	char s1[4300], s2[4300], vs[4300], b2[4300];
	char *argv[] = {"--kernel", (char *) vmm_guest("devices-check"),
			"--9p",	    s1,
			"--9p",	    s2,
			"--vsock",  vs,
			"--blk",    img1,
			"--blk",    b2,
			"--rng",    NULL};
	uint8_t cfg[DEV_CFG_SHOWN];

	snprintf(s1, sizeof(s1), "pod:%s", share1);
	snprintf(s2, sizeof(s2), "volume-1:%s,ro", share2);
	snprintf(vs, sizeof(vs), "42:%s", sock);
	snprintf(b2, sizeof(b2), "%s,ro", img2);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_eq(vmm_kv(res.out, "ndev"), 7);

	dev_assert_window(res.out, 0, 3); /* the console, always first */

	dev_assert_window(res.out, 1, 9);
	ck_assert_int_eq(dev_kv(res.out, 1, "feat0") & 1, 1); /* VIRTIO_9P_MOUNT_TAG */
	dev_cfg(res.out, 1, cfg);
	ck_assert_int_eq(cfg[0] | cfg[1] << 8, 3);
	ck_assert_int_eq(memcmp(cfg + 2, "pod", 3), 0);
	ck_assert_int_eq(cfg[5], 0); /* past the config space: zero */

	dev_assert_window(res.out, 2, 9);
	dev_cfg(res.out, 2, cfg);
	ck_assert_int_eq(cfg[0] | cfg[1] << 8, 8);
	ck_assert_int_eq(memcmp(cfg + 2, "volume-1", 8), 0);

	dev_assert_window(res.out, 3, 19);
	dev_cfg(res.out, 3, cfg);
	ck_assert_uint_eq(le64(cfg), 42);

	dev_assert_window(res.out, 4, 2);
	dev_cfg(res.out, 4, cfg);
	ck_assert_uint_eq(le64(cfg), 2048);			     /* 1 MiB in sectors */
	ck_assert_int_eq(dev_kv(res.out, 4, "feat0") & (1 << 5), 0); /* not RO */

	dev_assert_window(res.out, 5, 2);
	dev_cfg(res.out, 5, cfg);
	ck_assert_uint_eq(le64(cfg), 6144); /* 3 MiB + 100 bytes, rounded down */
	ck_assert_int_eq(dev_kv(res.out, 5, "feat0") & (1 << 5), 1 << 5); /* RO */

	dev_assert_window(res.out, 6, 4);
	ck_assert_int_eq(dev_kv(res.out, 7, "id"), -1);

	/* The vsock socket goes with the VM. */
	ck_assert_int_eq(access(sock, F_OK), -1);
}
END_TEST

START_TEST(test_devices_answer_requests)
{
	char *share = make_dir("share"), *img = make_file("disk.img", 1 << 20);
	char s9p[4300];
	char *argv[] = {
		"--kernel", (char *) vmm_guest("devices-io"), "--9p", s9p, "--blk", img, "--rng",
		NULL};
	long long len;

	snprintf(s9p, sizeof(s9p), "pod:%s,ro", share);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);

	ck_assert_int_eq(vmm_kv(res.out, "rng_setup"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "rng_len"), 16);
	ck_assert_int_ge(vmm_kv(res.out, "rng_nonzero"), 8); /* 16 random bytes */

	ck_assert_int_eq(vmm_kv(res.out, "p9_setup"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "p9_len"), 21); /* Rversion 8192 "9P2000.L" */
	ck_assert_int_eq(vmm_kv(res.out, "p9_type"), 101);
	ck_assert_int_eq(vmm_kv(res.out, "p9_msize"), 8192);

	ck_assert_int_eq(vmm_kv(res.out, "blk_setup"), 0);
	len = vmm_kv(res.out, "blk_len");
	ck_assert_msg(len >= 4 && len <= 21, "GET_ID used length %lld", len);
	ck_assert_int_eq(vmm_kv(res.out, "blk_status"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "blk_id") & 0xffffff, 0x2d6363); /* "cc-" */
}
END_TEST

/* cc-vmm --kernel <guest> opt val [opt2 val2]: one line, exit 2. */
static void assert_usage(const char *opt, const char *val, const char *opt2, const char *val2,
			 const char *what)
{
	char *argv[] = {"--kernel",    (char *) vmm_guest("hello"),
			(char *) opt,  (char *) val,
			(char *) opt2, (char *) val2,
			NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	dev_assert_one_line_error(&res, 2, what);
}

START_TEST(test_bad_options_exit_2)
{
	char longtag[300];

	assert_usage("--9p", "nocolon", NULL, NULL, "--9p 'nocolon': expected TAG:DIR[,ro]");
	assert_usage("--9p", ":/tmp", NULL, NULL, "empty tag");
	assert_usage("--9p", "tag:", NULL, NULL, "empty directory");
	assert_usage("--9p", "tag:,ro", NULL, NULL, "empty directory");
	memset(longtag, 't', 256);
	strcpy(longtag + 256, ":/tmp");
	assert_usage("--9p", longtag, NULL, NULL, "tag longer than 255 bytes");
	assert_usage("--9p", "a:/tmp", "--9p", "a:/var", "--9p 'a:/var': tag already used");
	assert_usage("--vsock", "2:/tmp/s", NULL, NULL, "CID must be a decimal number");
	assert_usage("--vsock", "0x10:/tmp/s", NULL, NULL, "CID must be a decimal number");
	assert_usage("--vsock", "4294967295:/tmp/s", NULL, NULL, "CID must be");
	assert_usage("--vsock", "3", NULL, NULL, "expected CID:UDS_PATH");
	assert_usage("--vsock", "3:", NULL, NULL, "empty socket path");
	assert_usage("--vsock", "3:/tmp/a", "--vsock", "4:/tmp/b", "only one vsock device");
	assert_usage("--net", "tap=", NULL, NULL, "--net 'tap=': expected tap=NAME|fd=N");
	assert_usage("--net", "fd=abc", NULL, NULL, "expected tap=NAME|fd=N");
	assert_usage("--net", "tap=x,mac=01:00:00:00:00:01", NULL, NULL, "unicast MAC");
	assert_usage("--net", "tap=x,speed=10", NULL, NULL, "expected tap=NAME|fd=N");
	assert_usage("--net", "fd=2", NULL, NULL, "standard input and output");
	assert_usage("--net", "tap=x", "--net", "tap=x", "tap already used");
	assert_usage("--blk", "", NULL, NULL, "--blk '': expected FILE[,ro]");
	assert_usage("--blk", ",ro", NULL, NULL, "expected FILE[,ro]");
	assert_usage("--blk", "/tmp/x", "--blk", "/tmp/x,ro", "image already used");
}
END_TEST

START_TEST(test_too_many_devices_exit_2)
{
	char specs[16][64];
	char *argv[40] = {"--kernel", (char *) vmm_guest("hello")};
	unsigned n = 2;

	/* 1 console + 8 shares + 8 disks = 17 windows: refused before anything is opened. */
	for (unsigned i = 0; i < 16; i++) {
		if (i < 8)
			snprintf(specs[i], sizeof(specs[i]), "t%u:/nonexistent", i);
		else
			snprintf(specs[i], sizeof(specs[i]), "/nonexistent/%u", i);
		argv[n++] = i < 8 ? "--9p" : "--blk";
		argv[n++] = specs[i];
	}
	argv[n] = NULL;
	vmm_run(argv, TIMEOUT_MS, &res);
	dev_assert_one_line_error(&res, 2, "too many virtio devices: 17");
}
END_TEST

static void assert_host_error(char **argv, int status, const char *what)
{
	vmm_run(argv, TIMEOUT_MS, &res);
	dev_assert_one_line_error(&res, status, what);
}

START_TEST(test_host_errors)
{
	char *file = make_file("plain", 4096), *dir = make_dir("dir");
	char *sock = tmp_path("sock"), *taken = make_file("taken", 0);
	char spec[4300], spec2[4300];
	char *argv[] = {"--kernel", (char *) vmm_guest("hello"), NULL, spec, NULL, NULL, NULL};

	argv[2] = "--9p";
	snprintf(spec, sizeof(spec), "root:%s/missing", tmpdir);
	assert_host_error(argv, VMM_EXIT_BAD_IMAGE, "9p share 'root': cannot export directory");
	ck_assert_msg(strstr(res.err, "No such file or directory"), "%s", res.err);
	snprintf(spec, sizeof(spec), "root:%s,ro", file);
	assert_host_error(argv, VMM_EXIT_BAD_IMAGE, "Not a directory");

	argv[2] = "--blk";
	snprintf(spec, sizeof(spec), "%s/missing.img", tmpdir);
	assert_host_error(argv, VMM_EXIT_BAD_IMAGE, "cannot open block image");
	snprintf(spec, sizeof(spec), "%s,ro", dir);
	assert_host_error(argv, VMM_EXIT_BAD_IMAGE, "cannot open block image");

	argv[2] = "--vsock";
	snprintf(spec, sizeof(spec), "3:%s", taken);
	assert_host_error(argv, VMM_EXIT_FAILURE, "vsock: cannot listen on");
	ck_assert_int_eq(access(taken, F_OK), 0); /* not ours: left alone */
	snprintf(spec, sizeof(spec), "3:%s/missing/sock", tmpdir);
	assert_host_error(argv, VMM_EXIT_FAILURE, "vsock: cannot listen on");

	/* The vsock device is made before the disks: a bad disk undoes it. */
	snprintf(spec, sizeof(spec), "3:%s", sock);
	snprintf(spec2, sizeof(spec2), "%s/missing.img", tmpdir);
	argv[4] = "--blk";
	argv[5] = spec2;
	assert_host_error(argv, VMM_EXIT_BAD_IMAGE, "cannot open block image");
	ck_assert_int_eq(access(sock, F_OK), -1);
}
END_TEST

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	ck_assert_msg(connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0, "connect %s: %s", path,
		      strerror(errno));
	return fd;
}

START_TEST(test_running_vm_serves_vsock_and_frees_on_sigterm)
{
	char *share = make_dir("share"), *img = make_file("disk.img", 1 << 20);
	char *sock = tmp_path("vsock");
	char s9p[4300], svs[4300], buf[64];
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"),
			"--9p",	    s9p,
			"--vsock",  svs,
			"--blk",    img,
			"--rng",    NULL};
	struct pollfd pfd;
	struct vmm_proc p;
	struct stat st;
	int fd;

	snprintf(s9p, sizeof(s9p), "pod:%s", share);
	snprintf(svs, sizeof(svs), "3:%s", sock);
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);
	ck_assert_msg(vmm_wait_output(&p, "ready\n", TIMEOUT_MS, &res), "guest not ready: %s %s",
		      res.out, res.err);

	ck_assert_int_eq(stat(sock, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	/* Devices add no thread: the event loop and one vCPU. */
	ck_assert_uint_eq(vmm_count_threads(p.pid), 2);
	/* The 9p worker holds the export (the backend's root and the server's root node), the VMM
	 * nothing of it; blk holds its image. */
	ck_assert_int_eq(vmm_count_fds(p.pid, share), 0);
	ck_assert_int_eq(vmm_count_fds(vmm_9p_worker(p.pid), share), 2);
	ck_assert_int_eq(vmm_count_fds(p.pid, img), 1);
	/* The event loop's stop eventfd; 5 windows, an irqfd each; queue kicks (console 2, 9p 1,
	 * vsock 3, blk 1, rng 1); vsock's resume eventfd. */
	ck_assert_int_eq(vmm_count_fds(p.pid, "anon_inode:[eventfd]"), 1 + 5 + 8 + 1);

	/* The socket is served from the VM's event loop: a client with a malformed handshake
	 * line is closed at once. */
	fd = connect_unix(sock);
	ck_assert_int_eq(write(fd, "HELLO 1234\n", 11), 11);
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 0);
	close(fd);

	kill(p.pid, SIGTERM);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_SIGNAL_BASE + SIGTERM);
	ck_assert_str_eq(res.err, "");
	ck_assert_int_eq(access(sock, F_OK), -1);
}
END_TEST

/* A listening unix socket at path (non-blocking accept). */
static int listen_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	return fd;
}

static void wait_readable(int fd, const char *what)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	ck_assert_msg(poll(&pfd, 1, TIMEOUT_MS) == 1, "timed out waiting for %s", what);
}

START_TEST(test_vsock_guest_to_host)
{
	char *sock = tmp_path("vsock"), *port_path = tmp_path("vsock_5000");
	char svs[4300], buf[16];
	char *argv[] = {"--kernel", (char *) vmm_guest("vsock-ping"), "--vsock", svs, NULL};
	struct vmm_proc p;
	int lfd, fd;

	snprintf(svs, sizeof(svs), "7:%s", sock);
	lfd = listen_unix(port_path);
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);

	/* The guest's connection to host port 5000 arrives on <sock>_5000. */
	wait_readable(lfd, "the guest's connection");
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	wait_readable(fd, "the guest's data");
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "ping", 4), 0);
	ck_assert_int_eq(write(fd, "pong", 4), 4);
	/* The guest resets the device once it has the answer: the connection goes. */
	wait_readable(fd, "the end of the connection");
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 0);
	close(fd);
	close(lfd);

	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_int_eq(vmm_kv(res.out, "vs_cid"), 7);
	ck_assert_int_eq(vmm_kv(res.out, "vs_setup"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "vs_op1"), 2); /* RESPONSE */
	ck_assert_int_eq(vmm_kv(res.out, "vs_port1"), 5000);
	ck_assert_int_eq(vmm_kv(res.out, "vs_rw_len"), 4);
	ck_assert_int_eq(vmm_kv(res.out, "vs_rw_data"), 0x676e6f70); /* "pong" */
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_eq(access(sock, F_OK), -1);
}
END_TEST

static unsigned count_entries(const char *path)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(path);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(test_in_process_free_leaves_nothing)
{
	char *sock = tmp_path("vsock");
	char spec[4300];
	struct cc_error reason = {0};
	struct vm_config cfg;
	unsigned fds, threads;

	vm_config_init(&cfg);
	cfg.kernel_path = vmm_guest("hello");
	cfg.mem_mib = 32;
	cfg.rng = true;
	cfg.console_out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(cfg.console_out_fd, 0);
	snprintf(spec, sizeof(spec), "pod:%s", make_dir("share"));
	ck_assert_int_eq(vm_config_add_share(&cfg, spec, &reason), 0);
	snprintf(spec, sizeof(spec), "3:%s", sock);
	ck_assert_int_eq(vm_config_set_vsock(&cfg, spec, &reason), 0);
	ck_assert_int_eq(vm_config_add_blk(&cfg, make_file("disk.img", 1 << 20), &reason), 0);

	fds = count_entries("/proc/self/fd");
	threads = vmm_count_threads(getpid());
	for (int round = 0; round < 2; round++) {
		struct cc_error err = {0};
		struct vm_exit ex = {0};
		struct vm *vm = NULL;

		ck_assert_msg(vm_new(&cfg, &vm, &err) == 0, "vm_new: %s", err.msg);
		ck_assert_int_eq(access(sock, F_OK), 0);
		ck_assert_msg(vm_run(vm, &ex, &err) == 0, "vm_run: %s", err.msg);
		ck_assert_int_eq(ex.status, VMM_EXIT_OK);
		vm = vm_free(vm);
		ck_assert_int_eq(access(sock, F_OK), -1);
		ck_assert_uint_eq(count_entries("/proc/self/fd"), fds);
		ck_assert_uint_eq(vmm_count_threads(getpid()), threads);
	}
	close(cfg.console_out_fd);
	vm_config_done(&cfg);
}
END_TEST

/* Spawn cc-vmm with stdout = out_fd and stderr into a file; wait for its exit status. */
static int run_with_stdout(char *const args[], int out_fd, const char *err_path)
{
	posix_spawn_file_actions_t fa;
	char *full[16] = {(char *) vmm_binary()};
	long long waited = 0;
	pid_t pid;
	int st, r;

	for (unsigned i = 0; args[i] && i < 14; i++)
		full[i + 1] = args[i];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path, O_WRONLY | O_CREAT, 0644);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	r = posix_spawn(&pid, full[0], &fa, NULL, full, environ);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_msg(r == 0, "spawn: %s", strerror(r));
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (waited++ > TIMEOUT_MS / 10) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(10000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(test_closed_stdout_does_not_kill)
{
	char *args[] = {"--kernel", (char *) vmm_guest("virtio-console"), NULL};
	char *err_path = tmp_path("stderr"), *text = NULL;
	int p[2], status;

	/* The reader is gone before the VMM starts: every console and serial write is EPIPE. */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	status = run_with_stdout(args, p[1], err_path);
	close(p[1]);
	ck_assert_int_eq(access(err_path, F_OK), 0);
	{
		FILE *f = fopen(err_path, "r");
		char line[512] = "";

		ck_assert_ptr_nonnull(f);
		text = fgets(line, sizeof(line), f) ? strdup(line) : strdup("");
		fclose(f);
	}
	ck_assert_msg(status == 0, "exit %d (141 = killed by SIGPIPE), stderr: %s", status, text);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

START_TEST(test_nofile_limit_raised)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"), NULL};
	struct rlimit saved, low;
	char path[64], line[256];
	struct vmm_proc p;
	bool found = false;
	FILE *f;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_msg(saved.rlim_max > 128, "hard RLIMIT_NOFILE %llu: cannot tell",
		      (unsigned long long) saved.rlim_max);
	low = (struct rlimit){.rlim_cur = 128, .rlim_max = saved.rlim_max};
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_msg(vmm_wait_output(&p, "ready\n", TIMEOUT_MS, &res), "guest not ready: %s %s",
		      res.out, res.err);

	snprintf(path, sizeof(path), "/proc/%d/limits", p.pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long soft, hard;

		if (sscanf(line, "Max open files %llu %llu", &soft, &hard) == 2) {
			found = true;
			ck_assert_uint_eq(soft, saved.rlim_max);
			ck_assert_uint_eq(hard, saved.rlim_max);
		}
	}
	fclose(f);
	ck_assert(found);
	kill(p.pid, SIGTERM);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_SIGNAL_BASE + SIGTERM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-devices");
	TCase *tc = tcase_create("devices");

	vmm_require_kvm();
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_devices_listed_in_order);
	tcase_add_test(tc, test_devices_answer_requests);
	tcase_add_test(tc, test_vsock_guest_to_host);
	tcase_add_test(tc, test_bad_options_exit_2);
	tcase_add_test(tc, test_too_many_devices_exit_2);
	tcase_add_test(tc, test_host_errors);
	tcase_add_test(tc, test_running_vm_serves_vsock_and_frees_on_sigterm);
	tcase_add_test(tc, test_in_process_free_leaves_nothing);
	tcase_add_test(tc, test_closed_stdout_does_not_kill);
	tcase_add_test(tc, test_nofile_limit_raised);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
