/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libccprobe: functions that report what they received, for the lazylib tests to call through
 * a stand-in.
 */
#include <errno.h>
#include <stdarg.h>

#include "probe.h"

double probe_xmm(double a, double b, double c, double d, double e, double f, double g, double h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

long probe_stack(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

double probe_vsum(int n, ...)
{
	va_list ap;
	double sum = 0;

	va_start(ap, n);
	while (n-- > 0)
		sum += va_arg(ap, double);
	va_end(ap);
	return sum;
}

/* Loading a library may change errno on its way (its constructors, the paths the loader
 * tries): this one's constructor does, so the caller's errno must be put back. */
__attribute__((constructor)) static void probe_load(void)
{
	errno = EINVAL;
}

int probe_errno(void)
{
	return errno;
}

/* probe_version@PROBE_1 (what a program built against an older libccprobe binds) and
 * probe_version@@PROBE_2. */
int probe_version_1(void);
int probe_version_2(void);
__asm__(".symver probe_version_1, probe_version@PROBE_1");
__asm__(".symver probe_version_2, probe_version@@PROBE_2");

int probe_version_1(void)
{
	return 1;
}

int probe_version_2(void)
{
	return 2;
}

/*
 * Registers as the callee found them. probe_al(int n, ...): %al, which a variadic call sets to
 * the count of vector registers it used. probe_rsp_mod16(void): %rsp mod 16 at entry, 8 under
 * the ABI.
 */
__asm__("\t.text\n"
	"\t.globl probe_al\n"
	"\t.type probe_al, @function\n"
	"probe_al:\n"
	"\tmovzbl %al, %eax\n"
	"\tret\n"
	"\t.size probe_al, .-probe_al\n"
	"\t.globl probe_rsp_mod16\n"
	"\t.type probe_rsp_mod16, @function\n"
	"probe_rsp_mod16:\n"
	"\tmovq %rsp, %rax\n"
	"\tandq $15, %rax\n"
	"\tret\n"
	"\t.size probe_rsp_mod16, .-probe_rsp_mod16\n");
