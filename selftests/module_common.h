/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and unloading the module from a test, as the guest's init.sh
 * loaded it (/posixtrace/posixtrace.ko, with the parameters it set), for
 * the tests that unload it (fault_load_test, unload_test). A test that
 * unloads it loads it again before it ends, with the same parameters.
 */
#ifndef MODULE_COMMON_H
#define MODULE_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MODULE_PATH	"/posixtrace/posixtrace.ko"
#define PARAMS_DIR	"/sys/module/posixtrace/parameters"

/* The first line of @path into @text (its newline cut); false if none. */
static inline bool module_read_line(const char *path, char *text,
				    size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(text, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		text[strcspn(text, "\n")] = '\0';
	return ok;
}

/*
 * The module's parameters as loaded, "name=value ...", into @params: the
 * ones the guest's init.sh may set.
 */
static inline void module_params(char *params, size_t size)
{
	static const char *const names[] = { "max_ring_size" };
	char path[128], value[64];
	size_t i, len = 0;

	params[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), PARAMS_DIR "/%s", names[i]);
		if (module_read_line(path, value, sizeof(value)))
			len += snprintf(params + len, size - len, "%s%s=%s",
					len ? " " : "", names[i], value);
	}
}

/* finit_module() of MODULE_PATH: 0 or the errno. */
static inline int module_load(const char *params)
{
	int fd = open(MODULE_PATH, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
	close(fd);
	return ret;
}

/* delete_module(), not waiting: 0, or EWOULDBLOCK while it is in use. */
static inline int module_unload(void)
{
	return syscall(SYS_delete_module, "posixtrace", O_NONBLOCK) ? errno : 0;
}

/* Nothing of the module is left: its device, its sysfs directory. */
static inline bool module_gone(void)
{
	return access("/dev/posixtrace", F_OK) &&
	       access("/sys/module/posixtrace", F_OK);
}

/* Loaded and working: its device opens. */
static inline bool module_works(void)
{
	int fd = open("/dev/posixtrace", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#endif /* MODULE_COMMON_H */
