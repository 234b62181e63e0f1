/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * String rules of appc's schema/types package. Each returns true when s is valid; the parsers
 * turn a false into a "<path>: <quoted value> is not a valid ..." error.
 */

#include <stdbool.h>
#include <stdint.h>

/* AC Identifier: [a-z0-9-._~/], starting and ending with [a-z0-9] (types.ACIdentifier). */
bool ac_identifier_is_valid(const char *s);
/* AC Name: [a-z0-9-], starting and ending with [a-z0-9] (types.ACName). */
bool ac_name_is_valid(const char *s);
/*
 * Image ID: "sha512-" and 1..128 characters without '-', '/', space or control characters.
 * Hex in practice (rkt writes truncated hex), but appc accepts the spec's "sha512-...".
 */
bool image_id_is_valid(const char *s);
/* SemVer 2.0 as coreos/go-semver parses it, not 0.0.0. */
bool semver_is_valid(const char *s);
/* RFC 3339 date-time as Go's time.Parse(time.RFC3339) accepts it. */
bool rfc3339_is_valid(const char *s);
/* An absolute http or https URL with a host. */
bool http_url_is_valid(const char *s);
/* Environment variable name: [A-Za-z_][A-Za-z_0-9.-]* */
bool env_name_is_valid(const char *s);
/* errno name for seccomp isolators: 'E' then upper-case letters or digits. */
bool errno_name_is_valid(const char *s);
/* A file mode written in octal, at most 07777. */
bool octal_mode_parse(const char *s, uint32_t *ret);
/* An IPv4 or IPv6 address literal. */
bool ip_address_is_valid(const char *s);
/* A valid os/arch pair (types.ValidOSArch); arch may be NULL. */
bool os_arch_is_valid(const char *os, const char *arch);
