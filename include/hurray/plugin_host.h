/*
 * libhurray device plugins, the host side: what an application calls to
 * validate plugin tables, load plugins into a registry, and allocate, copy
 * and free buffers and events through them (PL-LOAD, PL-REG, PL-ALLOC,
 * PL-LIFE, ...). Implemented by libhurray. It includes the vendor side,
 * hurray/plugin_vendor.h, for the types both sides share; a plugin never
 * includes this header (PL-BUILD-2). hurray/plugin.h includes both.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_HOST_H
#define HURRAY_PLUGIN_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/plugin_vendor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Table validation: pure, bytes in (for the loader and for fuzzing)        */
/* ------------------------------------------------------------------------ */

/**
 * Validates a plugin table given as raw bytes, as a host speaking
 * `host_abi_version` would, and writes the normalised table to *out: the
 * fields that lie wholly in the first min(struct_size,
 * sizeof(hurray_plugin_table)) bytes of `bytes`, the rest zero (fields the
 * plugin does not have, and an entry its struct_size covers only in part,
 * read as NULL: PL-NEG-4, PL-TABLE-8). Pure: reads only
 * bytes[0..len), never dereferences a pointer it finds there (the name and
 * version strings are checked by hurray_plugin_table_check_strings()),
 * allocates nothing, keeps no state. Any byte content is safe to pass.
 *
 * Checks, first failure wins (PL-NEG-1..5, PL-TABLE-1..8):
 *   1. len >= 8 (struct_size and abi_version present): TRUNCATED (value: len,
 *      expected: 8).
 *   2. ABI major == host major: PLUGIN_ABI_MISMATCH (value: the table's
 *      abi_version, expected: host_abi_version).
 *   3. struct_size >= HURRAY_PLUGIN_TABLE_MIN_SIZE: PLUGIN_INVALID (value:
 *      struct_size, expected: the minimum).
 *   4. len >= min(struct_size, sizeof(hurray_plugin_table)): TRUNCATED
 *      (value: len, expected: bytes needed).
 *   5. device_tag named or private: PLUGIN_INVALID (value: the tag; index:
 *      its offset).
 *   6. reserved bytes zero: PLUGIN_INVALID (value: the byte; index: offset).
 *   7. name and plugin_version non-NULL: PLUGIN_INVALID (index: the field's
 *      byte offset in the table).
 *   8. every required entry non-NULL: PLUGIN_INVALID (index: the field's byte
 *      offset; detail names the entry).
 *   9. create/record/wait/release_event all set or all NULL: PLUGIN_INVALID
 *      (index: the offset of the first NULL one).
 *  10. stream_wait_event set only with the event entries: PLUGIN_INVALID.
 *  11. native_event set only with the event entries: PLUGIN_INVALID.
 *  12. export_memory and import_memory both set or both NULL: PLUGIN_INVALID
 *      (index: the offset of the NULL one, PL-IPC-5).
 * On failure *out is left untouched; `detail` names the field.
 * The caller sets out->struct_size to the size of the table it knows
 * (sizeof(hurray_plugin_table)); at most that many bytes are written and
 * out->struct_size is kept (PL-VER-5); below 8 is INVALID_ARGUMENT (index 3).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_table_validate(const void *bytes,
                                                                       size_t len,
                                                                       uint32_t host_abi_version,
                                                                       hurray_plugin_table *out,
                                                                       hurray_error *err);

/**
 * Checks the strings a validated table points to: name matches
 * [a-z0-9_-]{1,31}, plugin_version is 1..31 printable ASCII bytes
 * (PL-TABLE-4). Reads at most 32 bytes of each. PLUGIN_INVALID otherwise
 * (index: the field's offset).
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_table_check_strings(const hurray_plugin_table *table, hurray_error *err);

/**
 * Checks a device description against the plugin's tag (PL-DEV-1..3,
 * PL-DEV-5): 1..8 classes, each valid with the tag (BP-PAIR-1), none twice,
 * each max_alignment a power of two >= 64, reserved bytes zero, a
 * host-access flag that agrees with the class (always for the CPU device,
 * host_pinned and unified; never for peer), ipc_capabilities only known
 * bits, name NUL-terminated. PLUGIN_INVALID (value: the offending value;
 * index: the class entry) otherwise. Pure.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_device_info_validate(
    const hurray_plugin_device_info *info, hurray_device_tag device_tag, hurray_error *err);

/* ======================================================================== */
/* Part 2: the host API (loader, registry, buffers, events)                 */
/* ======================================================================== */

/** A set of loaded plugins; at most one serves each device tag. */
typedef struct hurray_plugin_registry hurray_plugin_registry;
/** One loaded and initialised plugin, owned by its registry. */
typedef struct hurray_plugin hurray_plugin;
/** One allocation made through a plugin. */
typedef struct hurray_plugin_buffer hurray_plugin_buffer;
/** One event made through a plugin. */
typedef struct hurray_plugin_event hurray_plugin_event;

/** Environment variable: colon-separated absolute directories searched first. */
#define HURRAY_PLUGIN_PATH_ENV "HURRAY_PLUGIN_PATH"
/** Plugin files are named HURRAY_PLUGIN_FILE_PREFIX <name> HURRAY_PLUGIN_FILE_SUFFIX. */
#define HURRAY_PLUGIN_FILE_PREFIX "hurray-plugin-"
#define HURRAY_PLUGIN_FILE_SUFFIX ".so"

/** hurray_plugin_load() flags. */
/** The caller chooses this plugin for its tag even if another one serves it
 * already; the earlier one stays loaded but no longer serves the tag (PL-REG-2). */
#define HURRAY_PLUGIN_LOAD_REPLACE_TAG 0x1u

/** Creates an empty registry. OUT_OF_MEMORY on failure. */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_registry_create(hurray_plugin_registry **out, hurray_error *err);

/** Unloads every plugin (hurray_plugin_unload) and frees the registry.
 * Buffers and events still live keep their plugin's code loaded until they
 * are released (PL-LIFE-1). NULL is accepted. */
HURRAY_API void hurray_plugin_registry_destroy(hurray_plugin_registry *registry);

/**
 * Loads the plugin at `path` (absolute) into the registry and initialises it
 * (PL-LOAD-1..6). Refusals, each naming the file and reason in err->detail:
 * PLUGIN_UNSAFE_PATH (relative path; file or a directory above it writable by
 * someone other than its owner; owner neither root nor the caller; not a
 * regular file), PLUGIN_LOAD_FAILED (dlopen error, missing entry symbol, the
 * entry symbol defined by another library), PLUGIN_ABI_MISMATCH (majors
 * differ, or the entry declined this host by returning NULL), PLUGIN_INVALID (the table, its
 * strings or a device description), PLUGIN_DUPLICATE_TAG (value: the tag; the plugin serving it is
 * named) unless flags has HURRAY_PLUGIN_LOAD_REPLACE_TAG, or the plugin's init error. Nothing stays
 * loaded after a refusal.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_load(hurray_plugin_registry *registry,
                                                             const char *path, uint32_t flags,
                                                             hurray_plugin **out,
                                                             hurray_error *err);

/**
 * Finds "hurray-plugin-<name>.so" in the search path (hurray_plugin_search_path())
 * and loads the first one found. PLUGIN_LOAD_FAILED when none exists (detail:
 * the directories tried); a relative directory in HURRAY_PLUGIN_PATH is
 * skipped and reported as PLUGIN_UNSAFE_PATH if nothing else is found.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_load_by_name(hurray_plugin_registry *registry, const char *name, uint32_t flags,
                           hurray_plugin **out, hurray_error *err);

/**
 * Called by hurray_plugin_discover() once per candidate: its path (a
 * directory, for a refused search-path entry), the outcome, the error when
 * refused (NULL on success) and the plugin when loaded (NULL otherwise).
 */
typedef void (*hurray_plugin_discover_fn)(void *ctx, const char *path, hurray_status status,
                                          const hurray_error *err, hurray_plugin *plugin);

/**
 * Loads every hurray-plugin-*.so in the search path, in path order then name
 * order; a plugin whose tag is already served by an earlier one is refused as
 * PLUGIN_DUPLICATE_TAG (so a HURRAY_PLUGIN_PATH entry overrides the
 * installed plugin). Reports each candidate to `report` (may be NULL), on
 * the calling thread with the registry locked (the lock is recursive, so the
 * callback may use the registry). Returns how many were loaded.
 */
HURRAY_API size_t hurray_plugin_discover(hurray_plugin_registry *registry,
                                         hurray_plugin_discover_fn report, void *ctx);

/**
 * The directories searched, in order, colon-separated: HURRAY_PLUGIN_PATH's
 * entries, then the installed plugin directory. snprintf-style.
 */
HURRAY_API size_t hurray_plugin_search_path(char *buf, size_t cap);

/** The installed plugin directory compiled into the library. */
HURRAY_API const char *hurray_plugin_install_dir(void);

/** Ends the plugin's service: it leaves its registry at once (no longer
 * found, no longer serving its tag) and the caller must not use `plugin`
 * again. Buffers and events it made stay valid, from any thread, until they
 * are released; the plugin is shut down and closed when the last of them is
 * released, or at once when none is live (PL-LIFE-1, PL-LOAD-7). Must not
 * race with an allocation or event creation on the same plugin. */
HURRAY_API void hurray_plugin_unload(hurray_plugin *plugin);

/**
 * How many buffers and events made by `plugin` are live (allocated or
 * created and not yet released), for a producer that wants to know what
 * holds a plugin it is about to unload (PL-LIFE-2). Returns their sum and
 * writes each count to `buffers` and `events` when non-NULL. The counts are
 * read without a lock: concurrent allocations and releases may change them
 * at once. Buffers are counted by one pass over the library's buffer table
 * (they carry no count of their own, PL-LIFE-1). 0 for NULL.
 */
HURRAY_API size_t hurray_plugin_outstanding(const hurray_plugin *plugin, size_t *buffers,
                                            size_t *events);

/** Plugins loaded, and the one at `index` (NULL past the end), in load order. */
HURRAY_API size_t hurray_plugin_registry_count(const hurray_plugin_registry *registry);
HURRAY_API hurray_plugin *hurray_plugin_registry_at(const hurray_plugin_registry *registry,
                                                    size_t index);
/** The plugin serving `device_tag`, or NULL. */
HURRAY_API hurray_plugin *hurray_plugin_registry_find(const hurray_plugin_registry *registry,
                                                      hurray_device_tag device_tag);

/* Plugin facts (valid until unload). */
HURRAY_API const char *hurray_plugin_name(const hurray_plugin *plugin);
HURRAY_API const char *hurray_plugin_version(const hurray_plugin *plugin);
/** The real path the plugin was loaded from. */
HURRAY_API const char *hurray_plugin_path(const hurray_plugin *plugin);
/** The ABI version the plugin's table declares. */
HURRAY_API uint32_t hurray_plugin_abi_version(const hurray_plugin *plugin);
HURRAY_API hurray_device_tag hurray_plugin_device_tag(const hurray_plugin *plugin);
/** HURRAY_TRUE when this plugin is the one hurray_plugin_registry_find() returns for
 * its tag, else HURRAY_FALSE. */
HURRAY_API hurray_bool32 hurray_plugin_serves_tag(const hurray_plugin *plugin);
/** Number of devices (0 when its runtime is missing). */
HURRAY_API uint32_t hurray_plugin_device_count(const hurray_plugin *plugin);
/** Why the plugin has no devices ("" when it has some); snprintf-style: at
 * most cap - 1 bytes and a NUL, the length of the whole reason returned. The
 * plugin's text is terminated and measured by the host, never passed through
 * as written; an empty one, or none, is the host's own (PL-AVAIL-2). */
HURRAY_API size_t hurray_plugin_unavailable_reason(const hurray_plugin *plugin, char *buf,
                                                   size_t cap);
/** The validated description of device `device_index` (INVALID_ARGUMENT,
 * index 1, past the end). The caller sets out->struct_size to the size of
 * the struct it knows (sizeof(hurray_plugin_device_info)); at most that many
 * bytes are written and out->struct_size is kept (PL-VER-5); below 8 is
 * INVALID_ARGUMENT (index 2). */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_describe_device(const hurray_plugin *plugin, uint32_t device_index,
                              hurray_plugin_device_info *out, hurray_error *err);
/** HURRAY_TRUE when the plugin implements events (create/record/wait/release),
 * else HURRAY_FALSE. */
HURRAY_API hurray_bool32 hurray_plugin_supports_events(const hurray_plugin *plugin);

/* Buffers ----------------------------------------------------------------- */

/**
 * Allocates through the plugin (PL-ALLOC-1..5). Checked first: device index
 * (INVALID_ARGUMENT, value: index, expected: count), byte_size > 0
 * (INVALID_ARGUMENT), alignment a power of two >= 64 (the BP-ALIGN errors),
 * the class offered by the device (UNSUPPORTED, value: class, expected: tag)
 * and alignment <= its max_alignment (UNSUPPORTED, value: alignment,
 * expected: max). Then the plugin's answer is checked: alignment >=
 * requested and consistent with the addresses it reports (PLUGIN_INVALID
 * otherwise, and the memory is freed). The buffer's handle declares the
 * alignment obtained, sync_mode producer_synced.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_allocate(
    hurray_plugin *plugin, uint32_t device_index, uint64_t byte_size, uint32_t alignment,
    hurray_memory_class memory_class, hurray_plugin_buffer **out, hurray_error *err);
/**
 * Frees the buffer through its plugin (PL-LIFE-1, PL-LIFE-3). NULL is
 * accepted (HURRAY_OK). A buffer already freed, by this function, by
 * hurray_plugin_buffer_free or by the handoff's release, whether or not its
 * plugin has been unloaded or its registry destroyed since, is refused
 * without effect: USE_AFTER_DESTROY (value: the buffer pointer as an
 * integer; detail names it). A pointer that was never a buffer of
 * hurray_plugin_allocate: INVALID_ARGUMENT (value: the pointer). Of two
 * threads freeing the same buffer at once, one frees it and the other gets
 * the error.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_buffer_release(hurray_plugin_buffer *buffer,
                                                                       hurray_error *err);
/** As hurray_plugin_buffer_release, for a caller that has no use for the
 * error: a second free is refused without effect (PL-LIFE-3). NULL is
 * accepted. */
HURRAY_API void hurray_plugin_buffer_free(hurray_plugin_buffer *buffer);
/** The buffer's handle: size, the alignment obtained, tag, class; NULL once
 * the buffer is freed (PL-LIFE-3). */
HURRAY_API const hurray_buffer_handle *hurray_plugin_buffer_handle(
    const hurray_plugin_buffer *buffer);
/** The allocation as the plugin reported it (address, host_address, ...);
 * NULL once the buffer is freed (PL-LIFE-3). */
HURRAY_API const hurray_plugin_allocation *hurray_plugin_buffer_allocation(
    const hurray_plugin_buffer *buffer);
/** The plugin that made the buffer; NULL once the buffer is freed. */
HURRAY_API hurray_plugin *hurray_plugin_buffer_plugin(const hurray_plugin_buffer *buffer);
/** Copies host memory into the buffer (blocking). INVALID_ARGUMENT when
 * [offset, offset + bytes) is outside the buffer (value: offset + bytes,
 * expected: byte_size); USE_AFTER_DESTROY (value: the buffer pointer) once
 * the buffer is freed (PL-LIFE-3). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_buffer_write(hurray_plugin_buffer *buffer,
                                                                     uint64_t offset,
                                                                     const void *src,
                                                                     uint64_t bytes,
                                                                     hurray_error *err);
/** Copies from the buffer into host memory (blocking); range as _write. */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_buffer_read(const hurray_plugin_buffer *buffer, uint64_t offset, void *dst,
                          uint64_t bytes, hurray_error *err);
/**
 * A hurray_buffer_release_fn for the handoff (hurray/handoff.h): offer the
 * allocation's address as data, this function as release and the
 * hurray_plugin_buffer * as release_ctx; it frees that buffer (`data` is
 * not used). docs/vendor-guide.md (section 12) hands a plugin buffer over
 * this way, producer_synced and with a plugin event, in a whole program.
 */
HURRAY_API void hurray_plugin_buffer_release_callback(void *data, void *ctx);

/* Events ------------------------------------------------------------------ */

/** Creates an event on a device; UNSUPPORTED when the plugin has no events
 * (expected: the tag), INVALID_ARGUMENT (index 1) for a device index past the
 * count, NULL_ARGUMENT (index 0 plugin, 2 out). Not exportable: see
 * hurray_plugin_event_create_flags. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_create(hurray_plugin *plugin,
                                                                     uint32_t device_index,
                                                                     hurray_plugin_event **out,
                                                                     hurray_error *err);
/** Records it on `stream` (NULL: the plugin's default queue of the device). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_record(hurray_plugin_event *event,
                                                                     void *stream,
                                                                     hurray_error *err);
/** Blocks until the event completes, or TIMEOUT (value: timeout_ns). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_wait(hurray_plugin_event *event,
                                                                   uint64_t timeout_ns,
                                                                   hurray_error *err);
/** Makes later work on `stream` wait for the event on the device;
 * UNSUPPORTED when the plugin lacks stream_wait_event. */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_event_stream_wait(hurray_plugin_event *event, void *stream, hurray_error *err);
/** Releases the event. NULL is accepted; callable from any thread. */
HURRAY_API void hurray_plugin_event_release(hurray_plugin_event *event);
/** A hurray_event_release_fn for the handoff: offer the hurray_plugin_event *
 * as the payload's event and this function as its release (ctx unused). */
HURRAY_API void hurray_plugin_event_release_callback(void *event, void *ctx);
/** The plugin the event belongs to. */
HURRAY_API hurray_plugin *hurray_plugin_event_plugin(const hurray_plugin_event *event);
/**
 * As hurray_plugin_allocate with allocate() flags (PL-IPC-1): 0, or
 * HURRAY_PLUGIN_ALLOCATE_EXPORTABLE for memory another process can import
 * (hurray_plugin_buffer_export). Unknown bits: INVALID_ARGUMENT (value: the
 * flags, index 5), before anything else; EXPORTABLE on a plugin without
 * export: UNSUPPORTED (value: the flags, expected: the tag). The other
 * errors are hurray_plugin_allocate's.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_allocate_flags(hurray_plugin *plugin, uint32_t device_index, uint64_t byte_size,
                             uint32_t alignment, hurray_memory_class memory_class, uint32_t flags,
                             hurray_plugin_buffer **out, hurray_error *err);

/**
 * Describes a live exportable buffer for another process (PL-IPC-2). The
 * caller sets out->struct_size (sizeof(hurray_plugin_ipc_memory)); at most
 * that many bytes are written. A descriptor in out->fd is new, close-on-exec
 * and the caller's to close (after sending it with SCM_RIGHTS). Errors:
 * NULL_ARGUMENT (index 0 buffer, 1 out); INVALID_ARGUMENT (struct_size below
 * 8, index 1); USE_AFTER_DESTROY for a freed buffer (PL-LIFE-3); UNSUPPORTED
 * for a plugin without export or a buffer not allocated exportable; any
 * error of the plugin's call. On failure nothing is written, no descriptor
 * is left open.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_buffer_export(
    const hurray_plugin_buffer *buffer, hurray_plugin_ipc_memory *out, hurray_error *err);

/**
 * Makes a buffer of memory another process exported (PL-IPC-3, PL-IPC-4):
 * on `plugin`'s device `device_index`, from `memory` as the exporter's
 * hurray_plugin_buffer_export wrote it (with fd replaced by this process's
 * descriptor). The buffer's handle declares what the exporter declared; free
 * it like any other (the import is undone, the exporter's memory is not
 * touched). The caller keeps memory->fd and closes it after the call.
 * Errors, in order: NULL_ARGUMENT (index 0 plugin, 2 memory, 3 out);
 * INVALID_ARGUMENT (device index, value/expected as hurray_plugin_allocate;
 * memory->struct_size too small, index 2; kind undefined, value: the kind;
 * byte_size 0; reserved bytes not zero); DEVICE_TAG_MISMATCH (value: the
 * memory's tag, expected: the plugin's); IPC_BAD_SEGMENT (value: offset +
 * byte_size, expected: the segment size, or the descriptor's real size);
 * ALIGNMENT_NOT_POWER_OF_TWO / ALIGNMENT_BELOW_MINIMUM (value: the
 * alignment); UNSUPPORTED (plugin without import; class not offered);
 * PLUGIN_INVALID when the mapping measures less alignment than declared;
 * any error of the plugin's call.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_import(
    hurray_plugin *plugin, uint32_t device_index, const hurray_plugin_ipc_memory *memory,
    hurray_plugin_buffer **out, hurray_error *err);

/**
 * The runtime's own handle behind `event` (PL-EVENT-5), for a consumer that
 * waits with its runtime's API (cuStreamWaitEvent, vkWaitSemaphores,
 * clEnqueueBarrierWithWaitList…) rather than through the plugin. The caller
 * sets out->struct_size (sizeof(hurray_plugin_native_event)); at most that
 * many bytes are written, struct_size kept (PL-VER-5). The handle stays the
 * event's: valid until the event is recorded again or released; do not
 * destroy it. Errors:
 *   - NULL_ARGUMENT: event (index 0) or out (index 1) is NULL;
 *   - INVALID_ARGUMENT: out->struct_size below the 8-byte header (value: it,
 *     expected: the library's sizeof, index 1); or the runtime has no handle
 *     before the first record (OpenCL);
 *   - UNSUPPORTED: the plugin gives no native handles (ABI 1.0 plugin, or a
 *     runtime without an event object: cpu, webgpu, hexagon; expected: the tag);
 *   - PLUGIN_INVALID: the plugin answered a type that is not its device's
 *     (value: the type, expected: the tag), or a zero handle;
 *   - any error of the plugin's call.
 * On failure nothing is written to out.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_native(
    const hurray_plugin_event *event, hurray_plugin_native_event *out, hurray_error *err);

/**
 * As hurray_plugin_event_create with creation flags (PL-IPC-7): 0, or
 * HURRAY_PLUGIN_EVENT_EXPORTABLE for an event another process can open
 * (hurray_plugin_event_export, hurray_plugin_event_import). Errors, in
 * order: NULL_ARGUMENT (index 0 plugin, 3 out); INVALID_ARGUMENT for an
 * unknown flag bit (value: the flags, expected: the known ones, index 2);
 * UNSUPPORTED when the plugin has no events (expected: the tag);
 * INVALID_ARGUMENT for a device index past the count (value: it, expected:
 * the count, index 1); for EXPORTABLE, UNSUPPORTED (value: the flags,
 * expected: the tag) when the plugin cannot export events (no
 * create_event_flags: cpu, opencl, vulkan, level_zero, any 1.0 plugin) or
 * the device does not declare HURRAY_IPC_EXPORTS_EVENTS (index 1); any
 * error of the plugin's call. *out is written only on success; release the
 * event with hurray_plugin_event_release.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_plugin_event_create_flags(hurray_plugin *plugin, uint32_t device_index, uint32_t flags,
                                 hurray_plugin_event **out, hurray_error *err);

/**
 * Describes a live exportable event for another process (PL-IPC-8): the
 * runtime's IPC handle (kind HURRAY_PLUGIN_IPC_EVENT_HANDLE, handle_size
 * 1..64) and the plugin's tag, in a record that holds no descriptor and can
 * be sent as bytes. The caller sets out->struct_size
 * (sizeof(hurray_plugin_ipc_event)); at most that many bytes are written,
 * struct_size kept (PL-VER-5). The record stays valid while the event
 * lives; every record of the event moves what importers wait for. Errors:
 * NULL_ARGUMENT (index 0 event, 1 out); INVALID_ARGUMENT (out->struct_size
 * below 8, index 1); UNSUPPORTED (expected: the tag) for a plugin without
 * export_event, an event not created with HURRAY_PLUGIN_EVENT_EXPORTABLE
 * or one imported from another process (value: the event's flags);
 * PLUGIN_INVALID when the plugin wrote another kind or a handle_size
 * outside 1..64 (value: the kind); any error of the plugin's call. On
 * failure nothing is written.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_export(
    const hurray_plugin_event *event, hurray_plugin_ipc_event *out, hurray_error *err);

/**
 * Opens an event another process exported (PL-IPC-9) on `plugin`'s device
 * `device_index`, from `record` as the exporter's hurray_plugin_event_export
 * wrote it. The result is an ordinary event of this process: wait on it
 * (hurray_plugin_event_wait, _stream_wait), read its native handle, offer it
 * in a handoff; its state is the exporter's. hurray_plugin_event_release
 * closes the import only, never the exporter's event; release it before the
 * exporter releases its own (the runtimes leave an import of a destroyed
 * event undefined). It cannot be exported again. Errors, in order:
 * NULL_ARGUMENT (index 0 plugin, 2 record, 3 out); INVALID_ARGUMENT
 * (record->struct_size too small, value: it, expected: the library's
 * sizeof, index 2); DEVICE_TAG_MISMATCH (value: the record's tag,
 * expected: the plugin's); INVALID_ARGUMENT (index 2: kind undefined,
 * value: the kind; handle_size outside 1..64, value: it, expected: 64; a
 * reserved byte not zero, value: the byte); UNSUPPORTED for a plugin
 * without import_event (expected: the tag); INVALID_ARGUMENT for a device
 * index past the count (index 1); then the plugin's: INVALID_ARGUMENT for a
 * handle of another size than its runtime's, DEVICE_ERROR for a handle the
 * runtime refuses. *out is written only on success, and on failure nothing
 * is left open.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_event_import(
    hurray_plugin *plugin, uint32_t device_index, const hurray_plugin_ipc_event *record,
    hurray_plugin_event **out, hurray_error *err);

/** Blocks until the stream's work completes; UNSUPPORTED without wait_stream. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_plugin_stream_wait(hurray_plugin *plugin,
                                                                    uint32_t device_index,
                                                                    void *stream,
                                                                    uint64_t timeout_ns,
                                                                    hurray_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_PLUGIN_HOST_H */
