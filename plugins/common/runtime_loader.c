/*
 * runtime_loader: see runtime_loader.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "runtime_loader.h"

#include <dlfcn.h>
#include <string.h>

void *plugin_load_runtime(const char *override_env, const char *const *default_names,
                          size_t default_count, int extra_flags,
                          const hurray_support_symbol *symbols, size_t symbol_count,
                          const char **out_library, char *reason, size_t reason_size) {
  void *handle = hurray_support_open_runtime(override_env, default_names, default_count,
                                             extra_flags, out_library, reason, reason_size);
  if (handle == NULL) {
    return NULL;
  }
  if (!hurray_support_resolve_symbols(handle, *out_library, symbols, symbol_count, reason,
                                      reason_size)) {
    dlclose(handle);
    /* No pointer into the closed library is left behind. */
    void *none = NULL;
    for (size_t i = 0; i < symbol_count; i++) {
      memcpy(symbols[i].slot, &none, sizeof none);
    }
    return NULL;
  }
  return handle;
}
