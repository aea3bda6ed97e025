// SPDX-License-Identifier: GPL-2.0
/*
 * The "posixtrace" generic netlink family through libnl-genl-3 (nl.h).
 * One socket, its callbacks set once: VALID parses the family's messages
 * into streams for the caller's function, ERR keeps the kernel's errno and
 * extended ack message, which libnl 3.7 would reduce to its own codes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <trace.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

_Static_assert(POSIXTRACE_NL_A_MAX < 32, "ptnl_stream.have is 32 bits");

struct ptnl {
	struct nl_sock *sock;
	int family;			/* the family's id */
	uint8_t cmd;			/* the command we receive: GET, NOTIFY */
	ptnl_stream_fn fn;
	void *arg;
	int fn_error;			/* what fn or parsing failed with */
	int error;			/* the kernel's errno, last error answer */
	char message[256];		/* its extended ack message */
	bool gone;			/* the family was unregistered */
};

static struct nla_policy stream_policy[POSIXTRACE_NL_A_MAX + 1] = {
	[POSIXTRACE_NL_A_STREAM_ID] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_CREATOR_PID] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_CREATOR_UID] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_TRACED] = { .type = NLA_NESTED },
	[POSIXTRACE_NL_A_NAME] = { .type = NLA_STRING },
	[POSIXTRACE_NL_A_STATE] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_FULL_POLICY] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_LOG_POLICY] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_INHERITANCE] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_STREAM_SIZE] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_BYTES_USED] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_EVENTS_RECORDED] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_EVENTS_LOST] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_EVENTS_READ] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_OVERRUN_STATUS] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_FULL_STATUS] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_LOG_PATH] = { .type = NLA_STRING },
	[POSIXTRACE_NL_A_CREATE_TIME] = { .type = NLA_U64 },
	[POSIXTRACE_NL_A_EVENT] = { .type = NLA_U32 },
	[POSIXTRACE_NL_A_TRACED_COUNT] = { .type = NLA_U32 },
};

void ptnl_stream_free(struct ptnl_stream *s)
{
	if (!s)
		return;
	free(s->traced);
	free(s->name);
	free(s->log_path);
	free(s);
}

static int parse_traced(struct nlattr *nest, struct ptnl_stream *s)
{
	struct nlattr *a;
	size_t n = 0;
	int rem;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == POSIXTRACE_NL_A_PID && nla_len(a) >= 4)
			n++;
	s->traced = calloc(n ? n : 1, sizeof(*s->traced));
	if (!s->traced)
		return ENOMEM;
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == POSIXTRACE_NL_A_PID && nla_len(a) >= 4)
			s->traced[s->ntraced++] = nla_get_u32(a);
	return 0;
}

#define U32(attr, field) \
	do { if (tb[attr]) s->field = nla_get_u32(tb[attr]); } while (0)
#define U64(attr, field) \
	do { if (tb[attr]) s->field = nla_get_u64(tb[attr]); } while (0)

/* Attributes above POSIXTRACE_NL_A_MAX (a newer module) are ignored. */
static int parse_stream(struct nlmsghdr *nlh, struct ptnl_stream *s)
{
	struct nlattr *tb[POSIXTRACE_NL_A_MAX + 1];
	int i;

	if (genlmsg_parse(nlh, 0, tb, POSIXTRACE_NL_A_MAX, stream_policy) ||
	    !tb[POSIXTRACE_NL_A_STREAM_ID])
		return EPROTO;
	for (i = 1; i <= POSIXTRACE_NL_A_MAX; i++)
		if (tb[i])
			s->have |= 1u << i;
	U64(POSIXTRACE_NL_A_STREAM_ID, id);
	U32(POSIXTRACE_NL_A_CREATOR_PID, creator_pid);
	U32(POSIXTRACE_NL_A_CREATOR_UID, creator_uid);
	U32(POSIXTRACE_NL_A_STATE, state);
	U32(POSIXTRACE_NL_A_FULL_POLICY, full_policy);
	U32(POSIXTRACE_NL_A_LOG_POLICY, log_policy);
	U32(POSIXTRACE_NL_A_INHERITANCE, inheritance);
	U64(POSIXTRACE_NL_A_STREAM_SIZE, stream_size);
	U64(POSIXTRACE_NL_A_BYTES_USED, bytes_used);
	U64(POSIXTRACE_NL_A_EVENTS_RECORDED, events_recorded);
	U64(POSIXTRACE_NL_A_EVENTS_LOST, events_lost);
	U64(POSIXTRACE_NL_A_EVENTS_READ, events_read);
	U64(POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED, log_events_discarded);
	U32(POSIXTRACE_NL_A_OVERRUN_STATUS, overrun_status);
	U32(POSIXTRACE_NL_A_FULL_STATUS, full_status);
	U64(POSIXTRACE_NL_A_CREATE_TIME, create_time);
	U32(POSIXTRACE_NL_A_EVENT, event);
	U32(POSIXTRACE_NL_A_TRACED_COUNT, traced_count);
	if (tb[POSIXTRACE_NL_A_NAME] &&
	    !(s->name = strdup(nla_get_string(tb[POSIXTRACE_NL_A_NAME]))))
		return ENOMEM;
	if (tb[POSIXTRACE_NL_A_LOG_PATH] &&
	    !(s->log_path = strdup(nla_get_string(tb[POSIXTRACE_NL_A_LOG_PATH]))))
		return ENOMEM;
	if (tb[POSIXTRACE_NL_A_TRACED])
		return parse_traced(tb[POSIXTRACE_NL_A_TRACED], s);
	return 0;
}

/* The controller's news: is it our family going away? */
static void check_ctrl(struct ptnl *nl, struct nlmsghdr *nlh)
{
	static struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { .type = NLA_U16 },
	};
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (gh->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, ctrl_policy))
		return;
	if (tb[CTRL_ATTR_FAMILY_ID] &&
	    nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) == nl->family)
		nl->gone = true;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct ptnl *nl = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct ptnl_stream *s;
	int err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		check_ctrl(nl, nlh);
		return nl->gone ? NL_STOP : NL_SKIP;
	}
	if (nlh->nlmsg_type != nl->family ||
	    ((struct genlmsghdr *)nlmsg_data(nlh))->cmd != nl->cmd || !nl->fn)
		return NL_SKIP;
	s = calloc(1, sizeof(*s));
	err = s ? parse_stream(nlh, s) : ENOMEM;
	if (err) {
		ptnl_stream_free(s);
		nl->fn_error = err;
		return NL_STOP;
	}
	err = nl->fn(s, nl->arg);
	if (err) {
		nl->fn_error = err;
		return NL_STOP;
	}
	return NL_OK;
}

/* NLMSGERR_ATTR_MSG of an error answer with NLM_F_ACK_TLVS. */
static void keep_ext_ack(struct ptnl *nl, struct nlmsgerr *e)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t offset = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* Not capped: the request follows, echoed whole. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + offset)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + offset),
		      (int)(nlh->nlmsg_len - NLMSG_HDRLEN - offset), NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->message, sizeof(nl->message), "%.*s",
			 nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	nl->message[strcspn(nl->message, "\n")] = '\0';
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct ptnl *nl = arg;

	(void)who;
	nl->error = -e->error;
	keep_ext_ack(nl, e);
	return NL_STOP;
}

/* libnl's error codes, back to the errno most of them came from. */
static int nle_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_NOMEM: return ENOMEM;
	case NLE_PERM: return EPERM;
	case NLE_NOACCESS: return EACCES;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_AGAIN: return EAGAIN;
	case NLE_INTR: return EINTR;
	case NLE_INVAL: return EINVAL;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_BAD_SOCK: return EBADF;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_MSG_TRUNC: return EMSGSIZE;
	case NLE_SEQ_MISMATCH: case NLE_MSG_TOOSHORT: case NLE_PARSE_ERR:
		return EPROTO;
	default: return EIO;
	}
}

/* Starts a receive: forgets what the last one left. */
static void reset(struct ptnl *nl, uint8_t cmd, ptnl_stream_fn fn, void *arg)
{
	nl->cmd = cmd;
	nl->fn = fn;
	nl->arg = arg;
	nl->fn_error = 0;
	nl->error = 0;
	nl->message[0] = '\0';
}

struct ptnl *ptnl_open(const char *prog)
{
	struct ptnl *nl = calloc(1, sizeof(*nl));
	int one = 1, err;

	if (!nl || !(nl->sock = nl_socket_alloc())) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		free(nl);
		return NULL;
	}
	err = genl_connect(nl->sock);
	if (err < 0) {
		fprintf(stderr, "%s: generic netlink: %s\n", prog,
			nl_geterror(err));
		ptnl_close(nl);
		return NULL;
	}
	/* The kernel's reasons; not all kernels have them, none needed. */
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_socket_modify_cb(nl->sock, NL_CB_VALID, NL_CB_CUSTOM, on_valid, nl);
	nl_socket_modify_err_cb(nl->sock, NL_CB_CUSTOM, on_error, nl);
	reset(nl, 0, NULL, NULL);
	nl->family = genl_ctrl_resolve(nl->sock, POSIXTRACE_GENL_NAME);
	if (nl->family < 0) {
		if (nl->family == -NLE_OBJ_NOTFOUND)
			fprintf(stderr, "%s: the posixtrace module is not "
				"loaded, or has no netlink support (no generic "
				"netlink family \"" POSIXTRACE_GENL_NAME "\")\n",
				prog);
		else
			fprintf(stderr, "%s: resolving the generic netlink "
				"family \"" POSIXTRACE_GENL_NAME "\": %s\n", prog,
				nl_geterror(nl->family));
		ptnl_close(nl);
		return NULL;
	}
	/* Requests are answered, or refused, without asking for an ack. */
	nl_socket_disable_auto_ack(nl->sock);
	return nl;
}

void ptnl_close(struct ptnl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sock);
	free(nl);
}

const char *ptnl_error_message(const struct ptnl *nl)
{
	return nl->message;
}

int ptnl_get(struct ptnl *nl, bool dump, uint64_t id, ptnl_stream_fn fn,
	     void *arg)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, POSIXTRACE_NL_CMD_GET,
			 POSIXTRACE_GENL_VERSION) ||
	    (!dump && nla_put_u64(msg, POSIXTRACE_NL_A_STREAM_ID, id) < 0)) {
		nlmsg_free(msg);
		return ENOMEM;
	}
	reset(nl, POSIXTRACE_NL_CMD_GET, fn, arg);
	err = nl_send_auto(nl->sock, msg);
	nlmsg_free(msg);
	if (err < 0)
		return nle_errno(err);
	/* A doit's answer is one message; a dump's runs to NLMSG_DONE. */
	err = nl_recvmsgs_default(nl->sock);
	if (nl->fn_error)
		return nl->fn_error;
	if (nl->error)
		return nl->error;
	return err < 0 ? nle_errno(err) : 0;
}

int ptnl_join(struct ptnl *nl)
{
	int group, ctrl_group, err;

	group = genl_ctrl_resolve_grp(nl->sock, POSIXTRACE_GENL_NAME,
				      POSIXTRACE_GENL_MCGRP_NOTIFY);
	if (group < 0)
		return nle_errno(group);
	/* Optional: without it, only the module's unloading goes unseen. */
	ctrl_group = genl_ctrl_resolve_grp(nl->sock, "nlctrl", "notify");
	if (ctrl_group >= 0)
		nl_socket_add_membership(nl->sock, ctrl_group);
	err = nl_socket_add_membership(nl->sock, group);
	if (err < 0)
		return nle_errno(err);
	/* Notifications have no sequence numbers. */
	nl_socket_disable_seq_check(nl->sock);
	/* Room for bursts; the kernel caps it at net.core.rmem_max. */
	nl_socket_set_buffer_size(nl->sock, 1 << 20, 0);
	err = nl_socket_set_nonblocking(nl->sock);
	return err < 0 ? nle_errno(err) : 0;
}

int ptnl_fd(const struct ptnl *nl)
{
	return nl_socket_get_fd(nl->sock);
}

int ptnl_receive(struct ptnl *nl, ptnl_stream_fn fn, void *arg)
{
	int err;

	for (;;) {
		reset(nl, POSIXTRACE_NL_CMD_NOTIFY, fn, arg);
		err = nl_recvmsgs_default(nl->sock);
		if (nl->fn_error)
			return nl->fn_error;
		if (nl->gone)
			return ENODEV;
		if (err == -NLE_AGAIN)
			return 0;
		/* recvmsg()'s ENOBUFS: the socket's buffer overflowed. */
		if (err == -NLE_NOMEM)
			return ENOBUFS;
		if (err < 0)
			return nle_errno(err);
	}
}

const char *ptnl_event_name(uint32_t event)
{
	static const char *const names[] = {
		[POSIXTRACE_NL_EV_CREATED] = "created",
		[POSIXTRACE_NL_EV_STARTED] = "started",
		[POSIXTRACE_NL_EV_STOPPED] = "stopped",
		[POSIXTRACE_NL_EV_FULL] = "full",
		[POSIXTRACE_NL_EV_OVERFLOW] = "overflow",
		[POSIXTRACE_NL_EV_FLUSH_DONE] = "flush-done",
		[POSIXTRACE_NL_EV_SHUTDOWN] = "shutdown",
		[POSIXTRACE_NL_EV_LOST] = "lost",
	};

	return event < sizeof(names) / sizeof(names[0]) ? names[event] : NULL;
}

const char *ptnl_state_text(uint32_t state, char *buf, size_t size)
{
	switch (state) {
	case POSIX_TRACE_RUNNING:
		return "RUNNING";
	case POSIX_TRACE_SUSPENDED:
		return "SUSPENDED";
	case POSIXTRACE_NL_SHUT_DOWN:
		return "SHUT_DOWN";
	}
	snprintf(buf, size, "%u", state);
	return buf;
}
