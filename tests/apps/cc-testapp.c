/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-testapp STEP...: the static test app of the stage1 e2e tests and the demo. It runs its
 * steps in order and reports what the app sees, one line each, "cc-test[<AC_APP_NAME>] ...",
 * so a test reads the app's own view from the pod's console. Steps (docs/stage1.md, "Testing"):
 *
 *   id  cwd  env  caps  mem  net  uname       print uid/gid/groups, cwd, the environment,
 *                                              the Cap lines, NoNewPrivs, Seccomp, MemTotal,
 *                                              the cgroup memory.max, hostname/hosts/resolv.conf,
 *                                              the kernel
 *   echo=TEXT                                  print TEXT
 *   exit=N                                     exit N now
 *   sleep=S                                    sleep S seconds
 *   trap=N                                     on SIGTERM print "got SIGTERM" and exit N
 *   write=PATH:TEXT  append=PATH:TEXT          write (truncate) or append TEXT and a newline
 *   read=PATH                                  print the file's lines
 *   stat=PATH                                  print mode, uid and gid
 *   chown=PATH:UID:GID  chmod=PATH:OCTAL       change owner or mode: ok or errno
 *   mknod=PATH:c|b|p                           make a char (1:3) or block (7:0) device or a
 *                                              FIFO, mode 0666: ok or errno
 *   wait=PATH                                  wait up to 60 s for PATH to exist
 *   stdin                                      read one line: "stdin tty=0|1 line=LINE"
 *                                              ("stdin tty=0|1 eof" at end of input)
 *   syscall=NAME                               call uname, getppid, sync or umask: ok or errno
 *   kill=PID:SIG                               send signal number SIG to PID (0: its own
 *                                              process group): ok or errno
 *   wchan                                      fork a child that sleeps in pause(), print
 *                                              the kernel function it waits in, which the
 *                                              kernel finds by unwinding its stack (/proc/
 *                                              PID/wchan: "wchan 0" if it could not)
 *   serve=PORT[:N]  connect=IP:PORT            TCP server and client (cc-testapp-tcp.c)
 *   mds=PATH  mds-serve=PORT:TOKEN:N           metadata service client and stand-in (same)
 *   recv=PORT  send=IP:PORT:MB                 bulk TCP transfer, timed (cc-testapp-bulk.c)
 *   setns=PID  symlink=TARGET:LINK             the hostile guest (cc-testapp-hostile.c): join
 *   rmdir=PATH  mkfifo=PATH                    PID's mount namespace, make links and FIFOs,
 *   truncate=PATH:SIZE                         a sparse file of SIZE bytes
 *   xattrflood=DIR  fidflood=PATH              floods of the VMM's budgets, bounded, what
 *   vsockflood=PORT:N                          was got held: 60 KiB user.* xattrs from 64
 *                                              processes, open fids, vsock connections to
 *                                              the host's PORT; print the counts and errnos
 *
 * A failed step prints its errno name (e.g. "write /ro/x errno=EROFS") and goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cc-testapp.h"

extern char **environ;

const char *testapp_name = "-";
static int sigterm_code = -1;

void testapp_say(const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("cc-test[%s] %s\n", testapp_name, line);
	fflush(stdout);
}

const char *testapp_errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static void on_sigterm(int sig)
{
	static const char msg[] = "got SIGTERM\n";
	char line[128];
	int l;

	(void) sig;
	l = snprintf(line, sizeof(line), "cc-test[%s] %s", testapp_name, msg);
	if (l > 0)
		(void) !write(STDOUT_FILENO, line, (size_t) l);
	_exit(sigterm_code);
}

static void step_id(void)
{
	gid_t groups[64];
	char list[1024] = "";
	int n = getgroups(64, groups);

	for (int i = 0; i < n; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof(list) - l, "%s%u", i ? "," : "", (unsigned) groups[i]);
	}
	testapp_say("uid=%u gid=%u groups=%s", (unsigned) getuid(), (unsigned) getgid(), list);
}

static void step_cwd(void)
{
	char buf[4096];

	if (getcwd(buf, sizeof(buf)))
		testapp_say("cwd=%s", buf);
	else
		testapp_say("cwd errno=%s", testapp_errno_name(errno));
}

static void file_lines(const char *label, const char *path, const char *only)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (!f) {
		testapp_say("%s %s errno=%s", label, path, testapp_errno_name(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!only || strncmp(line, only, strlen(only)) == 0)
			testapp_say("%s %s", label, line);
	}
	fclose(f);
}

static void step_mem(void)
{
	char line[1024], path[1200];
	FILE *f = fopen("/proc/self/cgroup", "re");

	file_lines("meminfo", "/proc/meminfo", "MemTotal:");
	if (!f) {
		testapp_say("cgroup errno=%s", testapp_errno_name(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::", 3) != 0)
			continue;
		testapp_say("cgroup=%s", line + 3);
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
			 strcmp(line + 3, "/") == 0 ? "" : line + 3);
		file_lines("memory.max", path, NULL);
	}
	fclose(f);
}

static void step_net(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) == 0)
		testapp_say("hostname=%s", host);
	else
		testapp_say("hostname errno=%s", testapp_errno_name(errno));
	file_lines("hosts", "/etc/hosts", NULL);
	file_lines("resolv", "/etc/resolv.conf", NULL);
}

static void step_write(const char *arg, const char *mode)
{
	char path[1024];
	const char *colon = strchr(arg, ':');
	FILE *f;

	if (!colon || (size_t) (colon - arg) >= sizeof(path)) {
		testapp_say("bad step argument %s", arg);
		return;
	}
	memcpy(path, arg, (size_t) (colon - arg));
	path[colon - arg] = '\0';
	f = fopen(path, mode);
	if (!f || fprintf(f, "%s\n", colon + 1) < 0 || fclose(f) != 0) {
		testapp_say("write %s errno=%s", path, testapp_errno_name(errno));
		return;
	}
	testapp_say("write %s ok", path);
}

static void step_stat(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		testapp_say("stat %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("stat %s mode=%04o uid=%u gid=%u", path,
			    (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid,
			    (unsigned) st.st_gid);
}

/* "PATH:REST": the path into buf, REST returned; NULL (and a line said) if malformed. */
static const char *split_path(const char *step, const char *arg, char *buf, size_t size)
{
	const char *colon = strchr(arg, ':');

	if (!colon || (size_t) (colon - arg) >= size) {
		testapp_say("bad step argument %s=%s", step, arg);
		return NULL;
	}
	memcpy(buf, arg, (size_t) (colon - arg));
	buf[colon - arg] = '\0';
	return colon + 1;
}

static void step_chown(const char *arg)
{
	unsigned uid, gid;
	char path[1024];
	const char *ids = split_path("chown", arg, path, sizeof(path));

	if (!ids)
		return;
	if (sscanf(ids, "%u:%u", &uid, &gid) != 2) {
		testapp_say("bad step argument chown=%s", arg);
		return;
	}
	if (chown(path, uid, gid) < 0)
		testapp_say("chown %s %s errno=%s", path, ids, testapp_errno_name(errno));
	else
		testapp_say("chown %s %s ok", path, ids);
}

static void step_chmod(const char *arg)
{
	char path[1024], *end;
	const char *m = split_path("chmod", arg, path, sizeof(path));
	unsigned long mode;

	if (!m)
		return;
	mode = strtoul(m, &end, 8);
	if (!*m || *end || mode > 07777) {
		testapp_say("bad step argument chmod=%s", arg);
		return;
	}
	if (chmod(path, (mode_t) mode) < 0)
		testapp_say("chmod %s %s errno=%s", path, m, testapp_errno_name(errno));
	else
		testapp_say("chmod %s %s ok", path, m);
}

static void step_mknod(const char *arg)
{
	char path[1024];
	const char *t = split_path("mknod", arg, path, sizeof(path));
	mode_t type;
	dev_t dev = 0;

	if (!t)
		return;
	if (strcmp(t, "c") == 0) {
		type = S_IFCHR;
		dev = makedev(1, 3);
	} else if (strcmp(t, "b") == 0) {
		type = S_IFBLK;
		dev = makedev(7, 0);
	} else if (strcmp(t, "p") == 0) {
		type = S_IFIFO;
	} else {
		testapp_say("bad step argument mknod=%s", arg);
		return;
	}
	if (mknod(path, type | 0666, dev) < 0)
		testapp_say("mknod %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("mknod %s ok", path);
}

static void step_wait(const char *path)
{
	for (int i = 0; i < 600; i++) {
		if (access(path, F_OK) == 0) {
			testapp_say("wait %s ok", path);
			return;
		}
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
	testapp_say("wait %s timeout", path);
}

static void step_syscall(const char *name)
{
	struct utsname u;
	long r;

	errno = 0;
	if (strcmp(name, "uname") == 0)
		r = syscall(SYS_uname, &u);
	else if (strcmp(name, "getppid") == 0)
		r = syscall(SYS_getppid);
	else if (strcmp(name, "sync") == 0)
		r = syscall(SYS_sync);
	else if (strcmp(name, "umask") == 0)
		r = syscall(SYS_umask, 022);
	else {
		testapp_say("syscall %s unknown", name);
		return;
	}
	if (r < 0)
		testapp_say("syscall %s errno=%s", name, testapp_errno_name(errno));
	else
		testapp_say("syscall %s ok", name);
}

static void step_kill(const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10), sig;

	if (*end != ':' || pid < 0 || pid > INT_MAX) {
		testapp_say("kill %s bad argument", arg);
		return;
	}
	sig = strtol(end + 1, &end, 10);
	if (*end || sig <= 0 || sig >= NSIG) {
		testapp_say("kill %s bad argument", arg);
		return;
	}
	if (kill((pid_t) pid, (int) sig) < 0)
		testapp_say("kill %s errno=%s", arg, testapp_errno_name(errno));
	else
		testapp_say("kill %s ok", arg);
}

/* The state letter of /proc/PID/stat, after the command name in parentheses; 0 if unknown. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void step_wchan(void)
{
	char path[64], name[128];
	ssize_t n = -1;
	int fd, i, err;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		testapp_say("wchan errno=%s", testapp_errno_name(errno));
		return;
	}
	if (pid == 0) {
		pause();
		_exit(0);
	}
	for (i = 0; i < 50 && proc_state(pid) != 'S'; i++)
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
	}
	err = errno;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (n < 0) {
		testapp_say("wchan errno=%s", testapp_errno_name(err));
		return;
	}
	name[n] = '\0';
	testapp_say("wchan %s", name);
}

static void step_sleep(const char *arg)
{
	struct timespec ts = {.tv_sec = strtol(arg, NULL, 10)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One line of stdin, and whether stdin is a terminal (run --interactive). */
static void step_stdin(void)
{
	char line[256];
	int tty = isatty(STDIN_FILENO);

	if (!fgets(line, sizeof(line), stdin)) {
		testapp_say("stdin tty=%d eof", tty);
		return;
	}
	line[strcspn(line, "\r\n")] = '\0';
	testapp_say("stdin tty=%d line=%s", tty, line);
}

static int step(const char *s)
{
	const char *arg = strchr(s, '=');
	struct utsname u;

	arg = arg ? arg + 1 : "";
	if (strcmp(s, "id") == 0)
		step_id();
	else if (strcmp(s, "cwd") == 0)
		step_cwd();
	else if (strcmp(s, "env") == 0)
		for (char **e = environ; *e; e++)
			testapp_say("env %s", *e);
	else if (strcmp(s, "caps") == 0) {
		file_lines("status", "/proc/self/status", "Cap"); /* Inh Prm Eff Bnd Amb */
		file_lines("status", "/proc/self/status", "NoNewPrivs:");
		file_lines("status", "/proc/self/status", "Seccomp:");
	} else if (strcmp(s, "mem") == 0)
		step_mem();
	else if (strcmp(s, "net") == 0)
		step_net();
	else if (strcmp(s, "uname") == 0 && uname(&u) == 0)
		testapp_say("uname %s %s %s", u.sysname, u.release, u.machine);
	else if (strncmp(s, "echo=", 5) == 0)
		testapp_say("%s", arg);
	else if (strncmp(s, "exit=", 5) == 0) {
		testapp_say("exit %d", atoi(arg));
		return atoi(arg) & 0xff;
	} else if (strncmp(s, "sleep=", 6) == 0)
		step_sleep(arg);
	else if (strncmp(s, "trap=", 5) == 0) {
		sigterm_code = atoi(arg) & 0xff;
		signal(SIGTERM, on_sigterm);
		testapp_say("trapping SIGTERM");
	} else if (strncmp(s, "write=", 6) == 0)
		step_write(arg, "we");
	else if (strncmp(s, "append=", 7) == 0)
		step_write(arg, "ae");
	else if (strncmp(s, "read=", 5) == 0)
		file_lines("read", arg, NULL);
	else if (strncmp(s, "stat=", 5) == 0)
		step_stat(arg);
	else if (strncmp(s, "wait=", 5) == 0)
		step_wait(arg);
	else if (strncmp(s, "chown=", 6) == 0)
		step_chown(arg);
	else if (strncmp(s, "chmod=", 6) == 0)
		step_chmod(arg);
	else if (strncmp(s, "mknod=", 6) == 0)
		step_mknod(arg);
	else if (strncmp(s, "syscall=", 8) == 0)
		step_syscall(arg);
	else if (strncmp(s, "kill=", 5) == 0)
		step_kill(arg);
	else if (strcmp(s, "wchan") == 0)
		step_wchan();
	else if (strcmp(s, "stdin") == 0)
		step_stdin();
	else if (strncmp(s, "serve=", 6) == 0)
		testapp_step_serve(arg);
	else if (strncmp(s, "connect=", 8) == 0)
		testapp_step_connect(arg);
	else if (strncmp(s, "mds-serve=", 10) == 0)
		testapp_step_mds_serve(arg);
	else if (strncmp(s, "mds=", 4) == 0)
		testapp_step_mds(arg);
	else if (strncmp(s, "recv=", 5) == 0)
		testapp_step_recv(arg);
	else if (strncmp(s, "send=", 5) == 0)
		testapp_step_send(arg);
	else if (strncmp(s, "setns=", 6) == 0)
		testapp_step_setns(arg);
	else if (strncmp(s, "symlink=", 8) == 0)
		testapp_step_symlink(arg);
	else if (strncmp(s, "rmdir=", 6) == 0)
		testapp_step_rmdir(arg);
	else if (strncmp(s, "mkfifo=", 7) == 0)
		testapp_step_mkfifo(arg);
	else if (strncmp(s, "truncate=", 9) == 0)
		testapp_step_truncate(arg);
	else if (strncmp(s, "xattrflood=", 11) == 0)
		testapp_step_xattrflood(arg);
	else if (strncmp(s, "fidflood=", 9) == 0)
		testapp_step_fidflood(arg);
	else if (strncmp(s, "vsockflood=", 11) == 0)
		testapp_step_vsockflood(arg);
	else
		testapp_say("unknown step %s", s);
	return -1;
}

int main(int argc, char **argv)
{
	const char *n = getenv("AC_APP_NAME");

	if (n && *n)
		testapp_name = n;
	for (int i = 1; i < argc; i++) {
		int code = step(argv[i]);

		if (code >= 0)
			return code;
	}
	return 0;
}
