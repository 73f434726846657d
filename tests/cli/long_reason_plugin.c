/*
 * A plugin whose runtime is "missing", with an unavailable reason far longer
 * than hurray_error's detail: hurray-devices must print it whole
 * (specs/cli.md CLI-DEV-5). The reason ends in a marker the test looks for.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"

enum { REASON_FILLER = 1000 };

static hurray_status lr_init(void **out_state, hurray_error *err) {
  (void)err;
  *out_state = malloc(1);
  return *out_state != NULL ? HURRAY_OK : HURRAY_ERR_OUT_OF_MEMORY;
}
static void lr_shutdown(void *state) { free(state); }
static hurray_status lr_count(void *state, uint32_t *n, hurray_error *err) {
  (void)state;
  (void)err;
  *n = 0;
  return HURRAY_OK;
}
static hurray_status lr_describe(void *state, uint32_t i, hurray_plugin_device_info *out,
                                 hurray_error *err) {
  (void)state;
  (void)i;
  (void)out;
  (void)err;
  return HURRAY_ERR_INVALID_ARGUMENT;
}
static hurray_status lr_allocate(void *state, uint32_t device, uint64_t size, uint32_t alignment,
                                 hurray_memory_class memory_class, uint32_t flags,
                                 hurray_plugin_allocation *out, hurray_error *err) {
  (void)state;
  (void)device;
  (void)size;
  (void)alignment;
  (void)memory_class;
  (void)flags;
  (void)out;
  (void)err;
  return HURRAY_ERR_DEVICE_UNAVAILABLE;
}
static void lr_free(void *state, const hurray_plugin_allocation *a) {
  (void)state;
  (void)a;
}
static hurray_status lr_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t off,
                                  const void *src, uint64_t n, hurray_error *err) {
  (void)state;
  (void)dst;
  (void)off;
  (void)src;
  (void)n;
  (void)err;
  return HURRAY_ERR_DEVICE_UNAVAILABLE;
}
static hurray_status lr_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                uint64_t off, uint64_t n, hurray_error *err) {
  (void)state;
  (void)dst;
  (void)src;
  (void)off;
  (void)n;
  (void)err;
  return HURRAY_ERR_DEVICE_UNAVAILABLE;
}
static size_t lr_reason(void *state, char *buf, size_t cap) {
  (void)state;
  char reason[REASON_FILLER + 64];
  int n = snprintf(reason, sizeof reason, "dlopen libacme.so: ");
  size_t len = n > 0 ? (size_t)n : 0u;
  memset(reason + len, 'r', REASON_FILLER);
  len += REASON_FILLER;
  snprintf(reason + len, sizeof reason - len, " END-OF-REASON");
  n = snprintf(buf, cap, "%s", reason);
  return n > 0 ? (size_t)n : 0u;
}

static const hurray_plugin_table lr_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "long-reason",
    .plugin_version = "0.0.1",
    .device_tag = 0xF6u,
    .init = lr_init,
    .shutdown = lr_shutdown,
    .count_devices = lr_count,
    .describe_device = lr_describe,
    .allocate = lr_allocate,
    .free = lr_free,
    .copy_to_device = lr_to_device,
    .copy_to_host = lr_to_host,
    .unavailable_reason = lr_reason,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &lr_table;
}
