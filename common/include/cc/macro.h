/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Small language helpers shared by every library of the project. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define _cleanup_(f)   __attribute__((cleanup(f)))
#define _unused_       __attribute__((unused))
#define _noreturn_     __attribute__((noreturn))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _packed_       __attribute__((packed))
#define _pure_	       __attribute__((pure))
#define _must_check_   __attribute__((warn_unused_result))
#define _likely_(x)    __builtin_expect(!!(x), 1)
#define _unlikely_(x)  __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)	   (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	   ((a) < (b) ? (a) : (b))
#define MAX(a, b)	   ((a) > (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d) (((n) + (d) -1) / (d))
/* a must be a power of two */
#define ALIGN_UP(x, a)	 (((x) + ((a) -1)) & ~((typeof(x)) (a) -1))
#define ALIGN_DOWN(x, a) ((x) & ~((typeof(x)) (a) -1))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x)) (a) -1)) == 0)

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_(x)

/* Turn a libc "-1 and errno" result into a negative errno. */
#define RET_NERRNO(expr)                    \
	({                                  \
		long _r = (long) (expr);    \
		_r < 0 ? -errno : (int) _r; \
	})

/* Negative errno for an error the code makes up itself (not taken from errno). */
#define SYNTHETIC_ERRNO(e) (-(e))

/* Public entry points check their arguments with this and return an error, never crash. */
#define assert_return(expr, r)           \
	do {                             \
		if (_unlikely_(!(expr))) \
			return (r);      \
	} while (0)

/* a + b > limit, without overflow, for unsigned 64-bit values. */
static inline int add_overflows_u64(uint64_t a, uint64_t b, uint64_t *ret_sum)
{
	return __builtin_add_overflow(a, b, ret_sum);
}
