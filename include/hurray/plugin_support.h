/*
 * plugin_support: the few steps every libhurray device plugin takes the same
 * way, written once and linked statically into each plugin (never exported
 * from a plugin .so: the plugins are built with hidden visibility, and so is
 * this library, so a plugin still exports only hurray_plugin_entry, PL-BUILD-1).
 *
 * What is here is vendor-neutral: filling the host's hurray_error (the one
 * error-filling function of libhurray and its plugins, PL-ERR-1), opening a
 * vendor runtime with dlopen and resolving a plugin's X-macro symbol table
 * with dlsym (PL-AVAIL-1: a missing library or symbol is a reason, not an
 * error), measuring an alignment from an address (PL-ALLOC-3), checking a
 * device index, copying the unavailable reason out, listing a memory
 * class in a device description, and host memory shared with another
 * process through a memfd (PL-IPC-1..4). Everything that talks to a vendor stays in
 * the plugin's own file.
 *
 * Installed as include/hurray/plugin_support.h with the static library
 * libhurray-plugin-support.a (sources: plugins/common/): a vendor building
 * a plugin outside this tree links it with
 * `pkg-config --cflags --libs hurray-plugin-support`, CMake's
 * hurray::plugin_support or meson's dependency('hurray-plugin-support'),
 * instead of copying it (docs/vendor-guide.md). Neither pulls in libhurray
 * (PL-BUILD-1).
 *
 * Every name here starts with hurray_support_ (HURRAY_SUPPORT_ for
 * macros): the prefix of this library's first functions
 * (hurray_support_fail), so a vendor's plugin never meets a name of ours
 * in its own namespace. Not hurray_plugin_: that prefix is the plugin ABI's
 * (plugin_vendor.h), which this helper library is not part of. The names
 * these had before 0.1.0, plugin_..., remain as deprecated aliases at the
 * end of this header until 0.2.0 (docs/vendor-guide.md, "Renamed helpers").
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_SUPPORT_H
#define HURRAY_PLUGIN_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/plugin_vendor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one function that fills a hurray_error outside the proven core, for
 * libhurray and every plugin alike (core/runtime/support_core.c): when err
 * is not NULL, sets status, value, expected and index as buffer.h documents
 * them for `status`, and detail formatted from `format` (truncated to the
 * detail size; empty when format is NULL). Returns `status`, so a caller
 * writes `return hurray_support_fail(err, ...)`. */
hurray_status hurray_support_fail(hurray_error *err, hurray_status status, uint64_t value,
                                  uint64_t expected, size_t index, const char *format, ...)
    __attribute__((format(printf, 6, 7)));
/* hurray_support_fail with a va_list. */
hurray_status hurray_support_vfail(hurray_error *err, hurray_status status, uint64_t value,
                                   uint64_t expected, size_t index, const char *format,
                                   va_list args) __attribute__((format(printf, 6, 0)));

/* The one lowest-set-bit function (BP-ALIGN-5, PL-ALLOC-3): the largest
 * power of two dividing `address`; address 0 has every bit clear and gets
 * 2^63. */
uint64_t hurray_support_lowest_set_bit(uint64_t address);
/* hurray_support_lowest_set_bit capped at `cap` (a u32 alignment field
 * carries at most HURRAY_PLUGIN_MAX_ALIGNMENT). */
uint32_t hurray_support_alignment_capped(uint64_t address, uint32_t cap);

/* hurray_support_fail with index 0, the form a plugin entry uses: its error
 * names no argument position of the host's API (the host fills index where
 * it has one). */
hurray_status hurray_support_entry_fail(hurray_error *err, hurray_status status, uint64_t value,
                                        uint64_t expected, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

/* Room for a plugin's unavailable reason (PL-AVAIL-1): every runtime file
 * tried with the loader's message for each, or a vendor call and its error.
 * Larger than hurray_error's detail, which a reason is not bound by: tools
 * print it whole (specs/cli.md CLI-DEV-5). */
#define HURRAY_SUPPORT_REASON_SIZE 4096

/* One entry of a plugin's vendor symbol table: the name to look up, the
 * address of the function-pointer field that receives it, and whether the
 * plugin cannot work without it (an optional symbol the library lacks is
 * left NULL). A plugin builds its array from its X-macro, e.g.
 *   #define CUDA_SYMBOL_ENTRY(ret, name, args) {#name, &s->cu.name, true},
 *   const hurray_support_symbol symbols[] = {CUDA_SYMBOLS(CUDA_SYMBOL_ENTRY)}; */
typedef struct hurray_support_symbol {
  const char *name;
  void *slot;
  hurray_bool32 required; /* HURRAY_TRUE / HURRAY_FALSE */
} hurray_support_symbol;

/* Opens the vendor runtime with dlopen(RTLD_NOW | RTLD_LOCAL | extra_flags).
 * When the environment variable `override_env` is set and not empty, the
 * file it names is the only one tried; otherwise each of the `default_count`
 * names in `default_names` in turn until one loads. *out_library is set to
 * the name of the last file tried (the one that loaded, on success).
 * Returns the handle, or NULL with `reason` holding "dlopen FILE: dlerror"
 * for every file tried, separated by "; " (as much as fits in reason_size). */
void *hurray_support_open_runtime(const char *override_env, const char *const *default_names,
                                  size_t default_count, int extra_flags, const char **out_library,
                                  char *reason, size_t reason_size);

/* Resolves every symbol of the table from `library` (opened from the file
 * `library_name`), in order. Returns true when all required ones were found;
 * otherwise false at the first missing required one, with `reason` holding
 * "dlsym NAME in FILE: symbol not found". The library stays open either way:
 * closing it is the caller's choice. */
hurray_bool32 hurray_support_resolve_symbols(void *library, const char *library_name,
                                             const hurray_support_symbol *symbols,
                                             size_t symbol_count, char *reason, size_t reason_size);

/* HURRAY_OK when device_index < device_count; otherwise
 * HURRAY_ERR_INVALID_ARGUMENT (value: the index, expected: the count) with
 * detail "PLUGIN: no device N". */
hurray_status hurray_support_check_device(const char *plugin_name, uint32_t device_index,
                                          uint32_t device_count, hurray_error *err);

/* The unavailable_reason entry's copy-out: writes `reason` into buf (at most
 * cap bytes, NUL-terminated when cap > 0) and returns its full length, as
 * snprintf does (PL-AVAIL-1). */
size_t hurray_support_copy_reason(char *buf, size_t cap, const char *reason);

/* Appends one memory class to a device description (BP-PAIR-1): class,
 * flags (HURRAY_PLUGIN_MEMORY_...) and the largest alignment it offers.
 * Does nothing when the description already lists
 * HURRAY_PLUGIN_MAX_MEMORY_CLASSES classes. */
void hurray_support_add_memory_class(hurray_plugin_device_info *info,
                                     hurray_memory_class memory_class, uint32_t flags,
                                     uint32_t max_alignment);

/* Host memory shared with another process through a memfd (PL-IPC-1..4),
 * for plugins whose device reads host memory in place (cpu, OpenCL with
 * CL_MEM_USE_HOST_PTR). Linux only: elsewhere the functions answer
 * UNSUPPORTED. */
typedef struct hurray_support_shared_memory {
  /** The memfd (ours, or our duplicate of an imported one); -1 when none. */
  int32_t fd;
  /** HURRAY_TRUE when mapped read-only (its writer sealed writes). */
  hurray_bool32 read_only;
  /** Where it is mapped, and how many bytes (whole pages). */
  void *address;
  uint64_t length;
} hurray_support_shared_memory;

/* A new memfd of byte_size rounded up to pages, mapped shared read-write
 * at an address aligned to `alignment`. */
hurray_status hurray_support_shared_create(const char *plugin_name, uint64_t byte_size,
                                           uint32_t alignment, hurray_support_shared_memory *out,
                                           hurray_error *err);

/* Maps an exported segment (PL-IPC-3): `in` of kind FD, its descriptor a
 * regular file of at least offset + byte_size bytes (IPC_BAD_SEGMENT
 * otherwise, naming both sizes), offset a multiple of the page; mapped at
 * `in->alignment`, read-only when the file is sealed against writes
 * (PL-IPC-4). The caller keeps in->fd. */
hurray_status hurray_support_shared_import(const char *plugin_name,
                                           const hurray_plugin_ipc_memory *in,
                                           hurray_support_shared_memory *out, hurray_error *err);

/* PL-IPC-2: a new close-on-exec descriptor of the segment in `out` (kind
 * FD, segment size, offset 0). */
hurray_status hurray_support_shared_export(const char *plugin_name,
                                           const hurray_support_shared_memory *memory,
                                           hurray_plugin_ipc_memory *out, hurray_error *err);

/* Unmaps and closes; the record is then empty. */
void hurray_support_shared_release(hurray_support_shared_memory *memory);

/* The names before 0.1.0, deprecated in 0.1 and removed in 0.2.0
 * (docs/vendor-guide.md, "Renamed helpers"): each is the function, type or
 * constant named in its message, and still exported by
 * libhurray-plugin-support.a (plugins/common/support_deprecated.c), so a
 * plugin written against them builds, with a warning naming the new name.
 * C has no alias for a struct tag: `struct plugin_symbol` and `struct
 * plugin_shared_memory` are gone, the typedef names stay. The constant, a
 * macro, cannot carry a deprecation, so it does not warn. */
#define HURRAY_SUPPORT_DEPRECATED(replacement) __attribute__((deprecated("use " replacement)))

#define PLUGIN_REASON_SIZE HURRAY_SUPPORT_REASON_SIZE
typedef hurray_support_symbol plugin_symbol HURRAY_SUPPORT_DEPRECATED("hurray_support_symbol");
typedef hurray_support_shared_memory plugin_shared_memory
    HURRAY_SUPPORT_DEPRECATED("hurray_support_shared_memory");

hurray_status plugin_fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, const char *format, ...)
    __attribute__((format(printf, 5, 6))) HURRAY_SUPPORT_DEPRECATED("hurray_support_entry_fail");
void *plugin_open_runtime(const char *override_env, const char *const *default_names,
                          size_t default_count, int extra_flags, const char **out_library,
                          char *reason, size_t reason_size)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_open_runtime");
hurray_bool32 plugin_resolve_symbols(void *library, const char *library_name,
                                     const hurray_support_symbol *symbols, size_t symbol_count,
                                     char *reason, size_t reason_size)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_resolve_symbols");
uint64_t plugin_alignment_of_address(uint64_t address)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_lowest_set_bit");
uint32_t plugin_alignment_capped(uint64_t address, uint32_t cap)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_alignment_capped");
hurray_status plugin_check_device(const char *plugin_name, uint32_t device_index,
                                  uint32_t device_count, hurray_error *err)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_check_device");
size_t plugin_copy_reason(char *buf, size_t cap, const char *reason)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_copy_reason");
void plugin_add_memory_class(hurray_plugin_device_info *info, hurray_memory_class memory_class,
                             uint32_t flags, uint32_t max_alignment)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_add_memory_class");
hurray_status plugin_shared_create(const char *plugin_name, uint64_t byte_size, uint32_t alignment,
                                   hurray_support_shared_memory *out, hurray_error *err)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_shared_create");
hurray_status plugin_shared_import(const char *plugin_name, const hurray_plugin_ipc_memory *in,
                                   hurray_support_shared_memory *out, hurray_error *err)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_shared_import");
hurray_status plugin_shared_export(const char *plugin_name,
                                   const hurray_support_shared_memory *memory,
                                   hurray_plugin_ipc_memory *out, hurray_error *err)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_shared_export");
void plugin_shared_release(hurray_support_shared_memory *memory)
    HURRAY_SUPPORT_DEPRECATED("hurray_support_shared_release");

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_PLUGIN_SUPPORT_H */
