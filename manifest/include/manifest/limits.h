/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Limits on every user-controlled resource of a manifest. Larger inputs get a clean error. */

/* Whole document, in bytes (-EFBIG). */
#define MANIFEST_SIZE_MAX (1024u * 1024u)
/* JSON nesting depth (-EBADMSG). A manifest needs about 8; unknown isolator values get slack. */
#define MANIFEST_DEPTH_MAX 32
/* Any single string, in bytes (-E2BIG). */
#define MANIFEST_STRING_MAX (64u * 1024u)
/* Elements of any array and members of any free-form map (-E2BIG). */
#define MANIFEST_ARRAY_MAX 4096u
