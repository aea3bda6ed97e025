// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring over generic netlink: the family POSIXTRACE_GENL_NAME, its GET
 * command (one stream, or a dump of every stream the caller may see), and
 * NOTIFY messages to the multicast group POSIXTRACE_GENL_MCGRP_NOTIFY as
 * streams change. <linux/posixtrace_netlink.h> is the interface.
 *
 * Notifications. Monitoring watches the streams (struct
 * posixtrace_stream_watcher): streams note what happened in a small queue
 * of their own while someone listens, and a work item tells us, in order,
 * from process context; each goes out with the stream as it then is. A
 * queue that fills drops the oldest news and says so
 * (POSIXTRACE_NL_EV_LOST). The streams know nothing of netlink.
 *
 * The family is not per network namespace: streams are not.
 */

#include <linux/cred.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/posixtrace_netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "links.h"
#include "netlink.h"
#include "stream.h"

static const struct nla_policy posixtrace_nl_policy[POSIXTRACE_NL_A_MAX + 1] = {
	[POSIXTRACE_NL_A_STREAM_ID] = { .type = NLA_U64 },
#define POSIXTRACE_NL_OUTPUT \
	{ .type = NLA_REJECT, .reject_message = "output-only attribute" }
	[POSIXTRACE_NL_A_PAD] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_CREATOR_PID] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_CREATOR_UID] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_TRACED] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_PID] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_NAME] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_STATE] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_FULL_POLICY] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_LOG_POLICY] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_INHERITANCE] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_STREAM_SIZE] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_BYTES_USED] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_EVENTS_RECORDED] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_EVENTS_LOST] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_OVERRUN_STATUS] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_FULL_STATUS] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_LOG_PATH] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_CREATE_TIME] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_EVENT] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_TRACED_COUNT] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_EVENTS_READ] = POSIXTRACE_NL_OUTPUT,
	[POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED] = POSIXTRACE_NL_OUTPUT,
#undef POSIXTRACE_NL_OUTPUT
};

static int posixtrace_nl_get_doit(struct sk_buff *skb, struct genl_info *info);
static int posixtrace_nl_dump_start(struct netlink_callback *cb);
static int posixtrace_nl_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);

static const struct genl_ops posixtrace_nl_ops[] = {
	{
		.cmd = POSIXTRACE_NL_CMD_GET,
		.doit = posixtrace_nl_get_doit,
		.start = posixtrace_nl_dump_start,
		.dumpit = posixtrace_nl_get_dumpit,
	},
};

/* Notifications are about every stream: for those who may see them all. */
static const struct genl_multicast_group posixtrace_nl_mcgrps[] = {
	{
		.name = POSIXTRACE_GENL_MCGRP_NOTIFY,
		.flags = GENL_MCAST_CAP_SYS_ADMIN,
	},
};

static struct genl_family posixtrace_nl_family __ro_after_init = {
	.name = POSIXTRACE_GENL_NAME,
	.version = POSIXTRACE_GENL_VERSION,
	.maxattr = POSIXTRACE_NL_A_MAX,
	.policy = posixtrace_nl_policy,
	.module = THIS_MODULE,
	.ops = posixtrace_nl_ops,
	.n_ops = ARRAY_SIZE(posixtrace_nl_ops),
	.resv_start_op = POSIXTRACE_NL_CMD_MAX + 1,
	.mcgrps = posixtrace_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(posixtrace_nl_mcgrps),
};

/*
 * Who asks: the credentials the requesting socket was opened with, and
 * the current task's too (netlink_capable() wants both), so that a
 * privileged process made to write a request into someone else's socket
 * shows that socket's owner nothing more than it may see.
 */
static bool posixtrace_nl_sees_all(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN) ||
	       netlink_capable(skb, CAP_PERFMON);
}

/* Root sees every stream; others, their own (by effective uid). */
static bool posixtrace_nl_may_see(const struct sk_buff *skb,
				  struct posixtrace_stream *stream, bool all)
{
	const struct sock *sk = NETLINK_CB(skb).sk;
	const struct file *file = sk && sk->sk_socket ? sk->sk_socket->file :
							NULL;

	if (all)
		return true;
	kuid_t owner = posixtrace_stream_owner(stream);

	return file && uid_eq(owner, file->f_cred->euid) &&
	       uid_eq(owner, current_euid());
}

/*
 * The TRACED nest, a PID for each of the first POSIXTRACE_NL_TRACED_MAX
 * processes the stream traces, and TRACED_COUNT: a family may be large,
 * a message is not.
 */
static int posixtrace_nl_put_traced(struct sk_buff *skb,
				    struct posixtrace_stream *stream,
				    struct pid_namespace *ns)
{
	unsigned int i, n, count;
	struct nlattr *nest;
	struct pid **pids;
	int ret = 0;

	pids = kmalloc_array(POSIXTRACE_NL_TRACED_MAX, sizeof(*pids),
			     GFP_KERNEL);
	if (!pids)
		return -ENOMEM;
	/* References taken under the links lock, numbers got without it. */
	n = posixtrace_links_pids(stream, pids, POSIXTRACE_NL_TRACED_MAX,
				  &count);
	nest = nla_nest_start(skb, POSIXTRACE_NL_A_TRACED);
	if (!nest)
		ret = -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = nla_put_u32(skb, POSIXTRACE_NL_A_PID,
					  pid_nr_ns(pids[i], ns));
		put_pid(pids[i]);
	}
	kfree(pids);
	if (ret) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return ret;
	}
	nla_nest_end(skb, nest);
	return nla_put_u32(skb, POSIXTRACE_NL_A_TRACED_COUNT, count);
}

/* The size of a message about @stream, at most; of any, for NULL. */
static size_t posixtrace_nl_msg_size(struct posixtrace_stream *stream)
{
	const char *log_path = stream ? posixtrace_stream_log_path(stream) :
					NULL;
	size_t size = GENL_HDRLEN;

	/* u32 attributes, then u64 ones (with room for padding). */
	size += 10 * nla_total_size(sizeof(u32));
	size += 9 * nla_total_size_64bit(sizeof(u64));
	size += nla_total_size(stream ?
			       strlen(posixtrace_stream_attr(stream)->name) + 1 :
			       POSIXTRACE_NAME_MAX + 1);
	if (!stream || log_path)
		size += nla_total_size(stream ? strlen(log_path) + 1 :
					PATH_MAX);
	size += nla_total_size(0) +
		POSIXTRACE_NL_TRACED_MAX * nla_total_size(sizeof(u32));
	return nlmsg_total_size(size);
}

/* The stream's attributes, pids and uids as @pid_ns and @user_ns see them. */
static int posixtrace_nl_fill(struct sk_buff *skb,
			      struct posixtrace_stream *stream,
			      struct pid_namespace *pid_ns,
			      struct user_namespace *user_ns)
{
	const struct posixtrace_attr *attr = posixtrace_stream_attr(stream);
	const char *log_path = posixtrace_stream_log_path(stream);
	struct posixtrace_status st;

	posixtrace_stream_status(stream, &st, false);
	if (nla_put_u64_64bit(skb, POSIXTRACE_NL_A_STREAM_ID,
			      posixtrace_stream_id(stream), POSIXTRACE_NL_A_PAD) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_CREATOR_PID,
			pid_nr_ns(posixtrace_stream_creator(stream), pid_ns)) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_CREATOR_UID,
			from_kuid_munged(user_ns,
					 posixtrace_stream_owner(stream))) ||
	    nla_put_string(skb, POSIXTRACE_NL_A_NAME, attr->name) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_STATE, st.state) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_FULL_POLICY,
			attr->stream_full_policy) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_INHERITANCE, attr->inheritance) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_STREAM_SIZE,
			      attr->stream_size, POSIXTRACE_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_BYTES_USED, st.bytes_used,
			      POSIXTRACE_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_EVENTS_RECORDED,
			      st.events_recorded, POSIXTRACE_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_EVENTS_LOST,
			      st.events_lost, POSIXTRACE_NL_A_PAD) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_EVENTS_READ,
			      st.events_read, POSIXTRACE_NL_A_PAD) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_OVERRUN_STATUS,
			st.overrun_status) ||
	    nla_put_u32(skb, POSIXTRACE_NL_A_FULL_STATUS, st.full_status) ||
	    nla_put_u64_64bit(skb, POSIXTRACE_NL_A_CREATE_TIME,
			      (u64)attr->create_time_sec * NSEC_PER_SEC +
			      attr->create_time_nsec, POSIXTRACE_NL_A_PAD))
		return -EMSGSIZE;
	if (log_path &&
	    (nla_put_u32(skb, POSIXTRACE_NL_A_LOG_POLICY,
			 attr->log_full_policy) ||
	     nla_put_string(skb, POSIXTRACE_NL_A_LOG_PATH, log_path) ||
	     nla_put_u64_64bit(skb, POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED,
			       st.log_events_discarded, POSIXTRACE_NL_A_PAD)))
		return -EMSGSIZE;
	return posixtrace_nl_put_traced(skb, stream, pid_ns);
}

/* One message of @cmd about @stream. */
static int posixtrace_nl_msg(struct sk_buff *skb, u32 portid, u32 seq,
			     int flags, u8 cmd, u32 event,
			     struct posixtrace_stream *stream,
			     struct pid_namespace *pid_ns,
			     struct user_namespace *user_ns)
{
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, portid, seq, &posixtrace_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	ret = event ? nla_put_u32(skb, POSIXTRACE_NL_A_EVENT, event) : 0;
	/* -EMSGSIZE, or the TRACED list's -ENOMEM, as it is. */
	if (!ret)
		ret = posixtrace_nl_fill(skb, stream, pid_ns, user_ns);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int posixtrace_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct posixtrace_stream *stream;
	struct sk_buff *msg;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, POSIXTRACE_NL_A_STREAM_ID)) {
		NL_SET_ERR_MSG(info->extack, "STREAM_ID is required");
		return -EINVAL;
	}
	stream = posixtrace_stream_find(nla_get_u64(info->attrs[POSIXTRACE_NL_A_STREAM_ID]));
	if (!stream ||
	    !posixtrace_nl_may_see(skb, stream, posixtrace_nl_sees_all(skb))) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[POSIXTRACE_NL_A_STREAM_ID],
				    "no such stream");
		ret = -ENOENT;
		goto out;
	}
	msg = nlmsg_new(posixtrace_nl_msg_size(stream), GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = posixtrace_nl_msg(msg, info->snd_portid, info->snd_seq, 0,
				POSIXTRACE_NL_CMD_GET, 0, stream,
				task_active_pid_ns(current), current_user_ns());
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	if (stream)
		posixtrace_stream_put(stream);
	return ret;
}

/*
 * Every dump buffer holds the largest stream message, whatever the
 * reader's buffer: no stream may make a dump fail.
 */
static int posixtrace_nl_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = posixtrace_nl_msg_size(NULL);
	return 0;
}

/* cb->args[0]: the id of the last stream sent. */
static int posixtrace_nl_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	bool all = posixtrace_nl_sees_all(cb->skb);
	struct posixtrace_stream *stream;
	int ret;

	while ((stream = posixtrace_stream_next(cb->args[0]))) {
		ret = 0;
		if (posixtrace_nl_may_see(cb->skb, stream, all))
			ret = posixtrace_nl_msg(skb, NETLINK_CB(cb->skb).portid,
						cb->nlh->nlmsg_seq, NLM_F_MULTI,
						POSIXTRACE_NL_CMD_GET, 0, stream,
						task_active_pid_ns(current),
						current_user_ns());
		if (!ret)
			cb->args[0] = posixtrace_stream_id(stream);
		posixtrace_stream_put(stream);
		if (ret) {
			/*
			 * Not even one fits, or no memory for the first: say
			 * so, rather than end early.
			 */
			if (!skb->len)
				return ret;
			/* Full, or no memory: the next call goes on. */
			break;
		}
	}
	return skb->len;
}

/* Someone listens to the notifications: cheap, and never sleeps. */
static bool posixtrace_nl_listening(void)
{
	return genl_has_listeners(&posixtrace_nl_family, &init_net, 0);
}

static void posixtrace_nl_send(struct posixtrace_stream *stream, u32 event)
{
	struct sk_buff *msg;

	msg = nlmsg_new(posixtrace_nl_msg_size(stream), GFP_KERNEL);
	if (!msg)
		goto lost;
	if (posixtrace_nl_msg(msg, 0, 0, 0, POSIXTRACE_NL_CMD_NOTIFY, event,
			      stream, &init_pid_ns, &init_user_ns)) {
		nlmsg_free(msg);
		goto lost;
	}
	genlmsg_multicast(&posixtrace_nl_family, msg, 0, 0, GFP_KERNEL);
	return;
lost:
	/*
	 * Never dropped unsaid: every listener's next receive fails with
	 * ENOBUFS, as when its socket's buffer was full.
	 */
	genl_set_err(&posixtrace_nl_family, &init_net, 0, 0, -ENOBUFS);
}

static const struct posixtrace_stream_watcher posixtrace_nl_watcher = {
	.listening = posixtrace_nl_listening,
	.changed = posixtrace_nl_send,
};

int posixtrace_nl_init(void)
{
	int ret;

	ret = genl_register_family(&posixtrace_nl_family);
	if (!ret)
		posixtrace_streams_watch(&posixtrace_nl_watcher);
	return ret;
}

/* Module exit: no stream is left to tell of. */
void posixtrace_nl_exit(void)
{
	posixtrace_streams_watch(NULL);
	genl_unregister_family(&posixtrace_nl_family);
}
