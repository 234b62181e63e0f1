/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A minimal rtnetlink request builder: one message in a fixed buffer, attributes and nests
 * appended in order, sent with NLM_F_ACK and answered by the kernel's error/ack.
 */

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdint.h>

#define NL_MSG_MAX 4096

struct nl_msg {
	_Alignas(NLMSG_ALIGNTO) char buf[NL_MSG_MAX]; /* the header is filled in at send */
	struct nlmsghdr hdr;
	int overflow;
};

/* Start a request of type/flags (NLM_F_REQUEST|NLM_F_ACK added) with a family header. */
void nl_msg_init(struct nl_msg *m, uint16_t type, uint16_t flags, const void *fam, size_t len);
void nl_put(struct nl_msg *m, uint16_t type, const void *data, size_t len);
void nl_put_str(struct nl_msg *m, uint16_t type, const char *s);
void nl_put_u32(struct nl_msg *m, uint16_t type, uint32_t v);
/* Open a nested attribute; close it with nl_nest_end(m, returned offset). */
size_t nl_nest_begin(struct nl_msg *m, uint16_t type);
void nl_nest_end(struct nl_msg *m, size_t off);

/* A NETLINK_ROUTE socket in the current network namespace. */
int nl_open(int *ret_fd);
/* Send m and wait for its ack: 0 or the kernel's -errno (-E2BIG if m overflowed). */
int nl_request(int fd, struct nl_msg *m);
