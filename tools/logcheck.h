/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What of a trace log the library cannot read, and why. The library reads
 * a damaged log as a shorter one and says nothing (a log cut short is
 * normal after a crash), nor whether the log has its END block, without
 * which the status it reports is a guess. A reader that prints a log owes
 * its user both: this walks the log's blocks and entries by the rules of
 * Documentation/userspace-api/posixtrace-log.rst ("Reading a log"), as the
 * library does, and counts the bytes it leaves unread.
 */
#ifndef POSIXTRACE_TOOL_LOGCHECK_H
#define POSIXTRACE_TOOL_LOGCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum log_loss_kind {
	LOG_CUT_SHORT,		/* the file ends inside a block (first: it) */
	LOG_BAD_RECORD,		/* an entry breaks the rules: its block ends */
	LOG_BAD_BLOCK,		/* a block header breaks them: the log ends */
	LOG_AFTER_END,		/* bytes after the END block */
	LOG_LOSS_KINDS
};

struct log_loss {
	uint64_t bytes;		/* of the file, not read (a cut: maybe 0) */
	uint64_t places;	/* how many places lost them */
	uint64_t first;		/* the file offset of the first */
};

struct log_damage {
	/* An END block was read: the final status is the log's own. */
	bool has_end;
	struct log_loss loss[LOG_LOSS_KINDS];
};

/* The exit status of a command that read a damaged log to its end. */
#define EXIT_DAMAGED	3

/*
 * Checks the log open on fd, whose header the library accepted. Returns 0,
 * or an error number (a read error; EINVAL: no log after all).
 */
int log_check(int fd, struct log_damage *d);

/*
 * Whether anything was lost: a log ending between two blocks is only
 * incomplete (its writer stopped there); one ending inside a block, even
 * right after a whole entry, was cut short.
 */
bool log_damaged(const struct log_damage *d);

/* Every byte not read. */
uint64_t log_damage_bytes(const struct log_damage *d);

/*
 * "cut short in the block at offset 4096"; "2 bad records, the first at
 * offset 264 (320 bytes); cut short in the block at offset 4096 (57
 * bytes)": each kind of loss in the order of enum log_loss_kind, with
 * its bytes when there are two kinds.
 */
void log_damage_print(FILE *out, const struct log_damage *d);

/*
 * The one warning a command gives, on stderr, for a damaged log:
 * "PROG: warning: PATH: N bytes not read: " and log_damage_print()'s text.
 */
void log_damage_warn(const char *prog, const char *path,
		     const struct log_damage *d);

struct log_reader;

/*
 * log_open() then log_check(), for the commands that read a whole log:
 * 0, or 1 with what went wrong said on stderr (the log closed).
 */
int log_open_checked(struct log_reader *lr, const char *path,
		     const char *prog, struct log_damage *d);

#endif /* POSIXTRACE_TOOL_LOGCHECK_H */
