/*
 * The one error-filling function and the one lowest-set-bit alignment
 * function of libhurray outside the proven core (whose hurray_fail, in
 * core/proven/error_set.h, fills errors without a detail for the proven
 * code). This file is compiled into libhurray itself (runtime and IPC) and
 * into libhurray-plugin-support (every plugin), so a plugin, which links no
 * libhurray (PL-BUILD-1), and the library fill an error the same way.
 * Declared in plugin_support.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>

#include "hurray/plugin_support.h"

hurray_status hurray_support_vfail(hurray_error *err, hurray_status status, uint64_t value,
                                   uint64_t expected, size_t index, const char *format,
                                   va_list args) {
  if (err != NULL) {
    err->status = status;
    err->value = value;
    err->expected = expected;
    err->index = index;
    err->detail[0] = '\0';
    if (format != NULL && vsnprintf(err->detail, sizeof err->detail, format, args) < 0) {
      err->detail[0] = '\0';
    }
  }
  return status;
}

hurray_status hurray_support_fail(hurray_error *err, hurray_status status, uint64_t value,
                                  uint64_t expected, size_t index, const char *format, ...) {
  va_list args;
  va_start(args, format);
  hurray_status result = hurray_support_vfail(err, status, value, expected, index, format, args);
  va_end(args);
  return result;
}

uint64_t hurray_support_lowest_set_bit(uint64_t address) {
  /* Two's complement: x & -x keeps the lowest set bit. 0 has none: 2^63. */
  return address == 0u ? (uint64_t)1 << 63 : address & (~address + 1u);
}

uint32_t hurray_support_alignment_capped(uint64_t address, uint32_t cap) {
  uint64_t measured = hurray_support_lowest_set_bit(address);
  return measured < cap ? (uint32_t)measured : cap;
}
