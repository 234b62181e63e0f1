/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/fileio.h"

#include "sandbox/sandbox-filter.h"
#include "sandbox/sandbox-rules.h"

static int sandbox_filter_add(scmp_filter_ctx ctx, const struct sandbox_rule *rule)
{
	struct scmp_arg_cmp cmp[SANDBOX_RULE_MAX_CMP];

	if (rule->n_cmp > SANDBOX_RULE_MAX_CMP)
		return -EINVAL;
	for (unsigned i = 0; i < rule->n_cmp; i++)
		cmp[i] = rule->cmp[i];
	if (rule->cmp0_is_pid && rule->n_cmp > 0)
		cmp[0].datum_a = (scmp_datum_t) getpid();
	return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, rule->nr, rule->n_cmp, cmp);
}

int sandbox_filter_new(enum sandbox_thread kind, enum sandbox_action action, scmp_filter_ctx *ret)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	const struct sandbox_rule *rules;
	unsigned n;
	int r;

	rules = sandbox_rules_get(kind, &n);
	if (!rules || (action != SANDBOX_ACTION_KILL && action != SANDBOX_ACTION_LOG))
		return -EINVAL;
	ctx = seccomp_init(action == SANDBOX_ACTION_KILL ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_LOG);
	if (!ctx)
		return -ENOMEM;
	/* Each thread loads its own filter: never synchronise it onto the others. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 0);
	for (unsigned i = 0; r >= 0 && i < n; i++)
		r = sandbox_filter_add(ctx, &rules[i]);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ctx);
	return 0;
}

int sandbox_filter_export(scmp_filter_ctx ctx, struct sock_fprog *ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ struct sock_filter *insns = NULL;
	struct sock_filter *shrunk;
	size_t cap = BPF_MAXINSNS * sizeof(*insns);
	ssize_t n;
	int r;

	fd = memfd_create("cc-vmm-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	insns = malloc(cap + 1);
	if (!insns)
		return -ENOMEM;
	n = loop_read(fd, insns, cap + 1);
	if (n < 0)
		return (int) n;
	if (n == 0 || (size_t) n > cap || n % (ssize_t) sizeof(*insns))
		return -E2BIG;
	shrunk = realloc(insns, (size_t) n);
	if (shrunk)
		insns = shrunk;
	*ret = (struct sock_fprog){.len = (unsigned short) (n / (ssize_t) sizeof(*insns)),
				   .filter = TAKE_PTR(insns)};
	return 0;
}

int sandbox_filter_install(const struct sock_fprog *prog)
{
	return RET_NERRNO(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog));
}
