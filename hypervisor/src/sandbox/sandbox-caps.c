/* SPDX-License-Identifier: Apache-2.0 */
#include <cap-ng.h>
#include <errno.h>

#include "sandbox/sandbox-caps.h"

uint64_t sandbox_caps_for_9p(bool any_rw, bool any_ro)
{
	/*
	 * rw: give new nodes the guest's owner (CHOWN); create, open and rename where the VMM's
	 * uid has no permission (DAC_OVERRIDE, which includes reading and searching); chmod,
	 * utimes, user xattrs and hard links on files the VMM does not own (FOWNER); keep
	 * setgid on a chmod and setuid/setgid on a write as the guest asked (FSETID).
	 */
	if (any_rw)
		return SANDBOX_CAP(CAP_CHOWN) | SANDBOX_CAP(CAP_DAC_OVERRIDE) |
		       SANDBOX_CAP(CAP_FOWNER) | SANDBOX_CAP(CAP_FSETID);
	/* ro: read files and search directories whatever their owner and mode. */
	if (any_ro)
		return SANDBOX_CAP(CAP_DAC_READ_SEARCH);
	return 0;
}

int sandbox_caps_apply(uint64_t keep, bool bounding)
{
	capng_select_t set = CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT;

	if (bounding) {
		if (capng_get_caps_process() < 0)
			return -EPERM;
		if (capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP))
			set |= CAPNG_SELECT_BOUNDS;
	}
	capng_clear(CAPNG_SELECT_ALL);
	for (unsigned c = 0; c < 64; c++)
		if ((keep & SANDBOX_CAP(c)) &&
		    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, c) < 0)
			return -EINVAL;
	return capng_apply(set) < 0 ? -EPERM : 0;
}
