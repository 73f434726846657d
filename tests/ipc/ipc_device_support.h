/*
 * What the device tests of the IPC transport (test_ipc_device.c,
 * test_ipc_event.c) share: the plugin under test, loaded fresh for every
 * test, its live buffers and events, and the check at start that it has a
 * device (SKIP, exit 77, without one; FAIL with --require-devices, as the
 * stand-in runs pass).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_DEVICE_SUPPORT_H
#define HURRAY_IPC_DEVICE_SUPPORT_H

#include "ipc_test_support.h" /* first: it defines _GNU_SOURCE */

#include <stdbool.h>

#include "hurray/plugin.h"
#include "check_main.h"
#include "plugin_probe.h"

static const char *plugin_file;
static hurray_plugin_registry *registry;
static hurray_plugin *plugin;

/* The fixture: the plugin at plugin_file in a registry of its own. */
static inline void load(void) {
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_status s = hurray_plugin_load(registry, plugin_file, 0, &plugin, &err);
  ck_assert_msg(s == HURRAY_OK, "load %s: %s", plugin_file, err.detail);
}

static inline void unload(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  plugin = NULL;
}

static inline size_t live_buffers(const hurray_plugin *p) {
  size_t buffers = 0;
  size_t events = 0;
  (void)hurray_plugin_outstanding(p, &buffers, &events);
  return buffers;
}

static inline size_t live_events(const hurray_plugin *p) {
  size_t buffers = 0;
  size_t events = 0;
  (void)hurray_plugin_outstanding(p, &buffers, &events);
  return events;
}

/*
 * A child's consumer (the tests spawn this program as one): the plugin at
 * `file` in a registry of its own (*own, *loaded), a consumer on the
 * inherited socket importing through it. 0, or the child's exit status
 * for the step that failed: 2 loading, 3 connecting.
 */
static inline int child_consumer(const char *file, int socket_fd, hurray_plugin_registry **own,
                                 hurray_plugin **loaded, hurray_ipc_consumer **consumer) {
  hurray_error err;
  if (hurray_plugin_registry_create(own, &err) != HURRAY_OK ||
      hurray_plugin_load(*own, file, 0, loaded, &err) != HURRAY_OK) {
    fprintf(stderr, "consumer: load %s: %s\n", file, err.detail);
    return 2;
  }
  if (hurray_ipc_consumer_from_socket(socket_fd, NULL, consumer, &err) != HURRAY_OK ||
      hurray_ipc_consumer_set_plugins(*consumer, *own, &err) != HURRAY_OK) {
    fprintf(stderr, "consumer: connect: %s\n", err.detail);
    return 3;
  }
  return 0;
}

/* Runs the suite in this process (the tests spawn their own children). */
static inline int run_suite(Suite *suite) { return hurray_check_run_with(suite, CK_NOFORK); }

#endif /* HURRAY_IPC_DEVICE_SUPPORT_H */
