// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The table behind trace_id_t.
 *
 * A trace_id_t names either an active stream (posix_trace_create(),
 * posix_trace_create_withlog()) or a pre-recorded one, a trace log opened
 * by posix_trace_open(): a slot of this table holds one or the other, and
 * each function finds EINVAL where the trid names the wrong kind.
 *
 * A trace_id_t names a slot of this table and the generation of the slot
 * when the stream was put there, scrambled with a per-process key:
 *
 *	trid = (generation << PTK_SLOT_BITS | slot) ^ key
 *
 * It is never negative, never 0, and a stale trid (its stream shut down,
 * its slot reused) or a made-up one finds no stream and gives EINVAL, never
 * another stream. Generations wrap after 2^19 streams in one slot.
 *
 * The table is the creating process's only (POSIX: a trid used in a child
 * is EINVAL; we treat the trids of logs alike). fork() runs our child handler, which empties the child's
 * table. A child made without the handlers (_Fork()) finds out at its
 * first call: the table carries a mark in the process-local page (local.c),
 * which reads 0 in every child, checked under the table lock by every
 * lookup, at the cost of one load. If the kernel lacks MADV_WIPEONFORK
 * (before 4.14), the mark is the owner's pid, compared with getpid(): a
 * system call per lookup.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"

#define PTK_SLOT_BITS	12
#define PTK_SLOT_MASK	((1u << PTK_SLOT_BITS) - 1)
#define PTK_SLOTS_MAX	(1u << PTK_SLOT_BITS)
#define PTK_GEN_MAX	((1u << (31 - PTK_SLOT_BITS)) - 1)

struct ptk_slot {
	/* At most one is set; both NULL: the slot is free. */
	struct ptk_stream *stream;
	struct ptk_log *log;
	uint32_t gen;			/* of the last one put here */
};

/* The lock protects ptk_slots, ptk_nslots and every slot. */
static pthread_mutex_t ptk_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptk_slot *ptk_slots;
static uint32_t ptk_nslots;
/*
 * Whose table it is: *ptk_owner_mark is nonzero in the process that owns
 * it, and reads 0 in a child until ptk_table_own() takes the table over.
 * Without the page, ptk_owner_pid says it. Under the table lock.
 */
static uint32_t *ptk_owner_mark;
static pid_t ptk_owner_pid;
/* Written once, before the first slot exists. */
static uint32_t ptk_key;
static pthread_once_t ptk_table_once = PTHREAD_ONCE_INIT;

/* Called with the table lock held: this process owns the table. */
static void ptk_table_mark(void)
{
	if (ptk_owner_mark)
		*ptk_owner_mark = 1;
	else
		ptk_owner_pid = getpid();
}

/* Called with the table lock held. */
static bool ptk_table_marked(void)
{
	if (ptk_owner_mark)
		return *ptk_owner_mark;
	return ptk_owner_pid == getpid();
}

/*
 * Forgets every stream and log of the table. Their memory is left as it
 * is: another thread of the parent may have held their locks at fork().
 * Their generations stay, so that no stale trid names a new one.
 */
static void ptk_table_forget(bool close_fds)
{
	struct ptk_slot *slot;
	uint32_t i;

	for (i = 0; i < ptk_nslots; i++) {
		slot = &ptk_slots[i];
		if (close_fds && slot->stream)
			close(slot->stream->fd);
		if (close_fds && slot->log)
			close(ptk_log_fd(slot->log));
		slot->stream = NULL;
		slot->log = NULL;
	}
}

/*
 * Called with the table lock held before any use of the slots: in a child
 * made without our atfork handlers, forgets the parent's streams. Their
 * descriptors are left open (close-on-exec): by now their numbers may
 * name something else of the child's.
 */
static void ptk_table_own(void)
{
	if (!ptk_nslots || ptk_table_marked())
		return;
	ptk_table_forget(false);
	ptk_table_mark();
}

static void ptk_atfork_prepare(void)
{
	pthread_mutex_lock(&ptk_table_lock);
}

static void ptk_atfork_parent(void)
{
	pthread_mutex_unlock(&ptk_table_lock);
}

/*
 * A trid is valid only in the process that created it (POSIX: EINVAL in a
 * child). The kernel refuses the child's stream commands, but events
 * already in a batch buffer would still be served, so the child forgets
 * every stream and log here, and closes its copies of their descriptors
 * (a log's is the library's own duplicate: see log.c).
 */
static void ptk_atfork_child(void)
{
	ptk_table_forget(true);
	ptk_table_mark();
	pthread_mutex_unlock(&ptk_table_lock);
}

static void ptk_table_init(void)
{
	struct ptk_local *local = ptk_local_get();
	uint32_t key;

	if (getrandom(&key, sizeof(key), GRND_NONBLOCK) != sizeof(key)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		key = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec ^
		      (uint32_t)getpid() ^ (uint32_t)(uintptr_t)&key;
	}
	ptk_key = key & INT32_MAX;
	ptk_owner_mark = local ? &local->table_owner : NULL;
	pthread_mutex_lock(&ptk_table_lock);
	ptk_table_mark();
	pthread_mutex_unlock(&ptk_table_lock);
	/* Without the handlers, ptk_table_own() forgets in the child. */
	(void)pthread_atfork(ptk_atfork_prepare, ptk_atfork_parent,
			     ptk_atfork_child);
}

static trace_id_t ptk_encode(uint32_t slot, uint32_t gen)
{
	return (trace_id_t)(((gen << PTK_SLOT_BITS) | slot) ^ ptk_key);
}

/* Called with the table lock held: finds or makes a free slot. */
static int ptk_free_slot(uint32_t *slot)
{
	struct ptk_slot *slots;
	uint32_t i, n;

	for (i = 0; i < ptk_nslots; i++) {
		if (!ptk_slots[i].stream && !ptk_slots[i].log) {
			*slot = i;
			return 0;
		}
	}
	/* Out of slots is POSIX's "no more trace streams". */
	if (ptk_nslots == PTK_SLOTS_MAX)
		return EAGAIN;
	n = ptk_nslots ? 2 * ptk_nslots : 16;
	slots = realloc(ptk_slots, n * sizeof(*slots));
	if (!slots)
		return ENOMEM;
	memset(slots + ptk_nslots, 0, (n - ptk_nslots) * sizeof(*slots));
	ptk_slots = slots;
	*slot = ptk_nslots;
	ptk_nslots = n;
	return 0;
}

/* Takes over the caller's reference to s or l as the table's. */
static int ptk_slot_add(struct ptk_stream *s, struct ptk_log *l,
			trace_id_t *trid)
{
	uint32_t slot, gen;
	int err;

	pthread_once(&ptk_table_once, ptk_table_init);
	pthread_mutex_lock(&ptk_table_lock);
	ptk_table_own();
	err = ptk_free_slot(&slot);
	if (err) {
		pthread_mutex_unlock(&ptk_table_lock);
		return err;
	}
	gen = ptk_slots[slot].gen;
	do {
		gen = gen >= PTK_GEN_MAX ? 1 : gen + 1;
	} while (ptk_encode(slot, gen) == 0);
	ptk_slots[slot].stream = s;
	ptk_slots[slot].log = l;
	ptk_slots[slot].gen = gen;
	*trid = ptk_encode(slot, gen);
	pthread_mutex_unlock(&ptk_table_lock);
	return 0;
}

int ptk_stream_add(struct ptk_stream *s, trace_id_t *trid)
{
	return ptk_slot_add(s, NULL, trid);
}

int ptk_log_add(struct ptk_log *l, trace_id_t *trid)
{
	return ptk_slot_add(NULL, l, trid);
}

/* Called with the table lock held: trid's slot, or NULL. */
static struct ptk_slot *ptk_lookup(trace_id_t trid)
{
	struct ptk_slot *slot;
	uint32_t raw, i;

	if (trid <= 0 || !ptk_nslots)
		return NULL;
	ptk_table_own();
	raw = (uint32_t)trid ^ ptk_key;
	i = raw & PTK_SLOT_MASK;
	if (i >= ptk_nslots)
		return NULL;
	slot = &ptk_slots[i];
	if ((!slot->stream && !slot->log) || slot->gen != raw >> PTK_SLOT_BITS)
		return NULL;
	return slot;
}

/*
 * A reference to what trid names, for ptk_stream_put() or ptk_log_put();
 * or EINVAL. sp or lp may be NULL: that kind is then not wanted.
 */
int ptk_trid_get(trace_id_t trid, struct ptk_stream **sp, struct ptk_log **lp)
{
	struct ptk_slot *slot;
	int err = EINVAL;

	pthread_mutex_lock(&ptk_table_lock);
	slot = ptk_lookup(trid);
	if (slot && slot->stream && sp) {
		atomic_fetch_add_explicit(&slot->stream->refs, 1,
					  memory_order_relaxed);
		*sp = slot->stream;
		if (lp)
			*lp = NULL;
		err = 0;
	} else if (slot && slot->log && lp) {
		ptk_log_hold(slot->log);
		*lp = slot->log;
		if (sp)
			*sp = NULL;
		err = 0;
	}
	pthread_mutex_unlock(&ptk_table_lock);
	return err;
}

/* A reference to what trid names, stream or log; EINVAL for nothing. */
int ptk_ref_get(trace_id_t trid, struct ptk_ref *ref)
{
	return ptk_trid_get(trid, &ref->stream, &ref->log);
}

/* Drop what ptk_ref_get() took. */
void ptk_ref_put(struct ptk_ref *ref)
{
	if (ref->log)
		ptk_log_put(ref->log);
	else
		ptk_stream_put(ref->stream);
}

/* A reference to the stream trid names; EINVAL for a log too. */
int ptk_stream_get(trace_id_t trid, struct ptk_stream **sp)
{
	return ptk_trid_get(trid, sp, NULL);
}

/* A reference to the log trid names; EINVAL for a stream too. */
int ptk_log_get(trace_id_t trid, struct ptk_log **lp)
{
	return ptk_trid_get(trid, NULL, lp);
}

/*
 * Frees trid's slot if it still holds s or l. Returns true if it did: the
 * caller then owns the table's reference and must put it.
 */
static bool ptk_slot_unlink(trace_id_t trid, struct ptk_stream *s,
			    struct ptk_log *l)
{
	struct ptk_slot *slot;
	bool found;

	pthread_mutex_lock(&ptk_table_lock);
	slot = ptk_lookup(trid);
	found = slot && slot->stream == s && slot->log == l;
	if (found) {
		slot->stream = NULL;
		slot->log = NULL;
	}
	pthread_mutex_unlock(&ptk_table_lock);
	return found;
}

bool ptk_stream_unlink(trace_id_t trid, struct ptk_stream *s)
{
	return ptk_slot_unlink(trid, s, NULL);
}

bool ptk_log_unlink(trace_id_t trid, struct ptk_log *l)
{
	return ptk_slot_unlink(trid, NULL, l);
}
