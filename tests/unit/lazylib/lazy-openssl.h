/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The few libcrypto functions the lazylib tests call, declared here (the build host needs the
 * library, not its headers).
 */
#include <stddef.h>

unsigned long OpenSSL_version_num(void);
/* Variadic: the caller passes the count of vector registers used in %al. */
int BIO_snprintf(char *buf, size_t n, const char *format, ...);
/* Seven arguments: the last one on the stack. */
int PKCS5_PBKDF2_HMAC_SHA1(const char *pass, int passlen, const unsigned char *salt, int saltlen,
			   int iter, int keylen, unsigned char *out);
