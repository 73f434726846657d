/*
 * Events over the IPC transport (specs/ipc.md IPC-MSG-14, IPC-OFF-4,
 * IPC-SEG-7, IPC-REL-2): a producer shares a device buffer with the
 * exportable event recorded after its writes; a consumer in another process
 * gets it as an accepted event handoff (EVENT_PENDING, its payload the
 * imported event), waits, records the wait, releases the event (closing
 * the import), reads the bytes and releases the buffer; a second such
 * buffer it gives up unread (hurray_ipc_received_free releases the event it
 * still holds, then the buffer); the producer's events live until their
 * buffers' release callbacks. Then the protocol faults
 * in this process: an EVENT for a producer_synced buffer, a second EVENT
 * for one buffer, an event buffer without EVENT, an EVENT for host memory,
 * and an event handle the plugin refuses, with descriptors, the plugin's
 * live buffers and live events counted before and after.
 *
 * On a plugin whose devices export no events (cpu, opencl, vulkan,
 * level_zero here) it checks the refusal instead: no exportable event, and
 * no share of a buffer with an event that is not exportable.
 *
 * Usage: test_ipc_event PLUGIN_FILE [--require-devices]
 *        test_ipc_event --consumer PLUGIN_FILE SOCKET_FD   (run by the test)
 * Without a device it prints SKIP and exits 77 unless --require-devices.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "ipc_device_support.h"

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "hurray/plugin.h"

enum { DEVICE_BYTES = 1 << 16 };

/* Whether the plugin's device 0 exports events across processes (PL-IPC-11). */
static bool device_exports_events;

static unsigned char seeded(size_t i) { return (unsigned char)(i * 13u + 5u); }

/* What the consumer process checks (run_child_consumer) of the two offers
 * it receives. Returns the failing step, 0 when all went well. */
static int check_event_buffers(const child_side *side, hurray_ipc_received *received) {
  hurray_plugin *loaded = side->loaded;
  hurray_error err;
  int verdict = 0;
  const hurray_accepted_buffer *accepted = hurray_ipc_received_buffer(received, 0);
  hurray_handoff *handoff = hurray_ipc_received_handoff(received, 0);
  hurray_plugin_buffer *imported = hurray_ipc_received_plugin_buffer(received, 0);
  /* IPC-SEG-7: an accepted event handoff whose payload is the import. */
  if (hurray_ipc_received_count(received) != 1 || accepted == NULL || imported == NULL ||
      accepted->handle.sync_mode != HURRAY_SYNC_EVENT || accepted->event == NULL ||
      accepted->event_kind != HURRAY_EVENT_KIND_PLUGIN ||
      hurray_plugin_event_plugin(accepted->event) != loaded ||
      hurray_handoff_state_of(handoff) != HURRAY_HANDOFF_EVENT_PENDING ||
      live_events(loaded) != 1) {
    verdict = 5;
  }
  /* Not readable before a wait is recorded; the buffer's release cannot
   * come before the event's (HO-SM). */
  if (verdict == 0 && hurray_handoff_access(handoff, NULL, NULL, &err) == HURRAY_OK) {
    verdict = 6;
  }
  if (verdict == 0 &&
      hurray_ipc_received_release(received, 0, &err) != HURRAY_ERR_ILLEGAL_TRANSITION) {
    verdict = 7;
  }
  if (verdict == 0 && (hurray_plugin_event_wait(accepted->event, 5000000000u, &err) != HURRAY_OK ||
                       hurray_handoff_record_event_wait(handoff, &err) != HURRAY_OK ||
                       hurray_handoff_release_event(handoff, &err) != HURRAY_OK)) {
    verdict = 8;
  }
  if (verdict == 0 && live_events(loaded) != 0) {
    verdict = 9; /* the import closed by the event's release (PL-IPC-9) */
  }
  static unsigned char bytes[DEVICE_BYTES];
  if (verdict == 0 &&
      hurray_plugin_buffer_read(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
    verdict = 10;
  }
  for (size_t i = 0; i < sizeof bytes && verdict == 0; i++) {
    verdict = bytes[i] == seeded(i) ? 0 : 11;
  }
  if (hurray_ipc_received_release(received, 0, &err) != HURRAY_OK && verdict == 0) {
    verdict = 12;
  }
  if (verdict == 0 && (live_buffers(loaded) != 0 || live_events(loaded) != 0)) {
    verdict = 13;
  }
  hurray_ipc_received_free(&received);
  /* The second offer is given up unread: free releases the event it still
   * holds, then the buffer, and the producer hears the release (IPC-SEG-7). */
  if (verdict == 0 &&
      hurray_ipc_consumer_receive(side->consumer, 10000, &received, &err) != HURRAY_OK) {
    verdict = 14;
  }
  if (verdict == 0 && (hurray_handoff_state_of(hurray_ipc_received_handoff(received, 0)) !=
                           HURRAY_HANDOFF_EVENT_PENDING ||
                       live_events(loaded) != 1 || live_buffers(loaded) != 1)) {
    verdict = 15;
  }
  hurray_ipc_received_free(&received);
  if (verdict == 0 && (live_buffers(loaded) != 0 || live_events(loaded) != 0)) {
    verdict = 16;
  }
  return verdict;
}

static int run_consumer(const char *file, int socket_fd) {
  return run_child_consumer(file, socket_fd, check_event_buffers);
}

static hurray_plugin_buffer *exportable_written(void) {
  static unsigned char bytes[DEVICE_BYTES];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = seeded(i);
  }
  return exportable_holding(bytes, sizeof bytes);
}

/* An exportable event, recorded after the writes (PL-IPC-7). */
static hurray_plugin_event *recorded_event(void) {
  hurray_error err;
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(
      hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err),
      HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  return event;
}

/* IPC-OFF-4, IPC-SEG-7, IPC-REL-2 across two processes. */
START_TEST(an_event_buffer_crosses_processes) {
  leak_probe probe = leak_start("event buffer to another process");
  hurray_error err;
  int producer_end = -1;
  pid_t child = spawn_consumer(&producer_end);
  event_log events = {0};
  uint64_t consumer_id = 0;
  hurray_ipc_producer *producer = producer_on(producer_end, &events, &consumer_id);
  device_release released = {0, 99, exportable_written()};
  device_release unread = {0, 99, exportable_written()};
  hurray_ipc_shared *shared = NULL;
  hurray_ipc_shared *shared_unread = NULL;
  ck_assert_int_eq(
      hurray_ipc_producer_share_device_event(producer, released.buffer, recorded_event(), NULL,
                                             free_device_buffer, &released, &shared, &err),
      HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_share_device_event(producer, unread.buffer, recorded_event(),
                                                          NULL, free_device_buffer, &unread,
                                                          &shared_unread, &err),
                   HURRAY_OK);
  /* BP-XPORT-3: an event buffer needs HURRAY_IPC_EXPORTS_EVENTS; nothing
   * is sent without it. */
  ck_assert_int_eq(hurray_ipc_producer_offer(producer, consumer_id, &shared, 1, 0, NULL, &err),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_uint_eq(err.value, HURRAY_SYNC_EVENT);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_int_eq(hurray_ipc_producer_offer(producer, consumer_id, &shared, 1,
                                             HURRAY_IPC_EXPORTS_EVENTS, NULL, &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_ipc_producer_offer(producer, consumer_id, &shared_unread, 1,
                                             HURRAY_IPC_EXPORTS_EVENTS, NULL, &err),
                   HURRAY_OK);
  hurray_ipc_shared_retire(shared);
  hurray_ipc_shared_retire(shared_unread);
  ck_assert_int_eq(released.calls, 0);       /* the consumer holds them */
  ck_assert_uint_eq(live_events(plugin), 2); /* and the events live for their waits */
  for (int tries = 0; tries < 200 && events_of(&events, HURRAY_IPC_EVENT_RELEASED) < 2; tries++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(producer, 100, &err), HURRAY_OK);
  }
  expect_consumer_passed(child);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), 2);
  ck_assert_int_eq(released.calls, 1); /* exactly once (IPC-REL-2) */
  ck_assert_int_eq(unread.calls, 1);
  /* Each buffer's event went right before its release callback: one
   * event left at the first callback, none at the second. */
  ck_assert_uint_eq(released.live_events_at_release + unread.live_events_at_release, 1);
  ck_assert_uint_eq(live_buffers(plugin), 0);
  hurray_ipc_producer_destroy(&producer);
  ck_assert_int_eq(released.calls, 1);
  ck_assert_int_eq(unread.calls, 1);
  leak_check(&probe);
}
END_TEST

/* IPC-OFF-4, PL-IPC-7, PL-IPC-8: what cannot cross is refused, nothing kept. */
START_TEST(a_plugin_without_event_export_refuses) {
  leak_probe probe = leak_start("event share refusals");
  hurray_error err;
  event_log events = {0};
  int sv[2];
  socket_pair(sv);
  hurray_ipc_producer *producer = producer_on(sv[0], &events, NULL);
  hurray_plugin_buffer *buffer = exportable_written();
  hurray_ipc_shared *shared = NULL;
  device_release released = {0, 0, buffer};
  ck_assert_int_eq(hurray_ipc_producer_share_device_event(
                       producer, buffer, NULL, NULL, free_device_buffer, &released, &shared, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2);
  hurray_plugin_event *exportable = NULL;
  hurray_status st = hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE,
                                                      &exportable, &err);
  if (!device_exports_events) {
    ck_assert_int_eq(st, HURRAY_ERR_UNSUPPORTED); /* PL-IPC-7 */
    ck_assert_ptr_null(exportable);
  } else {
    ck_assert_int_eq(st, HURRAY_OK);
    hurray_plugin_event_release(exportable);
  }
  /* An event not created exportable: the export refuses it (PL-IPC-8),
   * the share keeps nothing and the event stays the caller's. */
  hurray_plugin_event *plain = NULL;
  if (hurray_plugin_supports_events(plugin)) {
    ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &plain, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_ipc_producer_share_device_event(producer, buffer, plain, NULL,
                                                            free_device_buffer, &released, &shared,
                                                            &err),
                     HURRAY_ERR_UNSUPPORTED);
    ck_assert_ptr_null(shared);
    ck_assert_uint_eq(live_events(plugin), 1);
    hurray_plugin_event_release(plain);
  } else {
    printf("SKIP the non-exportable event share: %s has no events at all\n", plugin_file);
  }
  size_t holds = 1;
  ck_assert_int_eq(hurray_ipc_producer_holds(producer, NULL, 0, &holds, &err), HURRAY_OK);
  ck_assert_uint_eq(holds, 0);
  ck_assert_int_eq(released.calls, 0);
  ck_assert_uint_eq(live_events(plugin), 0);
  hurray_ipc_producer_destroy(&producer);
  close(sv[1]);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  leak_check(&probe);
}
END_TEST

/* What a fault case sends after HELLO: DEVICE for buffer 0 (device_message),
 * EVENT messages for the indices in event_indices (event_count of them,
 * handle_size bytes each), then an OFFER of one buffer declaring sync_mode
 * with a record of memory_kind. */
typedef struct fault_case {
  const char *name;
  int device_message;
  uint32_t event_count;
  uint32_t event_indices[2];
  uint32_t handle_size; /* 0: the export's */
  uint64_t event_offer; /* the EVENTs' offer_id; 0: the offer's, 1 */
  uint32_t sync_mode;
  uint32_t memory_kind;
  hurray_status expected; /* receive's status */
  int protocol_error;     /* the connection ends with REFUSE, else REJECT */
} fault_case;

static void run_fault(const fault_case *fc, hurray_plugin_buffer *buffer,
                      const hurray_plugin_ipc_memory *memory, const hurray_plugin_ipc_event *ev,
                      hurray_plugin *own_plugin, hurray_plugin_registry *own) {
  hurray_error err;
  leak_probe probe = leak_start(fc->name);
  int peer = -1;
  hurray_ipc_consumer *consumer = importing_consumer(own, &peer);
  if (fc->device_message) {
    send_device_message(peer, memory, 0, memory->segment_size);
  }
  uint8_t msg[HURRAY_IPC_MAX_MESSAGE_SIZE];
  size_t n = 0;
  for (uint32_t k = 0; k < fc->event_count; k++) {
    n = hurray_ipc_encode_event(msg, sizeof msg, fc->event_offer != 0u ? fc->event_offer : 1u,
                                fc->event_indices[k], ev->kind, ev->device_uuid, ev->driver_uuid,
                                ev->handle,
                                fc->handle_size != 0u ? fc->handle_size : ev->handle_size);
    ck_assert_uint_ne(n, 0);
    send_raw_one(peer, msg, n, -1);
  }
  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  handle.sync_mode = (hurray_sync_mode)fc->sync_mode;
  hurray_ipc_segment segment = {memory->offset, fc->memory_kind, 0};
  int host_fd = -1;
  if (fc->memory_kind == HURRAY_IPC_MEMORY_HOST_MEMFD) {
    void *data = NULL;
    host_fd = make_segment(DEVICE_BYTES, &data);
    munmap(data, DEVICE_BYTES);
    segment.offset = 0;
  }
  n = hurray_ipc_encode_offer(msg, sizeof msg, 1, &handle, &segment, 1);
  ck_assert_uint_ne(n, 0);
  send_raw_one(peer, msg, n, host_fd);
  if (host_fd >= 0) {
    close(host_fd);
  }
  hurray_ipc_received *received = NULL;
  memset(&err, 0, sizeof err);
  hurray_status st = hurray_ipc_consumer_receive(consumer, 5000, &received, &err);
  ck_assert_msg(st == fc->expected, "%s: receive gave %d (value %llu, index %llu: %s), not %d",
                fc->name, (int)st, (unsigned long long)err.value, (unsigned long long)err.index,
                err.detail, (int)fc->expected);
  ck_assert_ptr_null(received);
  ck_assert_uint_eq(err.index, fc->event_count == 2u ? fc->event_indices[1] : 0u);
  /* What the producer hears: REFUSE PROTOCOL_ERROR (IPC-ERR-2) or REJECT. */
  hurray_ipc_message m = raw_recv(peer, MSG_DONTWAIT);
  ck_assert_uint_eq(m.type, fc->protocol_error ? HURRAY_IPC_MSG_REFUSE : HURRAY_IPC_MSG_REJECT);
  ck_assert_uint_eq(m.code,
                    fc->protocol_error ? HURRAY_IPC_REFUSE_PROTOCOL_ERROR : (uint32_t)fc->expected);
  hurray_ipc_consumer_destroy(&consumer);
  close(peer);
  /* Nothing imported, opened or mapped stays behind (IPC-ERR-1). */
  ck_assert_uint_eq(live_buffers(own_plugin), 0);
  ck_assert_uint_eq(live_events(own_plugin), 0);
  leak_check(&probe);
}

/* IPC-OFF-4, IPC-SEG-7, IPC-ERR-2: EVENT messages that do not match the
 * OFFER end the connection; an event the plugin cannot open rejects the
 * offer with nothing left imported. */
START_TEST(event_faults_leave_nothing_behind) {
  hurray_error err;
  hurray_plugin_buffer *buffer = exportable_written();
  hurray_plugin_ipc_memory memory = exported_memory(buffer);
  hurray_plugin_event *event = recorded_event();
  hurray_plugin_ipc_event ev;
  memset(&ev, 0, sizeof ev);
  ev.struct_size = sizeof ev;
  ck_assert_int_eq(hurray_plugin_event_export(event, &ev, &err), HURRAY_OK);
  hurray_plugin_registry *own = NULL;
  hurray_plugin *loaded = NULL;
  load_own_registry(&own, &loaded);
  const fault_case cases[] = {
      {"EVENT for a producer_synced buffer",
       1,
       1,
       {0, 0},
       0,
       0,
       HURRAY_SYNC_PRODUCER_SYNCED,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
      {"a second EVENT for buffer 0",
       1,
       2,
       {0, 0},
       0,
       0,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
      {"an event buffer without EVENT",
       1,
       0,
       {0, 0},
       0,
       0,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
      {"EVENT for a buffer the OFFER lacks",
       1,
       2,
       {0, 1},
       0,
       0,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
      {"EVENT for host memory",
       0,
       1,
       {0, 0},
       0,
       0,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_HOST_MEMFD,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
      {"an event handle the plugin refuses",
       1,
       1,
       {0, 0},
       16,
       0,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       0},
      {"EVENT for another offer than DEVICE's",
       1,
       1,
       {0, 0},
       0,
       2,
       HURRAY_SYNC_EVENT,
       HURRAY_IPC_MEMORY_DEVICE,
       HURRAY_ERR_INVALID_ARGUMENT,
       1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_fault(&cases[i], buffer, &memory, &ev, loaded, own);
  }
  hurray_plugin_registry_destroy(own);
  if (memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD) {
    close(memory.fd);
  }
  hurray_plugin_event_release(event);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
}
END_TEST

int main(int argc, char **argv) {
  const spawned_role roles[] = {{"--consumer", run_consumer}};
  uint32_t ipc_capabilities = 0;
  int status = device_test_start(argc, argv, "test_ipc_event", roles, 1, &ipc_capabilities);
  if (status >= 0) {
    return status;
  }
  /* Events cross only where the device exports them (BP-XPORT-3,
   * PL-IPC-11): there the crossing and its faults run; everywhere the
   * refusals do. */
  device_exports_events = (ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u;
  const TTest *tests[] = {a_plugin_without_event_export_refuses, an_event_buffer_crosses_processes,
                          event_faults_leave_nothing_behind};
  size_t count = sizeof tests / sizeof tests[0];
  if (!device_exports_events) {
    count = 1; /* the refusals alone */
    printf(
        "SKIP an_event_buffer_crosses_processes, event_faults_leave_nothing_behind: %s's "
        "device 0 exports no events across processes (the cuda and rocm runs, on their "
        "stand-ins, cover them)\n",
        plugin_file);
  }
  return run_device_tests("ipc_event", "event", tests, count);
}
