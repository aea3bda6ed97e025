// SPDX-License-Identifier: GPL-2.0
/* Writing a command's one output file whole (output.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* The process's umask, which only umask() tells (it sets it too). */
static mode_t umask_now(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* @fill into @fp, which is then closed (@close) or flushed. */
static int fill_into(FILE *fp, bool close, int (*fill)(FILE *, void *),
		     void *arg)
{
	int err = fill(fp, arg);

	/* What is still buffered fails here, on a full disk or /dev/full. */
	if (fflush(fp) && !err)
		err = errno;
	if (!err && ferror(fp))
		err = EIO;
	if (close && fclose(fp) && !err)
		err = errno;
	return err;
}

int write_output(const char *path, bool force,
		 int (*fill)(FILE *fp, void *arg), void *arg)
{
	struct stat st;
	char *target, *tmp = NULL;
	bool exists;
	mode_t mode;
	FILE *out;
	int err, fd;

	if (!strcmp(path, "-"))
		return fill_into(stdout, false, fill, arg);
	exists = !stat(path, &st);
	if (exists && !S_ISREG(st.st_mode)) {
		out = fopen(path, "w");
		if (!out)
			return errno;
		return fill_into(out, true, fill, arg);
	}
	if (exists && !force)
		return EEXIST;
	target = exists ? realpath(path, NULL) : strdup(path);
	if (!target)
		return errno;
	/* Its permissions, not its set-id bits: the content is new. */
	mode = exists ? st.st_mode & 0777 : 0666 & ~umask_now();
	err = asprintf(&tmp, "%s.XXXXXX", target) < 0 ? ENOMEM : 0;
	fd = err ? -1 : mkstemp(tmp);
	if (!err && fd < 0)
		err = errno;
	if (!err && fchmod(fd, mode))
		err = errno;
	out = err ? NULL : fdopen(fd, "w");
	if (!err && !out)
		err = errno;
	if (err && fd >= 0)
		close(fd);
	if (!err)
		err = fill_into(out, true, fill, arg);
	/* Not over a file that appeared meanwhile, unless told to. */
	if (!err && (force ? rename(tmp, target) :
		     renameat2(AT_FDCWD, tmp, AT_FDCWD, target,
			       RENAME_NOREPLACE)))
		err = errno;
	if (err && tmp && fd >= 0)
		unlink(tmp);
	free(tmp);
	free(target);
	return err;
}
