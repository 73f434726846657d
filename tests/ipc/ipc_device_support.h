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

#include <spawn.h>
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

/* A buffer of size bytes on device 0 of the plugin, allocated exportable,
 * holding bytes. */
static inline hurray_plugin_buffer *exportable_holding(const unsigned char *bytes, size_t size) {
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, size, 64, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, size, &err), HURRAY_OK);
  return buffer;
}

/* The record the producer's export of buffer makes (PL-IPC-1). */
static inline hurray_plugin_ipc_memory exported_memory(hurray_plugin_buffer *buffer) {
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &memory, &err), HURRAY_OK);
  return memory;
}

/* The plugin under test again, in a registry of its own (*own, *loaded):
 * a consumer importing through it is counted apart from the producer. */
static inline void load_own_registry(hurray_plugin_registry **own, hurray_plugin **loaded) {
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(own, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_load(*own, plugin_file, 0, loaded, &err), HURRAY_OK);
}

/* A consumer importing through `plugins`, its producer a raw peer at *peer
 * that has sent HELLO (consumer_with_raw_peer). */
static inline hurray_ipc_consumer *importing_consumer(hurray_plugin_registry *plugins, int *peer) {
  hurray_ipc_consumer *consumer = consumer_with_raw_peer(peer);
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_consumer_set_plugins(consumer, plugins, &err), HURRAY_OK);
  return consumer;
}

/* Sends peer's DEVICE message (IPC-MSG-13) for buffer `index` of offer 1
 * from the export `memory`, declaring segment_size, with the export's
 * descriptor when it has one. */
static inline void send_device_message(int peer, const hurray_plugin_ipc_memory *memory,
                                       uint32_t index, uint64_t segment_size) {
  uint8_t msg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_DEVICE_BODY_SIZE];
  const uint32_t handle_size = memory->kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE ? memory->handle_size
                                                                               : 0u;
  size_t n = hurray_ipc_encode_device(msg, sizeof msg, 1, index, memory->kind, segment_size,
                                      memory->device_uuid, memory->driver_uuid, memory->handle,
                                      handle_size);
  ck_assert_uint_ne(n, 0);
  send_raw_one(peer, msg, n, memory->kind == HURRAY_PLUGIN_IPC_MEMORY_FD ? memory->fd : -1);
}

/* A producer on `end` whose events go to `events`. */
static inline hurray_ipc_producer *producer_on(int end, event_log *events, uint64_t *consumer_id) {
  hurray_ipc_producer_options po = producer_options(events);
  hurray_ipc_producer *producer = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_producer_from_socket(end, &po, &producer, consumer_id, &err),
                   HURRAY_OK);
  return producer;
}

extern char **environ;

/* Spawns this program as `role` PLUGIN_FILE 100, with the socket end
 * `child_end` as descriptor 100 and `signal_end` (or -1) as 101. */
static inline pid_t spawn_role(const char *role, int child_end, int signal_end) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  ck_assert_int_ne(child_end, 100); /* dup2 onto itself would keep CLOEXEC */
  ck_assert_int_ne(signal_end, 101);
  posix_spawn_file_actions_adddup2(&actions, child_end, 100);
  if (signal_end >= 0) {
    posix_spawn_file_actions_adddup2(&actions, signal_end, 101);
  }
  char program[] = "/proc/self/exe";
  char *role_arg = strdup(role);
  char *file = strdup(plugin_file);
  char descriptor[] = "100";
  ck_assert(role_arg != NULL && file != NULL);
  char *argv[] = {program, role_arg, file, descriptor, NULL};
  pid_t child;
  ck_assert_int_eq(posix_spawn(&child, program, &actions, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  free(role_arg);
  free(file);
  return child;
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
