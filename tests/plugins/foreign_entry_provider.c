/*
 * A library that defines the entry symbol, linked by the plugin
 * hurray-plugin-broken-foreign-entry.so, which defines none: dlsym on that
 * plugin finds this one, and the loader must refuse it (PL-ENTRY-3).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "hurray/plugin.h"

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return NULL;
}

/* Referenced by the plugin, so the linker keeps this library as its dependency. */
HURRAY_PLUGIN_EXPORT const void *hurray_test_foreign_marker(void);
HURRAY_PLUGIN_EXPORT const void *hurray_test_foreign_marker(void) { return "foreign"; }
