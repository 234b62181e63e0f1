/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "manifest/quantity.h"

/* Significant decimal digits kept exactly; 10^38 < 2^128. */
#define QUANTITY_DIGITS_MAX 38
/* Exponents beyond this cannot change the outcome for a 38-digit mantissa. */
#define QUANTITY_EXP_CLAMP 120

struct quantity {
	bool negative;
	const char *int_digits;
	size_t n_int;
	const char *frac_digits;
	size_t n_frac;
	int exp10;
	unsigned exp2;
};

static bool suffix_parse(const char *s, struct quantity *q)
{
	static const struct {
		const char *s;
		int exp10;
		unsigned exp2;
	} suffixes[] = {
		{"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},
		{"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},
		{"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
		{"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
	};
	const char *p;
	long long e = 0;
	bool neg = false;
	size_t digits = 0;

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (strcmp(s, suffixes[i].s) == 0) {
			q->exp10 = suffixes[i].exp10;
			q->exp2 = suffixes[i].exp2;
			return true;
		}
	/* e<int> / E<int>, as strconv.ParseInt(int64) reads the exponent */
	if (s[0] != 'e' && s[0] != 'E')
		return false;
	p = s + 1;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (++digits > 19)
			return false;
		if (e < QUANTITY_EXP_CLAMP)
			e = e * 10 + (*p - '0');
	}
	if (digits == 0)
		return false;
	e = MIN(e, (long long) QUANTITY_EXP_CLAMP);
	q->exp10 = (int) (neg ? -e : e);
	q->exp2 = 0;
	return true;
}

static bool quantity_parse(const char *s, struct quantity *q)
{
	const char *p = s;

	memset(q, 0, sizeof(*q));
	if (*p == '+' || *p == '-')
		q->negative = *p++ == '-';
	q->int_digits = p;
	while (*p >= '0' && *p <= '9')
		p++;
	q->n_int = (size_t) (p - q->int_digits);
	if (*p == '.') {
		p++;
		q->frac_digits = p;
		while (*p >= '0' && *p <= '9')
			p++;
		q->n_frac = (size_t) (p - q->frac_digits);
	}
	/* appc also takes "+", "k" or "." as zero; we want at least one digit. */
	if (q->n_int + q->n_frac == 0)
		return false;
	return suffix_parse(p, q);
}

bool quantity_is_valid(const char *s)
{
	struct quantity q;

	return quantity_parse(s, &q);
}

static int quantity_scaled(const char *s, int extra_exp10, uint64_t *ret)
{
	unsigned __int128 n = 0;
	struct quantity q;
	size_t sig = 0;
	bool inexact = false;
	int exp;

	if (!quantity_parse(s, &q))
		return -EINVAL;
	exp = q.exp10 + extra_exp10;
	for (size_t i = 0; i < q.n_int + q.n_frac; i++) {
		bool frac = i >= q.n_int;
		int d = (frac ? q.frac_digits[i - q.n_int] : q.int_digits[i]) - '0';

		if (sig == 0 && d == 0) {
			if (frac)
				exp--;
			continue;
		}
		if (sig < QUANTITY_DIGITS_MAX) {
			n = n * 10 + (unsigned) d;
			sig++;
			if (frac)
				exp--;
		} else if (!frac) {
			exp++;
		} else if (d != 0) {
			inexact = true;
		}
	}
	if (n == 0)
		inexact = false;
	if (q.negative && (n != 0 || inexact))
		return -EINVAL;
	if (n == 0) {
		*ret = 0;
		return 0;
	}
	if (q.exp2 > 0) {
		if (n > (~(unsigned __int128) 0 >> q.exp2))
			return -ERANGE;
		n <<= q.exp2;
	}
	for (; exp > 0; exp--) {
		if (n > UINT64_MAX)
			return -ERANGE;
		n *= 10;
	}
	for (; exp < 0 && n > 0; exp++) {
		if (n % 10 != 0)
			inexact = true;
		n /= 10;
	}
	if (inexact)
		n++; /* round up, as appc/kubernetes do: asking for some gets some */
	if (n > UINT64_MAX)
		return -ERANGE;
	*ret = (uint64_t) n;
	return 0;
}

int quantity_to_bytes(const char *s, uint64_t *ret)
{
	assert_return(s && ret, -EINVAL);
	return quantity_scaled(s, 0, ret);
}

int quantity_to_millis(const char *s, uint64_t *ret)
{
	assert_return(s && ret, -EINVAL);
	return quantity_scaled(s, 3, ret);
}
