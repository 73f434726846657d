/*
 * Loading a vendor runtime in one step (PL-BUILD-1: a plugin links no
 * vendor library; PL-AVAIL-1: a runtime that cannot be loaded leaves the
 * plugin with zero devices and the reason): hurray_support_open_runtime, then
 * hurray_support_resolve_symbols on the table, and on a failure of either the
 * library closed again and the table cleared. In-tree plugins only; not
 * installed (vendors call the two steps of plugin_support.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_RUNTIME_LOADER_H
#define HURRAY_PLUGINS_COMMON_RUNTIME_LOADER_H

#include <stddef.h>

#include "hurray/plugin_support.h"

/* The runtime's handle, with every required symbol in its slot (an
 * optional one the runtime lacks is NULL). NULL on failure, every slot NULL,
 * and `reason` naming each file tried and why, or the missing symbol and
 * the file it was looked up in. *out_library: the file tried last. */
void *plugin_load_runtime(const char *override_env, const char *const *default_names,
                          size_t default_count, int extra_flags,
                          const hurray_support_symbol *symbols, size_t symbol_count,
                          const char **out_library, char *reason, size_t reason_size);

#endif
