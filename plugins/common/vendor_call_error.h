/*
 * The error of a failed vendor runtime call, filled the one way the cuda
 * and rocm plugins report it: OUT_OF_MEMORY (value: the bytes asked for)
 * when the runtime ran out of memory, DEVICE_ERROR (value: the runtime's
 * code) otherwise; the detail is "call: CODE_NAME (code)". In-tree plugins
 * only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_VENDOR_CALL_ERROR_H
#define HURRAY_PLUGINS_COMMON_VENDOR_CALL_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "hurray/plugin_vendor.h"

hurray_status plugin_vendor_call_fail(hurray_error *err, const char *call, int code,
                                      const char *code_name, bool out_of_memory, uint64_t bytes);

#endif
