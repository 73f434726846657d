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
#include <sys/wait.h>

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

/* A shared device buffer's release, as the producer's callback counts it. */
typedef struct device_release {
  int calls;
  /* The plugin's live events when it ran. An event buffer's own event is
   * released right before it (IPC-REL-2): the count excludes it. */
  size_t live_events_at_release;
  hurray_plugin_buffer *buffer; /* released by the callback */
} device_release;

/* The release callback of a shared device buffer; ctx is its
 * device_release. */
static inline void free_device_buffer(void *data, void *ctx) {
  (void)data;
  device_release *r = ctx;
  r->calls++;
  r->live_events_at_release = live_events(plugin);
  (void)!hurray_plugin_buffer_release(r->buffer, NULL);
}

/* What a child's consumer works with: the plugin in a registry of its own,
 * and the consumer importing through it. */
typedef struct child_side {
  hurray_plugin_registry *own;
  hurray_plugin *loaded;
  hurray_ipc_consumer *consumer;
} child_side;

/*
 * A child's consumer (the tests spawn this program as one): the plugin at
 * `file` in a registry of its own, a consumer on the inherited socket
 * importing through it. 0, or the child's exit status for the step that
 * failed: 2 loading, 3 connecting.
 */
static inline int child_consumer(const char *file, int socket_fd, child_side *side) {
  hurray_error err;
  *side = (child_side){NULL, NULL, NULL};
  if (hurray_plugin_registry_create(&side->own, &err) != HURRAY_OK ||
      hurray_plugin_load(side->own, file, 0, &side->loaded, &err) != HURRAY_OK) {
    fprintf(stderr, "consumer: load %s: %s\n", file, err.detail);
    return 2;
  }
  if (hurray_ipc_consumer_from_socket(socket_fd, NULL, &side->consumer, &err) != HURRAY_OK ||
      hurray_ipc_consumer_set_plugins(side->consumer, side->own, &err) != HURRAY_OK) {
    fprintf(stderr, "consumer: connect: %s\n", err.detail);
    return 3;
  }
  return 0;
}

/* What a child's consumer checks of the first offer it received; it owns
 * `received` (and may receive more). Returns 0, or the step that failed. */
typedef int received_check(const child_side *side, hurray_ipc_received *received);

/* The whole consumer process: child_consumer(), the first offer received
 * (step 4 when none comes), `check` on it, the consumer and its registry
 * destroyed. Returns the process's exit status. */
static inline int run_child_consumer(const char *file, int socket_fd, received_check *check) {
  child_side side;
  int step = child_consumer(file, socket_fd, &side);
  if (step != 0) {
    return step;
  }
  hurray_error err;
  hurray_ipc_received *received = NULL;
  if (hurray_ipc_consumer_receive(side.consumer, 10000, &received, &err) != HURRAY_OK) {
    fprintf(stderr, "consumer: receive: status %d value %llu index %llu %s\n", (int)err.status,
            (unsigned long long)err.value, (unsigned long long)err.index, err.detail);
    return 4;
  }
  int verdict = check(&side, received);
  hurray_ipc_consumer_destroy(&side.consumer);
  hurray_plugin_registry_destroy(side.own);
  return verdict;
}

/* Spawns this program as the consumer (--consumer) of a new socket pair,
 * whose other end, the producer's, goes to *producer_end. */
static inline pid_t spawn_consumer(int *producer_end) {
  int pair[2];
  socket_pair(pair);
  pid_t child = spawn_role("--consumer", pair[1], -1);
  close(pair[1]);
  *producer_end = pair[0];
  return child;
}

/* Waits for the child and fails the test unless it exited 0; its exit
 * status is the step that failed. */
static inline void expect_consumer_passed(pid_t child) {
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the consumer failed at step %d",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A role this program runs when a test spawns it (spawn_role): the first
 * argument naming it, and what runs with the plugin file and the socket. */
typedef struct spawned_role {
  const char *name;
  int (*run)(const char *file, int socket_fd);
} spawned_role;

/*
 * The start of a device test program, `program` PLUGIN_FILE
 * [--require-devices]: spawned as one of `roles`, it runs that role;
 * otherwise it sets plugin_file and probes it (plugin_probe, which fills
 * *ipc_capabilities if not NULL). Returns the exit status where the
 * program ends here, -1 where its tests run.
 */
static inline int device_test_start(int argc, char **argv, const char *program,
                                    const spawned_role *roles, size_t role_count,
                                    uint32_t *ipc_capabilities) {
  for (size_t r = 0; r < role_count; r++) {
    if (argc == 4 && strcmp(argv[1], roles[r].name) == 0) {
      return roles[r].run(argv[2], atoi(argv[3]));
    }
  }
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN_FILE [--require-devices]\n", program);
    return 2;
  }
  plugin_file = argv[1];
  return plugin_probe(plugin_file, argc > 2 && strcmp(argv[2], "--require-devices") == 0,
                      ipc_capabilities);
}

/* Runs the first `count` of `tests` in this process (the tests spawn their
 * own children), each with the plugin loaded fresh (load, unload), with
 * the timeout of a crossing between processes. */
static inline int run_device_tests(const char *suite_name, const char *case_name,
                                   const TTest *const *tests, size_t count) {
  return hurray_check_main(suite_name, case_name, load, unload, 120, CK_NOFORK, tests, count);
}

#endif /* HURRAY_IPC_DEVICE_SUPPORT_H */
