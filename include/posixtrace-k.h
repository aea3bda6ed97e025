/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libposixtrace-k extensions beyond <trace.h>. Every name here starts with
 * posixtrace_k_ so it can never collide with a future POSIX name.
 */
#ifndef _POSIXTRACE_K_H
#define _POSIXTRACE_K_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The ABI version of the loaded module (see <linux/posixtrace.h>).
 * Returns 0, or an error number: ENOENT when the module is not loaded,
 * EACCES when /dev/posixtrace cannot be opened.
 */
int posixtrace_k_abi_version(unsigned int *major, unsigned int *minor);

#ifdef __cplusplus
}
#endif

#endif /* _POSIXTRACE_K_H */
