/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_STREAM_FILE_H
#define _POSIXTRACE_STREAM_FILE_H

#include <linux/fs.h>

/* A trace stream's descriptor (its private_data is the stream). */
extern const struct file_operations posixtrace_stream_fops;

#endif /* _POSIXTRACE_STREAM_FILE_H */
