// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's readers: GETNEXT, poll() and the mapping of the batch buffer.
 *
 * GETNEXT takes a batch of records out of the stream's buffer into its
 * bounce buffer, under the stream's lock, then copies the batch to the
 * caller. With MAPPED it does not: the caller reads the batch in its
 * read-only mapping of the bounce buffer, which stays as it is until the
 * next GETNEXT (readers take turns under the read lock). One copy a record
 * instead of two; the stream's buffer is not mapped, because LOOP writes over
 * its oldest records whenever it likes, and a reader could not tell.
 */

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "drain.h"
#include "links.h"
#include "stream.h"
#include "stream_core.h"

/*
 * Unlock @stream when a reader, an mmap() or a mapping is done with the
 * bounce buffer: if the stream is shut down and this was the last of
 * them, what its shutdown left goes now, the buffer, and the slot a
 * mapping kept (posixtrace_stream_kill()).
 */
static void posixtrace_stream_unlock_done(struct posixtrace_stream *stream)
	__releases(&stream->lock)
{
	bool put = stream->slot_held && !stream->mappers && !stream->vmas;
	void *unused = posixtrace_stream_bounce_unused(stream);

	if (put)
		stream->slot_held = false;
	spin_unlock(&stream->lock);
	kvfree(unused);
	if (put)
		posixtrace_stream_slot_put(stream->quota_user);
}

/*
 * Records the reader's next drain may take straight into its batch: as
 * many as fit in what is left of it, if each is the smallest a stream
 * keeps (what does not fit after all goes into the stream, for the next
 * turn), and no more than one hold of the drain lock takes, so that the
 * producers' kicks may drop between two drains.
 */
static u64 posixtrace_stream_direct_max(const struct posixtrace_direct *direct)
{
	size_t left = direct->room - READ_ONCE(direct->used);

	return min_t(u64, left / POSIXTRACE_RECORD_SIZE(0),
		     POSIXTRACE_DRAIN_HOLD_RECORDS);
}

/*
 * Drains into @direct until it is full or the sources are empty, a hold
 * of the drain lock at a time, and no more than @left records (what the
 * sources held as it began: a thread that keeps writing cannot keep the
 * reader here; records for other streams, or that this one filters, count
 * too). Stops when a drain would no longer store everything the sources
 * hold, as at the start of the turn: the next turn drains into the
 * stream, where LOOP keeps exactly the newest (not for a FLUSH stream's
 * log, @direct->pieces: see posixtrace_stream_direct_begin()). If
 * @counted, the drains take the records a cut counted, all of which fit,
 * from the sources it cut alone (posixtrace_drain_cut_take()). The
 * drains store into @direct under the stream's lock; its figures are
 * only read here to see how full it is.
 */
static void posixtrace_stream_drain_direct(struct posixtrace_stream *stream,
					   struct posixtrace_direct *direct,
					   u64 left, bool counted)
{
	struct posixtrace_drain_domain *dom = stream->domain;
	u64 max, taken;

	for (;;) {
		max = min(posixtrace_stream_direct_max(direct), left);
		if (!max)
			break;
		taken = counted ? posixtrace_drain_cut_take(dom, max) :
				  posixtrace_drain_upto(dom, max);
		left -= min(left, taken);
		/* Fewer than it could take: the sources are empty. */
		if (taken < max)
			break;
		/*
		 * A record the batch could not take went into the stream:
		 * the batch takes no more, and drains would only store.
		 */
		if (!counted && READ_ONCE(stream->buf.count))
			break;
		if (!counted && !direct->pieces &&
		    !posixtrace_stream_direct_fits(stream,
						   posixtrace_drain_bytes(dom)))
			break;
	}
}

/**
 * posixtrace_stream_take_direct - records straight from the sources into
 *	a batch
 * @stream: the stream, its read lock held (or its log's thread: a stream
 *	    with a log has no readers)
 * @direct: the batch: @dst and @room set, the rest filled in
 * @cut: what a reader's cut counted (posixtrace_drain_cut()), which the
 *	 drains then take from the sources it cut alone; NULL: what the
 *	 sources hold now
 *
 * While the stream holds no record and a drain of everything the sources
 * hold would store it all (or a batch's worth, for a FLUSH stream's log:
 * posixtrace_stream_direct_begin()), drains take records straight into
 * @direct: copied once, from their ring to the batch, numbered and
 * counted as the stream would have.
 *
 * Return: false if the drains could not go into @direct: the records must
 * go through the stream.
 */
bool posixtrace_stream_take_direct(struct posixtrace_stream *stream,
				   struct posixtrace_direct *direct,
				   const struct posixtrace_drain_cut *cut)
{
	struct posixtrace_drain_domain *dom = stream->domain;
	u64 bytes, records, source_bytes;

	if (cut) {
		bytes = cut->bytes;
		records = cut->records;
	} else {
		source_bytes = posixtrace_drain_bytes(dom);
		bytes = posixtrace_stream_bytes_bound(source_bytes);
		records = div_u64(source_bytes,
				  sizeof(struct posixtrace_ring_record)) + 1;
	}
	if (!posixtrace_stream_direct_begin(stream, direct, bytes))
		return false;
	posixtrace_stream_drain_direct(stream, direct, records, !!cut);
	posixtrace_stream_direct_end(stream, direct);
	return true;
}

/*
 * One reader's turn, into the bounce buffer, at most @room bytes.
 *
 * When a drain of everything the sources hold (the threads' rings, the
 * kbufs) would store it all in the stream beside what it holds, nothing
 * overwritten or lost for room (posixtrace_stream_direct_begin()), the
 * reader takes what the stream holds, oldest first, and then, if that
 * left room and the stream empty, a drain takes records from the sources
 * straight into the rest of the batch: a record is copied once, from its
 * ring to the batch, and only the records the batch takes are taken.
 * What the reader gets is what it would have got had everything been
 * drained first. Otherwise, a reader behind a LOOP stream fed by rings
 * alone cuts (posixtrace_drain_cut()): what the stream would overwrite is
 * dropped, in the rings and in the stream, and the reader goes on as above
 * with what the cut counted, holding off every other drain until its turn
 * ends. Else everything is drained into the stream first, where LOOP
 * overwrites the oldest and UNTIL_FULL stops as they must, and the reader
 * takes from there.
 */
static int posixtrace_stream_fill_batch(struct posixtrace_stream *stream,
					u8 *bounce, size_t room,
					size_t *bytes)
{
	struct posixtrace_drain_domain *dom = stream->domain;
	struct posixtrace_direct direct = { };
	struct posixtrace_drain_cut cut = { };
	size_t taken = 0, more = 0;
	bool counted = false;
	int n, m;

	/* Whatever comes now is taken below: no wakeup is owed for it. */
	WRITE_ONCE(stream->sources_news, false);
	if (!posixtrace_stream_direct_fits(stream,
					   posixtrace_drain_bytes(dom))) {
		counted = posixtrace_drain_cut(dom, stream, &cut);
		if (!counted)
			posixtrace_drain(dom);
	}
	/* Shut down already (@bounce may be NULL): -EINVAL, nothing stored. */
	n = posixtrace_stream_take(stream, bounce, room, U64_MAX, &taken, true,
				   NULL);
	if (n < 0 || taken == room || READ_ONCE(stream->buf.count))
		goto out;
	direct.dst = bounce + taken;
	/* No more than the stream holds in one read. */
	direct.room = min_t(size_t, room - taken, stream->attr.stream_size);
	if (posixtrace_stream_take_direct(stream, &direct,
					  counted ? &cut : NULL)) {
		n += direct.n;
		taken += direct.used;
		/* Else the first record was too large for the batch: stored. */
		if (n)
			goto out;
	} else if (counted) {
		/* What the cut counted fits: into the stream, and from there. */
		posixtrace_drain_cut_take(dom, cut.records);
	} else {
		/* Records came meanwhile (another stream's reader drained). */
		posixtrace_drain(dom);
	}
	/* What the drain stored, after what was taken above. */
	m = posixtrace_stream_take(stream, bounce + taken, room - taken,
				   U64_MAX, &more, true, NULL);
	if (m > 0) {
		n += m;
		taken += more;
	} else if (!n) {
		/* None taken: no room for the first record, or shut down. */
		n = m;
	}
out:
	/* Every way out: the batch as it is, whatever came after. */
	if (counted)
		posixtrace_drain_cut_done(dom);
	*bytes = taken;
	return n;
}

/*
 * One reader's turn: a batch of records into the bounce buffer
 * (posixtrace_stream_fill_batch()), copied out unless @mapped (the caller
 * reads them in its mapping of the buffer). Under the read lock: the
 * buffer is this reader's until the next turn. While it uses the buffer,
 * @reading keeps a shutdown from freeing it; shut down meanwhile, the
 * reader frees it when done.
 */
static int posixtrace_stream_read_once(struct posixtrace_stream *stream,
				       const struct posixtrace_getnext *gn,
				       size_t *bytes, u64 *map_offset,
				       struct posixtrace_batch_taken *taken)
{
	bool mapped = gn->flags & POSIXTRACE_GETNEXT_MAPPED;
	size_t room = stream->bounce_size;
	void *bounce;
	int n;

	if (!mapped)
		room = min_t(size_t, room, gn->buf_size);
	spin_lock(&stream->lock);
	stream->reading = true;
	bounce = stream->bounce;
	spin_unlock(&stream->lock);
	n = posixtrace_stream_fill_batch(stream, bounce, room, bytes);
	if (n > 0)
		posixtrace_batch_events(bounce, *bytes, taken);
	if (n > 0 && mapped) {
		*map_offset = 0;
	} else if (n > 0 && copy_to_user(u64_to_user_ptr(gn->buf), bounce,
					 *bytes)) {
		/* Out of the stream already: lost, and said to be. */
		posixtrace_stream_lose_taken(stream, taken);
		n = -EFAULT;
	}
	spin_lock(&stream->lock);
	stream->reading = false;
	posixtrace_stream_unlock_done(stream);
	return n;
}

/* Anything a reader can act on: an event, or the end of the stream. */
static bool posixtrace_stream_readable(struct posixtrace_stream *stream)
{
	return READ_ONCE(stream->buf.count) || READ_ONCE(stream->shut_down) ||
	       READ_ONCE(stream->sources_news);
}

/* Wait for posixtrace_stream_readable(), until @expires if given. */
static int posixtrace_stream_wait(struct posixtrace_stream *stream,
				  ktime_t *expires)
{
	DEFINE_WAIT(wait);
	int ret = 0;

	for (;;) {
		prepare_to_wait(&stream->wq, &wait, TASK_INTERRUPTIBLE);
		if (posixtrace_stream_readable(stream))
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!expires) {
			schedule();
		} else if (!schedule_hrtimeout_range_clock(expires, 0,
							   HRTIMER_MODE_ABS,
							   CLOCK_REALTIME)) {
			if (!posixtrace_stream_readable(stream))
				ret = -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&stream->wq, &wait);
	return ret;
}

/*
 * How long a reader waits before it makes the traced threads kick (the
 * enable page's wake): a reader that keeps up with busy threads finds
 * their records by then (their own kicks, every quarter of a ring, or the
 * timer) without one kick from them per record; a quiet thread's record
 * reaches a reader this soon after the wait began, not at the timer.
 */
#define POSIXTRACE_READ_WAKE_NS	NSEC_PER_MSEC

/**
 * posixtrace_stream_read - GETNEXT: the oldest records, to a reader
 * @stream: the stream
 * @gn: the request, its flags checked: the buffer, NONBLOCK or TIMED (and
 *	the deadline, CLOCK_REALTIME), or neither (wait as long as it takes);
 *	MAPPED: the batch stays in the bounce buffer, which the reader maps
 * @bytes: the bytes of the batch
 * @map_offset: where it is in the mapping (MAPPED); not set otherwise
 * @taken: what the batch holds, for posixtrace_stream_lose_taken() if
 *	   the caller cannot tell the reader of it
 *
 * Readers take turns (they share the bounce buffer). The deadline is
 * checked only when the call would wait, as POSIX has it.
 *
 * Return: the number of records (0: none, NONBLOCK), or -EINVAL (a
 * stream with a log, shut down, a bad deadline), -ENOSPC (the oldest
 * record does not fit), -EFAULT, -ERESTARTSYS or -ETIMEDOUT.
 */
int posixtrace_stream_read(struct posixtrace_stream *stream,
			   const struct posixtrace_getnext *gn, size_t *bytes,
			   u64 *map_offset, struct posixtrace_batch_taken *taken)
{
	ktime_t expires, soon, *timeout = NULL;
	bool waking = false, theirs;
	int ret;

	/* Its events go to the log; the log is what one reads. */
	if (stream->log)
		return -EINVAL;
	for (;;) {
		if (mutex_lock_interruptible(&stream->read_lock)) {
			ret = -ERESTARTSYS;
			break;
		}
		ret = posixtrace_stream_read_once(stream, gn, bytes, map_offset,
						  taken);
		mutex_unlock(&stream->read_lock);
		if (ret || (gn->flags & POSIXTRACE_GETNEXT_NONBLOCK))
			break;
		if ((gn->flags & POSIXTRACE_GETNEXT_TIMED) && !timeout) {
			if (gn->timeout_nsec >= NSEC_PER_SEC) {
				ret = -EINVAL;
				break;
			}
			/* Before the epoch has passed too; ktime_set() would wrap. */
			expires = gn->timeout_sec < 0 ? 0 :
				  ktime_set(gn->timeout_sec, gn->timeout_nsec);
			timeout = &expires;
		}
		/*
		 * A short wait first; then the traced threads kick at their
		 * next record, and what they committed before they could see
		 * that is taken by one more look, after which we wait for
		 * good. From the bump on, a kick counts us as waiting
		 * (readers_waking: it queues a drain even when it drops). A
		 * record committed as they looked may still wait for the
		 * timer (no barrier on their side).
		 */
		if (!waking) {
			soon = ktime_add_ns(ktime_get_real(),
					    POSIXTRACE_READ_WAKE_NS);
			theirs = timeout && ktime_before(*timeout, soon);
			ret = posixtrace_stream_wait(stream,
						     theirs ? timeout : &soon);
			if (ret == -ETIMEDOUT && !theirs) {
				atomic_inc(&stream->readers_waking);
				waking = true;
				posixtrace_links_wake_producers(stream);
			} else if (ret) {
				break;
			}
			continue;
		}
		ret = posixtrace_stream_wait(stream, timeout);
		if (ret)
			break;
		/* Woken: look; an empty look waits a short while again. */
		atomic_dec(&stream->readers_waking);
		waking = false;
	}
	if (waking)
		atomic_dec(&stream->readers_waking);
	return ret;
}

/* poll() on a stream's descriptor: readable, or hung up once shut down. */
__poll_t posixtrace_stream_poll(struct posixtrace_stream *stream,
				struct file *file, poll_table *wait)
{
	poll_wait(file, &stream->wq, wait);
	if (READ_ONCE(stream->shut_down))
		return EPOLLHUP | EPOLLERR;
	return READ_ONCE(stream->buf.count) || READ_ONCE(stream->sources_news) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

/* How large a mapping of the stream's batch buffer is. 0: none. */
size_t posixtrace_stream_map_size(const struct posixtrace_stream *stream)
{
	return stream->map_size;
}

/* A mapping split in two, or moved: one more to count. */
static void posixtrace_stream_vm_open(struct vm_area_struct *vma)
{
	struct posixtrace_stream *stream = vma->vm_private_data;

	spin_lock(&stream->lock);
	stream->vmas++;
	spin_unlock(&stream->lock);
}

/*
 * The last mapping of a stream shut down takes the buffer with it. Its
 * entries are gone by now: the mm core closes a mapping after it has
 * unmapped it (on 6.1 since 6.1.117, whose failed mmap_region() no longer
 * closes a mapping it has not unmapped).
 */
static void posixtrace_stream_vm_close(struct vm_area_struct *vma)
{
	struct posixtrace_stream *stream = vma->vm_private_data;

	spin_lock(&stream->lock);
	stream->vmas--;
	posixtrace_stream_unlock_done(stream);
}

/* No fault handler: every page is in from the start (SIGBUS otherwise). */
static const struct vm_operations_struct posixtrace_stream_vm_ops = {
	.open	= posixtrace_stream_vm_open,
	.close	= posixtrace_stream_vm_close,
};

/**
 * posixtrace_stream_mmap - map the stream's batch buffer for its reader
 * @stream: the stream, used by its creator (the caller checked)
 * @vma: the mapping: offset 0, posixtrace_stream_map_size(), shared,
 *	 read-only
 *
 * GETNEXT_MAPPED leaves its records there. Read-only for good, not
 * inherited by a child, not in a core dump. The buffer was zeroed when
 * made: nothing in it but this stream's records, which its reader may
 * read. The read lock is not taken (a reader holds it across faults, which
 * take the mmap lock we run under): @mappers keeps a shutdown from freeing
 * the buffer while the pages go in, @vmas while a mapping has them (the
 * mapping holds the stream's file); the last of a shutdown, a reader, an
 * mmap() and a mapping to be done frees it.
 *
 * Return: 0, -EINVAL (another shape; a stream with a log or shut down),
 * -EACCES (writable or executable), or remap_pfn_range()'s error.
 */
int posixtrace_stream_mmap(struct posixtrace_stream *stream,
			   struct vm_area_struct *vma)
{
	size_t size = stream->map_size, off;
	const u8 *buf;
	int ret = 0;

	if (!size || vma->vm_pgoff || !(vma->vm_flags & VM_MAYSHARE) ||
	    vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	spin_lock(&stream->lock);
	buf = stream->shut_down ? NULL : stream->bounce;
	if (buf)
		stream->mappers++;
	spin_unlock(&stream->lock);
	if (!buf)
		return -EINVAL;
	/*
	 * The pages by frame number, not by reference (remap_pfn_range()
	 * makes the mapping VM_IO and VM_PFNMAP, its entries special): no
	 * MADV_DOFORK undoing VM_DONTCOPY, and no get_user_pages(), fast or
	 * not, so nothing can pin them (vmsplice() into a pipe, say) past
	 * the mapping. So the buffer must outlive every mapping: @vmas.
	 */
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE | VM_MAYEXEC);
	/*
	 * A page at a time, a part of the mapping each (it is 64 KiB at
	 * least): x86's PAT only looks the memory type up, write-back RAM,
	 * and reserves nothing to release at unmap.
	 */
	for (off = 0; off < size && !ret; off += PAGE_SIZE)
		ret = remap_pfn_range(vma, vma->vm_start + off,
				      vmalloc_to_pfn(buf + off), PAGE_SIZE,
				      vma->vm_page_prot);
	/* Failed: none of it stays mapped once the buffer may go. */
	if (ret)
		zap_vma_ptes(vma, vma->vm_start, size);
	spin_lock(&stream->lock);
	stream->mappers--;
	if (!ret) {
		/* Counted from now: its close gives the slot back if due. */
		vma->vm_private_data = stream;
		vma->vm_ops = &posixtrace_stream_vm_ops;
		stream->vmas++;
	}
	posixtrace_stream_unlock_done(stream);
	return ret;
}
