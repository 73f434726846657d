/*
 * The plugin support library's names before 0.1.0 (plugin_..., see the end
 * of plugin_support.h), kept exported until 0.2.0 so a plugin written
 * against them still builds and links (docs/vendor-guide.md, "Renamed
 * helpers"). Each forwards to the hurray_support_ function its deprecation
 * message names and does nothing else: one behaviour, two names.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>

#include "hurray/plugin_support.h"

hurray_status plugin_fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, const char *format, ...) {
  /* A variadic function cannot forward its arguments to another: this is
   * hurray_support_entry_fail's body, index 0 through the va_list form. */
  va_list args;
  va_start(args, format);
  hurray_status result = hurray_support_vfail(err, status, value, expected, 0, format, args);
  va_end(args);
  return result;
}

void *plugin_open_runtime(const char *override_env, const char *const *default_names,
                          size_t default_count, int extra_flags, const char **out_library,
                          char *reason, size_t reason_size) {
  return hurray_support_open_runtime(override_env, default_names, default_count, extra_flags,
                                     out_library, reason, reason_size);
}

hurray_bool32 plugin_resolve_symbols(void *library, const char *library_name,
                                     const hurray_support_symbol *symbols, size_t symbol_count,
                                     char *reason, size_t reason_size) {
  return hurray_support_resolve_symbols(library, library_name, symbols, symbol_count, reason,
                                        reason_size);
}

uint64_t plugin_alignment_of_address(uint64_t address) {
  return hurray_support_lowest_set_bit(address);
}

uint32_t plugin_alignment_capped(uint64_t address, uint32_t cap) {
  return hurray_support_alignment_capped(address, cap);
}

hurray_status plugin_check_device(const char *plugin_name, uint32_t device_index,
                                  uint32_t device_count, hurray_error *err) {
  return hurray_support_check_device(plugin_name, device_index, device_count, err);
}

size_t plugin_copy_reason(char *buf, size_t cap, const char *reason) {
  return hurray_support_copy_reason(buf, cap, reason);
}

void plugin_add_memory_class(hurray_plugin_device_info *info, hurray_memory_class memory_class,
                             uint32_t flags, uint32_t max_alignment) {
  hurray_support_add_memory_class(info, memory_class, flags, max_alignment);
}

hurray_status plugin_shared_create(const char *plugin_name, uint64_t byte_size, uint32_t alignment,
                                   hurray_support_shared_memory *out, hurray_error *err) {
  return hurray_support_shared_create(plugin_name, byte_size, alignment, out, err);
}

hurray_status plugin_shared_import(const char *plugin_name, const hurray_plugin_ipc_memory *in,
                                   hurray_support_shared_memory *out, hurray_error *err) {
  return hurray_support_shared_import(plugin_name, in, out, err);
}

hurray_status plugin_shared_export(const char *plugin_name,
                                   const hurray_support_shared_memory *memory,
                                   hurray_plugin_ipc_memory *out, hurray_error *err) {
  return hurray_support_shared_export(plugin_name, memory, out, err);
}

void plugin_shared_release(hurray_support_shared_memory *memory) {
  hurray_support_shared_release(memory);
}
