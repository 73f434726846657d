/*
 * Device memory over the IPC transport (specs/ipc.md IPC-OFF-3, IPC-SEG-5,
 * IPC-SEG-6): a producer shares buffers a plugin allocated exportable, a
 * consumer in another process imports them through its own registry,
 * reads the producer's bytes, writes its own and releases; the producer
 * sees each release, then reads the consumer's bytes from its own buffer
 * (one memory, no copy) and its release callback runs once per buffer.
 * Then the refusals in this process: a buffer not allocated exportable, a
 * plugin's refusal of one of the offer's imports (nothing stays imported),
 * with descriptors and the plugin's live buffers counted before and after.
 *
 * Usage: test_ipc_device PLUGIN_FILE [--require-devices]
 *        test_ipc_device --consumer PLUGIN_FILE SOCKET_FD   (run by the test)
 *        test_ipc_device --holder PLUGIN_FILE SOCKET_FD     (imports, then waits to be killed)
 * Without a device it prints SKIP and exits 77 unless --require-devices.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "ipc_device_support.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "hurray/plugin.h"

enum { DEVICE_BYTES = 1 << 20, BUFFERS = 2 };

static unsigned char seeded(size_t i, unsigned seed) { return (unsigned char)(i * 7u + seed); }

/* What the consumer process checks (run_child_consumer): the offer's
 * buffers imported through its own registry, the producer's bytes in them;
 * it writes its own and releases each once. Returns the failing step, 0
 * when all went well. */
static int check_imports(const child_side *side, hurray_ipc_received *received) {
  hurray_error err;
  int verdict = 0;
  if (hurray_ipc_received_count(received) != BUFFERS) {
    verdict = 5;
  }
  static unsigned char bytes[DEVICE_BYTES];
  for (size_t b = 0; b < BUFFERS && verdict == 0; b++) {
    const hurray_accepted_buffer *accepted = hurray_ipc_received_buffer(received, b);
    hurray_plugin_buffer *imported = hurray_ipc_received_plugin_buffer(received, b);
    if (accepted == NULL || imported == NULL ||
        accepted->data != hurray_plugin_buffer_allocation(imported)->address ||
        accepted->handle.byte_size != DEVICE_BYTES ||
        accepted->handle.device_tag != hurray_plugin_device_tag(side->loaded) ||
        hurray_handoff_state_of(hurray_ipc_received_handoff(received, b)) !=
            HURRAY_HANDOFF_READABLE) {
      verdict = 6;
      break;
    }
    if (hurray_plugin_buffer_read(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
      verdict = 7;
      break;
    }
    for (size_t i = 0; i < sizeof bytes && verdict == 0; i++) {
      verdict = bytes[i] == seeded(i, 1u + (unsigned)b) ? 0 : 8;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
      bytes[i] = seeded(i, 10u + (unsigned)b);
    }
    if (verdict == 0 &&
        hurray_plugin_buffer_write(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
      verdict = 9;
    }
  }
  for (size_t b = 0; b < BUFFERS; b++) {
    /* IPC-SEG-6: the release frees the import, then signals, once. */
    if (hurray_ipc_received_release(received, b, &err) != HURRAY_OK && verdict == 0) {
      verdict = 10;
    }
    if (hurray_ipc_received_plugin_buffer(received, b) != NULL && verdict == 0) {
      verdict = 11;
    }
    if (hurray_ipc_received_release(received, b, &err) != HURRAY_ERR_ALREADY_RELEASED &&
        verdict == 0) {
      verdict = 12;
    }
  }
  if (verdict == 0 && live_buffers(side->loaded) != 0) {
    verdict = 13; /* every import freed */
  }
  hurray_ipc_received_free(&received);
  return verdict;
}

static int run_consumer(const char *file, int socket_fd) {
  return run_child_consumer(file, socket_fd, check_imports);
}

/* The consumer that dies holding its imports: receives, says so, waits. */
static int run_holder(const char *file, int socket_fd) {
  hurray_error err;
  child_side side;
  hurray_ipc_received *received = NULL;
  int step = child_consumer(file, socket_fd, &side);
  if (step != 0) {
    return step;
  }
  if (hurray_ipc_consumer_receive(side.consumer, 10000, &received, &err) != HURRAY_OK) {
    return 4;
  }
  (void)!write(101, "h", 1); /* descriptor 101: the parent's pipe */
  for (;;) {
    pause(); /* SIGKILL ends it holding every buffer */
  }
}

static hurray_plugin_buffer *exportable(unsigned seed) {
  static unsigned char bytes[DEVICE_BYTES];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = seeded(i, seed);
  }
  return exportable_holding(bytes, sizeof bytes);
}

/* A producer whose events are logged, sharing BUFFERS exportable buffers
 * (patterns seeded 1, 2, ...) with the consumer at the other end. */
typedef struct device_offer {
  event_log events;
  uint64_t consumer_id;
  hurray_ipc_producer *producer;
  device_release released[BUFFERS];
  hurray_ipc_shared *shared[BUFFERS];
} device_offer;

/* The producer of *o on the socket end `end`. */
static void share_device_buffers(int end, device_offer *o) {
  memset(o, 0, sizeof *o);
  o->producer = producer_on(end, &o->events, &o->consumer_id);
  hurray_error err;
  for (unsigned b = 0; b < BUFFERS; b++) {
    o->released[b].buffer = exportable(1u + b);
    ck_assert_int_eq(hurray_ipc_producer_share_device(o->producer, o->released[b].buffer, NULL,
                                                      free_device_buffer, &o->released[b],
                                                      &o->shared[b], &err),
                     HURRAY_OK);
  }
}

/* IPC-OFF-3, IPC-SEG-5, IPC-SEG-6 across two processes. */
START_TEST(another_process_imports_the_offer) {
  leak_probe probe = leak_start("device offer to another process");
  hurray_error err;
  int producer_end = -1;
  pid_t child = spawn_consumer(&producer_end);
  device_offer sharing;
  share_device_buffers(producer_end, &sharing);
  uint64_t offer_id = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(sharing.producer, sharing.consumer_id, sharing.shared,
                                             BUFFERS, 0, &offer_id, &err),
                   HURRAY_OK);
  /* Each release arrives as the consumer sends it (IPC-REL-1). */
  for (int tries = 0;
       tries < 200 && events_of(&sharing.events, HURRAY_IPC_EVENT_RELEASED) < BUFFERS; tries++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(sharing.producer, 100, &err), HURRAY_OK);
  }
  expect_consumer_passed(child);
  ck_assert_int_eq(events_of(&sharing.events, HURRAY_IPC_EVENT_RELEASED), BUFFERS);
  ck_assert_int_eq(events_of(&sharing.events, HURRAY_IPC_EVENT_REJECTED), 0);
  /* The consumer's bytes, read through the producer's own buffers. */
  static unsigned char bytes[DEVICE_BYTES];
  for (unsigned b = 0; b < BUFFERS; b++) {
    ck_assert_int_eq(
        hurray_plugin_buffer_read(sharing.released[b].buffer, 0, bytes, sizeof bytes, &err),
        HURRAY_OK);
    for (size_t i = 0; i < sizeof bytes; i++) {
      ck_assert_uint_eq(bytes[i], seeded(i, 10u + b));
    }
    ck_assert_int_eq(sharing.released[b].calls, 0); /* still the producer's */
    hurray_ipc_shared_retire(sharing.shared[b]);
    ck_assert_int_eq(sharing.released[b].calls, 1); /* released exactly once (IPC-REL-2) */
  }
  ck_assert_uint_eq(live_buffers(plugin), 0);
  hurray_ipc_producer_destroy(&sharing.producer);
  leak_check(&probe);
}
END_TEST

/* IPC-OFF-3, PL-IPC-2: what the producer cannot export it refuses (the host
 * decides, whatever the runtime would hand out); it never copies. */
START_TEST(a_buffer_not_allocated_exportable_is_refused) {
  leak_probe probe = leak_start("share of a non-exportable buffer");
  event_log events = {0};
  hurray_ipc_producer *producer = NULL;
  uint64_t consumer_id = 0;
  hurray_ipc_consumer *consumer = NULL;
  connected_pair(&events, &producer, &consumer_id, &consumer);
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_consumer_set_plugins(consumer, registry, &err), HURRAY_OK);
  hurray_plugin_buffer *plain = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &plain, &err), HURRAY_OK);
  device_release r = {0, 0, plain};
  hurray_ipc_shared *shared = NULL;
  ck_assert_int_eq(hurray_ipc_producer_share_device(producer, plain, NULL, free_device_buffer, &r,
                                                    &shared, &err),
                   HURRAY_ERR_UNSUPPORTED);
  ck_assert_ptr_null(shared);
  ck_assert_int_eq(
      hurray_ipc_producer_share_device(producer, NULL, NULL, free_device_buffer, &r, &shared, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_int_eq(hurray_ipc_producer_share_device(producer, plain, NULL, NULL, &r, &shared, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3);
  ck_assert_int_eq(r.calls, 0);
  ck_assert_int_eq(hurray_plugin_buffer_release(plain, &err), HURRAY_OK);
  hurray_ipc_consumer_destroy(&consumer);
  hurray_ipc_producer_destroy(&producer);
  leak_check(&probe);
}
END_TEST

/* IPC-SEG-5, IPC-SEG-3: an offer of two device buffers whose second import
 * is refused (its DEVICE message declares a segment too small for the
 * buffer: the host's check before the plugin, PL-IPC-3). The first import
 * is undone, REJECT names the second buffer, nothing stays open. */
START_TEST(one_refused_import_rejects_the_whole_offer) {
  hurray_error err;
  hurray_plugin_buffer *buffer = exportable(1u);
  hurray_plugin_ipc_memory memory = exported_memory(buffer);
  hurray_plugin_registry *own = NULL;
  hurray_plugin *loaded = NULL;
  load_own_registry(&own, &loaded);
  leak_probe probe = leak_start("device offer, second import refused");
  int peer = -1;
  hurray_ipc_consumer *consumer = importing_consumer(own, &peer);
  ck_assert_int_eq(hurray_ipc_consumer_set_plugins(NULL, own, &err), HURRAY_ERR_NULL_ARGUMENT);
  for (uint32_t b = 0; b < BUFFERS; b++) {
    /* buffer 1's segment: too small for 1 MiB */
    send_device_message(peer, &memory, b, b == 0 ? memory.segment_size : 16u);
  }
  hurray_buffer_handle handles[BUFFERS];
  hurray_ipc_segment segments[BUFFERS];
  for (size_t b = 0; b < BUFFERS; b++) {
    handles[b] = *hurray_plugin_buffer_handle(buffer);
    segments[b].offset = memory.offset;
    segments[b].memory_kind = HURRAY_IPC_MEMORY_DEVICE;
    segments[b].reserved = 0;
  }
  uint8_t msg[HURRAY_IPC_MAX_MESSAGE_SIZE];
  size_t n = hurray_ipc_encode_offer(msg, sizeof msg, 1, handles, segments, BUFFERS);
  send_raw_one(peer, msg, n, -1);
  hurray_ipc_received *received = NULL;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_ipc_consumer_receive(consumer, 5000, &received, &err),
                   HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_uint_eq(err.value, memory.offset + DEVICE_BYTES);
  ck_assert_ptr_null(received);
  ck_assert_uint_eq(live_buffers(loaded), 0); /* buffer 0's import undone */
  hurray_ipc_message m = raw_recv(peer, 0);
  ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REJECT);
  ck_assert_uint_eq(m.code, HURRAY_ERR_IPC_BAD_SEGMENT);
  ck_assert_uint_eq(m.buffer_index, 1);
  hurray_ipc_consumer_destroy(&consumer);
  close(peer);
  leak_check(&probe);
  if (memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD) {
    close(memory.fd);
  }
  hurray_plugin_registry_destroy(own);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
}
END_TEST

/* IPC-FLT-1 with device memory: a consumer killed (SIGKILL) while holding
 * imported buffers; the producer notices the hang-up, reclaims each hold
 * exactly once, and the release callbacks free the producer's buffers. */
START_TEST(a_consumer_killed_holding_device_buffers) {
  leak_probe probe = leak_start("device holds of a killed consumer");
  hurray_error err;
  int pair[2];
  int signal_pipe[2];
  socket_pair(pair);
  ck_assert_int_eq(pipe2(signal_pipe, O_CLOEXEC), 0);
  pid_t child = spawn_role("--holder", pair[1], signal_pipe[1]);
  close(pair[1]);
  close(signal_pipe[1]);
  device_offer sharing;
  share_device_buffers(pair[0], &sharing);
  ck_assert_int_eq(hurray_ipc_producer_offer(sharing.producer, sharing.consumer_id, sharing.shared,
                                             BUFFERS, 0, NULL, &err),
                   HURRAY_OK);
  for (unsigned b = 0; b < BUFFERS; b++) {
    hurray_ipc_shared_retire(sharing.shared[b]); /* only the consumer's holds keep them now */
  }
  char imported = 0;
  ck_assert_int_eq(read(signal_pipe[0], &imported, 1), 1); /* the child holds its imports */
  close(signal_pipe[0]);
  size_t holds = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(sharing.producer, NULL, 0, &holds, &err), HURRAY_OK);
  ck_assert_uint_eq(holds, BUFFERS);
  ck_assert_int_eq(kill(child, SIGKILL), 0);
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (int tries = 0; tries < 100 && events_of(&sharing.events, HURRAY_IPC_EVENT_GONE) == 0;
       tries++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(sharing.producer, 100, &err), HURRAY_OK);
  }
  ck_assert_int_eq(events_of(&sharing.events, HURRAY_IPC_EVENT_GONE), 1);
  for (int i = 0; i < sharing.events.count && i < MAX_EVENTS; i++) {
    if (sharing.events.events[i].kind == HURRAY_IPC_EVENT_GONE) {
      ck_assert_uint_eq(sharing.events.events[i].value, BUFFERS); /* holds reclaimed */
    }
  }
  for (unsigned b = 0; b < BUFFERS; b++) {
    ck_assert_int_eq(sharing.released[b].calls, 1); /* exactly once each */
  }
  ck_assert_uint_eq(live_buffers(plugin), 0);
  hurray_ipc_producer_destroy(&sharing.producer);
  for (unsigned b = 0; b < BUFFERS; b++) {
    ck_assert_int_eq(sharing.released[b].calls, 1); /* and not again at destroy */
  }
  leak_check(&probe);
}
END_TEST

int main(int argc, char **argv) {
  const spawned_role roles[] = {{"--consumer", run_consumer}, {"--holder", run_holder}};
  int status = device_test_start(argc, argv, "test_ipc_device", roles, 2, NULL);
  if (status >= 0) {
    return status;
  }
  const TTest *tests[] = {
      another_process_imports_the_offer, a_buffer_not_allocated_exportable_is_refused,
      one_refused_import_rejects_the_whole_offer, a_consumer_killed_holding_device_buffers};
  return run_device_tests("ipc_device", "device", tests, sizeof tests / sizeof tests[0]);
}
