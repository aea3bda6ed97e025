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
 * is EINVAL; we treat the trids of logs alike). fork() runs our child
 * handler, which empties the child's table. A child made without the
 * handlers (_Fork()) finds out at its first call: the table carries a mark
 * in the process-local page (local.c), which reads 0 in every child,
 * checked by every lookup, at the cost of one load. If the kernel lacks
 * MADV_WIPEONFORK (before 4.14), the mark is the owner's pid, compared
 * with getpid(): a system call per lookup.
 *
 * Two ways in. The control functions (start, stop, shutdown, get_status...)
 * take the table lock and a reference (ptk_trid_get()): simple, and their
 * cost is a system call's anyway. The readers (the getnext functions,
 * posixtrace_k_event_seq() and _tid()), which mostly take one event out of
 * a batch already fetched, use ptk_stream_lock(): no table lock, no
 * reference, only the stream's own lock, which they need anyway to take
 * the event. That lock and its release are the only atomic
 * read-modify-write operations on the way; everything else is a plain or
 * an acquire load (a plain load on x86). Logs are found the first way
 * only: a log is freed by its last put, and reading one reads a file
 * anyway. The readers' way rests on three things:
 *
 *  a. The slots never move: a fixed array (PTK_SLOTS_MAX slots; the pages
 *     beyond the slots in use are never touched), so a slot can be read
 *     without the lock at any time. A slot's stream pointer is an atomic:
 *     stored under the table lock, with release when a stream is put
 *     there, and read with acquire by the lock-free lookup.
 *
 *  b. Streams are type-stable (like the kernel's SLAB_TYPESAFE_BY_RCU):
 *     a struct ptk_stream is never freed. Its last put closes its fd,
 *     frees its batch buffer and puts the object on a free list, from
 *     which the next posix_trace_create() takes it. Its lock is
 *     initialised once, before it is first published, and never
 *     destroyed. So a pointer loaded from a slot, however stale, points
 *     to a stream whose lock may be taken.
 *
 *  c. s->trid and s->dead, written only under s->lock, say which trid the
 *     object stands for now and whether it still does: s->trid is set by
 *     ptk_stream_add() before it publishes s, and again only when the
 *     object is reused, for a new stream (with dead false again: it is
 *     0 until then); dead is set by posix_trace_shutdown() before it
 *     unlinks s, and stays set until the object is reused.
 *
 * ptk_stream_lock(trid) checks the owner mark (acquire), loads the slot's
 * pointer (acquire), locks the stream and checks s->trid == trid and
 * !s->dead.
 *
 * Why a match is right: under s->lock, it means that s is trid's stream
 * and not shut down, and it stays so until we unlock, since ending it
 * takes the lock (c). A trid other than the one s was created for cannot
 * match: each create gives a trid no live stream has (the slot's
 * generation moves on), so a stale or made-up trid never reaches another
 * stream (only a generation wrap in the slot could).
 *
 * Why no reference is needed while the lock is held: what a stream holds
 * (fd, buf) goes only at its last put, which comes after the table's put,
 * after the unlink, after the locked section of the shutdown that set
 * s->dead; that section comes after ours, or we would have seen it dead.
 * So the stream's memory and descriptor stay for the whole of our
 * section. A reader that drops the lock (to call the kernel, or to wait)
 * takes a reference first, while it still holds the lock and found s live
 * (so the table's reference is there and the count is not 0); the object
 * then cannot be reused until it puts it, and s->dead alone says, each
 * time it has the lock back, whether the stream is still there.
 *
 * Why a miss is harmless: NULL (no stream in the slot, a stream of
 * another trid, a table not owned) only sends the caller to ptk_trid_get(),
 * under the table lock, which decides: a log's trid, a child's first call
 * (which forgets the parent's streams there), EINVAL.
 *
 * Children: the mark is checked before the slot is read, so a _Fork()
 * child never locks one of the parent's streams, whose lock another
 * thread of the parent may have held at the fork; ptk_table_own() forgets
 * them (and the free list, for the same reason) before it sets the mark
 * (release), so a child that sees the mark sees empty slots. fork()'s
 * child handler empties the slots and the free list before the child
 * runs anything else.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "sys.h"

#define PTK_SLOT_BITS	12
#define PTK_SLOT_MASK	((1u << PTK_SLOT_BITS) - 1)
#define PTK_SLOTS_MAX	(1u << PTK_SLOT_BITS)
#define PTK_GEN_MAX	((1u << (31 - PTK_SLOT_BITS)) - 1)

struct ptk_slot {
	/*
	 * At most one is set; both NULL: the slot is free. stream is read
	 * without the lock too (ptk_stream_lock()); log only under it.
	 */
	struct ptk_stream *_Atomic stream;
	struct ptk_log *log;
	uint32_t gen;			/* of the last one put here */
};

/*
 * The lock protects every slot (but see stream above), ptk_nslots and the
 * free list. The slots never move; those from ptk_nslots on were never
 * used.
 */
static pthread_mutex_t ptk_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptk_slot ptk_slots[PTK_SLOTS_MAX];
static uint32_t ptk_nslots;
/* Released streams, linked through free_next: see the top comment. */
static struct ptk_stream *ptk_free_streams;
/*
 * Whose table it is: *ptk_owner_mark is nonzero in the process that owns
 * it, and reads 0 in a child until ptk_table_own() takes the table over.
 * Without the page, ptk_owner_pid says it. Written under the table lock
 * (release), read with or without it (acquire).
 */
static uint32_t *ptk_owner_mark;
static pid_t ptk_owner_pid;
/* Written once, before ptk_table_ready is set (and any slot is used). */
static uint32_t ptk_key;
static atomic_bool ptk_table_ready;
static pthread_once_t ptk_table_once = PTHREAD_ONCE_INIT;

/* Called with the table lock held: this process owns the table. */
static void ptk_table_mark(void)
{
	if (ptk_owner_mark)
		__atomic_store_n(ptk_owner_mark, 1, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&ptk_owner_pid, getpid(), __ATOMIC_RELEASE);
}

/* With the table lock held or not. */
static bool ptk_table_marked(void)
{
	if (ptk_owner_mark)
		return __atomic_load_n(ptk_owner_mark, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&ptk_owner_pid, __ATOMIC_ACQUIRE) == getpid();
}

static struct ptk_stream *ptk_slot_stream(struct ptk_slot *slot)
{
	return atomic_load_explicit(&slot->stream, memory_order_relaxed);
}

/*
 * Forgets every stream and log of the table, and the free list. Their
 * memory is left as it is: another thread of the parent may have held
 * their locks at fork(). Their generations stay, so that no stale trid
 * names a new one.
 */
static void ptk_table_forget(bool close_fds)
{
	struct ptk_slot *slot;
	uint32_t i;

	for (i = 0; i < ptk_nslots; i++) {
		slot = &ptk_slots[i];
		if (close_fds && ptk_slot_stream(slot))
			ptk_sys_close(ptk_slot_stream(slot)->fd);
		if (close_fds && slot->log)
			close(ptk_log_fd(slot->log));
		atomic_store_explicit(&slot->stream, NULL,
				      memory_order_relaxed);
		slot->log = NULL;
	}
	ptk_free_streams = NULL;
}

/*
 * Called with the table lock held before any use of the slots: in a child
 * made without our atfork handlers, forgets the parent's streams. Their
 * descriptors are left open (close-on-exec): by now their numbers may
 * name something else of the child's.
 */
static void ptk_table_own(void)
{
	if (ptk_table_marked())
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
	atomic_store_explicit(&ptk_table_ready, true, memory_order_release);
}

/* The table, initialised, locked and this process's. */
static void ptk_table_lock_own(void)
{
	pthread_once(&ptk_table_once, ptk_table_init);
	pthread_mutex_lock(&ptk_table_lock);
	ptk_table_own();
}

static trace_id_t ptk_encode(uint32_t slot, uint32_t gen)
{
	return (trace_id_t)(((gen << PTK_SLOT_BITS) | slot) ^ ptk_key);
}

/* Called with the table lock held: finds a free slot. */
static int ptk_free_slot(uint32_t *slot)
{
	uint32_t i;

	for (i = 0; i < ptk_nslots; i++) {
		if (!ptk_slot_stream(&ptk_slots[i]) && !ptk_slots[i].log) {
			*slot = i;
			return 0;
		}
	}
	/* Out of slots is POSIX's "no more trace streams". */
	if (ptk_nslots == PTK_SLOTS_MAX)
		return EAGAIN;
	*slot = ptk_nslots++;
	return 0;
}

/* Takes over the caller's reference to s or l as the table's. */
static int ptk_slot_add(struct ptk_stream *s, struct ptk_log *l,
			trace_id_t *trid)
{
	struct ptk_slot *slot;
	uint32_t i, gen;
	int err;

	ptk_table_lock_own();
	err = ptk_free_slot(&i);
	if (err) {
		pthread_mutex_unlock(&ptk_table_lock);
		return err;
	}
	slot = &ptk_slots[i];
	gen = slot->gen;
	do {
		gen = gen >= PTK_GEN_MAX ? 1 : gen + 1;
	} while (ptk_encode(i, gen) == 0);
	slot->gen = gen;
	*trid = ptk_encode(i, gen);
	if (s) {
		/* Named before it is published: see the top comment (c). */
		ptk_lock(&s->lock);
		s->trid = *trid;
		ptk_unlock(&s->lock);
		atomic_store_explicit(&slot->stream, s, memory_order_release);
	}
	slot->log = l;
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
	if ((!ptk_slot_stream(slot) && !slot->log) ||
	    slot->gen != raw >> PTK_SLOT_BITS)
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
	struct ptk_stream *s;
	int err = EINVAL;

	pthread_mutex_lock(&ptk_table_lock);
	slot = ptk_lookup(trid);
	s = slot ? ptk_slot_stream(slot) : NULL;
	if (s && sp) {
		ptk_stream_hold(s);
		*sp = s;
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

/* See internal.h and the top comment. */
struct ptk_stream *ptk_stream_lock(trace_id_t trid)
{
	struct ptk_stream *s;
	uint32_t i;

	if (trid <= 0 ||
	    !atomic_load_explicit(&ptk_table_ready, memory_order_acquire) ||
	    !ptk_table_marked())
		return NULL;
	i = ((uint32_t)trid ^ ptk_key) & PTK_SLOT_MASK;
	s = atomic_load_explicit(&ptk_slots[i].stream, memory_order_acquire);
	if (!s)
		return NULL;
	ptk_lock(&s->lock);
	if (s->trid == trid && !s->dead)
		return s;
	ptk_unlock(&s->lock);
	return NULL;
}

/* A released stream to use again, or NULL. */
struct ptk_stream *ptk_stream_reuse(void)
{
	struct ptk_stream *s;

	ptk_table_lock_own();
	s = ptk_free_streams;
	if (s)
		ptk_free_streams = s->free_next;
	pthread_mutex_unlock(&ptk_table_lock);
	return s;
}

/*
 * s, released (dead or never linked, no reference left), goes to the free
 * list and is never freed: a reader may still be about to lock it.
 */
void ptk_stream_retire(struct ptk_stream *s)
{
	ptk_table_lock_own();
	s->free_next = ptk_free_streams;
	ptk_free_streams = s;
	pthread_mutex_unlock(&ptk_table_lock);
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
 * caller then owns the table's reference and must put it. A stream is
 * dead by then (posix_trace_shutdown()).
 */
static bool ptk_slot_unlink(trace_id_t trid, struct ptk_stream *s,
			    struct ptk_log *l)
{
	struct ptk_slot *slot;
	bool found;

	pthread_mutex_lock(&ptk_table_lock);
	slot = ptk_lookup(trid);
	found = slot && ptk_slot_stream(slot) == s && slot->log == l;
	if (found) {
		atomic_store_explicit(&slot->stream, NULL,
				      memory_order_relaxed);
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
