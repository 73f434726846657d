/*
 * A loaded plugin's references (PL-LIFE-1): the last one dropped shuts the
 * plugin down, closes its library and frees it; and the orphan count through
 * which the buffers live at its unload hold the registry's reference.
 * The lowest of the plugin files: it uses none of the others, and the
 * registry, the buffer table and the events use it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"

void hurray_plugin_drop_reference(hurray_plugin *plugin) {
  /* acq_rel: the thread that frees the plugin sees every write made by the
   * threads that dropped their references before it. */
  if (atomic_fetch_sub_explicit(&plugin->references, 1u, memory_order_acq_rel) != 1u) {
    return;
  }
  plugin->table.shutdown(plugin->state);
  free(plugin->devices);
  if (plugin->library != NULL) { /* NULL: linked into the process (hurray_plugin_load_linked) */
    dlclose(plugin->library);
  }
  free(plugin);
}

void hurray_plugin_drop_orphan(hurray_plugin *plugin) {
  /* acq_rel: whoever closes the plugin sees every orphan's free done. */
  if (atomic_fetch_sub_explicit(&plugin->orphans, 1u, memory_order_acq_rel) == 1u) {
    hurray_plugin_drop_reference(plugin); /* the registry's, held for the orphans */
  }
}
