/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vmm-overhead: cc-vmm against qemu-system-x86_64 -M microvm on this machine's /dev/kvm, each
 * booting an equivalent tiny guest that writes one byte to COM1 and ends the VM (cc-vmm: the
 * ELF64 test guest "hello", reset through the i8042; QEMU: a 14-byte real-mode firmware at the
 * reset vector, ending through isa-debug-exit since microvm has no i8042). Runs are
 * interleaved (cc-vmm, qemu, cc-vmm, ...). Measures spawn -> first console byte and spawn ->
 * process exit; then starts 10 idle VMs of each kind (first byte written, vCPU halted) and
 * reads PSS and RSS of each from /proc/PID/smaps_rollup.
 *
 * Usage: bench-vmm-overhead --vmm cc-vmm --guest hello.elf --idle-guest idle.elf
 *                           [--qemu PATH] [--runs N] [--vms N] [--json FILE]
 *        bench-vmm-overhead --once CMD [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 1000
#define MAX_VMS	 64

extern char **environ;

struct opts {
	const char *vmm, *guest, *idle_guest, *qemu, *json;
	int runs, vms;
	char fw_exit[64], fw_idle[64];
};

struct series {
	double v[MAX_RUNS];
	int n;
};

struct stat3 {
	double median, min, max;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static struct stat3 stats(const struct series *s)
{
	double tmp[MAX_RUNS];
	struct stat3 r = {0, 0, 0};

	if (s->n == 0)
		return r;
	memcpy(tmp, s->v, sizeof(double) * (size_t) s->n);
	qsort(tmp, (size_t) s->n, sizeof(double), cmp_double);
	r.min = tmp[0];
	r.max = tmp[s->n - 1];
	r.median = s->n % 2 ? tmp[s->n / 2] : (tmp[s->n / 2 - 1] + tmp[s->n / 2]) / 2;
	return r;
}

/* A 64 KiB firmware whose reset vector writes 'X' to COM1, then exits or halts. */
static int write_firmware(const char *path, int do_exit)
{
	static unsigned char fw[65536];
	const unsigned char exit_code[] = {0xb0, 0x58, 0xba, 0xf8, 0x03, 0xee, 0xb0,
					   0x00, 0xe6, 0xf4, 0xfa, 0xf4, 0xeb, 0xfc};
	const unsigned char idle_code[] = {0xb0, 0x58, 0xba, 0xf8, 0x03,
					   0xee, 0xfa, 0xf4, 0xeb, 0xfc};
	int fd;

	memset(fw, 0xf4, sizeof(fw));
	if (do_exit)
		memcpy(fw + 0xfff0, exit_code, sizeof(exit_code));
	else
		memcpy(fw + 0xfff0, idle_code, sizeof(idle_code));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, fw, sizeof(fw)) != (ssize_t) sizeof(fw)) {
		perror(path);
		return -1;
	}
	close(fd);
	return 0;
}

static void build_argv(const struct opts *o, int qemu, int idle, char **argv)
{
	int n = 0;

	if (!qemu) {
		argv[n++] = (char *) o->vmm;
		argv[n++] = "--kernel";
		argv[n++] = (char *) (idle ? o->idle_guest : o->guest);
		argv[n++] = "--mem";
		argv[n++] = "32";
	} else {
		argv[n++] = (char *) o->qemu;
		argv[n++] = "-M";
		argv[n++] = "microvm,pit=off,pic=off,rtc=off,isa-serial=on,x-option-roms=off";
		argv[n++] = "-accel";
		argv[n++] = "kvm";
		argv[n++] = "-m";
		argv[n++] = "32M";
		argv[n++] = "-nodefaults";
		argv[n++] = "-no-user-config";
		argv[n++] = "-display";
		argv[n++] = "none";
		argv[n++] = "-serial";
		argv[n++] = "stdio";
		argv[n++] = "-bios";
		argv[n++] = (char *) (idle ? o->fw_idle : o->fw_exit);
		argv[n++] = "-device";
		argv[n++] = "isa-debug-exit,iobase=0xf4,iosize=0x04";
	}
	argv[n] = NULL;
}

/* Spawns with stdout on a pipe (returned in *ret_fd) and stdin/stderr on /dev/null. */
static pid_t spawn(char **argv, int *ret_fd)
{
	posix_spawn_file_actions_t fa;
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	*ret_fd = p[0];
	return pid;
}

/* Waits for the first byte on fd (10 s at most); returns ms since t0 or -1. */
static double first_byte(int fd, double t0)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char c;

	if (poll(&pfd, 1, 10000) <= 0 || read(fd, &c, 1) != 1)
		return -1;
	return now_ms() - t0;
}

static int run_once(const struct opts *o, int qemu, double *ret_first, double *ret_exit)
{
	char *argv[32];
	double t0;
	pid_t pid;
	int fd, st;

	build_argv(o, qemu, 0, argv);
	t0 = now_ms();
	pid = spawn(argv, &fd);
	if (pid < 0)
		return -1;
	*ret_first = first_byte(fd, t0);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	*ret_exit = now_ms() - t0;
	close(fd);
	return *ret_first < 0 ? -1 : 0;
}

static long smaps_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

static int measure_memory(const struct opts *o, int qemu, struct series *pss, struct series *rss)
{
	pid_t pids[MAX_VMS];
	int fds[MAX_VMS], n = 0, r = 0;
	char *argv[32];

	build_argv(o, qemu, 1, argv);
	for (; n < o->vms; n++) {
		pids[n] = spawn(argv, &fds[n]);
		if (pids[n] < 0 || first_byte(fds[n], now_ms()) < 0) {
			r = -1;
			n += pids[n] >= 0;
			break;
		}
	}
	usleep(300 * 1000); /* let every VM settle */
	for (int i = 0; r == 0 && i < n; i++) {
		pss->v[pss->n++] = (double) smaps_kb(pids[i], "Pss:");
		rss->v[rss->n++] = (double) smaps_kb(pids[i], "Rss:");
	}
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGTERM);
		waitpid(pids[i], NULL, 0);
		close(fds[i]);
	}
	return r;
}

struct result {
	struct series first, exit, pss, rss;
	int failures;
};

static void print_row(const char *name, const char *metric, const struct series *s)
{
	struct stat3 st = stats(s);

	printf("%-8s %-15s %10.2f %10.2f %10.2f %5d\n", name, metric, st.median, st.min, st.max,
	       s->n);
}

static void json_metric(FILE *f, const char *name, const struct series *s, int last)
{
	struct stat3 st = stats(s);

	fprintf(f, "    \"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"n\": %d}%s\n",
		name, st.median, st.min, st.max, s->n, last ? "" : ",");
}

static void json_side(FILE *f, const char *name, const struct result *r, int last)
{
	fprintf(f, "  \"%s\": {\n", name);
	json_metric(f, "first_byte_ms", &r->first, 0);
	json_metric(f, "exit_ms", &r->exit, 0);
	json_metric(f, "pss_kb", &r->pss, 0);
	json_metric(f, "rss_kb", &r->rss, 1);
	fprintf(f, "  }%s\n", last ? "" : ",");
}

static double ratio(const struct series *a, const struct series *b)
{
	double x = stats(a).median, y = stats(b).median;

	return x > 0 ? y / x : 0;
}

static int write_json(const struct opts *o, const struct result *cc, const struct result *q)
{
	FILE *f = fopen(o->json, "w");

	if (!f) {
		perror(o->json);
		return -1;
	}
	fprintf(f, "{\n  \"runs\": %d,\n  \"idle_vms\": %d,\n", o->runs, o->vms);
	json_side(f, "cc_vmm", cc, 0);
	json_side(f, "qemu_microvm", q, 0);
	fprintf(f,
		"  \"qemu_over_cc_vmm\": {\"first_byte\": %.2f, \"exit\": %.2f, \"pss\": %.2f, "
		"\"rss\": %.2f}\n}\n",
		ratio(&cc->first, &q->first), ratio(&cc->exit, &q->exit), ratio(&cc->pss, &q->pss),
		ratio(&cc->rss, &q->rss));
	fclose(f);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{"vmm", required_argument, NULL, 'v'},
		{"guest", required_argument, NULL, 'g'},
		{"idle-guest", required_argument, NULL, 'i'},
		{"qemu", required_argument, NULL, 'q'},
		{"runs", required_argument, NULL, 'r'},
		{"vms", required_argument, NULL, 'n'},
		{"json", required_argument, NULL, 'j'},
		{},
	};
	int c;

	*o = (struct opts){.qemu = "/usr/bin/qemu-system-x86_64", .runs = 20, .vms = 10};
	while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
		switch (c) {
		case 'v':
			o->vmm = optarg;
			break;
		case 'g':
			o->guest = optarg;
			break;
		case 'i':
			o->idle_guest = optarg;
			break;
		case 'q':
			o->qemu = optarg;
			break;
		case 'r':
			o->runs = atoi(optarg);
			break;
		case 'n':
			o->vms = atoi(optarg);
			break;
		case 'j':
			o->json = optarg;
			break;
		default:
			return -1;
		}
	}
	if (!o->vmm || !o->guest || !o->idle_guest || !o->json || o->runs < 1 ||
	    o->runs > MAX_RUNS || o->vms < 1 || o->vms > MAX_VMS) {
		fprintf(stderr,
			"usage: %s --vmm P --guest P --idle-guest P --json P [--qemu P] "
			"[--runs 1-%d] [--vms 1-%d]\n",
			argv[0], MAX_RUNS, MAX_VMS);
		return -1;
	}
	return 0;
}

/*
 * --once CMD [ARG...]: spawn CMD once (PATH not searched; cwd and environment ours) and print
 * "first_byte_ms=.. exit_ms=.. status=.." (the wait status); for scripts that time other
 * launchers the same way (tests/bench/host-launch). Exit 0 when a first byte came.
 */
static int once(char **argv)
{
	double t0 = now_ms(), first, done;
	int fd, st;
	pid_t pid = spawn(argv, &fd);

	if (pid < 0) {
		perror(argv[0]);
		return 1;
	}
	first = first_byte(fd, t0);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	done = now_ms() - t0;
	close(fd);
	printf("first_byte_ms=%.2f exit_ms=%.2f status=%d\n", first, done, st);
	return first < 0;
}

int main(int argc, char **argv)
{
	static struct result cc, q;
	struct opts o;
	int have_qemu;

	if (argc > 2 && strcmp(argv[1], "--once") == 0)
		return once(argv + 2);
	if (parse(argc, argv, &o) < 0)
		return 2;
	have_qemu = access(o.qemu, X_OK) == 0;
	snprintf(o.fw_exit, sizeof(o.fw_exit), "/tmp/vmm-overhead-%d-exit.bin", getpid());
	snprintf(o.fw_idle, sizeof(o.fw_idle), "/tmp/vmm-overhead-%d-idle.bin", getpid());
	if (have_qemu && (write_firmware(o.fw_exit, 1) < 0 || write_firmware(o.fw_idle, 0) < 0))
		return 1;
	for (int i = 0; i < o.runs; i++) {
		double f, e;

		if (run_once(&o, 0, &f, &e) == 0) {
			cc.first.v[cc.first.n++] = f;
			cc.exit.v[cc.exit.n++] = e;
		} else {
			cc.failures++;
		}
		if (have_qemu && run_once(&o, 1, &f, &e) == 0) {
			q.first.v[q.first.n++] = f;
			q.exit.v[q.exit.n++] = e;
		} else if (have_qemu) {
			q.failures++;
		}
	}
	if (measure_memory(&o, 0, &cc.pss, &cc.rss) < 0)
		cc.failures++;
	if (have_qemu && measure_memory(&o, 1, &q.pss, &q.rss) < 0)
		q.failures++;
	unlink(o.fw_exit);
	unlink(o.fw_idle);

	printf("%-8s %-15s %10s %10s %10s %5s\n", "vmm", "metric", "median", "min", "max", "n");
	print_row("cc-vmm", "first_byte_ms", &cc.first);
	print_row("cc-vmm", "exit_ms", &cc.exit);
	print_row("cc-vmm", "pss_kb", &cc.pss);
	print_row("cc-vmm", "rss_kb", &cc.rss);
	print_row("qemu", "first_byte_ms", &q.first);
	print_row("qemu", "exit_ms", &q.exit);
	print_row("qemu", "pss_kb", &q.pss);
	print_row("qemu", "rss_kb", &q.rss);
	printf("qemu/cc-vmm ratios: first_byte %.2fx, exit %.2fx, pss %.2fx, rss %.2fx\n",
	       ratio(&cc.first, &q.first), ratio(&cc.exit, &q.exit), ratio(&cc.pss, &q.pss),
	       ratio(&cc.rss, &q.rss));
	if (!have_qemu)
		printf("(%s not found: no QEMU column)\n", o.qemu);
	if (cc.failures || q.failures)
		printf("failures: cc-vmm %d, qemu %d\n", cc.failures, q.failures);
	if (write_json(&o, &cc, &q) < 0)
		return 1;
	printf("cc-vmm first_byte_ms=%.2f exit_ms=%.2f pss_kb=%.0f | qemu first_byte_ms=%.2f "
	       "exit_ms=%.2f pss_kb=%.0f\n",
	       stats(&cc.first).median, stats(&cc.exit).median, stats(&cc.pss).median,
	       stats(&q.first).median, stats(&q.exit).median, stats(&q.pss).median);
	return cc.failures || cc.first.n == 0 ? 1 : 0;
}
