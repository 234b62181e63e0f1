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
