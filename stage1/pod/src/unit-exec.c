/* SPDX-License-Identifier: Apache-2.0 */
/* Exec*= command lines for systemd 252 (see unit.h for the quoting rules). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "stage1/unit.h"
#include "strbuf.h"

/* Escape one word; dollars: also double '$' (argv words, not the path). */
static void word_append(struct strbuf *b, const char *w, bool dollars)
{
	strbuf_append_char(b, '"');
	for (const unsigned char *p = (const unsigned char *) w; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_append(b, "\\\"");
			break;
		case '\\':
			strbuf_append(b, "\\\\");
			break;
		case '%':
			strbuf_append(b, "%%");
			break;
		case '$':
			strbuf_append(b, dollars ? "$$" : "$");
			break;
		case '\n':
			strbuf_append(b, "\\n");
			break;
		case '\t':
			strbuf_append(b, "\\t");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				strbuf_printf(b, "\\x%02x", *p);
			else
				strbuf_append_char(b, (char) *p);
		}
	}
	strbuf_append_char(b, '"');
}

/* What config_parse_exec() accepts as the binary: absolute, a file name, sane sizes. */
static bool exec_path_ok(const char *p)
{
	size_t n = strlen(p), comp = 0;

	if (p[0] != '/' || n >= 4096 || p[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char) p[i];

		if (c < 0x20 || c == 0x7f)
			return false;
		comp = c == '/' ? 0 : comp + 1;
		if (comp > 255)
			return false;
	}
	return true;
}

int unit_exec_format(const char *prefix, const struct unit_exec *e, char **ret,
		     struct cc_error *reterr)
{
	struct strbuf b = {};
	int r;

	assert_return(e && ret, -EINVAL);
	if (!e->path || !exec_path_ok(e->path))
		return cc_error_set(reterr, -EINVAL,
				    "executable '%.256s' is not an absolute file path systemd "
				    "accepts",
				    e->path ? e->path : "");
	if (e->argc < 1 || !e->argv)
		return cc_error_set(reterr, -EINVAL, "empty command");

	strbuf_append(&b, prefix ? prefix : "");
	strbuf_append_char(&b, '@');
	word_append(&b, e->path, false);
	for (size_t i = 0; i < e->argc; i++) {
		if (!e->argv[i]) {
			strbuf_done(&b);
			return cc_error_set(reterr, -EINVAL, "NULL argument");
		}
		strbuf_append_char(&b, ' ');
		word_append(&b, e->argv[i], true);
		if (b.len > UNIT_EXEC_LINE_MAX)
			break;
	}
	if (!b.error && b.len > UNIT_EXEC_LINE_MAX) {
		strbuf_done(&b);
		return cc_error_set(reterr, -E2BIG,
				    "command line of '%.256s' is longer than %u bytes once "
				    "quoted",
				    e->path, UNIT_EXEC_LINE_MAX);
	}
	r = strbuf_steal(&b, ret);
	return r;
}
