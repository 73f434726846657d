/*
 * The plugin registry: which plugins are loaded, which one serves each tag,
 * what they report, and unloading (PL-REG-1..3, PL-LOAD-7).
 * Uses, of the plugin files: plugin_call.c (errors) and
 * plugin_buffer_table.c (an unload orphans the live buffers,
 * hurray_plugin_outstanding counts them); no plugin file calls into it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"
#include "hurray/plugin_support.h"
#include "plugin_internal.h"

hurray_status hurray_plugin_registry_create(hurray_plugin_registry **out, hurray_error *err) {
  if (out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "out is NULL");
  }
  hurray_plugin_registry *registry = calloc(1, sizeof *registry);
  if (registry == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *registry, 0, 0,
                              "plugin registry");
  }
  /* Recursive: a discovery callback runs with the lock held and may query,
   * load or unload (PL-REG-3). */
  pthread_mutexattr_t attributes;
  bool locked = pthread_mutexattr_init(&attributes) == 0 &&
                pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE) == 0 &&
                pthread_mutex_init(&registry->lock, &attributes) == 0;
  pthread_mutexattr_destroy(&attributes);
  if (!locked) {
    free(registry);
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, 0, 0, 0, "plugin registry mutex");
  }
  *out = registry;
  return HURRAY_OK;
}

void hurray_plugin_retire_unlinked(hurray_plugin *plugin) {
  /* PL-LIFE-1: buffers and events a consumer still holds keep the plugin's
   * code and state alive; only the registry lets go of it here. */
  plugin->registry = NULL;
  hurray_plugin_orphan_buffers(plugin);
}

/* Unlinks `plugin`; if it served its tag, the most recently loaded plugin
 * left with the same tag serves it again (PL-REG-2). */
static void unlink_plugin(hurray_plugin_registry *registry, hurray_plugin *plugin) {
  if (plugin->prev != NULL) {
    plugin->prev->next = plugin->next;
  } else {
    registry->first = plugin->next;
  }
  if (plugin->next != NULL) {
    plugin->next->prev = plugin->prev;
  } else {
    registry->last = plugin->prev;
  }
  registry->count--;
  if (plugin->serves_tag) {
    for (hurray_plugin *p = registry->last; p != NULL; p = p->prev) {
      if (p->table.device_tag == plugin->table.device_tag) {
        p->serves_tag = true;
        break;
      }
    }
  }
}

void hurray_plugin_unload(hurray_plugin *plugin) {
  if (plugin == NULL) {
    return;
  }
  hurray_plugin_registry *registry = plugin->registry;
  pthread_mutex_lock(&registry->lock);
  unlink_plugin(registry, plugin);
  pthread_mutex_unlock(&registry->lock);
  hurray_plugin_retire_unlinked(plugin);
}

void hurray_plugin_registry_destroy(hurray_plugin_registry *registry) {
  if (registry == NULL) {
    return;
  }
  /* Last loaded first: a replacement goes before what it replaced. */
  while (registry->last != NULL) {
    hurray_plugin *plugin = registry->last;
    unlink_plugin(registry, plugin);
    hurray_plugin_retire_unlinked(plugin);
  }
  pthread_mutex_destroy(&registry->lock);
  free(registry);
}

/* The queries lock too: a load or unload on another thread relinks the list.
 * The lock is logically const (the registry's contents do not change). */
static void lock_registry(const hurray_plugin_registry *registry) {
  pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&registry->lock);
}
static void unlock_registry(const hurray_plugin_registry *registry) {
  pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&registry->lock);
}

size_t hurray_plugin_registry_count(const hurray_plugin_registry *registry) {
  if (registry == NULL) {
    return 0u;
  }
  lock_registry(registry);
  size_t count = registry->count;
  unlock_registry(registry);
  return count;
}

hurray_plugin *hurray_plugin_registry_at(const hurray_plugin_registry *registry, size_t index) {
  if (registry == NULL) {
    return NULL;
  }
  lock_registry(registry);
  hurray_plugin *p = registry->first;
  for (size_t i = 0; p != NULL && i < index; i++) {
    p = p->next;
  }
  unlock_registry(registry);
  return p;
}

hurray_plugin *hurray_plugin_registry_find(const hurray_plugin_registry *registry,
                                           hurray_device_tag device_tag) {
  if (registry == NULL) {
    return NULL;
  }
  lock_registry(registry);
  hurray_plugin *found = NULL;
  for (hurray_plugin *p = registry->first; p != NULL && found == NULL; p = p->next) {
    if (p->serves_tag && p->table.device_tag == device_tag) {
      found = p;
    }
  }
  unlock_registry(registry);
  return found;
}

const char *hurray_plugin_name(const hurray_plugin *plugin) { return plugin->table.name; }

const char *hurray_plugin_version(const hurray_plugin *plugin) {
  return plugin->table.plugin_version;
}

const char *hurray_plugin_path(const hurray_plugin *plugin) { return plugin->path; }

uint32_t hurray_plugin_abi_version(const hurray_plugin *plugin) {
  return plugin->table.abi_version;
}

hurray_device_tag hurray_plugin_device_tag(const hurray_plugin *plugin) {
  return plugin->table.device_tag;
}

hurray_bool32 hurray_plugin_serves_tag(const hurray_plugin *plugin) {
  return plugin->serves_tag ? HURRAY_TRUE : HURRAY_FALSE;
}

uint32_t hurray_plugin_device_count(const hurray_plugin *plugin) { return plugin->device_count; }

hurray_bool32 hurray_plugin_supports_events(const hurray_plugin *plugin) {
  return plugin->table.create_event != NULL ? HURRAY_TRUE : HURRAY_FALSE;
}

size_t hurray_plugin_outstanding(const hurray_plugin *plugin, size_t *buffers, size_t *events) {
  if (plugin == NULL) {
    return 0u;
  }
  /* Counts, not a snapshot under a lock: other threads may be allocating or
   * freeing. Buffers hold no count (PL-LIFE-1 is kept by the unload's scan),
   * so they are counted in the buffer table. */
  size_t live_events = atomic_load_explicit(&plugin->live_events, memory_order_relaxed);
  size_t live_buffers = hurray_plugin_live_buffers(plugin);
  if (buffers != NULL) {
    *buffers = live_buffers;
  }
  if (events != NULL) {
    *events = live_events;
  }
  return live_buffers + live_events;
}

size_t hurray_plugin_unavailable_reason(const hurray_plugin *plugin, char *buf, size_t cap) {
  if (cap > 0u) {
    buf[0] = '\0';
  }
  if (plugin->device_count > 0u) {
    return 0;
  }
  /* PL-AVAIL-2: the plugin writes into a buffer of the host's, which the
   * host terminates and measures: neither an unterminated text nor a length
   * the plugin made up reaches the caller. */
  char reason[HURRAY_SUPPORT_REASON_SIZE]; /* what a plugin keeps (plugin_support.h, CLI-DEV-5) */
  memset(reason, 0, sizeof reason);
  if (plugin->table.unavailable_reason != NULL) {
    (void)plugin->table.unavailable_reason(plugin->state, reason, sizeof reason);
    reason[sizeof reason - 1u] = '\0';
  }
  int n = reason[0] != '\0'
              ? snprintf(buf, cap, "%s", reason)
              : snprintf(buf, cap, "%s reports no devices and gives no reason", plugin->table.name);
  return n > 0 ? (size_t)n : 0u;
}

hurray_status hurray_plugin_describe_device(const hurray_plugin *plugin, uint32_t device_index,
                                            hurray_plugin_device_info *out, hurray_error *err) {
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 2u,
                              "hurray_plugin_describe_device: NULL argument");
  }
  hurray_status status =
      hurray_plugin_check_out_size(out, sizeof *out, 2, "hurray_plugin_device_info", err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = hurray_plugin_check_device(plugin, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_copy_out(out, &plugin->devices[device_index], sizeof *out);
  return HURRAY_OK;
}
