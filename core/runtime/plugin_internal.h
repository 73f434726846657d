/*
 * What the plugin loader, registry and buffer code share inside the library.
 * Not installed. Rules: specs/plugin-abi.md (PL-...).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_PLUGIN_INTERNAL_H
#define HURRAY_CORE_PLUGIN_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "hurray/plugin.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct hurray_plugin_buffer {
  hurray_plugin *plugin; /* kept loaded by the unload's orphan count (PL-LIFE-1) */
  hurray_plugin_allocation allocation;
  hurray_buffer_handle handle;
  /* The allocate() flags it was made with: export needs EXPORTABLE (PL-IPC-1, -2). */
  uint32_t flags;
};

struct hurray_plugin_event {
  hurray_plugin *plugin; /* holds one of its references (PL-LIFE-1) */
  void *native;
  uint32_t device_index;
  /* HURRAY_PLUGIN_EVENT_EXPORTABLE as created, or HURRAY_EVENT_IMPORTED:
   * export needs the first and refuses the second (PL-IPC-8). */
  uint32_t flags;
};

/* hurray_plugin_event.flags of an event opened by hurray_plugin_event_import:
 * a bit no creation flag will take (the host never passes it to a plugin). */
#define HURRAY_EVENT_IMPORTED 0x80000000u

struct hurray_plugin {
  hurray_plugin_registry *registry; /* NULL once unloaded */
  hurray_plugin *prev;
  hurray_plugin *next;
  void *library;             /* dlopen handle; NULL for hurray_plugin_load_linked */
  hurray_plugin_table table; /* normalised copy: fields past the plugin's struct_size are NULL */
  uint32_t declared_struct_size;
  void *state; /* what table.init returned */
  bool serves_tag;
  uint32_t device_count;
  hurray_plugin_device_info *devices; /* validated, device_count entries */
  /* PL-LIFE-1: one reference while loaded (dropped, once unloaded, by the
   * last orphaned buffer's free), one per live event; whoever drops the
   * last one shuts the plugin down and closes it. */
  _Atomic(size_t) references;
  _Atomic(size_t) live_events;
  /* Buffers live when the plugin was unloaded, plus one while the unload
   * counts them (hurray_plugin_orphan_buffers). */
  _Atomic(size_t) orphans;
  char path[PATH_MAX];
};

struct hurray_plugin_registry {
  pthread_mutex_t lock; /* guards the plugin list and tag service */
  hurray_plugin *first;
  hurray_plugin *last;
  size_t count;
};

/* Fills err like hurray_fail() and formats `detail`; returns status. */
hurray_status hurray_plugin_fail(hurray_error *err, hurray_status status, uint64_t value,
                                 uint64_t expected, size_t index, const char *format, ...)
    __attribute__((format(printf, 6, 7)));

/* PL-VER-5: INVALID_ARGUMENT (value: the caller's size, expected:
 * library_size, index: the argument) unless the struct_size at the start of
 * `out` covers at least the 8-byte header. */
hurray_status hurray_plugin_check_out_size(const void *out, size_t library_size, size_t index,
                                           const char *type_name, hurray_error *err);

/* The arguments of a query that fills `out` about `subject` (argument 0;
 * `out` is argument 1): NULL_ARGUMENT ("`who`: NULL argument") when either
 * is NULL, else hurray_plugin_check_out_size (PL-VER-5). */
hurray_status hurray_plugin_check_query(const void *subject, const void *out, size_t library_size,
                                        const char *type_name, const char *who, hurray_error *err);

/* Like hurray_plugin_fail, then names `path` in front of the reason,
 * shortening the path (never the reason) to fit (PL-LOAD-6). */
hurray_status hurray_plugin_fail_at(hurray_error *err, hurray_status status, uint64_t value,
                                    uint64_t expected, size_t index, const char *path,
                                    const char *format, ...) __attribute__((format(printf, 7, 8)));

/* Puts `path` in front of err->detail unless the detail already names it,
 * shortening the path, never the reason (PL-LOAD-6). */
void hurray_plugin_name_file(hurray_error *err, const char *path);

/* A plugin call goes through an error of the host's own (PL-CALL-3):
 *   hurray_error call_err; hurray_plugin_call_prepare(&call_err);
 *   s = hurray_plugin_call_result(name, "allocate", table.allocate(..., &call_err),
 *                                 &call_err, err);
 * The result is HURRAY_OK, or a defined failing status with `err` filled:
 * the plugin's error when it gave one (terminated by the host), a reason of
 * the host's when it gave none, DEVICE_ERROR for a status outside
 * hurray_status (PL-CALL-4). `who` (the plugin's name, or NULL while the
 * file is being loaded and its path is added afterwards) prefixes the host's
 * own reasons. `err` may be NULL. */
void hurray_plugin_call_prepare(hurray_error *call_err);
hurray_status hurray_plugin_call_result(const char *who, const char *entry, hurray_status returned,
                                        hurray_error *call_err, hurray_error *err);

/* The plugin files call one another one way only (no circle): registry ->
 * buffer table -> lifetime; buffer IPC -> buffers and buffer table;
 * buffers -> buffer table and lifetime; copies -> buffer table; events ->
 * lifetime; loader -> validate; all of them -> call. Each file's opening
 * comment says what it may use. */

/* plugin_registry.c. Ends a plugin's service (PL-LIFE-1): the caller holds
 * the registry lock and has unlinked the plugin. Drops the plugin's
 * "loaded" reference, so it is shut down and closed now if no buffer or
 * event is live, else when the last one is released. */
void hurray_plugin_retire_unlinked(hurray_plugin *plugin);

/* plugin_lifetime.c. Drops one reference; the last one shuts the plugin
 * down, closes the library and frees the plugin (PL-LIFE-1). */
void hurray_plugin_drop_reference(hurray_plugin *plugin);

/* plugin_buffer_table.c. PL-LIFE-1, once, when the registry lets go of
 * `plugin`: marks each of its live buffers orphan and hands the registry's
 * reference to them; it is dropped now when there is none, else by the last
 * one's free. Waits out a free that is inside the plugin's free entry. */
void hurray_plugin_orphan_buffers(hurray_plugin *plugin);

/* plugin_lifetime.c. One orphan is gone (or the unload's own hold); the
 * last drops the registry's reference. */
void hurray_plugin_drop_orphan(hurray_plugin *plugin);

/* plugin_buffer_table.c. The buffers of `plugin` that are live (allocated,
 * not yet freed): a scan of the buffer table. */
size_t hurray_plugin_live_buffers(const hurray_plugin *plugin);

/* INVALID_ARGUMENT (index 1: the device argument) unless `device_index`
 * names one of the plugin's devices. Inline: allocation runs it on every
 * buffer (bench_plugin_alloc). */
static inline hurray_status hurray_plugin_check_device(const hurray_plugin *plugin,
                                                       uint32_t device_index, hurray_error *err) {
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  return HURRAY_OK;
}

/* plugin_buffers.c: allocates (`memory` NULL) or imports `memory` into a
 * new buffer once the caller's arguments are checked (PL-ALLOC-1..5,
 * PL-IPC-3, PL-IPC-4). */
hurray_status hurray_plugin_make_buffer(hurray_plugin *plugin, uint32_t device_index,
                                        uint64_t byte_size, uint32_t alignment,
                                        hurray_memory_class memory_class, uint32_t flags,
                                        const hurray_plugin_ipc_memory *memory,
                                        hurray_plugin_buffer **out, hurray_error *err);

/* Loads and initialises the plugin at `path` into the registry; the caller
 * holds the registry lock. */
hurray_status hurray_plugin_load_locked(hurray_plugin_registry *registry, const char *path,
                                        uint32_t flags, hurray_plugin **out, hurray_error *err);

/* Loads a plugin that is linked into the process rather than a file: the
 * loader from the entry call on (PL-LOAD-5 after the entry symbol: the
 * table, the duplicate tag, init, the devices), exactly as for a file, with
 * `name` where a file's path would be named and no dlclose at the end.
 * Not exported (libhurray's symbols are hidden unless HURRAY_API): it is
 * the seam through which fuzz/fuzz_plugin_host.c drives the host with a
 * plugin whose answers come from the fuzzer; the path checks and dlopen of
 * a real load (PL-LOAD-1..4, PL-ENTRY-3..5) are not on that path. */
hurray_status hurray_plugin_load_linked(hurray_plugin_registry *registry, const char *name,
                                        hurray_plugin_entry_fn entry, uint32_t flags,
                                        hurray_plugin **out, hurray_error *err);

#endif /* HURRAY_CORE_PLUGIN_INTERNAL_H */
