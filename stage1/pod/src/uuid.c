/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "stage1/uuid.h"

bool stage1_uuid_is_valid(const char *s)
{
	if (!s || strlen(s) != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char) s[i])) {
			return false;
		}
	}
	return true;
}

int stage1_uuid_to_machine_id(const char *uuid, char ret[STAGE1_MACHINE_ID_STRING_MAX])
{
	size_t k = 0;

	if (!stage1_uuid_is_valid(uuid))
		return -EINVAL;
	for (size_t i = 0; i < 36; i++)
		if (uuid[i] != '-')
			ret[k++] = (char) tolower((unsigned char) uuid[i]);
	ret[k] = '\0';
	return 0;
}

static uint8_t hex_value(char c)
{
	return (uint8_t) (c <= '9' ? c - '0' : c - 'a' + 10);
}

int stage1_uuid_to_bytes(const char *uuid, uint8_t ret[16])
{
	char id[STAGE1_MACHINE_ID_STRING_MAX];
	int r = stage1_uuid_to_machine_id(uuid, id);

	if (r < 0)
		return r;
	for (size_t i = 0; i < 16; i++)
		ret[i] = (uint8_t) (hex_value(id[2 * i]) << 4 | hex_value(id[2 * i + 1]));
	return 0;
}
