/*
 * The error of a failed vendor runtime call, in the two ways the plugins
 * report it: OUT_OF_MEMORY when the runtime ran out of memory, otherwise
 * DEVICE_ERROR, with the runtime's code and its name in the detail. In-tree
 * plugins only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_VENDOR_CALL_ERROR_H
#define HURRAY_PLUGINS_COMMON_VENDOR_CALL_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "hurray/plugin_vendor.h"

/* cuda, rocm: the value is the bytes asked for when out of memory, else
 * the code; the detail "call: CODE_NAME (code)". */
hurray_status plugin_vendor_call_fail(hurray_error *err, const char *call, int code,
                                      const char *code_name, bool out_of_memory, uint64_t bytes);

/* opencl, vulkan: the value is the code (sign-extended) either way; the
 * detail "plugin: call: CODE_NAME (code)". */
hurray_status plugin_vendor_code_fail(hurray_error *err, const char *plugin_name, const char *call,
                                      int code, const char *code_name, bool out_of_memory);

#endif
