/*
 * The interprocess event of a GPU compute runtime (the CUDA driver, HIP):
 * an opaque handle the runtime gives for an event made interprocess, which
 * another process opens as an event of its own (PL-IPC-8, PL-IPC-9). The
 * cuda and rocm plugins fill and check the handle here; the vendor calls
 * stay in each plugin. In-tree plugins only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_GPU_IPC_EVENT_H
#define HURRAY_PLUGINS_COMMON_GPU_IPC_EVENT_H

#include <stddef.h>

#include "hurray/plugin_vendor.h"

/* PL-IPC-8: the export of the runtime's `handle_size`-byte event handle. */
void plugin_gpu_exported_event(const void *handle, size_t handle_size,
                               hurray_plugin_ipc_event *out);

/* PL-IPC-9: an import must be a `handle_size`-byte handle, the size of the
 * runtime's `handle_type`; INVALID_ARGUMENT otherwise. */
hurray_status plugin_gpu_check_event_import(const char *plugin_name, const char *handle_type,
                                            const hurray_plugin_ipc_event *in, size_t handle_size,
                                            hurray_error *err);

#endif
