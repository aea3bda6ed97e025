/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _POSIXTRACE_K_INTERNAL_H
#define _POSIXTRACE_K_INTERNAL_H

/* Symbols are hidden by default (-fvisibility=hidden); the map decides too. */
#define PTK_EXPORT __attribute__((visibility("default")))

int ptk_device_fd(int *fd);
int ptk_ioctl(int fd, unsigned long cmd, void *arg);

#endif /* _POSIXTRACE_K_INTERNAL_H */
