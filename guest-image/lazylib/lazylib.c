/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run-time half of a lazy stand-in library (make-lazylib writes the other half: a stub
 * per exported function, the slots they jump through and the table of names). The first call
 * of any stub loads the real library and fills every slot; later calls jump straight through
 * their slot.
 *
 * A stand-in has no way to report an error to its caller (the caller called, say, BIO_new()),
 * so a real library that cannot be loaded, or that lacks a function, ends the process with
 * one line on stderr and abort(): the same outcome as a missing library at start-up, only
 * later. Next to nothing here relocates at load: a process that never calls the library pays
 * two pages of it (its GOT and its data) and a few of its symbol table.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAZY_HIDDEN __attribute__((visibility("hidden")))

/* From the generated stubs. */
extern void *cc_lazy_slots[] LAZY_HIDDEN;
extern const unsigned int cc_lazy_count LAZY_HIDDEN;
extern const char cc_lazy_real_path[] LAZY_HIDDEN;
/* "name\0version\0" per slot, in slot order; the version is empty when the library has none. */
extern const char cc_lazy_table[] LAZY_HIDDEN;

void *cc_lazy_resolve(unsigned int index) LAZY_HIDDEN;

static pthread_once_t lazy_once = PTHREAD_ONCE_INIT;

static void lazy_puts(const char *s)
{
	size_t left = strlen(s);

	while (left > 0) {
		ssize_t n = write(STDERR_FILENO, s, left);

		if (n <= 0)
			return;
		s += n;
		left -= (size_t) n;
	}
}

static _Noreturn void lazy_die(const char *what, const char *version, const char *why)
{
	lazy_puts("cc-lazylib: ");
	lazy_puts(what);
	if (version && *version) {
		lazy_puts("@");
		lazy_puts(version);
	}
	lazy_puts(": ");
	lazy_puts(why ? why : "unknown error");
	lazy_puts("\n");
	abort();
}

static void lazy_load(void)
{
	/*
	 * RTLD_DEEPBIND: the real library calls its own exported functions through its PLT, and
	 * the stand-in, loaded first, defines them all in the global scope. Without it those
	 * calls would come back through the stubs, and a constructor of the real library would
	 * find its slots still empty while this function runs.
	 */
	void *lib = dlopen(cc_lazy_real_path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	const char *entry = cc_lazy_table;

	if (!lib)
		lazy_die(cc_lazy_real_path, NULL, dlerror());
	for (unsigned int i = 0; i < cc_lazy_count; i++) {
		const char *name = entry;
		const char *version = name + strlen(name) + 1;
		void *fn = *version ? dlvsym(lib, name, version) : dlsym(lib, name);

		if (!fn)
			lazy_die(name, version, dlerror());
		__atomic_store_n(&cc_lazy_slots[i], fn, __ATOMIC_RELEASE);
		entry = version + strlen(version) + 1;
	}
}

void *cc_lazy_resolve(unsigned int index)
{
	/* The caller's errno is the function's to see or set, not the loader's. */
	int saved_errno = errno;
	int err = pthread_once(&lazy_once, lazy_load);

	if (err)
		lazy_die("pthread_once", NULL, strerror(err));
	errno = saved_errno;
	return __atomic_load_n(&cc_lazy_slots[index], __ATOMIC_ACQUIRE);
}
