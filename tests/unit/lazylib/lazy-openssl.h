/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The few libcrypto functions the lazylib tests call, declared here (the build host needs the
 * library, not its headers), and what they share.
 */
#include <stddef.h>

unsigned long OpenSSL_version_num(void);
/* Variadic: the caller passes the count of vector registers used in %al. */
int BIO_snprintf(char *buf, size_t n, const char *format, ...);
/* Seven arguments: the last one on the stack. */
int PKCS5_PBKDF2_HMAC_SHA1(const char *pass, int passlen, const unsigned char *salt, int saltlen,
			   int iter, int keylen, unsigned char *out);

/*
 * Sanitizer runtimes refuse dlopen(RTLD_DEEPBIND), which a stand-in's first call makes: an
 * instrumented build exits 77 (skipped) with the reason.
 */
#if defined(__SANITIZE_ADDRESS__)
#define LAZY_SKIP_REASON \
	"the sanitizer runtime refuses RTLD_DEEPBIND; the plain unit tier runs this"
#endif
