// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a trace log: pread() only, so the descriptor's offset is neither
 * used nor moved, and never a byte past the size the file had at
 * posix_trace_open(). Small reads (headers, entries) are served from a
 * window of the file read ahead, so that reading a log costs one system
 * call per window rather than two per event.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define PTK_LOG_WINDOW	(64 * 1024)

/* Reads up to len bytes at pos into dst: fewer only at the end of file. */
static int ptk_pread_full(struct ptk_log *l, uint64_t pos, void *dst,
			  size_t len, size_t *got)
{
	unsigned char *p = dst;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(l->fd, p + done, len - done, (off_t)(pos + done));
		if (n < 0) {
			if (errno == EINTR && !l->report_eintr)
				continue;
			return errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

/*
 * Copies the len bytes at pos into dst. Returns 0, PTK_LOG_SHORT if they
 * are not all in the file, or an error number. Called with l->lock held
 * (or before the log is published).
 */
int ptk_log_read(struct ptk_log *l, uint64_t pos, void *dst, size_t len)
{
	size_t got, want;
	int err;

	/* pos + len <= file_size, without overflow: off_t holds them. */
	if (len > l->file_size || pos > l->file_size - len)
		return PTK_LOG_SHORT;
	if (!len)
		return 0;
	if (l->win_len && pos >= l->win_pos &&
	    pos - l->win_pos <= l->win_len &&
	    len <= l->win_len - (pos - l->win_pos)) {
		memcpy(dst, l->win + (pos - l->win_pos), len);
		return 0;
	}
	/* Large data goes straight to the caller. */
	if (len > PTK_LOG_WINDOW / 2) {
		err = ptk_pread_full(l, pos, dst, len, &got);
		if (err)
			return err;
		return got == len ? 0 : PTK_LOG_SHORT;
	}
	/* Never more than the file: a small log costs a small window. */
	if (!l->win) {
		l->win_size = l->file_size < PTK_LOG_WINDOW ?
			      (uint32_t)l->file_size : PTK_LOG_WINDOW;
		l->win = malloc(l->win_size);
		if (!l->win)
			return ENOMEM;
	}
	want = l->file_size - pos < l->win_size ?
	       (size_t)(l->file_size - pos) : l->win_size;
	l->win_len = 0;
	err = ptk_pread_full(l, pos, l->win, want, &got);
	if (err)
		return err;
	l->win_pos = pos;
	l->win_len = (uint32_t)got;
	/* The file shrank since open: what is gone reads as the end. */
	if (got < len)
		return PTK_LOG_SHORT;
	memcpy(dst, l->win, len);
	return 0;
}
