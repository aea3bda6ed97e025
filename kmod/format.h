/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_FORMAT_H
#define _POSIXTRACE_FORMAT_H

int posixtrace_format_check(const char *format);

#endif /* _POSIXTRACE_FORMAT_H */
