// SPDX-License-Identifier: GPL-2.0
/*
 * Event type names: the system events' (fixed by POSIX), the unnamed user
 * event's, and the user event names of a table (struct posixtrace_names),
 * which get identifiers from POSIXTRACE_EVENT_USER_BASE on, in the order
 * they are opened, up to POSIXTRACE_USER_EVENT_MAX.
 */

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kevent_types.h"
#include "names.h"

/* System event names, fixed by POSIX (XSH 2.11, Table 2-6 and 2-7). */
static const char *const posixtrace_system_event_names[] =
	POSIXTRACE_SYSTEM_EVENT_NAMES;

static const char posixtrace_unnamed_event_name[] =
	POSIXTRACE_UNNAMED_USER_NAME;

/**
 * posixtrace_names_new - an empty table
 * @cred: the credentials of the process it is made for (a reference is
 *	taken)
 *
 * Return: the table, with one reference, or NULL.
 */
struct posixtrace_names *posixtrace_names_new(const struct cred *cred)
{
	struct posixtrace_names *names;

	names = kzalloc(sizeof(*names), GFP_KERNEL_ACCOUNT);
	if (!names)
		return NULL;
	kref_init(&names->ref);
	mutex_init(&names->lock);
	spin_lock_init(&names->users_lock);
	INIT_LIST_HEAD(&names->users);
	names->cred = get_cred(cred);
	return names;
}

/* Could a process with @cred make @uid its effective or file system uid? */
static bool posixtrace_uid_reachable(kuid_t uid, const struct cred *cred)
{
	return uid_eq(uid, cred->uid) || uid_eq(uid, cred->euid) ||
	       uid_eq(uid, cred->suid) || uid_eq(uid, cred->fsuid) ||
	       cap_raised(cred->cap_permitted, CAP_SETUID);
}

static bool posixtrace_gid_reachable(kgid_t gid, const struct cred *cred)
{
	return gid_eq(gid, cred->gid) || gid_eq(gid, cred->egid) ||
	       gid_eq(gid, cred->sgid) || gid_eq(gid, cred->fsgid) ||
	       cap_raised(cred->cap_permitted, CAP_SETGID);
}

/**
 * posixtrace_names_cred_ok - may a process with @cred use @names?
 * @names: the table
 * @cred: the process's credentials now
 *
 * Only if it could still act as the process the table was made for: in
 * the same user namespace, able to take back that process's effective and
 * file system ids (they are among its real, effective, saved and file
 * system ids, or it may set any) and its effective capabilities (they are
 * among its permitted ones). A daemon that lowers its effective uid or
 * capabilities for a while (seteuid(), a capset() of the effective set),
 * and may raise them again, keeps its table: it is still as privileged.
 * One that gave them up for good (setresuid() of all three, the permitted
 * capabilities cleared) does not. So a process can move to a table of its
 * own only as often as it can give something up for good: a few uids and
 * gids, its capabilities, the depth of nested user namespaces; not back
 * and forth. Cheap: the same credentials are most often the same object.
 * Never sleeps.
 */
bool posixtrace_names_cred_ok(const struct posixtrace_names *names,
			      const struct cred *cred)
{
	const struct cred *own = names->cred;

	if (own == cred)
		return true;
	return own->user_ns == cred->user_ns &&
	       cap_issubset(own->cap_effective, cred->cap_permitted) &&
	       posixtrace_uid_reachable(own->euid, cred) &&
	       posixtrace_uid_reachable(own->fsuid, cred) &&
	       posixtrace_gid_reachable(own->egid, cred) &&
	       posixtrace_gid_reachable(own->fsgid, cred);
}

void posixtrace_names_get(struct posixtrace_names *names)
{
	kref_get(&names->ref);
}

/* The last reference went; @names->prev is the caller's to put. */
static void posixtrace_names_free(struct posixtrace_names *names)
{
	unsigned int i;

	/* Each user holds a reference: none may be left. */
	WARN_ON_ONCE(!list_empty(&names->users));
	for (i = 0; i < names->nr; i++) {
		kfree(names->names[i].name);
		kfree(names->names[i].format);
	}
	kfree(names->names);
	mutex_destroy(&names->lock);
	put_cred(names->cred);
	kfree(names);
}

/*
 * Never sleeps: an RCU callback drops process entries' references. A table
 * holds the one its first user left (@prev): the chain is put in a loop,
 * not by recursion, however long it is.
 */
void posixtrace_names_put(struct posixtrace_names *names)
{
	struct posixtrace_names *prev;

	while (names && refcount_dec_and_test(&names->ref.refcount)) {
		prev = names->prev;
		posixtrace_names_free(names);
		names = prev;
	}
}

/**
 * posixtrace_names_join - a process entry using @names entered the table
 * @names: its table of names (it holds a reference)
 * @user: its place on @names->users
 *
 * Called just before the entry enters the process table (a forked
 * child's entry, entered by the fork hook, joins before the child first
 * runs), and posixtrace_names_leave() once after it left (or failed to
 * enter), outside the table's lock (a raw lock: the hooks take it). An
 * entry that left never joins. Never sleeps.
 */
void posixtrace_names_join(struct posixtrace_names *names,
			   struct posixtrace_names_user *user)
{
	spin_lock(&names->users_lock);
	if (!user->left)
		list_add_tail(&user->node, &names->users);
	spin_unlock(&names->users_lock);
}

/* The entry left the process table: see posixtrace_names_join(). */
void posixtrace_names_leave(struct posixtrace_names *names,
			    struct posixtrace_names_user *user)
{
	spin_lock(&names->users_lock);
	list_del_init(&user->node);
	user->left = true;
	spin_unlock(&names->users_lock);
}

/**
 * posixtrace_names_move - a process entry using @from is to use @to
 * @from: its table
 * @to: a new table, not yet anyone's
 * @user: its place on @from->users
 *
 * It leaves @from's users and joins @to's, before the caller makes it use
 * @to: no name can be opened in @to before that, and from then on every
 * name opened in it is published to the entry. The caller serialises
 * this with posixtrace_names_join() and posixtrace_names_leave() for the
 * same entry (process.c's names_mutex).
 *
 * Return: false if the entry left the process table already (then
 * nothing changed).
 */
bool posixtrace_names_move(struct posixtrace_names *from,
			   struct posixtrace_names *to,
			   struct posixtrace_names_user *user)
{
	bool joined;

	spin_lock(&from->users_lock);
	if (user->left) {
		spin_unlock(&from->users_lock);
		return false;
	}
	joined = !list_empty(&user->node);
	list_del_init(&user->node);
	spin_unlock(&from->users_lock);
	/* Not joined yet (a child before its task work): it joins later. */
	if (joined)
		posixtrace_names_join(to, user);
	return true;
}

/*
 * Give entry @e the format @format (NULL: none), under the table's lock.
 * A format is set once: the same again is fine, another one is not.
 */
static int posixtrace_names_set_format(struct posixtrace_name *e,
				       const char *format)
{
	if (!format)
		return 0;
	if (e->format)
		return strcmp(e->format, format) ? -EEXIST : 0;
	e->format = kstrdup(format, GFP_KERNEL_ACCOUNT);
	return e->format ? 0 : -ENOMEM;
}

/**
 * posixtrace_names_open - the identifier of a user event name
 * @names: the table
 * @name: a NUL-terminated name of 1 to POSIXTRACE_EVENT_NAME_MAX characters
 * @format: NULL, or a format posixtrace_format_check() accepted
 * @id: the identifier: the same for the same name, or the unnamed user
 *	event's once the table has POSIXTRACE_USER_EVENT_MAX names (the
 *	format is then ignored: the unnamed event has none)
 * @grown: NULL, or called when a new name was added, under the table's
 *	lock, once posixtrace_names_valid() accepts its identifier: it makes
 *	the identifier recordable in every process on @names->users
 *
 * Under the lock, so that no caller is handed the identifier before
 * @grown has returned: neither the one that added the name, nor one that
 * opens the same name meanwhile, nor one that asks for the name of the
 * identifier (posixtrace_names_name()). Each may record an event of it
 * the moment it has it.
 *
 * Return: 0, -EEXIST if the name has another format, or -ENOMEM. On an
 * error the table is as it was: a new name is not added.
 */
int posixtrace_names_open(struct posixtrace_names *names, const char *name,
			  const char *format, u32 *id,
			  void (*grown)(struct posixtrace_names *names))
{
	struct posixtrace_name *array, *e;
	unsigned int i, nr;
	int ret = 0;

	mutex_lock(&names->lock);
	nr = names->nr;
	for (i = 0; i < nr; i++) {
		if (!strcmp(names->names[i].name, name)) {
			ret = posixtrace_names_set_format(&names->names[i],
							  format);
			if (!ret)
				*id = POSIXTRACE_EVENT_USER_BASE + i;
			goto out;
		}
	}
	if (nr == POSIXTRACE_USER_EVENT_MAX) {
		*id = POSIXTRACE_EVENT_UNNAMED_USER;
		goto out;
	}
	/* Grow by doubling; the array is only read under the lock. */
	if (!(nr & (nr - 1))) {
		array = krealloc_array(names->names, nr ? 2 * nr : 8,
				       sizeof(*array), GFP_KERNEL_ACCOUNT);
		if (!array) {
			ret = -ENOMEM;
			goto out;
		}
		names->names = array;
	}
	e = &names->names[nr];
	e->format = NULL;
	e->name = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!e->name) {
		ret = -ENOMEM;
		goto out;
	}
	ret = posixtrace_names_set_format(e, format);
	if (ret) {
		kfree(e->name);
		goto out;
	}
	/* Pairs with smp_load_acquire() in the readers of nr. */
	smp_store_release(&names->nr, nr + 1);
	*id = POSIXTRACE_EVENT_USER_BASE + nr;
	if (grown)
		grown(names);
out:
	mutex_unlock(&names->lock);
	return ret;
}

/* May a process using @names record events of type @id? Never sleeps. */
bool posixtrace_names_valid(struct posixtrace_names *names, u32 id)
{
	/* Pairs with smp_store_release() in posixtrace_names_open(). */
	unsigned int nr = smp_load_acquire(&names->nr);

	if (id == POSIXTRACE_EVENT_UNNAMED_USER)
		return true;
	return id >= POSIXTRACE_EVENT_USER_BASE &&
	       id - POSIXTRACE_EVENT_USER_BASE < nr;
}

/**
 * posixtrace_names_mask - keep in a set what posixtrace_names_valid() accepts
 * @names: the table
 * @ids: a bitmap of POSIXTRACE_EVENT_ID_MAX identifiers
 *
 * For the enable bits: a process's producers never see a type enabled
 * that the module would then ignore. Never sleeps.
 */
void posixtrace_names_mask(struct posixtrace_names *names, unsigned long *ids)
{
	unsigned int end;

	/* Pairs with smp_store_release() in posixtrace_names_open(). */
	end = POSIXTRACE_EVENT_USER_BASE + smp_load_acquire(&names->nr);
	/* posixtrace_names_valid(): the unnamed type, then the names. */
	BUILD_BUG_ON(POSIXTRACE_EVENT_USER_BASE !=
		     POSIXTRACE_EVENT_UNNAMED_USER + 1);
	bitmap_clear(ids, 0, POSIXTRACE_EVENT_UNNAMED_USER);
	bitmap_clear(ids, end, POSIXTRACE_EVENT_ID_MAX - end);
}

/**
 * posixtrace_names_name - the name of an event type, system or user
 * @names: the table of the user event names
 * @kernel: the POSIXTRACE_KERNEL_* classes of kernel events the stream
 *	records: their types are named too
 * @id: the identifier
 * @name: POSIXTRACE_EVENT_NAME_MAX + 1 bytes for the name, NUL-terminated
 * @format: NULL, or POSIXTRACE_FORMAT_MAX + 1 bytes for the type's format,
 *	NUL-terminated; empty for a type without one
 *
 * Return: 0, or -EINVAL for an identifier that names nothing.
 */
int posixtrace_names_name(struct posixtrace_names *names, u32 kernel, u32 id,
			  char *name, char *format)
{
	const struct posixtrace_name *e;
	const char *src = NULL, *kformat;

	if (format)
		format[0] = '\0';
	if (id < ARRAY_SIZE(posixtrace_system_event_names)) {
		src = posixtrace_system_event_names[id];
	} else if (id == POSIXTRACE_EVENT_UNNAMED_USER) {
		src = posixtrace_unnamed_event_name;
	} else {
		src = posixtrace_kevent_name(id, kernel, &kformat);
		if (src && format)
			strscpy(format, kformat, POSIXTRACE_FORMAT_MAX + 1);
	}
	if (src) {
		strscpy(name, src, POSIXTRACE_EVENT_NAME_MAX + 1);
		return 0;
	}
	if (!posixtrace_names_valid(names, id))
		return -EINVAL;
	mutex_lock(&names->lock);
	e = &names->names[id - POSIXTRACE_EVENT_USER_BASE];
	strscpy(name, e->name, POSIXTRACE_EVENT_NAME_MAX + 1);
	if (format && e->format)
		strscpy(format, e->format, POSIXTRACE_FORMAT_MAX + 1);
	mutex_unlock(&names->lock);
	return 0;
}

/**
 * posixtrace_names_next - iterate over the event types of a table
 * @names: the table
 * @kernel: the classes of kernel events the stream records: their types
 *	come after the system ones
 * @from: the smallest identifier wanted
 * @id: the first defined identifier >= @from
 *
 * Return: true if there is one.
 */
bool posixtrace_names_next(struct posixtrace_names *names, u32 kernel,
			   u32 from, u32 *id)
{
	/* Pairs with smp_store_release() in posixtrace_names_open(). */
	u32 end = POSIXTRACE_EVENT_USER_BASE + smp_load_acquire(&names->nr);

	if (from < ARRAY_SIZE(posixtrace_system_event_names)) {
		*id = from;
		return true;
	}
	if (posixtrace_kevent_next(kernel, from, id))
		return true;
	if (from <= POSIXTRACE_EVENT_UNNAMED_USER) {
		*id = POSIXTRACE_EVENT_UNNAMED_USER;
		return true;
	}
	if (from < end) {
		*id = from;
		return true;
	}
	return false;
}
