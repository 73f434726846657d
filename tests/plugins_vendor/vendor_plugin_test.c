/*
 * Tests of the vendor plugins (issue 7) against their stand-in runtimes in
 * tests/fakes/, through the path users take: the library's loader
 * (hurray_plugin_load) dlopens the plugin, and the plugin dlopens the
 * "vendor runtime" named by its HURRAY_<NAME>_LIBRARY variable (Level Zero:
 * the real Debian loader, which loads the stand-in driver named by
 * ZE_ENABLE_ALT_DRIVERS). One program, run once per plugin:
 *   vendor_plugin_test <plugin> <plugin.so> <stand-in.so>
 *
 * Covered per plugin: the missing-runtime path (PL-AVAIL-1), the no-device
 * path, memory-class mapping (facts §5, BP-PAIR-1), alignment measured from
 * the address (BP-ALIGN-5, PL-ALLOC-3), error mapping (vendor out-of-memory,
 * vendor error codes), event lifetimes and timeouts, and cleanup: after the
 * registry is destroyed the stand-in holds no object of the plugin's.
 *
 * Each Check test runs in its own process (fork mode), so a test sets the
 * stand-in's switches (fake_common.h) with setenv before loading.
 *
 * The cross-process IPC tests start this program again as the importer:
 *   vendor_plugin_test <plugin> <plugin.so> <stand-in.so> importer <socket fd>
 * (event-importer for the events).
 *
 * The tests live one concern a file (vendor_test.h lists them); this file
 * picks the case and adds them.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "vendor_test.h"
#include "check_main.h"

/* Before every test: no switch set, no override, whether Check forks or
 * not (CK_FORK=no runs every test in this one process). */
static void clear_switches(void) {
  unsetenv("HURRAY_FAKE_DEVICES");
  unsetenv("HURRAY_FAKE_OOM");
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  unsetenv("HURRAY_FAKE_ALIGNMENT");
  unsetenv("HURRAY_FAKE_NO_UNIFIED");
  unsetenv("HURRAY_FAKE_NO_PEER");
  unsetenv("HURRAY_FAKE_NO_IPC_EVENTS");
  unsetenv(the_case->library_env);
  unsetenv(the_case->stand_in_env);
}

int main(int argc, char **argv) {
  bool importer = argc == 6 && strcmp(argv[4], "importer") == 0;
  bool event_importer = argc == 6 && strcmp(argv[4], "event-importer") == 0;
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "concurrency") == 0) && !importer &&
      !event_importer) {
    fprintf(stderr, "usage: %s <plugin> <plugin.so> <stand-in.so> [concurrency]\n", argv[0]);
    return 2;
  }
  the_case = vendor_case_named(argv[1]);
  if (the_case == NULL) {
    fprintf(stderr, "unknown plugin %s\n", argv[1]);
    return 2;
  }
  plugin_path = argv[2];
  stand_in_path = argv[3];
  if (importer) {
    return run_importer(atoi(argv[5]));
  }
  if (event_importer) {
    return run_event_importer(atoi(argv[5]));
  }

  Suite *suite = suite_create(the_case->name);
  TCase *tc = hurray_check_case(suite, "stand-in", NULL, unload_registry, 20);
  tcase_add_checked_fixture(tc, clear_switches, NULL);
  if (argc == 5) {
    /* The concurrency test alone (meson suite plugins-concurrency, which
     * tools/test runs under ThreadSanitizer). */
    vendor_add_concurrency_test(tc);
    goto run;
  }
  if (strstr(the_case->name, "-system") != NULL) {
    /* A plugin whose runtime this machine cannot have: only its no-runtime path. */
    vendor_add_system_test(tc);
    goto run;
  }
  vendor_add_device_tests(tc);
  vendor_add_ipc_memory_tests(tc);
  vendor_add_ipc_event_tests(tc);
  vendor_add_lifecycle_tests(tc);
  vendor_add_concurrency_test(tc);
  if (the_case->system_library != NULL) {
    vendor_add_system_test(tc);
  }
run:
  return hurray_check_run(suite);
}
