// SPDX-License-Identifier: GPL-2.0
/*
 * Writing trace logs: the file format of <linux/posixtrace_log.h> and the
 * log-full-policies.
 *
 *  - POSIXTRACE_APPEND: EVENTS blocks one after another, without limit.
 *  - POSIXTRACE_UNTIL_FULL: the same until the records written reach the
 *    log size; the last record is then a STOP ("auto" 2) and every later
 *    event is discarded (log overrun) until posix_trace_clear().
 *  - POSIXTRACE_LOOP: a ring of fixed-size slots after the header. The
 *    newest slot takes records until full; the next one is then reused,
 *    and the events it held are discarded (log overrun, log full). The
 *    log holds the most recent events, whole slots at a time.
 *
 * Crash safety: a sequential block is written in one go, so a log cut
 * short ends with at most one partial block, whose whole records readers
 * keep. A slot is first marked empty under its new sequence number, then
 * its records are written, then its header says how many bytes are valid:
 * a slot's header never covers bytes that are not yet written.
 *
 * Writes stand in for the creator's own write(2): they are made with its
 * credentials (so LSMs judge the creator, not whoever opened the file),
 * within its RLIMIT_FSIZE, and charged to its memory cgroup. The creator
 * gets no SIGXFSZ: the write is not its own call; EFBIG is reported as
 * any other write error is.
 */

#include <linux/cred.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>

#include "log.h"
#include "names.h"
#include "buf.h"
#include "user_gfp.h"

#define POSIXTRACE_LOG_HEADER_SIZE	sizeof(struct posixtrace_log_header)
#define POSIXTRACE_LOG_EVENTS_SIZE	sizeof(struct posixtrace_log_events)
#define POSIXTRACE_LOG_ENTRY_HEADER	sizeof(struct posixtrace_log_record)
/*
 * The data of a DEFINE entry (or a TYPES entry's define): the identifier,
 * the name and its NUL, then the format and its NUL if the type has one
 * (posixtrace_log_define_data()).
 */
/* A DEFINE entry whose data has @len bytes. */
#define POSIXTRACE_LOG_DEFINE_SIZE(len) \
	(POSIXTRACE_LOG_ENTRY_HEADER + ALIGN(len, 8))
#define POSIXTRACE_LOG_DEFINE_MAX \
	POSIXTRACE_LOG_DEFINE_SIZE(sizeof(__le32) + \
				   POSIXTRACE_EVENT_NAME_MAX + 1 + \
				   POSIXTRACE_FORMAT_MAX + 1)
/* A block is built in memory up to this size, and then written. */
#define POSIXTRACE_LOG_BUF_SIZE		((size_t)SZ_64K)
/* A slot of a LOOP log is no bigger, so that its offsets fit a u32. */
#define POSIXTRACE_LOG_SLOT_MAX		((u64)SZ_1G)

/* The largest thing placed in a block at once: a record and its DEFINE. */
static size_t posixtrace_log_unit_max(const struct posixtrace_attr *attr)
{
	return POSIXTRACE_LOG_DEFINE_MAX +
	       max_t(size_t, POSIXTRACE_RECORD_SIZE(attr->max_data_size),
		     POSIXTRACE_SYSTEM_RECORD_MAX);
}

static bool posixtrace_log_slotted(const struct posixtrace_log *log)
{
	return log->policy == POSIXTRACE_LOOP;
}

static loff_t posixtrace_log_slot_offset(const struct posixtrace_log *log,
					 u32 slot)
{
	return POSIXTRACE_LOG_HEADER_SIZE + (loff_t)slot * log->slot_size;
}

/*
 * LOOP: as many slots as fit, up to POSIXTRACE_LOG_SLOTS_MAX, each able to
 * hold the largest record; the region never exceeds the log size. Fewer
 * than two slots could not loop: EINVAL.
 */
static int posixtrace_log_slots(struct posixtrace_log *log,
				const struct posixtrace_attr *attr)
{
	u64 min_slot = ALIGN(POSIXTRACE_LOG_EVENTS_SIZE +
			     posixtrace_log_unit_max(attr), 8);
	u64 count = div64_u64(attr->log_size, min_slot);
	u64 size;

	if (count < 2)
		return -EINVAL;
	count = min_t(u64, count, POSIXTRACE_LOG_SLOTS_MAX);
	size = min(ALIGN_DOWN(div64_u64(attr->log_size, count), 8),
		   POSIXTRACE_LOG_SLOT_MAX);
	log->slot_count = count;
	log->slot_size = size;
	return 0;
}

/*
 * RLIMIT_FSIZE, as generic_write_checks() applies it to a write(2), but to
 * whole writes: a block that would cross the limit is not begun, so that a
 * log never ends with half a block the limit cut. The limit is current's:
 * the creator's in posix_trace_create_withlog(), and the flush thread's,
 * which mirrors the creator's, after that (flush.c).
 */
static int posixtrace_log_fsize_check(const struct posixtrace_log *log,
				      size_t len, loff_t pos)
{
	struct inode *inode = file_inode(log->file);
	unsigned long limit = rlimit(RLIMIT_FSIZE);

	if (!S_ISREG(inode->i_mode) || limit == RLIM_INFINITY)
		return 0;
	if (log->file->f_flags & O_APPEND)
		pos = i_size_read(inode);
	return pos + len > limit ? -EFBIG : 0;
}

/*
 * A write went as far as @end in a regular file (0: a file written without
 * positions, O_APPEND, where the file's size says). kernel_write() moved
 * @end past what it wrote.
 */
static void posixtrace_log_reached(struct posixtrace_log *log, loff_t end)
{
	struct inode *inode = file_inode(log->file);

	if (!S_ISREG(inode->i_mode))
		return;
	if (!end || (log->file->f_flags & O_APPEND))
		end = i_size_read(inode);
	log->written_end = max(log->written_end, end);
}

/*
 * Write @len bytes at @pos, as the creator's write(2) would. Returns 0, or
 * a negative errno; *@partial says whether some bytes went out before the
 * error. Once the watchdog gave up on the log (it made no progress, say
 * on a pipe nobody reads), nothing is written: -ETIMEDOUT.
 */
static int posixtrace_log_pwrite(struct posixtrace_log *log, const void *buf,
				 size_t len, loff_t pos, bool *partial)
{
	size_t done = 0, chunk = len;
	loff_t *ppos = &pos;
	const struct cred *old;
	ssize_t ret;

	*partial = false;
	if (READ_ONCE(log->abandoned))
		return -ETIMEDOUT;
	ret = posixtrace_log_fsize_check(log, len, pos);
	if (ret)
		return ret;
	/*
	 * A pipe or a socket is written a page at a time, so that a slow
	 * reader who does read shows as progress to the watchdog.
	 */
	if (!S_ISREG(file_inode(log->file)->i_mode))
		chunk = PAGE_SIZE;
	/*
	 * A file without pwrite() (a pipe, a socket, a tty) takes no
	 * position: a socket refuses any but 0 (ESPIPE).
	 */
	if (!(log->file->f_mode & FMODE_PWRITE))
		ppos = NULL;
	old = override_creds(log->cred);
	while (done < len) {
		ret = kernel_write(log->file, buf + done,
				   min(len - done, chunk), ppos);
		if (ret <= 0)
			break;
		done += ret;
		/* Pairs with READ_ONCE() in the watchdog. */
		WRITE_ONCE(log->progress, log->progress + 1);
	}
	revert_creds(old);
	if (done)
		posixtrace_log_reached(log, ppos ? pos : 0);
	*partial = done && done < len;
	if (done == len)
		return 0;
	/* The watchdog's SIGKILL cut it short: say why. */
	if (READ_ONCE(log->abandoned))
		return -ETIMEDOUT;
	if (ret == -ERESTARTSYS)
		return -EINTR;
	return ret < 0 ? ret : -EIO;
}

/*
 * A write failed: keep its error for posix_trace_get_status(), and stop
 * writing a sequential log it left half a block in, which no reader could
 * find its way past.
 */
static void posixtrace_log_failed(struct posixtrace_log *log, int err,
				  bool partial)
{
	if (!log->error)
		log->error = -err;
	log->overrun = true;
	if (partial && !posixtrace_log_slotted(log))
		log->broken = true;
}

static int posixtrace_log_write_at(struct posixtrace_log *log,
				   const void *buf, size_t len, loff_t pos)
{
	bool partial;
	int ret;

	/* Half a block, or a file we could not start again: see above. */
	if (log->broken)
		return -EIO;
	ret = posixtrace_log_pwrite(log, buf, len, pos, &partial);
	if (ret)
		posixtrace_log_failed(log, ret, partial);
	return ret;
}

/* Sequential: append a whole block. */
static int posixtrace_log_append(struct posixtrace_log *log, const void *buf,
				 size_t len)
{
	int ret;

	ret = posixtrace_log_write_at(log, buf, len, log->pos);
	if (!ret)
		log->pos += len;
	return ret;
}

static void posixtrace_log_attr(struct posixtrace_log_attr *dst,
				const struct posixtrace_attr *attr)
{
	memcpy(dst->name, attr->name, sizeof(dst->name));
	dst->stream_size = cpu_to_le64(attr->stream_size);
	dst->max_data_size = cpu_to_le64(attr->max_data_size);
	dst->log_size = cpu_to_le64(attr->log_size);
	dst->stream_full_policy = cpu_to_le32(attr->stream_full_policy);
	dst->log_full_policy = cpu_to_le32(attr->log_full_policy);
	dst->inheritance = cpu_to_le32(attr->inheritance);
	dst->clock_res_nsec = cpu_to_le32(1);
	dst->create_time_sec = cpu_to_le64(attr->create_time_sec);
	dst->create_time_nsec = cpu_to_le32(attr->create_time_nsec);
	dst->kernel_events = cpu_to_le32(attr->kernel_events);
}

/* The header, kept for a file cut under the writer (see below). */
static int posixtrace_log_write_header(struct posixtrace_log *log,
				       const struct posixtrace_attr *attr)
{
	struct posixtrace_log_header *hdr;
	bool partial;

	hdr = kzalloc(sizeof(*hdr), GFP_KERNEL);
	if (!hdr)
		return -ENOMEM;
	log->header = hdr;
	memcpy(hdr->magic, POSIXTRACE_LOG_MAGIC, POSIXTRACE_LOG_MAGIC_LEN);
	hdr->version_major = cpu_to_le16(POSIXTRACE_LOG_VERSION_MAJOR);
	hdr->version_minor = cpu_to_le16(POSIXTRACE_LOG_VERSION_MINOR);
	hdr->header_size = cpu_to_le32(sizeof(*hdr));
	hdr->byte_order = cpu_to_le32(POSIXTRACE_LOG_BYTE_ORDER);
	hdr->record_header_size = cpu_to_le32(POSIXTRACE_LOG_ENTRY_HEADER);
	if (posixtrace_log_slotted(log)) {
		hdr->layout = cpu_to_le32(POSIXTRACE_LOG_SLOTS);
		hdr->slot_size = cpu_to_le32(log->slot_size);
		hdr->slot_count = cpu_to_le32(log->slot_count);
	} else {
		hdr->layout = cpu_to_le32(POSIXTRACE_LOG_SEQUENTIAL);
	}
	/* A long kernel release is cut short: the field is informative. */
	scnprintf(hdr->genversion, sizeof(hdr->genversion),
		  "posixtrace %u.%u Linux %s", POSIXTRACE_ABI_MAJOR,
		  POSIXTRACE_ABI_MINOR, init_utsname()->release);
	posixtrace_log_attr(&hdr->attr, attr);
	/* Errors are the caller's here: no half-created log to report on. */
	return posixtrace_log_pwrite(log, hdr, sizeof(*hdr), 0, &partial);
}

/* Reserve the space up front, so that ENOSPC comes now, from create. */
static int posixtrace_log_reserve(struct posixtrace_log *log)
{
	loff_t len;
	int mode, ret;

	if (!S_ISREG(file_inode(log->file)->i_mode) ||
	    log->policy == POSIXTRACE_APPEND)
		return 0;
	if (posixtrace_log_slotted(log)) {
		mode = 0;
		len = posixtrace_log_slot_offset(log, log->slot_count);
	} else {
		mode = FALLOC_FL_KEEP_SIZE;
		len = POSIXTRACE_LOG_HEADER_SIZE + log->size;
	}
	ret = vfs_fallocate(log->file, mode, 0, len);
	/* The slots are the file's size now: a cut shows under it. */
	if (!ret && !mode)
		log->written_end = max(log->written_end, len);
	/* Not every file system can: the writes will tell then. */
	return ret == -EOPNOTSUPP || ret == -ENODEV ? 0 : ret;
}

/* An empty slot with the current epoch and sequence number. */
static int posixtrace_log_slot_header(struct posixtrace_log *log)
{
	struct posixtrace_log_events hdr = {
		.block.type = cpu_to_le32(POSIXTRACE_LOG_BLOCK_EVENTS),
		.block.size = cpu_to_le64(log->slot_size),
		.block_seq = cpu_to_le64(log->block_seq),
		.used = cpu_to_le64(log->slot_used),
		.epoch = cpu_to_le32(log->epoch),
		.count = cpu_to_le32(log->slot_records),
	};

	return posixtrace_log_write_at(log, &hdr, sizeof(hdr),
				       posixtrace_log_slot_offset(log, log->slot));
}

/* Zero every slot header: a reused file's old bytes must not read as slots. */
static int posixtrace_log_wipe_slots(struct posixtrace_log *log)
{
	static const struct posixtrace_log_events zero;
	bool partial;
	u32 i;
	int ret;

	for (i = 0; i < log->slot_count; i++) {
		ret = posixtrace_log_pwrite(log, &zero, sizeof(zero),
					    posixtrace_log_slot_offset(log, i),
					    &partial);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * posixtrace_log_open - take a descriptor as a stream's trace log
 * @log: the log to set up
 * @fd: the caller's descriptor
 * @attr: the stream's attributes (log-full-policy, log size)
 *
 * Takes a reference on the file, checks it can hold the policy, reserves
 * its space and writes the header.
 *
 * Return: 0, -EBADF (not open for writing), -EINVAL (a file the policy
 * cannot use, or a LOOP log too small for two slots), -ENOMEM, or the
 * error writing or reserving failed with (-ENOSPC, -EFBIG, -EIO...).
 */
int posixtrace_log_open(struct posixtrace_log *log, int fd,
			const struct posixtrace_attr *attr)
{
	struct file *file;
	int ret;

	memset(log, 0, sizeof(*log));
	log->policy = attr->log_full_policy;
	log->kernel_events = attr->kernel_events;
	log->size = attr->log_size;
	log->cred = get_current_cred();
	log->memcg = get_mem_cgroup_from_mm(current->mm);
	log->fsize_limit = rlimit(RLIMIT_FSIZE);
	file = fget(fd);
	if (!file)
		return -EBADF;
	log->file = file;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	/* kernel_write() needs write_iter: no log on /proc/PID/mem and such. */
	if (!file->f_op->write_iter)
		return -EINVAL;
	if (posixtrace_log_slotted(log)) {
		/* The slots are rewritten in place. */
		if (!S_ISREG(file_inode(file)->i_mode) ||
		    !(file->f_mode & FMODE_PWRITE) || (file->f_flags & O_APPEND))
			return -EINVAL;
		ret = posixtrace_log_slots(log, attr);
		if (ret)
			return ret;
	} else if (log->policy == POSIXTRACE_UNTIL_FULL &&
		   log->size < POSIXTRACE_STOP_RECORD_SIZE) {
		/* Not even the STOP that ends a full log fits. */
		return -EINVAL;
	}

	log->buf_size = max_t(size_t, POSIXTRACE_LOG_BUF_SIZE,
			      POSIXTRACE_LOG_EVENTS_SIZE +
			      posixtrace_log_unit_max(attr));
	log->buf = posixtrace_kvmalloc_user(log->buf_size, NUMA_NO_NODE);
	if (!log->buf)
		return -ENOMEM;
	ret = posixtrace_log_reserve(log);
	if (ret)
		return ret;
	ret = posixtrace_log_write_header(log, attr);
	if (ret)
		return ret;
	log->pos = POSIXTRACE_LOG_HEADER_SIZE;
	if (posixtrace_log_slotted(log)) {
		ret = posixtrace_log_wipe_slots(log);
		if (ret)
			return ret;
		/* Slot 0 exists from the start, empty, as the newest. */
		ret = posixtrace_log_slot_header(log);
		if (ret)
			return ret;
	} else {
		log->buf_len = POSIXTRACE_LOG_EVENTS_SIZE;
	}
	return 0;
}

/**
 * posixtrace_log_release - drop the file, the buffer and the creator's context
 * @log: the log, maybe half set up, maybe released already
 * @sync: close the file here, if ours is the last reference (only from a
 *	  kernel thread): a kernel thread's fput() is otherwise left to the
 *	  shared delayed_fput work, which a slow ->release (a socket that
 *	  lingers) would hold up for everyone
 */
void posixtrace_log_release(struct posixtrace_log *log, bool sync)
{
	if (log->file && sync)
		__fput_sync(log->file);
	else if (log->file)
		fput(log->file);
	log->file = NULL;
	kvfree(log->buf);
	log->buf = NULL;
	kfree(log->header);
	log->header = NULL;
	if (log->cred)
		put_cred(log->cred);
	log->cred = NULL;
	mem_cgroup_put(log->memcg);
	log->memcg = NULL;
}

/*
 * The data of a system event in the log's byte order: START and FILTER
 * carry event sets (64-bit words), ERROR and STOP an int.
 */
static void posixtrace_log_put_system_data(void *dst, u32 id, const void *src,
					   size_t len)
{
	size_t i;

	/* Records and their data are 8-byte aligned, here and in the buffer. */
	if ((id == POSIXTRACE_EVENT_START || id == POSIXTRACE_EVENT_FILTER) &&
	    IS_ALIGNED(len, 8)) {
		for (i = 0; i < len / 8; i++)
			((__le64 *)dst)[i] = cpu_to_le64(((const u64 *)src)[i]);
	} else if ((id == POSIXTRACE_EVENT_STOP ||
		    id == POSIXTRACE_EVENT_ERROR) && len == sizeof(u32)) {
		*(__le32 *)dst = cpu_to_le32(*(const u32 *)src);
	} else {
		memcpy(dst, src, len);
	}
}

/* Append a record (header @rec, data @data) to the block being built. */
static void posixtrace_log_put_record(struct posixtrace_log *log,
				      const struct posixtrace_record *rec,
				      const void *data)
{
	struct posixtrace_log_record *e = (void *)(log->buf + log->buf_len);
	size_t size = POSIXTRACE_RECORD_SIZE(rec->data_len);
	u8 *payload = (u8 *)e + sizeof(*e);

	e->size = cpu_to_le32(size);
	e->event_id = cpu_to_le32(rec->event_id);
	e->ts_sec = cpu_to_le64(rec->ts_sec);
	e->ts_nsec = cpu_to_le32(rec->ts_nsec);
	e->truncation = cpu_to_le32(rec->truncation);
	e->pid = cpu_to_le32(rec->pid);
	e->tid = cpu_to_le32(rec->tid);
	e->prog_address = cpu_to_le64(rec->prog_address);
	e->seq = cpu_to_le64(rec->seq);
	e->data_len = cpu_to_le32(rec->data_len);
	e->header_size = cpu_to_le32(sizeof(*e));
	e->thread = cpu_to_le64(rec->thread);
	if (rec->event_id < POSIXTRACE_EVENT_SYSTEM_MAX)
		posixtrace_log_put_system_data(payload, rec->event_id, data,
					       rec->data_len);
	else
		memcpy(payload, data, rec->data_len);
	memset(payload + rec->data_len, 0,
	       size - sizeof(*e) - rec->data_len);
	log->buf_len += size;
}

/* The data of the DEFINE of the type in log->name and log->format. */
static size_t posixtrace_log_define_data(const struct posixtrace_log *log)
{
	size_t flen = strlen(log->format);

	return sizeof(__le32) + strlen(log->name) + 1 + (flen ? flen + 1 : 0);
}

/*
 * Append a DEFINE entry naming @id, dated like @rec: log->name and
 * log->format.
 */
static void posixtrace_log_put_define(struct posixtrace_log *log, u32 id,
				      const struct posixtrace_record *rec)
{
	size_t len = strlen(log->name), flen = strlen(log->format);
	struct posixtrace_record def = {
		.event_id = POSIXTRACE_LOG_DEFINE,
		.ts_sec = rec->ts_sec,
		.ts_nsec = rec->ts_nsec,
		.data_len = posixtrace_log_define_data(log),
	};
	struct {
		__le32 id;
		char text[POSIXTRACE_EVENT_NAME_MAX + 1 +
			  POSIXTRACE_FORMAT_MAX + 1];
	} data;

	data.id = cpu_to_le32(id);
	memcpy(data.text, log->name, len + 1);
	/* After the name's NUL, where older readers stop reading. */
	if (flen)
		memcpy(data.text + len + 1, log->format, flen + 1);
	/* Not an event type: copied as bytes, the id already little-endian. */
	posixtrace_log_put_record(log, &def, &data);
}

/* The events the file holds now, of the current epoch. */
static u64 posixtrace_log_events_in_file(const struct posixtrace_log *log)
{
	u64 n;
	u32 i;

	if (!posixtrace_log_slotted(log))
		return log->events_in_file;
	/* The slot being filled has 0 there: its records are counted apart. */
	for (n = log->slot_records, i = 0; i < log->slot_count; i++)
		n += log->slot_events[i];
	return n;
}

/*
 * Someone who may write the file (its owner; logrotate's copytruncate)
 * cut it below what we wrote. What it held is gone, and a block written
 * at our offset would follow a hole that no reader gets past: the log
 * starts again in the emptied file, a header first, and the events it no
 * longer holds count as discarded. The write error is EIO, so that the
 * stream records an ERROR event, which starts the new log. A file that
 * cannot be emptied (a cut to a size other than 0, and truncate(2)
 * refused to the creator) is written no more, every later event counted
 * discarded.
 *
 * The check is made before each batch and each block or slot part is
 * written. A cut in the middle of a LOOP log's slot also takes the types
 * that slot named, which the part being built may use: that part is
 * dropped too (counted). The check is not atomic with the write: a
 * sequential log cut in between still gets a hole, the write extends the
 * file past it, and the cut goes unseen (a LOOP log's file, once its
 * slots are reserved, is never smaller than they are: the next check sees
 * it). An UNTIL_FULL log's room is not given back: posix_trace_clear()
 * does that.
 */
static void posixtrace_log_restart(struct posixtrace_log *log)
{
	struct inode *inode = file_inode(log->file);
	const struct cred *old;
	loff_t size;
	bool partial;
	long ret = 0;

	size = i_size_read(inode);
	if (!S_ISREG(inode->i_mode) || size >= log->written_end)
		return;
	log->events_discarded += posixtrace_log_events_in_file(log);
	log->events_in_file = 0;
	posixtrace_log_failed(log, -EIO, false);
	log->written_end = 0;
	if (size) {
		old = override_creds(log->cred);
		ret = vfs_truncate(&log->file->f_path, 0);
		revert_creds(old);
	}
	if (!ret)
		ret = posixtrace_log_reserve(log);
	if (!ret)
		ret = posixtrace_log_pwrite(log, log->header,
					    sizeof(*log->header), 0, &partial);
	log->broken = ret != 0;
	if (ret)
		return;
	log->block_seq++;
	bitmap_zero(log->defined, POSIXTRACE_EVENT_ID_MAX);
	if (!posixtrace_log_slotted(log)) {
		/* The block being built names its types: it goes first. */
		log->pos = POSIXTRACE_LOG_HEADER_SIZE;
		return;
	}
	/* Its earlier part is gone, and the types that part named. */
	log->events_discarded += log->buf_count;
	log->buf_count = 0;
	log->buf_len = 0;
	log->slot = 0;
	log->slot_used = 0;
	log->slot_records = 0;
	memset(log->slot_events, 0, sizeof(log->slot_events));
	log->full = false;	/* it has not come round in this file */
	log->broken = posixtrace_log_wipe_slots(log) ||
		      posixtrace_log_slot_header(log);
}

/* Write out the block being built (sequential) or the slot's new part. */
static void posixtrace_log_commit(struct posixtrace_log *log)
{
	struct posixtrace_log_events *hdr = (void *)log->buf;
	loff_t off;
	int ret;

	posixtrace_log_restart(log);
	if (posixtrace_log_slotted(log)) {
		if (!log->buf_len)
			return;
		off = posixtrace_log_slot_offset(log, log->slot) +
		      POSIXTRACE_LOG_EVENTS_SIZE + log->slot_used;
		ret = posixtrace_log_write_at(log, log->buf, log->buf_len, off);
		/*
		 * Readers find records through the slot's header: the records
		 * it does not cover are not in the log (they are counted
		 * discarded below), and the next write goes over them.
		 */
		if (!ret) {
			log->slot_used += log->buf_len;
			log->slot_records += log->buf_count;
			ret = posixtrace_log_slot_header(log);
			if (ret) {
				log->slot_used -= log->buf_len;
				log->slot_records -= log->buf_count;
			}
		}
		log->buf_len = 0;
	} else {
		if (log->buf_len == POSIXTRACE_LOG_EVENTS_SIZE)
			return;
		memset(hdr, 0, sizeof(*hdr));
		hdr->block.type = cpu_to_le32(POSIXTRACE_LOG_BLOCK_EVENTS);
		hdr->block.size = cpu_to_le64(log->buf_len);
		hdr->block_seq = cpu_to_le64(log->block_seq);
		hdr->used = cpu_to_le64(log->buf_len - sizeof(*hdr));
		hdr->epoch = cpu_to_le32(log->epoch);
		hdr->count = cpu_to_le32(log->buf_count);
		ret = posixtrace_log_append(log, log->buf, log->buf_len);
		log->block_seq++;
		log->buf_len = POSIXTRACE_LOG_EVENTS_SIZE;
		/* Every block can be read alone: it names what it uses. */
		bitmap_zero(log->defined, POSIXTRACE_EVENT_ID_MAX);
	}
	if (ret) {
		log->events_discarded += log->buf_count;
	} else {
		log->events_flushed += log->buf_count;
		log->events_in_file += log->buf_count;
	}
	log->buf_count = 0;
}

/* LOOP: move to the next slot, discarding the events it held. */
static void posixtrace_log_next_slot(struct posixtrace_log *log)
{
	log->slot_events[log->slot] = log->slot_records;
	log->slot = (log->slot + 1) % log->slot_count;
	if (!log->slot)
		log->full = true;	/* came round: it loops from now on */
	if (log->slot_events[log->slot]) {
		log->events_discarded += log->slot_events[log->slot];
		log->slot_events[log->slot] = 0;
		log->overrun = true;
	}
	log->block_seq++;
	log->slot_used = 0;
	log->slot_records = 0;
	bitmap_zero(log->defined, POSIXTRACE_EVENT_ID_MAX);
	/* Before any record goes in: the old header must not cover them. */
	posixtrace_log_slot_header(log);
}

/* Is there room for @need more bytes in the block or slot being built? */
static bool posixtrace_log_room(struct posixtrace_log *log, size_t need)
{
	if (!posixtrace_log_slotted(log))
		return log->buf_len + need <= log->buf_size;
	if (log->slot_used + log->buf_len + need >
	    log->slot_size - POSIXTRACE_LOG_EVENTS_SIZE)
		return false;
	/* The slot has room but the buffer not: write what it holds. */
	if (log->buf_len + need > log->buf_size)
		posixtrace_log_commit(log);
	return true;
}

/*
 * The bytes of the DEFINE @rec's type needs before it in the block being
 * built: 0 if the block named it already (or it has no name). Leaves the
 * name and format in log->name and log->format.
 */
static size_t posixtrace_log_define_need(struct posixtrace_log *log,
					 struct posixtrace_names *names,
					 u32 id)
{
	if (test_bit(id, log->defined) ||
	    posixtrace_names_name(names, log->kernel_events, id, log->name, log->format))
		return 0;
	return POSIXTRACE_LOG_DEFINE_SIZE(posixtrace_log_define_data(log));
}

/* Place @rec in the log, after a DEFINE naming its type if the block needs one. */
static void posixtrace_log_add(struct posixtrace_log *log,
			       struct posixtrace_names *names,
			       const struct posixtrace_record *rec,
			       const void *data)
{
	size_t define;

	define = posixtrace_log_define_need(log, names, rec->event_id);
	if (!posixtrace_log_room(log, define + rec->size)) {
		posixtrace_log_commit(log);
		if (posixtrace_log_slotted(log))
			posixtrace_log_next_slot(log);
		/* A new block: it names its types afresh. */
		define = posixtrace_log_define_need(log, names, rec->event_id);
	}
	if (define) {
		posixtrace_log_put_define(log, rec->event_id, rec);
		__set_bit(rec->event_id, log->defined);
	}
	posixtrace_log_put_record(log, rec, data);
	log->buf_count++;
}

/*
 * UNTIL_FULL: room for @rec and the STOP that ends a full log? If not, the
 * log is full: that STOP is written, dated and numbered as @rec, which is
 * discarded with everything after it.
 */
static bool posixtrace_log_take(struct posixtrace_log *log,
				struct posixtrace_names *names,
				const struct posixtrace_record *rec)
{
	struct posixtrace_record stop;
	u32 automatic = 2;

	if (log->policy != POSIXTRACE_UNTIL_FULL)
		return true;
	if (log->full)
		return false;
	if (log->bytes + rec->size + POSIXTRACE_STOP_RECORD_SIZE <= log->size) {
		log->bytes += rec->size;
		return true;
	}
	stop = (struct posixtrace_record) {
		.size = POSIXTRACE_STOP_RECORD_SIZE,
		.event_id = POSIXTRACE_EVENT_STOP,
		.ts_sec = rec->ts_sec,
		.ts_nsec = rec->ts_nsec,
		.seq = rec->seq,
		.data_len = sizeof(automatic),
		.header_size = sizeof(stop),
	};
	posixtrace_log_add(log, names, &stop, &automatic);
	log->bytes += stop.size;
	log->full = true;
	return false;
}

/**
 * posixtrace_log_write - write records taken from the stream
 * @log: the log
 * @names: the stream's table of event names
 * @recs: records as the buffer holds them, back to back
 * @bytes: their total size
 *
 * Errors are not returned: they are kept for posix_trace_get_status(), and
 * the events they cost counted as discarded.
 */
void posixtrace_log_write(struct posixtrace_log *log,
			  struct posixtrace_names *names, const u8 *recs,
			  size_t bytes)
{
	const struct posixtrace_record *rec;
	size_t off;

	/* Before anything is built: nothing of this batch is dropped then. */
	posixtrace_log_restart(log);
	for (off = 0; off < bytes; off += rec->size) {
		rec = (const void *)(recs + off);
		if (log->broken || READ_ONCE(log->abandoned) ||
		    !posixtrace_log_take(log, names, rec)) {
			log->events_discarded++;
			log->overrun = true;
			continue;
		}
		posixtrace_log_add(log, names, rec, (const u8 *)rec +
				   rec->header_size);
	}
	posixtrace_log_commit(log);
	WRITE_ONCE(log->progress, log->progress + 1);
}

/**
 * posixtrace_log_clear - posix_trace_clear() for the log
 * @log: the log
 *
 * Events already in the log are forgotten: a sequential log gets a CLEAR
 * block, which readers honour; a LOOP log starts again at slot 0 in a new
 * epoch. The space of an UNTIL_FULL log is all available again.
 */
void posixtrace_log_clear(struct posixtrace_log *log)
{
	struct posixtrace_log_block clear = {
		.type = cpu_to_le32(POSIXTRACE_LOG_BLOCK_CLEAR),
		.size = cpu_to_le64(sizeof(clear)),
	};

	posixtrace_log_restart(log);
	log->epoch++;
	log->block_seq++;
	log->events_in_file = 0;
	log->full = false;
	log->bytes = 0;
	log->buf_count = 0;
	bitmap_zero(log->defined, POSIXTRACE_EVENT_ID_MAX);
	if (posixtrace_log_slotted(log)) {
		log->buf_len = 0;
		log->slot = 0;
		log->slot_used = 0;
		log->slot_records = 0;
		memset(log->slot_events, 0, sizeof(log->slot_events));
		posixtrace_log_slot_header(log);
	} else {
		log->buf_len = POSIXTRACE_LOG_EVENTS_SIZE;
		posixtrace_log_append(log, &clear, sizeof(clear));
	}
}

/*
 * The TYPES block: every event type of the stream, system ones included,
 * each with its format if it has one.
 */
static void posixtrace_log_write_types(struct posixtrace_log *log,
				       struct posixtrace_names *names,
				       loff_t *pos)
{
	struct posixtrace_log_types *hdr;
	size_t size = sizeof(*hdr), len, entry, data;
	u32 id = 0, last = 0, count = 0;
	u8 *buf, *p;

	/*
	 * The traced process may open names, and give a name without a
	 * format one, while this runs. Names opened meanwhile are left out
	 * (the log has no event of them); every type counted here gets its
	 * room, a user type without a format room for the largest it may
	 * get: else a format given meanwhile could push types whose events
	 * the log holds out of the block, and readers, who prefer the block
	 * to the DEFINE entries, would lose their names.
	 */
	while (posixtrace_names_next(names, log->kernel_events, id, &id)) {
		if (!posixtrace_names_name(names, log->kernel_events, id, log->name, log->format)) {
			data = posixtrace_log_define_data(log);
			if (id >= POSIXTRACE_EVENT_USER_BASE && !log->format[0])
				data += POSIXTRACE_FORMAT_MAX + 1;
			size += ALIGN(sizeof(__le32) + data, 8);
			last = id;
		}
		id++;
	}
	buf = kvzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!buf) {
		posixtrace_log_failed(log, -ENOMEM, false);
		return;
	}
	len = sizeof(*hdr);
	for (id = 0; posixtrace_names_next(names, log->kernel_events, id, &id) && id <= last;
	     id++) {
		if (posixtrace_names_name(names, log->kernel_events, id, log->name, log->format))
			continue;
		entry = ALIGN(sizeof(__le32) + posixtrace_log_define_data(log),
			      8);
		/* Cannot happen (see above); the block stays well formed. */
		if (len + entry > size)
			break;
		p = buf + len;
		*(__le32 *)p = cpu_to_le32(entry);
		*(__le32 *)(p + 4) = cpu_to_le32(id);
		memcpy(p + 8, log->name, strlen(log->name));
		/* The name's NUL and the padding are the zeroes of kvzalloc. */
		memcpy(p + 8 + strlen(log->name) + 1, log->format,
		       strlen(log->format));
		len += entry;
		count++;
	}
	hdr = (void *)buf;
	hdr->block.type = cpu_to_le32(POSIXTRACE_LOG_BLOCK_TYPES);
	hdr->block.size = cpu_to_le64(len);
	hdr->count = cpu_to_le32(count);
	if (!posixtrace_log_write_at(log, buf, len, *pos))
		*pos += len;
	kvfree(buf);
}

/* The END block: the stream's final status, and the log's counts. */
static struct posixtrace_log_end *
posixtrace_log_end(const struct posixtrace_log *log,
		   const struct posixtrace_status *st,
		   const unsigned long *filter)
{
	u64 words[POSIXTRACE_EVENTSET_WORDS];
	struct posixtrace_log_end *end;
	struct timespec64 ts;
	int i;

	end = kzalloc(sizeof(*end), GFP_KERNEL);
	if (!end)
		return NULL;
	end->block.type = cpu_to_le32(POSIXTRACE_LOG_BLOCK_END);
	end->block.size = cpu_to_le64(sizeof(*end));
	end->stream_status = cpu_to_le32(POSIXTRACE_SUSPENDED);
	end->full_status = cpu_to_le32(st->full_status);
	end->overrun_status = cpu_to_le32(st->overrun_status);
	end->flush_error = cpu_to_le32(st->flush_error);
	end->log_overrun_status = cpu_to_le32(st->log_overrun_status);
	end->log_full_status = cpu_to_le32(st->log_full_status);
	end->events_recorded = cpu_to_le64(st->events_recorded);
	end->events_lost = cpu_to_le64(st->events_lost);
	bitmap_to_arr64(words, filter, POSIXTRACE_EVENT_ID_MAX);
	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		end->filter[i] = cpu_to_le64(words[i]);
	end->events_flushed = cpu_to_le64(log->events_flushed);
	end->events_discarded = cpu_to_le64(log->events_discarded);
	ktime_get_real_ts64(&ts);
	end->end_time_sec = cpu_to_le64(ts.tv_sec);
	end->end_time_nsec = cpu_to_le32(ts.tv_nsec);
	return end;
}

/**
 * posixtrace_log_close - end the log: the type table and the final status
 * @log: the log, every event already written
 * @names: the stream's table of event names
 * @st: the stream's final status
 * @filter: the filter in force at the end
 *
 * The caller then releases the log.
 *
 * Return: true if the END block was written, and with it the whole log.
 */
bool posixtrace_log_close(struct posixtrace_log *log,
			  struct posixtrace_names *names,
			  const struct posixtrace_status *st,
			  const unsigned long *filter)
{
	struct posixtrace_log_end *end;
	bool written = false;
	loff_t pos;

	posixtrace_log_commit(log);
	if (log->broken || READ_ONCE(log->abandoned))
		return false;
	pos = posixtrace_log_slotted(log) ?
	      posixtrace_log_slot_offset(log, log->slot_count) : log->pos;
	posixtrace_log_write_types(log, names, &pos);
	end = posixtrace_log_end(log, st, filter);
	if (!end) {
		posixtrace_log_failed(log, -ENOMEM, false);
		return false;
	}
	if (!posixtrace_log_write_at(log, end, sizeof(*end), pos)) {
		log->pos = pos + sizeof(*end);
		written = true;
	}
	kfree(end);
	return written;
}
