/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-vmm: the thin command-line front end of libvmm. Parses argv into a struct vm_config,
 * creates and runs the VM, and turns the result into an exit status (vmm/exit.h) with one line
 * on stderr for any failure. Prints nothing else unless -v is given.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "vmm/vm.h"

enum {
	ARG_KSM = 0x100,
	ARG_HUGEPAGES,
	ARG_BOOT_MARKERS,
	ARG_KVM_DEVICE,
	ARG_9P,
	ARG_9P_HOSTVOL,
	ARG_9P_VISIBLE,
	ARG_VSOCK,
	ARG_NET,
	ARG_BLK,
	ARG_RNG,
	ARG_BALLOON,
	ARG_ZERO_SWEEP,
	ARG_MERGE_PAGES,
	ARG_SHARE_KERNEL_PAGES,
	ARG_SHARE_KERNEL_PAGES_FD,
	ARG_NO_SANDBOX,
	ARG_SECCOMP,
	ARG_CHROOT,
	ARG_9P_WORKER,
	ARG_KVM_FD,
};

struct args {
	struct vm_config cfg;
	const char *console;
	const char *boot_markers;
	char *pmem; /* FILE[,rw], split in place */
	int verbose;
	pid_t worker_parent; /* --9p-worker: we are that VMM's 9p worker (hidden) */
};

static void help(void)
{
	printf("Usage: cc-vmm --kernel FILE [OPTIONS]\n\n"
	       "Boot a vmlinux (or bzImage, or any ELF64 entered in 64-bit mode) in a KVM VM.\n\n"
	       "  -k, --kernel FILE        kernel image\n"
	       "  -c, --cmdline STR        kernel command line (device declarations are appended)\n"
	       "  -m, --mem MiB            guest RAM in MiB (default 128)\n"
	       "  -n, --cpus N             vCPUs (default 1, max %d)\n"
	       "  -p, --pmem FILE[,rw]     guest image as legacy pmem (read-only memslot unless "
	       "rw;\n"
	       "                           writes never reach FILE)\n"
	       "      --console stdio|FILE guest console destination (default stdio)\n"
	       "      --boot-markers FILE  write one JSON line per boot marker\n"
	       "      --ksm                let KSM merge guest RAM and the kernel's pages\n"
	       "      --hugepages off|on|auto  transparent huge pages for guest RAM (default off)\n"
	       "      --9p TAG:DIR[,ro]    export DIR to the guest under the 9p mount TAG "
	       "(repeatable)\n"
	       "      --9p-hostvol TAG:DEV:INO:UID:GID\n"
	       "                           in share TAG, the host volume whose root is DEV:INO:\n"
	       "                           no setuid/setgid files, no new root-owned files unless\n"
	       "                           UID:GID (its owner) is root (repeatable)\n"
	       "      --9p-visible TAG     with the sandbox, share TAG stays in the VMM's own "
	       "root,\n"
	       "                           read-only (the others are covered once the 9p worker\n"
	       "                           has them)\n"
	       "      --vsock CID:UDS_PATH virtio-vsock for guest CID; host side on the unix "
	       "socket\n"
	       "                           UDS_PATH (guest connections to port P reach "
	       "UDS_PATH_P)\n"
	       "      --net tap=NAME|fd=N[,mac=XX:XX:XX:XX:XX:XX]\n"
	       "                           virtio-net on a tap (repeatable)\n"
	       "      --blk FILE[,ro]      virtio-blk on a raw image (repeatable)\n"
	       "      --rng                virtio-rng fed by getrandom()\n"
	       "      --balloon            virtio-balloon with free page reporting: pages the\n"
	       "                           guest frees go back to the host\n"
	       "      --zero-sweep[=MS]    give back the guest RAM pages the guest left all zero,\n"
	       "                           2 s after the start, then at doubling intervals up to\n"
	       "                           10 min (or every MS ms); the vCPUs pause meanwhile\n"
	       "      --merge-pages        in the zero sweep, also map the guest RAM pages whose\n"
	       "                           bytes repeat many times onto one copy each\n"
	       "      --share-kernel-pages DIR\n"
	       "                           share the kernel pages each VM patches alike at boot\n"
	       "                           with the host's other VMs, through a file in DIR\n"
	       "      --share-kernel-pages-fd RO,CHAN\n"
	       "                           the same with that file open read-only at fd RO and\n"
	       "                           a channel to the process that fills it at fd CHAN\n"
	       "      --no-sandbox         debugging: keep fds, capabilities, no seccomp filters\n"
	       "      --seccomp kill|log   a syscall outside the filters kills the VMM (default)\n"
	       "                           or is only logged by the kernel\n"
	       "      --chroot DIR         with the sandbox: make DIR the VMM's root once every\n"
	       "                           file is open (DIR/proc must be a procfs)\n"
	       "      --kvm-device PATH    KVM device (default /dev/kvm)\n"
	       "      --kvm-fd N           an inherited, already open KVM device instead\n"
	       "  -v, --verbose            say why the VM stopped; twice: debug output\n"
	       "  -h, --help               this help\n",
	       VM_MAX_CPUS);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "RO,CHAN": two distinct fds above stderr. */
static int parse_kernel_pages_fds(const char *s, struct vm_config *cfg)
{
	_cleanup_free_ char *ro = NULL;
	const char *comma = strchr(s, ',');
	uint64_t a, b;

	if (!comma)
		return -EINVAL;
	ro = strndup(s, (size_t) (comma - s));
	if (!ro)
		return -ENOMEM;
	if (parse_u64(ro, INT32_MAX, &a) < 0 || parse_u64(comma + 1, INT32_MAX, &b) < 0 ||
	    a <= STDERR_FILENO || b <= STDERR_FILENO || a == b)
		return -EINVAL;
	cfg->kernel_pages_ro_fd = (int) a;
	cfg->kernel_pages_chan_fd = (int) b;
	return 0;
}

static int parse_pmem(struct args *a, char *arg)
{
	char *comma = strchr(arg, ',');

	if (comma) {
		if (strcmp(comma + 1, "rw") != 0 && strcmp(comma + 1, "ro") != 0)
			return -EINVAL;
		a->cfg.pmem_rw = strcmp(comma + 1, "rw") == 0;
		*comma = '\0';
	}
	if (!*arg)
		return -EINVAL;
	a->cfg.pmem_path = arg;
	return 0;
}

/* The VMM's 9p server reaches xattrs through /proc/self/fd: the new root needs a procfs. */
static int chroot_check(const char *dir)
{
	_cleanup_free_ char *fd_dir = NULL;

	if (asprintf(&fd_dir, "%s/proc/self/fd", dir) < 0)
		return log_oom();
	if (access(fd_dir, F_OK) < 0)
		return log_error_errno(errno, "--chroot %s: mount a procfs on %s/proc first: %m",
				       dir, dir);
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option options[] = {
		{"kernel", required_argument, NULL, 'k'},
		{"cmdline", required_argument, NULL, 'c'},
		{"mem", required_argument, NULL, 'm'},
		{"cpus", required_argument, NULL, 'n'},
		{"pmem", required_argument, NULL, 'p'},
		{"console", required_argument, NULL, 'C'},
		{"boot-markers", required_argument, NULL, ARG_BOOT_MARKERS},
		{"ksm", no_argument, NULL, ARG_KSM},
		{"kvm-device", required_argument, NULL, ARG_KVM_DEVICE},
		{"kvm-fd", required_argument, NULL, ARG_KVM_FD},
		{"hugepages", required_argument, NULL, ARG_HUGEPAGES},
		{"9p", required_argument, NULL, ARG_9P},
		{"9p-hostvol", required_argument, NULL, ARG_9P_HOSTVOL},
		{"9p-visible", required_argument, NULL, ARG_9P_VISIBLE},
		{"vsock", required_argument, NULL, ARG_VSOCK},
		{"net", required_argument, NULL, ARG_NET},
		{"blk", required_argument, NULL, ARG_BLK},
		{"rng", no_argument, NULL, ARG_RNG},
		{"balloon", no_argument, NULL, ARG_BALLOON},
		{"zero-sweep", optional_argument, NULL, ARG_ZERO_SWEEP},
		{"merge-pages", no_argument, NULL, ARG_MERGE_PAGES},
		{"share-kernel-pages", required_argument, NULL, ARG_SHARE_KERNEL_PAGES},
		{"share-kernel-pages-fd", required_argument, NULL, ARG_SHARE_KERNEL_PAGES_FD},
		{"no-sandbox", no_argument, NULL, ARG_NO_SANDBOX},
		{"seccomp", required_argument, NULL, ARG_SECCOMP},
		{"chroot", required_argument, NULL, ARG_CHROOT},
		{"9p-worker", required_argument, NULL, ARG_9P_WORKER},
		{"verbose", no_argument, NULL, 'v'},
		{"debug", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct cc_error err = {0};
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "k:c:m:n:p:vh", options, NULL)) >= 0) {
		switch (c) {
		case 'k':
			a->cfg.kernel_path = optarg;
			break;
		case 'c':
			a->cfg.cmdline = optarg;
			break;
		case 'm':
			if (parse_u64(optarg, VM_MAX_MEM_MIB, &v) < 0 || v < VM_MIN_MEM_MIB)
				return log_error_errno(EINVAL,
						       "--mem: expected %u-%u MiB, got '%s'",
						       VM_MIN_MEM_MIB, VM_MAX_MEM_MIB, optarg);
			a->cfg.mem_mib = v;
			break;
		case 'n':
			if (parse_u64(optarg, VM_MAX_CPUS, &v) < 0 || v < 1)
				return log_error_errno(EINVAL, "--cpus: expected 1-%d, got '%s'",
						       VM_MAX_CPUS, optarg);
			a->cfg.n_cpus = (unsigned) v;
			break;
		case 'p':
			if (parse_pmem(a, optarg) < 0)
				return log_error_errno(
					EINVAL, "--pmem: expected FILE[,rw], got '%s'", optarg);
			break;
		case 'C':
			a->console = optarg;
			break;
		case ARG_BOOT_MARKERS:
			a->boot_markers = optarg;
			break;
		case ARG_KVM_DEVICE:
			a->cfg.kvm_path = optarg;
			break;
		case ARG_KVM_FD:
			if (parse_u64(optarg, INT32_MAX, &v) < 0 || v < 3)
				return log_error_errno(
					EINVAL, "--kvm-fd: expected an fd >= 3, got '%s'", optarg);
			a->cfg.kvm_fd = (int) v;
			break;
		case ARG_KSM:
			a->cfg.ksm = true;
			break;
		case ARG_HUGEPAGES:
			a->cfg.hugepages = vm_hugepages_from_string(optarg);
			if (a->cfg.hugepages < 0)
				return log_error_errno(EINVAL,
						       "--hugepages: expected off, on or auto");
			break;
		case ARG_9P:
			r = vm_config_add_share(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--9p '%s': %s", optarg, err.msg);
			break;
		case ARG_9P_HOSTVOL:
			r = vm_config_add_hostvol(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--9p-hostvol '%s': %s", optarg, err.msg);
			break;
		case ARG_9P_VISIBLE:
			r = vm_config_set_share_visible(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--9p-visible '%s': %s", optarg, err.msg);
			break;
		case ARG_VSOCK:
			r = vm_config_set_vsock(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--vsock '%s': %s", optarg, err.msg);
			break;
		case ARG_NET:
			r = vm_config_add_net(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--net '%s': %s", optarg, err.msg);
			break;
		case ARG_BLK:
			r = vm_config_add_blk(&a->cfg, optarg, &err);
			if (r < 0)
				return log_error_errno(r, "--blk '%s': %s", optarg, err.msg);
			break;
		case ARG_RNG:
			a->cfg.rng = true;
			break;
		case ARG_BALLOON:
			a->cfg.balloon = true;
			break;
		case ARG_ZERO_SWEEP:
			a->cfg.zero_sweep = true;
			a->cfg.zero_sweep_ms = 0;
			if (optarg) {
				if (parse_u64(optarg, VM_ZERO_SWEEP_MAX_MS, &v) < 0 || v < 1)
					return log_error_errno(
						EINVAL, "--zero-sweep: expected 1-%u ms, got '%s'",
						VM_ZERO_SWEEP_MAX_MS, optarg);
				a->cfg.zero_sweep_ms = (unsigned) v;
			}
			break;
		case ARG_MERGE_PAGES:
			a->cfg.merge_pages = true;
			break;
		case ARG_SHARE_KERNEL_PAGES:
			if (!*optarg)
				return log_error_errno(
					EINVAL, "--share-kernel-pages: expected a directory");
			a->cfg.kernel_pages_dir = optarg;
			break;
		case ARG_SHARE_KERNEL_PAGES_FD:
			if (parse_kernel_pages_fds(optarg, &a->cfg) < 0)
				return log_error_errno(EINVAL,
						       "--share-kernel-pages-fd: expected RO,CHAN "
						       "(two fds above 2), got '%s'",
						       optarg);
			break;
		case ARG_NO_SANDBOX:
			a->cfg.sandbox = false;
			break;
		case ARG_SECCOMP:
			a->cfg.seccomp = vm_seccomp_from_string(optarg);
			if (a->cfg.seccomp < 0)
				return log_error_errno(EINVAL, "--seccomp: expected kill or log");
			break;
		case ARG_9P_WORKER:
			if (parse_u64(optarg, INT32_MAX, &v) < 0 || v < 1)
				return log_error_errno(EINVAL, "--9p-worker: expected a pid");
			a->worker_parent = (pid_t) v;
			break;
		case ARG_CHROOT:
			if (optarg[0] != '/')
				return log_error_errno(EINVAL,
						       "--chroot: expected an absolute path");
			a->cfg.sandbox_root = optarg;
			break;
		case 'v':
			a->verbose++;
			break;
		case 'h':
			help();
			return 0;
		default:
			return -EINVAL; /* getopt printed why */
		}
	}
	if (optind < argc)
		return log_error_errno(EINVAL, "unexpected argument '%s'", argv[optind]);
	if (a->worker_parent > 0)
		return 1; /* the VMM's own 9p worker: only its shares and sandbox options matter */
	if (!a->cfg.kernel_path)
		return log_error_errno(EINVAL, "--kernel is required (see --help)");
	if (a->cfg.kernel_pages_dir && a->cfg.kernel_pages_ro_fd >= 0)
		return log_error_errno(EINVAL, "--share-kernel-pages and --share-kernel-pages-fd "
					       "exclude each other");
	if (a->cfg.kvm_fd >= 0 && a->cfg.kvm_path)
		return log_error_errno(EINVAL, "--kvm-fd and --kvm-device exclude each other");
	if (a->cfg.sandbox_root && !a->cfg.sandbox)
		return log_error_errno(EINVAL, "--chroot needs the sandbox (not --no-sandbox)");
	if (a->cfg.sandbox_root && chroot_check(a->cfg.sandbox_root) < 0)
		return -EINVAL;
	return 1;
}

static int open_outputs(struct args *a, int *console_fd, int *markers_fd)
{
	if (!a->console || strcmp(a->console, "stdio") == 0) {
		a->cfg.console_in_fd = STDIN_FILENO;
		a->cfg.console_out_fd = STDOUT_FILENO;
	} else {
		*console_fd = open(a->console, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (*console_fd < 0)
			return log_error_errno(errno, "cannot open console file '%s': %m",
					       a->console);
		a->cfg.console_out_fd = *console_fd;
	}
	if (a->boot_markers) {
		*markers_fd = open(a->boot_markers, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (*markers_fd < 0)
			return log_error_errno(errno, "cannot open boot-markers file '%s': %m",
					       a->boot_markers);
		a->cfg.boot_markers_fd = *markers_fd;
	}
	return 0;
}

/*
 * Process-wide settings the devices rely on: a closed stdout must give the console EPIPE
 * instead of killing the VMM, and 9p holds descriptors per guest fid, so the soft fd limit
 * goes up to the hard one.
 */
static void setup_process(void)
{
	struct sigaction sa = {.sa_handler = SIG_IGN};
	struct rlimit rl;

	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		log_debug_errno(errno, "cannot ignore SIGPIPE: %m");
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		log_debug_errno(errno, "cannot get RLIMIT_NOFILE: %m");
	} else if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_debug_errno(errno, "cannot raise RLIMIT_NOFILE: %m");
	}
}

/* Before we open anything, so that a number given with --net fd= or --kvm-fd cannot be one of
 * ours. */
static int check_tap_fds(const struct vm_config *cfg)
{
	if (cfg->kvm_fd >= 0 && fcntl(cfg->kvm_fd, F_GETFD) < 0)
		return log_error_errno(errno, "--kvm-fd: fd %d is not open: %m", cfg->kvm_fd);
	for (unsigned i = 0; i < cfg->n_nets; i++)
		if (cfg->nets[i].tap_fd >= 0 && fcntl(cfg->nets[i].tap_fd, F_GETFD) < 0)
			return log_error_errno(errno, "--net: fd %d is not open: %m",
					       cfg->nets[i].tap_fd);
	return 0;
}

/* The --share-kernel-pages-fd fds are inherited ones, not fds this process opens later. */
static int check_kernel_pages_fds(const struct vm_config *cfg)
{
	if (cfg->kernel_pages_ro_fd < 0)
		return 0;
	if (fcntl(cfg->kernel_pages_ro_fd, F_GETFD) < 0 ||
	    fcntl(cfg->kernel_pages_chan_fd, F_GETFD) < 0)
		return log_error_errno(errno,
				       "--share-kernel-pages-fd: fd %d or %d is not open: %m",
				       cfg->kernel_pages_ro_fd, cfg->kernel_pages_chan_fd);
	return 0;
}

/* The VM works on duplicates of the --net fd= taps and of --kvm-fd: ours go once it exists (or
 * failed). */
static void close_tap_fds(struct vm_config *cfg)
{
	if (cfg->kvm_fd >= 0)
		cfg->kvm_fd = safe_close(cfg->kvm_fd);
	for (unsigned i = 0; i < cfg->n_nets; i++)
		if (cfg->nets[i].tap_fd >= 0)
			cfg->nets[i].tap_fd = safe_close(cfg->nets[i].tap_fd);
}

/*
 * rkt's stage1 hands the pod lock to the VMM as an inherited fd named by $RKT_LOCK_FD; the
 * sandbox closes every other inherited fd (0-2 aside).
 */
static int parse_lock_fd(struct vm_config *cfg)
{
	const char *s = getenv("RKT_LOCK_FD");
	uint64_t v;

	if (!s)
		return 0;
	if (parse_u64(s, INT32_MAX, &v) < 0)
		return log_error_errno(EINVAL, "RKT_LOCK_FD: expected an fd number, got '%s'", s);
	cfg->sandbox_keep_fd = (int) v;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static int run(struct args *a)
{
	_cleanup_close_ int console_fd = -1, markers_fd = -1;
	struct cc_error err = {0};
	struct vm_exit ex = {0};
	struct vm *vm = NULL;
	int r;

	if (check_tap_fds(&a->cfg) < 0 || check_kernel_pages_fds(&a->cfg) < 0 ||
	    open_outputs(a, &console_fd, &markers_fd) < 0)
		return VMM_EXIT_FAILURE;
	setup_process();
	r = vm_new(&a->cfg, &vm, &err);
	close_tap_fds(&a->cfg);
	if (r < 0) {
		log_error("%s", err.msg);
		return err.status ? err.status : VMM_EXIT_FAILURE;
	}
	r = vm_run(vm, &ex, &err);
	vm = vm_free(vm);
	if (r < 0) {
		log_error("%s", err.msg);
		return err.status ? err.status : VMM_EXIT_FAILURE;
	}
	log_info("%s", ex.reason);
	return ex.status;
}

int main(int argc, char **argv)
{
	struct args a = {0};
	int r;

	vm_config_init(&a.cfg);
	a.cfg.start_ns = now_ns();
	a.cfg.sandbox = true;
	log_set_prefix("cc-vmm");
	r = parse_lock_fd(&a.cfg);
	if (r >= 0)
		r = parse_args(argc, argv, &a);
	if (r <= 0)
		r = r < 0 ? VMM_EXIT_USAGE : VMM_EXIT_OK;
	else {
		if (a.verbose)
			log_set_max_level(a.verbose > 1 ? LOG_DEBUG : LOG_INFO);
		if (a.worker_parent > 0)
			r = vm_9p_worker_serve(&a.cfg, a.worker_parent) < 0 ? VMM_EXIT_USAGE
									    : VMM_EXIT_OK;
		else
			r = run(&a);
	}
	vm_config_done(&a.cfg);
	return r;
}
