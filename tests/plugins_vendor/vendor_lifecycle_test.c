/*
 * The lifetimes of the plugins' objects: the registry destroyed under live
 * buffers and events (PL-LIFE-1), every object returned to the stand-in,
 * an event handed from producer to consumer (facts §7), four threads at
 * once (PL-CALL-2), and the runtime this machine really has.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <pthread.h>

#include "vendor_test.h"

START_TEST(registry_destroy_leaves_live_objects_to_their_holders) {
  setenv("HURRAY_FAKE_DEVICES", "2", 1);
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffers[4] = {NULL, NULL, NULL, NULL};
  for (size_t i = 0; i < the_case->class_count; i++) {
    uint32_t device = (uint32_t)i % hurray_plugin_device_count(plugin);
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, device, 512, 64, the_case->classes[i], &buffers[i], &err),
        HURRAY_OK);
  }
  hurray_plugin_event *event = NULL;
  if (the_case->has_events) {
    uint32_t last_device = hurray_plugin_device_count(plugin) - 1u;
    ck_assert_int_eq(hurray_plugin_event_create(plugin, last_device, &event, &err), HURRAY_OK);
    (void)event; /* left for the registry to release */
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  }
  long live = live_objects(stand_in);
  ck_assert_int_gt(live, 0);
  /* PL-LIFE-1: destroying the registry leaves live buffers and events to
   * their holders; the plugin stays loaded until the last is released. */
  unload_registry();
  ck_assert_int_eq(live_objects(stand_in), live);
  for (size_t i = 0; i < the_case->class_count; i++) {
    hurray_plugin_buffer_free(buffers[i]);
  }
  if (event != NULL) {
    hurray_plugin_event_release(event);
  }
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

START_TEST(free_and_release_return_every_object) {
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  long baseline = live_objects(stand_in);
  hurray_error err;
  for (int round = 0; round < 3; round++) {
    hurray_plugin_buffer *buffer = NULL;
    hurray_memory_class last = the_case->classes[the_case->class_count - 1];
    ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, last, &buffer, &err), HURRAY_OK);
    hurray_plugin_buffer_free(buffer);
    if (the_case->has_events) {
      hurray_plugin_event *event = NULL;
      ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
      hurray_plugin_event_release(event);
    }
    ck_assert_int_eq(live_objects(stand_in), baseline);
  }
  unload_registry();
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

START_TEST(event_handoff_from_producer_to_consumer) {
  /* The handoff of specs/handoff.md with a plugin event (facts §7): the
   * producer writes, records an event and offers; the consumer accepts,
   * waits on its stream through the plugin, releases the event, reads and
   * releases the buffer. Both release callbacks are the library's. */
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 256, 256, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK);
  unsigned char payload[256];
  for (size_t i = 0; i < sizeof payload; i++) {
    payload[i] = (unsigned char)(255u - i);
  }
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, payload, sizeof payload, &err), HURRAY_OK);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);

  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  handle.sync_mode = HURRAY_SYNC_EVENT;
  hurray_buffer_offer offer =
      hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none());
  offer.data = hurray_plugin_buffer_allocation(buffer)->address;
  offer.release = hurray_plugin_buffer_release_callback;
  offer.release_ctx = buffer; /* the record the callback frees */
  offer.sync = hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN, the_case->tag,
                                                 hurray_plugin_event_release_callback, NULL);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  ck_assert_int_eq(hurray_handoff_offer(&handoff, &handle, &offer, &err), HURRAY_OK);

  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err),
                   HURRAY_OK);
  ck_assert_ptr_eq(accepted.event, event);
  ck_assert_int_eq(accepted.handle.device_tag, the_case->tag);
  /* Not readable before the wait (BP-SYNC-3). */
  ck_assert_int_ne(hurray_handoff_access(&handoff, NULL, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_stream_wait(accepted.event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&handoff, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(&handoff, &err), HURRAY_OK);
  void *data = NULL;
  ck_assert_int_eq(hurray_handoff_access(&handoff, NULL, &data, &err), HURRAY_OK);
  ck_assert_ptr_eq(data, offer.data);
  ck_assert_int_eq(hurray_plugin_stream_wait(plugin, 0, NULL, 1000000000u, &err), HURRAY_OK);
  unsigned char seen[256];
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, seen, sizeof seen, &err), HURRAY_OK);
  ck_assert_mem_eq(seen, payload, sizeof seen);
  long before_release = live_objects(stand_in);
  ck_assert_int_eq(hurray_handoff_release(&handoff, &err), HURRAY_OK);
  /* The buffer went back to the runtime through the release callback. */
  ck_assert_int_lt(live_objects(stand_in), before_release);
  ck_assert_int_eq(hurray_handoff_destroy(&handoff, &err), HURRAY_OK);
  unload_registry();
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

/* What a worker of the concurrency test failed at (0: nothing). */
static const char *const worker_failures[] = {"nothing", "allocate", "copy or bytes read back",
                                              "event"};

/* One worker of the concurrency test: allocate, copy, record and wait,
 * free, on its own buffers and events (PL-CALL-2: any entry from any
 * thread). Returns the index of its first failure in worker_failures. */
static void *concurrent_worker(void *opaque) {
  hurray_plugin *plugin = opaque;
  hurray_memory_class memory_class = the_case->classes[0];
  for (int round = 0; round < 50; round++) {
    hurray_error err;
    hurray_plugin_buffer *buffer = NULL;
    if (hurray_plugin_allocate(plugin, 0, 512, 64, memory_class, &buffer, &err) != HURRAY_OK) {
      return (void *)(uintptr_t)1;
    }
    unsigned char in[512];
    unsigned char out[512];
    memset(in, round, sizeof in);
    if (hurray_plugin_buffer_write(buffer, 0, in, sizeof in, &err) != HURRAY_OK ||
        hurray_plugin_buffer_read(buffer, 0, out, sizeof out, &err) != HURRAY_OK ||
        memcmp(in, out, sizeof in) != 0) {
      hurray_plugin_buffer_free(buffer);
      return (void *)(uintptr_t)2;
    }
    if (the_case->has_events) {
      hurray_plugin_event *event = NULL;
      if (hurray_plugin_event_create(plugin, 0, &event, &err) != HURRAY_OK ||
          hurray_plugin_event_record(event, NULL, &err) != HURRAY_OK ||
          hurray_plugin_event_wait(event, 5000000000u, &err) != HURRAY_OK) {
        hurray_plugin_event_release(event);
        hurray_plugin_buffer_free(buffer);
        return (void *)(uintptr_t)3;
      }
      hurray_plugin_event_release(event);
    }
    hurray_plugin_buffer_free(buffer);
  }
  return NULL;
}

START_TEST(concurrent_use_from_four_threads) {
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  long baseline = live_objects(stand_in);
  pthread_t threads[4];
  for (size_t i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_create(&threads[i], NULL, concurrent_worker, plugin), 0);
  }
  for (size_t i = 0; i < 4; i++) {
    void *failure = NULL;
    ck_assert_int_eq(pthread_join(threads[i], &failure), 0);
    ck_assert_msg(failure == NULL, "thread %zu failed at: %s", i,
                  worker_failures[(uintptr_t)failure & 3u]);
  }
  ck_assert_int_eq(live_objects(stand_in), baseline);
  unload_registry();
  dlclose(stand_in);
}
END_TEST

START_TEST(system_runtime_without_device_reports_why) {
  /* The runtime Debian installs here, with no device behind it: Debian's
   * libamdhip64 without an AMD GPU (hipInit fails at once, no /dev/kfd), or
   * the Level Zero loader without a driver (zeInit finds none). The plugin
   * must say so, not hang or crash. Without the package, the reason names
   * the library it tried instead. */
  unsetenv(the_case->stand_in_env);
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  ck_assert_int_eq(hurray_plugin_load(registry, plugin_path, 0, &plugin, &err), HURRAY_OK);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  if (hurray_plugin_device_count(plugin) == 0) {
    ck_assert_msg(strstr(reason, the_case->system_library) != NULL, "reason: %s", reason);
    ck_assert_msg(strstr(reason, the_case->system_call) != NULL || strstr(reason, "dlopen") != NULL,
                  "reason: %s", reason);
  } else {
    ck_assert_str_eq(reason, "");
  }
  printf("%s with the system runtime: %u devices; %s\n", the_case->name,
         (unsigned)hurray_plugin_device_count(plugin), reason);
}
END_TEST

void vendor_add_lifecycle_tests(TCase *tc) {
  tcase_add_test(tc, registry_destroy_leaves_live_objects_to_their_holders);
  tcase_add_test(tc, free_and_release_return_every_object);
  if (the_case->has_events) {
    tcase_add_test(tc, event_handoff_from_producer_to_consumer);
  }
}

void vendor_add_concurrency_test(TCase *tc) {
  tcase_add_test(tc, concurrent_use_from_four_threads);
}

void vendor_add_system_test(TCase *tc) {
  tcase_add_test(tc, system_runtime_without_device_reports_why);
}
