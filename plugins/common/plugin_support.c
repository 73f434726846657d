/*
 * plugin_support: see plugin_support.h. Shared by every plugin in plugins/,
 * linked into each as a static library with hidden visibility.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/plugin_support.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hurray_status plugin_fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, const char *format, ...) {
  va_list args;
  va_start(args, format);
  hurray_status result = hurray_support_vfail(err, status, value, expected, 0, format, args);
  va_end(args);
  return result;
}

void *plugin_open_runtime(const char *override_env, const char *const *default_names,
                          size_t default_count, int extra_flags, const char **out_library,
                          char *reason, size_t reason_size) {
  const char *override = getenv(override_env);
  bool overridden = override != NULL && override[0] != '\0';
  size_t attempts = overridden ? 1u : default_count;
  size_t used = 0;
  if (reason_size > 0) {
    reason[0] = '\0';
  }
  for (size_t i = 0; i < attempts; i++) {
    const char *library = overridden ? override : default_names[i];
    *out_library = library;
    /* RTLD_LOCAL: the runtime's symbols must not leak into the process. */
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL | extra_flags);
    if (handle != NULL) {
      return handle;
    }
    const char *why = dlerror();
    if (used < reason_size) {
      /* Keep every attempt: the reason names each file tried and why. */
      int n = snprintf(reason + used, reason_size - used, "%sdlopen %s: %s", used > 0 ? "; " : "",
                       library, why != NULL ? why : "unknown error");
      used += n > 0 ? (size_t)n : 0u;
    }
  }
  return NULL;
}

hurray_bool32 plugin_resolve_symbols(void *library, const char *library_name, const plugin_symbol *symbols,
                            size_t symbol_count, char *reason, size_t reason_size) {
  for (size_t i = 0; i < symbol_count; i++) {
    void *address = dlsym(library, symbols[i].name);
    if (address == NULL && symbols[i].required) {
      snprintf(reason, reason_size, "dlsym %s in %s: symbol not found", symbols[i].name,
               library_name);
      return HURRAY_FALSE;
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function
     * pointer, and the memcpy does so without a cast -Wpedantic rejects. */
    memcpy(symbols[i].slot, &address, sizeof address);
  }
  return HURRAY_TRUE;
}

uint64_t plugin_alignment_of_address(uint64_t address) {
  return hurray_support_lowest_set_bit(address);
}

uint32_t plugin_alignment_capped(uint64_t address, uint32_t cap) {
  return hurray_support_alignment_capped(address, cap);
}

hurray_status plugin_check_device(const char *plugin_name, uint32_t device_index,
                                  uint32_t device_count, hurray_error *err) {
  if (device_index >= device_count) {
    return plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, device_count,
                       "%s: no device %u", plugin_name, (unsigned)device_index);
  }
  return HURRAY_OK;
}

size_t plugin_copy_reason(char *buf, size_t cap, const char *reason) {
  int n = snprintf(buf, cap, "%s", reason);
  return n > 0 ? (size_t)n : 0u;
}

void plugin_add_memory_class(hurray_plugin_device_info *info, hurray_memory_class memory_class,
                             uint32_t flags, uint32_t max_alignment) {
  if (info->memory_class_count >= HURRAY_PLUGIN_MAX_MEMORY_CLASSES) {
    return;
  }
  hurray_plugin_memory_class_info *entry = &info->memory_classes[info->memory_class_count++];
  entry->memory_class = memory_class;
  entry->flags = flags;
  entry->max_alignment = max_alignment;
}
