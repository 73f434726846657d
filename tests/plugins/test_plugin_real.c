/*
 * Real allocation, copy and event wait through one plugin on every device it
 * reports (PL-ALLOC-1..5, PL-COPY-1..2, PL-EVENT-1..4), plus the handoff
 * tie-in: allocate -> record -> offer -> accept -> wait -> release, and the
 * plugin's table, devices, threads and lifetime. Every test runs one check
 * of hurray-plugin-check (tools/hurray-plugin-check/conformance.h): the
 * checks a vendor runs on their plugin are exactly the ones run here on the
 * plugins of this tree, one implementation. The IPC checks run in
 * test_plugin_ipc.c.
 *
 * Usage: test_plugin_real PLUGIN_FILE [--require-devices]
 * With no device (runtime missing) it prints SKIP and the plugin's reason
 * and exits 77, unless --require-devices is given (then it fails).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"
#include "check_main.h"

static const char *plugin_file;

/* Runs the named check; a failure fails the test with the check's words. A
 * check may skip only where the plugin lacks what it needs (events). */
static void run_check(const char *name) {
  const conformance_check *check = conformance_check_find(name);
  ck_assert_ptr_nonnull(check);
  static conformance_outcome outcome;
  conformance_run_check(check, plugin_file, &outcome);
  ck_assert_msg(outcome.result != CONFORMANCE_FAIL, "%s: %s", name, outcome.detail);
  if (outcome.result == CONFORMANCE_SKIP) {
    printf("%s: skipped: %s\n", name, outcome.detail);
  }
}

/* PL-ENTRY-1..2, PL-NEG-1..5, PL-TABLE-1..10: the table as the loader reads it. */
START_TEST(table_is_valid) { run_check("table"); }
END_TEST

/* PL-DEV-1..5, PL-AVAIL-1: the descriptions, the unavailable reason. */
START_TEST(devices_are_described) { run_check("devices"); }
END_TEST

/* PL-ALLOC-1..5: every class, several alignments; the handle declares what
 * was obtained and that is what the address shows; the refusals. */
START_TEST(allocation_alignment_is_measured) { run_check("allocation"); }
END_TEST

/* PL-COPY-1..2: bytes written through the plugin come back unchanged, in
 * every class, at an offset; out-of-range copies are refused before the
 * plugin runs. */
START_TEST(copy_round_trip) { run_check("copy"); }
END_TEST

/* PL-EVENT-1..4: a fresh event is complete; after work and a record, a real
 * wait succeeds; stream waits work on the default queue. */
START_TEST(event_record_and_wait) { run_check("events"); }
END_TEST

/* PL-EVENT-5: the native handle of a recorded event is a live object of
 * the runtime, checked with that runtime's own query (clGetEventInfo,
 * vkGetSemaphoreCounterValue / vkGetFenceStatus); cpu and the template
 * have none and say UNSUPPORTED. */
START_TEST(native_event_handle_is_live) { run_check("native-event"); }
END_TEST

/* The handoff tie-in: producer allocates, writes, records an event and
 * offers; the consumer accepts, waits through the plugin, releases the event
 * and then the buffer, which frees the allocation. CPU buffers are
 * producer_synced (BP-SYNC-2): no event travels. */
START_TEST(handoff_offer_wait_release) { run_check("handoff"); }
END_TEST

/* PL-CALL-2: allocate, write, read, events and free from several threads at
 * once; half the buffers are freed by a thread other than the one that
 * allocated them, as a handoff consumer would. */
START_TEST(concurrent_calls) { run_check("concurrency"); }
END_TEST

/* The sequence of issue 16: the producer unloads the plugin while the
 * consumer holds a buffer; the plugin stays loaded until that release and is
 * closed by it (PL-LIFE-1, PL-LOAD-7); hurray_plugin_outstanding counts what
 * holds it (PL-LIFE-2). ASan and valgrind runs of this test catch any use of
 * freed code or memory. */
START_TEST(consumer_releases_after_producer_unloads) { run_check("unload-with-buffers-held"); }
END_TEST

/* Unload with nothing live closes the plugin at once (PL-LOAD-7). */
START_TEST(unload_with_nothing_live_closes_at_once) { run_check("unload-idle"); }
END_TEST

/* PL-LIFE-3: a second free is refused with USE_AFTER_DESTROY naming the
 * buffer, calls nothing and changes no count. */
START_TEST(double_free_is_reported) { run_check("double-free"); }
END_TEST

/* PL-LIFE-3 after PL-LIFE-1: a release after the plugin is gone. */
START_TEST(free_after_plugin_gone_is_reported) { run_check("free-after-unload"); }
END_TEST

/* PL-LIFE-3: two threads free the same buffer at once; exactly one frees
 * it (TSan runs this suite). */
START_TEST(racing_double_free_frees_once) { run_check("racing-free"); }
END_TEST

/* PL-LIFE-1 under races: frees racing the registry's destruction; the plugin
 * is closed once, after the last free. ASan and TSan runs catch a close
 * under a running free. */
START_TEST(frees_racing_the_unload_close_once) { run_check("free-racing-unload"); }
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN_FILE [--require-devices]\n", argv[0]);
    return 2;
  }
  plugin_file = argv[1];
  bool require = argc > 2 && strcmp(argv[2], "--require-devices") == 0;
  /* Probe once outside Check: no devices means SKIP with the plugin's reason. */
  hurray_error err;
  hurray_plugin_registry *probe = NULL;
  hurray_plugin *p = NULL;
  if (hurray_plugin_registry_create(&probe, &err) != HURRAY_OK ||
      hurray_plugin_load(probe, plugin_file, 0, &p, &err) != HURRAY_OK) {
    fprintf(stderr, "FAIL: cannot load %s: %s\n", plugin_file, err.detail);
    hurray_plugin_registry_destroy(probe);
    return 1;
  }
  if (hurray_plugin_device_count(p) == 0u) {
    char reason[256];
    hurray_plugin_unavailable_reason(p, reason, sizeof reason);
    printf("%s: %s has no device here: %s\n", require ? "FAIL" : "SKIP", hurray_plugin_name(p),
           reason);
    hurray_plugin_registry_destroy(probe);
    return require ? 1 : 77;
  }
  printf("%s: %u device(s)\n", hurray_plugin_name(p), hurray_plugin_device_count(p));
  hurray_plugin_registry_destroy(probe);

  Suite *suite = suite_create("plugin_real");
  TCase *tc = hurray_check_case(suite, "device", NULL, NULL, 120);
  tcase_add_test(tc, table_is_valid);
  tcase_add_test(tc, devices_are_described);
  tcase_add_test(tc, allocation_alignment_is_measured);
  tcase_add_test(tc, copy_round_trip);
  tcase_add_test(tc, event_record_and_wait);
  tcase_add_test(tc, native_event_handle_is_live);
  tcase_add_test(tc, handoff_offer_wait_release);
  tcase_add_test(tc, concurrent_calls);
  tcase_add_test(tc, consumer_releases_after_producer_unloads);
  tcase_add_test(tc, unload_with_nothing_live_closes_at_once);
  tcase_add_test(tc, double_free_is_reported);
  tcase_add_test(tc, free_after_plugin_gone_is_reported);
  tcase_add_test(tc, racing_double_free_frees_once);
  tcase_add_test(tc, frees_racing_the_unload_close_once);
  /* No fork: a vendor runtime's threads and global state do not survive one. */
  return hurray_check_run_with(suite, CK_NOFORK);
}
