/*
 * vendor_call_error: see vendor_call_error.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "vendor_call_error.h"

#include "hurray/plugin_support.h"

hurray_status plugin_vendor_call_fail(hurray_error *err, const char *call, int code,
                                      const char *code_name, bool out_of_memory, uint64_t bytes) {
  if (out_of_memory) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, bytes, 0, "%s: %s (%d)", call,
                                     code_name, code);
  }
  return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, (uint64_t)code, 0, "%s: %s (%d)",
                                   call, code_name, code);
}

hurray_status plugin_vendor_code_fail(hurray_error *err, const char *plugin_name, const char *call,
                                      int code, const char *code_name, bool out_of_memory) {
  return hurray_support_entry_fail(
      err, out_of_memory ? HURRAY_ERR_OUT_OF_MEMORY : HURRAY_ERR_DEVICE_ERROR,
      (uint64_t)(int64_t)code, 0, "%s: %s: %s (%d)", plugin_name, call, code_name, code);
}
