/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "vm/cmdline.h"

int cmdline_append(char *buf, size_t size, const char *frag)
{
	size_t len, flen, sep;

	assert_return(buf && frag && size > 0, -EINVAL);
	len = strnlen(buf, size);
	if (len >= size)
		return -EINVAL;
	flen = strlen(frag);
	for (size_t i = 0; i < flen; i++)
		if ((unsigned char) frag[i] < 0x20 || frag[i] == 0x7f)
			return -EINVAL;
	if (flen == 0)
		return 0;
	sep = len > 0 ? 1 : 0;
	if (len + sep + flen + 1 > size)
		return -E2BIG;
	if (sep)
		buf[len++] = ' ';
	memcpy(buf + len, frag, flen + 1);
	return 0;
}
