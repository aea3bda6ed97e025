/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_NAMES_H
#define _POSIXTRACE_NAMES_H

#include <linux/cred.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/posixtrace.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/*
 * User event names and their identifiers: a process's own, or, under
 * inheritance (TRI), one table its whole family shares, so that a name has
 * the same identifier in every process a stream traces, as POSIX requires.
 *
 * References: one by each process entry using the table, one by each
 * stream that names events with it (through its process entry).
 *
 * @lock serialises registration. @nr only grows and is published with
 * release semantics after the name it counts, so that emitters may check
 * an identifier against it without the lock; the array itself moves, and
 * is read under @lock, as are the formats.
 *
 * A name may get a format (format.c) once, when it has none: a tracer may
 * open a name (to filter it) before the program that gives it a format.
 * A format never changes after that. The memory is bounded by the number
 * of names: POSIXTRACE_USER_EVENT_MAX of them, each with at most
 * POSIXTRACE_EVENT_NAME_MAX + POSIXTRACE_FORMAT_MAX + 2 bytes, charged to
 * the process that opened them.
 *
 * @users lists the process entries that use the table while they are in the
 * process table (process.c joins and leaves them, under @users_lock), so
 * that a new name can be made recordable in each before its identifier is
 * handed out (posixtrace_names_open()'s @grown). Lock order: @lock, then
 * @users_lock, then the processes' locks; the process table's lock is
 * never held with @users_lock.
 *
 * @cred are the credentials of the process the table was made for. A
 * process of the family whose own no longer match them
 * (posixtrace_names_cred_ok(): it dropped privileges with setresuid(),
 * capset()...) moves to a table of its own before it reads or writes
 * names again (links.c's posixtrace_links_own_names()), so that it neither
 * learns nor changes what its privileged family names. The table it
 * leaves stays referenced by the new one (@prev), so that whoever read the
 * entry's table before the move may still use it while holding the entry.
 */
struct posixtrace_name {
	char *name;
	char *format;			/* NULL without a format */
};

/* A process entry's place on a table's @users (process.c's). */
struct posixtrace_names_user {
	struct list_head node;
	bool left;			/* under @users_lock: it left the table */
};

struct posixtrace_names {
	struct kref ref;
	struct mutex lock;		/* see above */
	unsigned int nr;
	struct posixtrace_name *names;
	spinlock_t users_lock;		/* @users */
	struct list_head users;		/* struct posixtrace_names_user */
	const struct cred *cred;	/* reference held; see above */
	struct posixtrace_names *prev;	/* reference held, or NULL */
};

struct posixtrace_names *posixtrace_names_new(const struct cred *cred);
bool posixtrace_names_cred_ok(const struct posixtrace_names *names,
			      const struct cred *cred);
bool posixtrace_names_move(struct posixtrace_names *from,
			   struct posixtrace_names *to,
			   struct posixtrace_names_user *user);
void posixtrace_names_get(struct posixtrace_names *names);
void posixtrace_names_put(struct posixtrace_names *names);
void posixtrace_names_join(struct posixtrace_names *names,
			   struct posixtrace_names_user *user);
void posixtrace_names_leave(struct posixtrace_names *names,
			    struct posixtrace_names_user *user);
int posixtrace_names_open(struct posixtrace_names *names, const char *name,
			  const char *format, u32 *id,
			  void (*grown)(struct posixtrace_names *names));
bool posixtrace_names_valid(struct posixtrace_names *names, u32 id);
void posixtrace_names_mask(struct posixtrace_names *names, unsigned long *ids);
int posixtrace_names_name(struct posixtrace_names *names, u32 kernel, u32 id,
			  char *name, char *format);
bool posixtrace_names_next(struct posixtrace_names *names, u32 kernel,
			   u32 from, u32 *id);

#endif /* _POSIXTRACE_NAMES_H */
