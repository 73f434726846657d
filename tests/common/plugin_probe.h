/*
 * The check a device test program makes before its suite: does the plugin
 * under test load, and has it a device here? (tests/ipc's device tests,
 * tests/plugins/test_plugin_ipc.c)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_PLUGIN_PROBE_H
#define HURRAY_TESTS_PLUGIN_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hurray/plugin.h"

/*
 * Before the suite: loads `file` once. -1 when the tests are to run (with
 * *ipc_capabilities, may be NULL, the IPC capabilities of device 0),
 * otherwise the exit status: 1 when it does not load or has no device
 * under `require`, 77 (SKIP, with the reason) when it has no device.
 * Outside any test: no ck_assert here.
 */
static inline int plugin_probe(const char *file, bool require, uint32_t *ipc_capabilities) {
  hurray_error err;
  hurray_plugin_registry *probe = NULL;
  hurray_plugin *probed = NULL;
  if (hurray_plugin_registry_create(&probe, &err) != HURRAY_OK ||
      hurray_plugin_load(probe, file, 0, &probed, &err) != HURRAY_OK) {
    fprintf(stderr, "load %s: %s\n", file, err.detail);
    hurray_plugin_registry_destroy(probe);
    return 1;
  }
  if (hurray_plugin_device_count(probed) == 0) {
    char reason[512];
    (void)hurray_plugin_unavailable_reason(probed, reason, sizeof reason);
    hurray_plugin_registry_destroy(probe);
    printf("%s: %s\n", require ? "FAIL" : "SKIP", reason);
    return require ? 1 : 77;
  }
  if (ipc_capabilities != NULL) {
    hurray_plugin_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    *ipc_capabilities = hurray_plugin_describe_device(probed, 0, &info, &err) == HURRAY_OK
                            ? info.ipc_capabilities
                            : 0u;
  }
  hurray_plugin_registry_destroy(probe);
  return -1;
}

#endif
