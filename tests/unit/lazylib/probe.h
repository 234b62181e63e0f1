/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* libccprobe (probe.c): each function reports what it received. */
int probe_al(int n, ...);
long probe_rsp_mod16(void);
double probe_xmm(double a, double b, double c, double d, double e, double f, double g, double h);
long probe_stack(long a, long b, long c, long d, long e, long f, long g, long h);
double probe_vsum(int n, ...);
int probe_errno(void);
/* The default version (PROBE_2) returns 2. */
int probe_version(void);
