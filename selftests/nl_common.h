/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw generic netlink socket for the tests that speak to the module's
 * family (posixtrace_netlink.h) without libnl, so that they may send what
 * libnl would not: requests built attribute by attribute, answers read to
 * their end with the extended ack, the family and its "notify" group
 * resolved through the controller.
 */
#ifndef POSIXTRACE_NL_COMMON_H
#define POSIXTRACE_NL_COMMON_H

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/posixtrace_netlink.h>

#include "trc_common.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define BUF_SIZE	(256 * 1024)	/* a request or a received datagram */
#define TIMEOUT_MS	5000		/* for any one answer */

/* Skip when the family is not registered: the module has no netlink. */
#define NO_FAMILY_MSG "generic netlink family \"" POSIXTRACE_GENL_NAME \
	"\" does not resolve: this posixtrace.ko has no netlink support"

/* ---- a raw generic netlink socket ------------------------------------- */

struct nl {
	int fd;
	uint16_t family;	/* the family's id, 0 until resolved */
	uint32_t version;	/* the family's version */
	uint32_t group;		/* the "notify" group's id, 0 if absent */
	uint32_t seq;		/* of the last request */
	size_t txlen;		/* the request being built in tx */
	unsigned char *tx, *rx;
	size_t rxlen, rxoff;	/* a datagram in rx not yet consumed */
	size_t rx_max;		/* what one recv() asks for; 0: BUF_SIZE */
};

/* What the kernel answered to one request. */
struct result {
	int err;		/* 0, or the negative error number answered */
	int replies;		/* answers of the family before the end */
	int datagrams;		/* what they came in (a dump: its parts) */
	bool extack;		/* the error carried NLMSGERR_ATTR_MSG */
	char msg[256];		/* which says this */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if absent */
	char bad[256];		/* a protocol violation seen, "" if none */
};

static inline void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	free(nl->tx);
	free(nl->rx);
	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
}

/*
 * A bound NETLINK_GENERIC socket with extended acks (errors capped to the
 * request's header) and a large receive buffer. 0 or -errno.
 */
static inline int nl_socket(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, size = 4 << 20;

	memset(nl, 0, sizeof(*nl));
	nl->tx = aligned_alloc(8, BUF_SIZE);
	nl->rx = aligned_alloc(8, BUF_SIZE);
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!nl->tx || !nl->rx || nl->fd < 0)
		goto fail;
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)))
		goto fail;
	/* Best effort: an unprivileged caller is held to rmem_max. */
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(nl->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	/* Bound (portid chosen by the kernel): multicast skips portid 0. */
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	return 0;
fail:
	one = errno ? -errno : -ENOMEM;
	nl_close(nl);
	return one;
}

/* Start a request: nlmsghdr and genlmsghdr. */
static inline void msg_begin(struct nl *nl, uint16_t type, uint16_t flags,
		      uint8_t cmd)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)nl->tx;
	struct genlmsghdr *g = NLMSG_DATA(nlh);

	memset(nl->tx, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 2 : POSIXTRACE_GENL_VERSION;
	nl->txlen = NLMSG_HDRLEN + GENL_HDRLEN;
}

/* Append an attribute; returns it, so that a test may spoil it. */
static inline struct nlattr *msg_attr(struct nl *nl, uint16_t type,
			       const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)(nl->tx + nl->txlen);

	if (nl->txlen + NLA_HDRLEN + NLA_ALIGN(len) > BUF_SIZE)
		abort();
	memset(nla, 0, NLA_HDRLEN + NLA_ALIGN(len));
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((unsigned char *)nla + NLA_HDRLEN, data, len);
	nl->txlen += NLA_HDRLEN + NLA_ALIGN(len);
	return nla;
}

static inline struct nlattr *msg_u64(struct nl *nl, uint16_t type, uint64_t v)
{
	return msg_attr(nl, type, &v, sizeof(v));
}

/* Send the request built, nlmsg_len its length; 0 or -errno. */
static inline int msg_send(struct nl *nl)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh = (struct nlmsghdr *)nl->tx;
	ssize_t n;

	nlh->nlmsg_len = nl->txlen;
	nlh->nlmsg_seq = ++nl->seq;
	n = sendto(nl->fd, nl->tx, nl->txlen, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel));
	if (n < 0)
		return -errno;
	return n == (ssize_t)nl->txlen ? 0 : -EIO;
}

/* Receive one datagram into rx within TIMEOUT_MS; its length or -errno. */
static inline ssize_t nl_recv(struct nl *nl, int timeout_ms)
{
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	size_t max;
	ssize_t n;
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	max = nl->rx_max ? nl->rx_max : BUF_SIZE;
	n = recv(nl->fd, nl->rx, max, MSG_TRUNC);
	if (n < 0)
		return -errno;
	if ((size_t)n > max)
		return -EMSGSIZE;
	return n;
}

/* The extended ack attributes from offset off of an ERROR or DONE. */
static inline void parse_ack_tlvs(const struct nlmsghdr *nlh, size_t off,
			   struct result *res)
{
	const struct nlattr *nla;
	size_t rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	rem = nlh->nlmsg_len - off;
	nla = (const struct nlattr *)((const unsigned char *)nlh + off);
	while (rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem) {
		const char *p = (const char *)nla + NLA_HDRLEN;
		size_t len = nla->nla_len - NLA_HDRLEN;

		if ((nla->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    len && !p[len - 1]) {
			res->extack = p[0] != '\0';
			snprintf(res->msg, sizeof(res->msg), "%s", p);
		}
		if ((nla->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MISS_TYPE &&
		    len == 4)
			memcpy(&res->miss_type, p, 4);
		if (NLA_ALIGN(nla->nla_len) >= rem)
			break;
		rem -= NLA_ALIGN(nla->nla_len);
		nla = (const struct nlattr *)((const char *)nla +
					      NLA_ALIGN(nla->nla_len));
	}
}

typedef int (*reply_fn)(const struct nlmsghdr *nlh, void *ctx);

/*
 * Send the request built and read its answer to the end: an ERROR (the
 * ack or the error) or, for a dump, DONE. fn gets each other message; its
 * nonzero return marks the answer bad. Returns res->err.
 */
static inline int nl_transact(struct nl *nl, reply_fn fn, void *ctx,
		       struct result *res)
{
	uint16_t type = ((struct nlmsghdr *)nl->tx)->nlmsg_type;
	bool done = false;
	ssize_t n;
	int ret;

	memset(res, 0, sizeof(*res));
	res->miss_type = -1;
	ret = msg_send(nl);
	if (ret) {
		snprintf(res->bad, sizeof(res->bad), "send: %s", strerror(-ret));
		return res->err = ret;
	}
	while (!done) {
		const struct nlmsghdr *nlh;
		size_t rem;

		n = nl_recv(nl, TIMEOUT_MS);
		if (n < 0) {
			snprintf(res->bad, sizeof(res->bad),
				 "no end of answer: %s", strerror(-n));
			return res->err = n;
		}
		res->datagrams++;
		nlh = (const struct nlmsghdr *)nl->rx;
		rem = n;
		for (; !done && NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
			if (nlh->nlmsg_seq != nl->seq) {
				snprintf(res->bad, sizeof(res->bad),
					 "answer of seq %u to request %u",
					 nlh->nlmsg_seq, nl->seq);
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				size_t off = NLMSG_HDRLEN + sizeof(*e);

				done = true;
				if (nlh->nlmsg_len < off) {
					snprintf(res->bad, sizeof(res->bad),
						 "short NLMSG_ERROR");
					res->err = -EBADMSG;
					break;
				}
				res->err = e->error;
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off = NLMSG_HDRLEN + sizeof(int) +
					      NLMSG_ALIGN(e->msg.nlmsg_len);
				parse_ack_tlvs(nlh, off, res);
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&res->err, NLMSG_DATA(nlh),
					       sizeof(int));
				parse_ack_tlvs(nlh, NLMSG_HDRLEN + sizeof(int),
					       res);
			} else if (nlh->nlmsg_type == type) {
				res->replies++;
				if (fn && fn(nlh, ctx) && !res->bad[0])
					snprintf(res->bad, sizeof(res->bad),
						 "malformed answer %d",
						 res->replies);
			} else if (nlh->nlmsg_type != NLMSG_NOOP) {
				snprintf(res->bad, sizeof(res->bad),
					 "message of type %u",
					 nlh->nlmsg_type);
			}
		}
	}
	return res->err;
}

/* ---- the controller: the family's id and its group --------------------- */

static inline int parse_family(const struct nlmsghdr *nlh, void *ctx)
{
	const struct nlattr *nla, *grp, *a;
	struct nl *nl = ctx;
	int rem, grem, arem;

	nla = (const struct nlattr *)((const char *)NLMSG_DATA(nlh) +
				      GENL_HDRLEN);
	rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	for (; rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem;
	     rem -= NLA_ALIGN(nla->nla_len),
	     nla = (const void *)((const char *)nla + NLA_ALIGN(nla->nla_len))) {
		const void *p = (const char *)nla + NLA_HDRLEN;

		switch (nla->nla_type & NLA_TYPE_MASK) {
		case CTRL_ATTR_FAMILY_ID:
			memcpy(&nl->family, p, sizeof(nl->family));
			break;
		case CTRL_ATTR_VERSION:
			memcpy(&nl->version, p, sizeof(nl->version));
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			grem = nla->nla_len - NLA_HDRLEN;
			for (grp = p; grem >= NLA_HDRLEN &&
			     grp->nla_len >= NLA_HDRLEN && grp->nla_len <= grem;
			     grem -= NLA_ALIGN(grp->nla_len),
			     grp = (const void *)((const char *)grp +
						  NLA_ALIGN(grp->nla_len))) {
				const char *name = NULL;
				uint32_t id = 0;

				arem = grp->nla_len - NLA_HDRLEN;
				for (a = (const void *)((const char *)grp +
							NLA_HDRLEN);
				     arem >= NLA_HDRLEN &&
				     a->nla_len >= NLA_HDRLEN &&
				     a->nla_len <= arem;
				     arem -= NLA_ALIGN(a->nla_len),
				     a = (const void *)((const char *)a +
							NLA_ALIGN(a->nla_len))) {
					const char *ap = (const char *)a +
							 NLA_HDRLEN;

					if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
						name = ap;
					if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID)
						memcpy(&id, ap, sizeof(id));
				}
				if (name && !strcmp(name,
						    POSIXTRACE_GENL_MCGRP_NOTIFY))
					nl->group = id;
			}
			break;
		}
	}
	return nl->family ? 0 : -1;
}

/*
 * Open a socket and resolve the family and its group: 0, -ENOENT when the
 * family is not registered, or another -errno.
 */
static inline int nl_open(struct nl *nl)
{
	static const char name[] = POSIXTRACE_GENL_NAME;
	struct result res;
	int ret;

	ret = nl_socket(nl);
	if (ret)
		return ret;
	msg_begin(nl, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
		  CTRL_CMD_GETFAMILY);
	msg_attr(nl, CTRL_ATTR_FAMILY_NAME, name, sizeof(name));
	ret = nl_transact(nl, parse_family, nl, &res);
	if (!ret && !nl->family)
		ret = -EBADMSG;
	if (ret)
		nl_close(nl);
	return ret;
}

#define NL_OPEN(nl) do {						\
	int _r = nl_open(nl);						\
	if (_r == -ENOENT)						\
		SKIP(return, NO_FAMILY_MSG);				\
	ASSERT_EQ(0, _r) {						\
		TH_LOG("resolving the family: %s", strerror(-_r));	\
	}								\
} while (0)

#endif /* POSIXTRACE_NL_COMMON_H */
