/*
 * What the vendor plugin tests share (vendor_plugin_test.c runs them): the
 * plugin under test and its stand-in runtime, the helpers every test uses,
 * and one function per file that adds that file's tests to the test case.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_VENDOR_TEST_H
#define HURRAY_TESTS_VENDOR_TEST_H

#include <stdbool.h>
#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray/plugin.h"

/* What differs between plugins. */
typedef struct vendor_case {
  const char *name;
  hurray_device_tag tag;
  /* The plugin's override variable (HURRAY_<NAME>_LIBRARY). */
  const char *library_env;
  /* Where the stand-in goes: the override itself, or (Level Zero) the real
   * loader's driver variable, with the override left unset. */
  const char *stand_in_env;
  /* Words the no-device reason and the out-of-memory detail must contain. */
  const char *no_device_words;
  const char *out_of_memory_words;
  /* Classes one stand-in device offers, and whether a second device adds peer. */
  hurray_memory_class classes[4];
  size_t class_count;
  bool peer_with_two_devices;
  bool has_events;
  /* Whether unified memory depends on what the device reports. */
  bool unified_is_optional;
  uint32_t ipc_capabilities;
  /* Devices the plugin can see at most (the DSP is one), and whether their
   * names come from the runtime. */
  uint32_t max_devices;
  bool named_by_runtime;
  /* Alignment the plugin guarantees beyond what the runtime gives. */
  uint32_t minimum_alignment;
  /* With the runtime this machine has (no stand-in): the library the
   * no-device reason must name, and the call that must have failed; NULL
   * where no such runtime is installed here. */
  const char *system_library;
  const char *system_call;
} vendor_case;

/* The case named by the first argument (vendor_cases.c), or NULL. */
const vendor_case *vendor_case_named(const char *name);

/* The plugin under test, its stand-in, and the registry a test loaded it
 * into (vendor_harness.c). */
extern const vendor_case *the_case;
extern const char *plugin_path;
extern const char *stand_in_path;
extern hurray_plugin_registry *registry;

/* Loads the plugin with the stand-in in place; the test's switches were set
 * with setenv before. */
hurray_plugin *load_with_stand_in(void);
void reason_of(const hurray_plugin *plugin, char *buf, size_t cap);
/* The stand-in's count of objects still held (fake_common.h). The stand-in
 * stays loaded while this process holds its own reference. */
void *hold_stand_in(void);
long live_objects(void *stand_in);
bool offers(const hurray_plugin_device_info *info, hurray_memory_class memory_class,
            uint32_t *flags);
hurray_plugin_device_info describe(const hurray_plugin *plugin, uint32_t index);
/* PL-EVENT-5: the type of native event the device's runtime has. */
uint32_t expected_native_type(hurray_device_tag tag);
/* Destroys the registry and forgets it; buffers and events still held keep
 * the plugin loaded. Also the test case's teardown, so a test that does not
 * check what destroying it leaves need not call it. */
void unload_registry(void);

/* The importers of the cross-process tests: a second run of this program,
 * started by spawn_importer with the role ("importer", "event-importer")
 * as its fourth argument and its end of a socket pair as descriptor 100.
 * Returns the exporter's end; *child is the importer's process. */
int spawn_importer(const char *role, pid_t *child);
/* In the importer: a registry of its own with the same plugin loaded on the
 * same stand-in, which it holds open, and the stand-in's live-object
 * counter (NULL where it has none). False (with nothing left open) where
 * any of it fails. */
bool importer_load(hurray_plugin_registry **own, hurray_plugin **plugin, void **stand_in,
                   long (**live)(void));
/* In the importer: sends the step it failed at (0: none) and returns it as
 * the exit status. */
int importer_reply(int socket_fd, unsigned char step);

/* The tests, added in this order by vendor_plugin_test.c. */
void vendor_add_device_tests(TCase *tc);     /* vendor_devices_test.c */
void vendor_add_ipc_memory_tests(TCase *tc); /* vendor_ipc_memory_test.c */
void vendor_add_ipc_event_tests(TCase *tc);  /* vendor_ipc_event_test.c */
void vendor_add_lifecycle_tests(TCase *tc);  /* vendor_lifecycle_test.c */
void vendor_add_concurrency_test(TCase *tc); /* vendor_lifecycle_test.c */
void vendor_add_system_test(TCase *tc);      /* vendor_lifecycle_test.c */
int run_importer(int socket_fd);             /* vendor_ipc_memory_test.c */
int run_event_importer(int socket_fd);       /* vendor_ipc_event_test.c */

#endif
