/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage1-run: the stage1 `run` entrypoint and pod supervisor (/cc/run in the stage1 ACI).
 * rkt execs it in the pod dir; it checks the pod, sets up its networks (CNI, in the host's
 * mount namespace, so that gc finds the netns), mounts its volumes in a private mount
 * namespace, writes the pod layer, runs cc-vmm and exits with the pod's status.
 * See docs/stage1.md, "Lifecycle".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cc/tty.h"
#include "kernel-pages-dir.h"
#include "kernel-pages-share.h"
#include "machined.h"
#include "pod-exit.h"
#include "pod-journal.h"
#include "pod-load.h"
#include "pod-paths.h"
#include "pod-resources.h"
#include "cc/rm-rf.h"
#include "run-bound.h"
#include "run-net.h"
#include "run-prepare.h"
#include "status-mirror.h"
#include "stage1/flags.h"
#include "stage1/pod-options.h"
#include "stage1/uuid.h"
#include "stage1/vmsize.h"
#include "supervise.h"
#include "vmm-argv.h"
#include "stdio-relay.h"
#include "vmm-jail.h"
#include "vmm-root.h"
#include "volume-mount.h"
#include "volume-plan.h"

static void print_warning(const char *msg)
{
	fprintf(stderr, "run: warning: %s\n", msg);
}

static void print_warnings(struct cc_warnings *w)
{
	for (size_t i = 0; i < cc_warnings_count(w); i++)
		print_warning(cc_warnings_line(w, i));
	cc_warnings_done(w);
}

static int fail(int code, const char *msg)
{
	fprintf(stderr, "run: %s\n", msg);
	return code;
}

/*
 * A stage1 file: $env when set (tests point CC_STAGE1_VMM at a fake VMM), else
 * <pod dir>/<rel>. Never relative to argv[0].
 */
static int stage1_file(const char *env, const char *pod_dir, const char *rel, char **ret)
{
	const char *e = secure_getenv(env);

	if (e && *e)
		*ret = strdup(e);
	else if (asprintf(ret, "%s/%s", pod_dir, rel) < 0)
		*ret = NULL;
	return *ret ? 0 : -ENOMEM;
}

struct run_ctx {
	struct run_flags flags;
	struct pod_info info;
	int pod_fd;
	int lock_fd; /* RKT_LOCK_FD, -1 when unset */
	char *pod_dir;
	char *vmm, *kernel, *image;
	struct vm_size size;
	struct pod_options opts;
	struct volume_plan plan;
	struct volume_roots roots; /* what run_prepare() mounted, for --9p-hostvol */
	struct run_net net;
	char machine_id[STAGE1_MACHINE_ID_STRING_MAX];
	bool journal_linked;
	bool machine_registered;
	struct tty_raw tty;	/* --interactive: the terminal in raw mode while the VMM runs */
	struct run_bound bound; /* the VMM's cgroup or rlimits */
	struct kernel_pages_share kernel_pages;
	bool jail; /* the VMM runs in its jail (vmm-jail.h) */
	struct vmm_jail jail_cfg;
	struct stdio_relay relay; /* the jailed VMM's stdio */
};

static void run_ctx_done(struct run_ctx *c)
{
	run_bound_done(&c->bound);
	run_net_done(&c->net);
	volume_plan_done(&c->plan);
	volume_roots_done(&c->roots);
	pod_info_done(&c->info);
	safe_close(c->pod_fd);
	kernel_pages_share_end(&c->kernel_pages);
	free(c->pod_dir);
	free(c->vmm);
	free(c->kernel);
	free(c->image);
}

/* Everything that can be refused before the pod dir is touched. */
static int run_check(struct run_ctx *c)
{
	struct cc_warnings w = {};
	struct cc_error err = {};
	struct sysinfo si;
	long ncpu;
	int r;

	c->lock_fd = lock_fd_from_env();
	if (c->lock_fd == -EBADF)
		return fail(1, "RKT_LOCK_FD is not an open file descriptor");
	c->pod_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->pod_dir = getcwd(NULL, 0);
	if (c->pod_fd < 0 || !c->pod_dir)
		return fail(1, "cannot open the pod dir (the current directory)");
	if (pod_info_load(c->pod_fd, &c->info, &err) < 0)
		return fail(1, cc_error_message(&err));
	if (stage1_file("CC_STAGE1_VMM", c->pod_dir, POD_STAGE1_VMM, &c->vmm) < 0 ||
	    stage1_file("CC_STAGE1_KERNEL", c->pod_dir, POD_STAGE1_KERNEL, &c->kernel) < 0 ||
	    stage1_file("CC_STAGE1_IMAGE", c->pod_dir, POD_STAGE1_IMAGE, &c->image) < 0)
		return fail(1, "out of memory");
	if (access(c->vmm, X_OK) < 0) {
		(void) cc_error_set(&err, errno, "cannot execute the VMM %s: %m", c->vmm);
		return fail(1, cc_error_message(&err));
	}
	if (stage1_uuid_to_machine_id(c->flags.uuid, c->machine_id) < 0)
		return fail(1, "invalid pod UUID");
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	r = vm_size_compute(c->info.pod, (const struct image_manifest *const *) c->info.images,
			    ncpu > 0 ? (unsigned) ncpu : 1,
			    sysinfo(&si) == 0 ? (uint64_t) si.totalram * si.mem_unit >> 20 : 0,
			    &c->size, &w, &err);
	print_warnings(&w);
	if (r < 0)
		return fail(1, cc_error_message(&err));
	if (pod_options_parse(c->info.pod, &c->opts, &err) < 0)
		return fail(1, cc_error_message(&err));
	r = volume_plan_build(c->info.pod, (const struct image_manifest *const *) c->info.images,
			      &c->plan, &w, &err);
	print_warnings(&w);
	if (r < 0)
		return fail(1, cc_error_message(&err));
	if (run_net_select(&c->net, &c->flags, &c->info, &err) < 0)
		return fail(1, cc_error_message(&err));
	if (c->net.sel.n == 0 && c->info.pod->n_ports > 0)
		print_warning("--net=none: the pod's ports are not forwarded");
	return 0;
}

/*
 * Undo the networks on an error path, then remove cc/. If the teardown fails, cc/ stays: it
 * holds what gc needs to retry (cc/net, cc/resources).
 */
static void run_undo(struct run_ctx *c)
{
	struct cc_error err = {};
	bool keep = false;

	/* The jail's detached mounts, if run got that far (they hold the volumes' mounts). */
	if (c->jail)
		vmm_jail_trees_close(&c->jail_cfg);
	if (run_bound_remove(&c->bound) < 0) {
		print_warning("cannot remove the VMM's cgroup");
		keep = true;
	}
	if (c->journal_linked && pod_journal_unlink(c->machine_id) < 0) {
		print_warning("cannot remove the pod's journal link");
		keep = true;
	}
	if (run_net_teardown(&c->net, c->pod_fd, c->flags.uuid, &err) < 0) {
		print_warning(cc_error_message(&err));
		keep = true;
	}
	if (!keep)
		(void) rm_rf_at(c->pod_fd, POD_CC_DIR);
}

/*
 * The networks, then the private mount namespace. The netns bind mount must be made in the
 * host's mount namespace (gc, another process, removes it); every mount run makes after this
 * (volumes) lives in the private namespace only and disappears with the supervisor and the
 * VMM, kill -9 included. The pod dir is opened again inside it (volume_plan_apply()).
 */
/*
 * cc/timings: where the launch spent its time on the host, "name=value" lines (today the
 * network setup: CNI, tap, rules), for users and the launch benchmark. A diagnostic only: a
 * failure to write it is reported and the pod goes on.
 */
static void timings_write(int pod_fd, const struct run_net *n)
{
	_cleanup_close_ int fd = -1;

	if (!n->active)
		return;
	fd = openat(pod_fd, POD_TIMINGS_PATH, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dprintf(fd, "net_setup_ms=%u\n", n->pod.setup_ms) < 0)
		fprintf(stderr, "run: warning: cannot write %s: %s\n", POD_TIMINGS_PATH,
			strerror(errno));
}

static int run_enter_pod(struct run_ctx *c)
{
	struct cc_warnings w = {};
	struct cc_error err = {};
	int r, fd;

	if (mkdirat(c->pod_fd, POD_CC_DIR, 0700) < 0 && errno != EEXIST) {
		(void) cc_error_set(&err, errno, "%s: %m", POD_CC_DIR);
		return fail(1, cc_error_message(&err));
	}
	r = run_net_setup(&c->net, c->pod_fd, c->flags.uuid, &err);
	if (r < 0) {
		(void) rm_rf_at(c->pod_fd, POD_CC_DIR);
		return fail(1, cc_error_message(&err));
	}
	timings_write(c->pod_fd, &c->net);
	if (c->net.active && c->flags.debug)
		fprintf(stderr, "run: %zu network(s) set up in %u ms\n", c->net.pod.n_nics,
			c->net.pod.setup_ms);
	r = mount_ns_private();
	if (r < 0) {
		(void) cc_error_set(&err, r, "cannot create a private mount namespace: %m");
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		(void) cc_error_set(&err, errno, "cannot open the pod dir again: %m");
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	safe_close(c->pod_fd);
	c->pod_fd = fd;
	r = pod_journal_prepare(c->pod_fd, c->pod_dir, c->machine_id, &w, &err);
	print_warnings(&w);
	if (r < 0) {
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	c->journal_linked = r > 0;
	/* Jailed, the VMM gets a procfs of its own PID namespace; else it is chrooted. */
	r = c->jail ? vmm_jail_prepare_pod(c->pod_fd) : vmm_root_prepare(c->pod_fd);
	if (r < 0) {
		(void) cc_error_set(&err, r,
				    c->jail ? "cannot prepare the VMM's directory: %m"
					    : "cannot mount a procfs in the stage1 rootfs: %m");
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	return 0;
}

/*
 * Before the VMM execs: register the pod with systemd-machined, the VMM as its leader (its root
 * is the stage1 rootfs, cc-vmm --chroot), recorded first so that gc unregisters it after a
 * crash. machined is optional: without it nothing is said; a failed registration is a warning.
 * *ret_scope: systemd moved the leader into a scope of its own.
 */
static void machine_register(struct run_ctx *c, pid_t pid, bool *ret_scope)
{
	_cleanup_free_ char *name = NULL, *root = NULL;
	struct machined_machine m = {
		.service = "rkt",
		.class = "container",
		.leader = pid,
		.memory_max = c->bound.b.memory_max,
		.tasks_max = c->bound.b.pids_max,
	};
	struct cc_error err = {};
	bool scope;
	int r;

	if (asprintf(&name, "rkt-%s", c->flags.uuid) < 0 ||
	    asprintf(&root, "%s/" POD_STAGE1_ROOTFS, c->pod_dir) < 0 ||
	    stage1_uuid_to_bytes(c->flags.uuid, m.id) < 0)
		return print_warning("cannot register the pod with systemd-machined");
	m.name = name, m.root_directory = root;
	r = pod_resources_append(c->pod_fd, POD_RESOURCE_MACHINE, name);
	if (r < 0) {
		(void) cc_error_set(&err, r, "cannot record the machined registration: %m");
		return print_warning(cc_error_message(&err));
	}
	r = machined_register(&m, &scope, &err);
	*ret_scope = r == 0 && scope;
	if (r == -EOPNOTSUPP)
		log_debug("no systemd-machined on the system bus: the pod is not registered");
	else if (r < 0)
		print_warning(cc_error_message(&err));
	else {
		c->machine_registered = true;
		log_debug("registered %s with systemd-machined (leader %d, %s)", name, (int) pid,
			  scope ? "in a scope of its own" : "in run's unit");
	}
}

/*
 * The VMM runs: with --interactive, give the terminal to the app (the guest console): raw
 * mode, Ctrl-C included, until the VMM exits.
 */
static void vmm_started(pid_t pid _unused_, void *userdata)
{
	struct run_ctx *c = userdata;

	kernel_pages_share_fds_close(&c->kernel_pages);
	/* The VMM has its ends: the relay sees their end when the VMM's. */
	if (c->jail)
		stdio_relay_release(&c->relay);
	if (c->flags.interactive)
		(void) tty_raw_enter(&c->tty, STDIN_FILENO);
}

/* While the VM runs: the codes of the apps that exited, for rkt status (errors: at the end). */
static void vmm_tick(void *userdata)
{
	struct run_ctx *c = userdata;

	(void) status_mirror(c->pod_fd, c->info.pod);
}

static void machine_unregister(struct run_ctx *c)
{
	_cleanup_free_ char *name = NULL;
	struct cc_error err = {};

	if (!c->machine_registered)
		return;
	if (asprintf(&name, "rkt-%s", c->flags.uuid) < 0 || machined_unregister(name, &err) < 0)
		print_warning(err.msg[0] ? err.msg : "cannot unregister the pod");
}

/*
 * Before the VMM child may exec: register the machine, then put the child under its bound.
 * In this order, because machined reads the leader's unit from its cgroup (RegisterMachine:
 * run's unit), and a scope that machined has systemd make (CreateMachine) already holds the
 * child, with the bound as its properties.
 */
static int vmm_prestart(pid_t pid, void *userdata, struct cc_error *reterr_error)
{
	struct run_ctx *c = userdata;
	bool scope = false;

	machine_register(c, pid, &scope);
	return run_bound_prestart(&c->bound, pid, scope, reterr_error);
}

/* --debug: the VMM command line on one line, each argument single-quoted. */
static void log_argv(char *const *argv)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	for (char *const *a = argv; *a; a++)
		fprintf(f, "%s'%s'", a == argv ? "" : " ", *a);
	if (fclose(f) == 0)
		fprintf(stderr, "run: VMM: %s\n", buf);
}

/*
 * The kernel pages file and its filler, in $CC_STAGE1_KERNEL_PAGES_DIR when set ("" turns
 * the sharing off: benchmarks measure without it), else the default directory: the fds for
 * the VMM, or NULL, with a warning when they cannot be had: the pod runs, its kernel pages
 * unshared.
 */
static const int *kernel_pages_share(struct run_ctx *c)
{
	const char *dir = secure_getenv("CC_STAGE1_KERNEL_PAGES_DIR");
	struct cc_error err = {};

	if (!dir)
		dir = KERNEL_PAGES_DIR_DEFAULT;
	if (!*dir)
		return NULL;
	if (kernel_pages_dir_prepare(dir, &err) < 0 ||
	    kernel_pages_share_start(dir, c->kernel, &c->kernel_pages, &err) < 0) {
		print_warning(cc_error_message(&err));
		return NULL;
	}
	return c->kernel_pages.fds;
}

static int jail_parent_setup(pid_t pid, void *userdata)
{
	struct run_ctx *c = userdata;

	return vmm_jail_map(pid, &c->jail_cfg);
}

static int jail_child_setup(void *userdata)
{
	struct run_ctx *c = userdata;

	return vmm_jail_enter(&c->jail_cfg);
}

static int run_vmm(struct run_ctx *c)
{
	_cleanup_(vmm_argv_freep) char **argv = NULL;
	struct cc_warnings w = {};
	struct vmm_config vc = {
		.vmm = c->vmm,
		.kernel = c->kernel,
		.image = c->image,
		.pod_dir = c->pod_dir,
		.machine_id = c->machine_id,
		.mem_mib = c->size.mem_mib,
		.cpus = c->size.cpus,
		.debug = c->flags.debug,
		.ksm = c->opts.ksm,
		.extra_kernel_params = getenv("RKT_HYPERVISOR_EXTRA_KERNEL_PARAMS"),
		.kernel_pages_fds = kernel_pages_share(c),
		.nets = (const char *const *) c->net.vmm_nets,
		.jail = c->jail,
		.kvm_fd = -1,
		.hostvols = c->roots.v,
		.n_hostvols = c->roots.n,
	};
	c->jail_cfg = (struct vmm_jail){
		.vmm = c->vmm,
		.kernel = c->kernel,
		.image = c->image,
		.caps = VMM_JAIL_CAPS,
		.hostvols = c->roots.v,
		.n_hostvols = c->roots.n,
	};
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		c->jail_cfg.trees[i] = -1;
	_cleanup_close_ int kvm_fd = -1;
	int keep_fds[CCNET_NETS_MAX + 3]; /* the taps, the kernel pages fds, KVM */
	size_t n_keep = 0;
	struct cc_error err = {};
	struct pod_exit pe;
	int status, r;

	for (size_t i = 0; i < c->net.pod.n_nics; i++)
		keep_fds[n_keep++] = c->net.tap_fds[i];
	if (vc.kernel_pages_fds) {
		keep_fds[n_keep++] = c->kernel_pages.fds[0];
		keep_fds[n_keep++] = c->kernel_pages.fds[1];
	}
	if (c->jail) {
		/* Every volume owner mappable and every mount of the jail made, idmapped where
		 * the filesystems allow it, before anything starts. */
		r = vmm_jail_trees_open(&c->jail_cfg, c->pod_fd);
		if (r < 0) {
			(void) cc_error_set(&err, r,
					    r == -ERANGE ? "a host volume's root is owned by an id "
							   "the VMM's jail keeps for the VMM"
					    : r == -E2BIG ? "too many host volume owners for the "
							    "VMM's jail: %m"
							  : "cannot make the VMM's jail: %m");
			run_undo(c);
			return fail(1, cc_error_message(&err));
		}
		/* The usual case under rkt, whose app rootfs are overlayfs mounts: not a warning
		 * (docs/stage1.md, "The VMM's jail"). */
		if (!c->jail_cfg.idmapped) {
			errno = -c->jail_cfg.idmap_error;
			log_debug("the apps' files cannot be idmapped (%m): host ids 0-65535 keep "
				  "their number in the VMM's jail");
		}
		/* Not even the pod dir (tmpfs before Linux 6.3, NFS): rare, and weaker. */
		if (!c->jail_cfg.pod_idmapped)
			print_warning("the pod dir's file system cannot be idmapped: what the "
				      "guest writes in guest/ may be host root's (root alone "
				      "reaches it)");
		/* The jail has no /dev: the VMM inherits KVM open. */
		/* On a read-only clone of /dev's mount: the VMM's capabilities in its user
		 * namespace would otherwise let it chmod or chown the host's /dev/kvm. */
		kvm_fd = open_on_read_only_mount("/dev/kvm", O_RDWR);
		if (kvm_fd < 0) {
			(void) cc_error_set(&err, kvm_fd, "cannot open /dev/kvm: %m");
			run_undo(c);
			return fail(1, cc_error_message(&err));
		}
		vc.kvm_fd = keep_fds[n_keep++] = kvm_fd;
	}
	r = vmm_argv_build(&vc, &argv);
	if (r < 0) {
		(void) cc_error_set(&err, r, "cannot build the VMM command line: %m");
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	if (c->flags.debug)
		log_argv(argv);
	r = run_bound_setup(&c->bound, c->pod_fd, c->flags.uuid, &c->size, c->image, &w, &err);
	print_warnings(&w);
	if (r < 0) {
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}

	/* Jailed, the VMM's stdio are pipes of a relay (stdio-relay.h), not run's own fds. */
	if (c->jail) {
		r = stdio_relay_start(&c->relay);
		if (r < 0) {
			(void) cc_error_set(&err, r, "cannot start the VMM's stdio relay: %m");
			run_undo(c);
			return fail(1, cc_error_message(&err));
		}
	}
	struct supervise_config sc = {
		.argv = argv,
		.stdio_fds = c->jail ? c->relay.vmm_fds : NULL,
		/* Jailed, the VMM holds no fd on the pod dir: run keeps the pod locked alone. */
		.lock_fd = c->lock_fd >= 0 && !c->jail ? c->lock_fd : -1,
		.pod_fd = c->pod_fd,
		.keep_fds = keep_fds,
		.n_keep_fds = n_keep,
		.prestart = vmm_prestart,
		.clone_flags = c->jail ? VMM_JAIL_CLONE_FLAGS : 0,
		.parent_setup = c->jail ? jail_parent_setup : NULL,
		.child_setup = c->jail ? jail_child_setup : NULL,
		.started = vmm_started,
		.tick = vmm_tick,
		.tick_ms = STATUS_MIRROR_TICK_MS,
		.userdata = c,
	};

	r = supervise_run(&sc, &status, NULL, &err);
	if (c->jail) {
		vmm_jail_trees_close(&c->jail_cfg);
		/* The VMM's last output before run's own lines. */
		stdio_relay_finish(&c->relay);
	}
	tty_raw_leave(&c->tty);
	machine_unregister(c);
	/* A VMM that was killed could not remove its vsock socket. */
	(void) unlinkat(c->pod_fd, POD_VSOCK_PATH, 0);
	if (c->jail)
		(void) unlinkat(c->pod_fd, POD_VM_VSOCK, 0);
	if (r < 0) {
		/* The VMM never ran: leave the pod dir as rkt made it. */
		(void) unlinkat(c->pod_fd, POD_PID_PATH, 0);
		run_undo(c);
		return fail(1, cc_error_message(&err));
	}
	pod_exit_decide(status, pod_exit_read(c->pod_fd), &pe);
	/* The guest's last codes first: filling is for the apps that have none. */
	r = status_mirror(c->pod_fd, c->info.pod);
	if (r < 0) {
		(void) cc_error_set(&err, r, "cannot copy the apps' status codes: %m");
		print_warning(cc_error_message(&err));
	}
	run_bound_finish(&c->bound, &pe, &w);
	print_warnings(&w);
	if (pe.fill_status >= 0) {
		r = pod_status_fill(c->pod_fd, c->info.pod, pe.fill_status);
		if (r < 0) {
			(void) cc_error_set(&err, r, "cannot write the apps' status files: %m");
			print_warning(cc_error_message(&err));
		}
	}
	if (pe.report) {
		if (pe.report_is_warning)
			print_warning(pe.msg);
		else
			(void) fail(pe.code, pe.msg);
	}
	return pe.code;
}

int main(int argc, char *argv[])
{
	_cleanup_(run_ctx_done) struct run_ctx c = {
		.pod_fd = -1, .lock_fd = -1, .tty = {.fd = -1}, .bound = RUN_BOUND_NULL};
	struct cc_warnings w = {};
	struct cc_error err = {};
	int r;

	log_set_prefix("run");
	if (run_flags_parse(argc, argv, &c.flags, &err) < 0)
		return fail(2, cc_error_message(&err));
	if (c.flags.debug)
		log_set_max_level(LOG_DEBUG);
	if (run_flags_check_supported(&c.flags, &err) < 0)
		return fail(1, cc_error_message(&err));
	/*
	 * Inherited fds (rkt's, the shell's) must not reach the VMM; the child clears
	 * close-on-exec on the lock fd for itself alone.
	 */
	if (fds_set_cloexec(-1) < 0)
		return fail(1, "cannot mark inherited file descriptors close-on-exec");
	c.jail = vmm_jail_wanted();
	for (size_t i = 0; i < VMM_JAIL_N_TREES; i++)
		c.jail_cfg.trees[i] = -1;
	r = run_check(&c);
	if (r == 0)
		r = run_enter_pod(&c);
	if (r != 0)
		return r;

	struct run_prepare_params pp = {
		.pod_fd = c.pod_fd,
		.info = &c.info,
		.flags = &c.flags,
		.plan = &c.plan,
		.roots = &c.roots,
		.metadata_host = c.net.metadata_host[0] ? c.net.metadata_host : NULL,
		.net_files = c.net.files,
		.n_net_files = c.net.pod.n_nics,
		.net_resolv_conf = c.net.resolv_conf,
	};

	r = run_prepare(&pp, &w, &err);
	print_warnings(&w);
	if (r < 0) {
		run_undo(&c);
		return fail(1, cc_error_message(&err));
	}
	return run_vmm(&c);
}
