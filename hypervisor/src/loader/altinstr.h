/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The x86 alternatives of a Linux vmlinux (its .altinstructions table) that a build may write
 * into the file ahead of boot, so that the kernel, which writes them into its text at boot,
 * finds the bytes already there and leaves the page shared with every other VM mapping the
 * file (docs/guest-image.md, "Pre-written alternatives"). A site qualifies when:
 *   - it is an ALTERNATIVE("", X, F): its original bytes are NOPs and X has the same length;
 *   - X is clac, stac or lfence, and F is SMAP (clac, stac) or LFENCE_RDTSC (lfence);
 *   - no other entry of the table patches the same site.
 * A kernel that finds F absent leaves such a site as it is: an lfence it did not ask for is
 * harmless anywhere, a clac or stac on a CPU with SMAP. Only a CPU without SMAP must not see
 * them: the VMM writes the NOPs back into its VM's copy then (altinstr_site_is_smap).
 */

#include <stddef.h>
#include <stdint.h>

#define ALTINSTR_FEATURE_LFENCE_RDTSC (3 * 32 + 18)
#define ALTINSTR_FEATURE_SMAP	      (9 * 32 + 20)
#define ALTINSTR_NOP		      0x90

struct altinstr_site {
	uint64_t file_off;   /* of the site in the file */
	const uint8_t *repl; /* the replacement, in the caller's buffer */
	uint16_t feature;
	uint8_t len;
};

/*
 * Call cb for each qualifying site of the ELF64 file in buf (len bytes: the whole file);
 * a negative return from cb stops and is returned. A file without .altinstructions has no
 * sites (0). -ENOEXEC with *reterr_msg for a malformed table, section or header.
 */
int altinstr_for_each(const uint8_t *buf, size_t len,
		      int (*cb)(const struct altinstr_site *site, void *userdata), void *userdata,
		      const char **reterr_msg);

static inline int altinstr_site_is_smap(const struct altinstr_site *site)
{
	return site->feature == ALTINSTR_FEATURE_SMAP;
}
