/*
 * Events shared with another process (PL-IPC-7..11): in the exporting
 * process, and across two with the event importer, a second run of this
 * program (vendor_test.h: spawn_importer).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <sys/wait.h>
#include <unistd.h>

#include "vendor_test.h"

static bool exports_events(hurray_device_tag tag) {
  return tag == HURRAY_DEVICE_CUDA || tag == HURRAY_DEVICE_ROCM; /* PL-IPC-11 */
}

/* PL-IPC-7..9, PL-IPC-11 in one process (the stand-ins open a handle in
 * the exporting process; ipc_event_opens_in_another_process covers
 * another): only an event created exportable is exported, as the
 * runtime's 64-byte handle with the plugin's tag, up to the caller's
 * struct_size; bad records are refused by the host or the runtime with
 * nothing opened; the import reports the exporter's state (a pending
 * record times out, a new one completes), is not exported again, and its
 * release closes the import only. A plugin without event export says
 * UNSUPPORTED and its devices do not declare HURRAY_IPC_EXPORTS_EVENTS. */
START_TEST(ipc_events_open_the_same_event) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_device_info info = describe(plugin, 0);
  hurray_plugin_event *event = NULL;
  if (!exports_events(the_case->tag)) {
    ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, 0u);
    ck_assert_int_eq(
        hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err),
        HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, the_case->tag);
    ck_assert_ptr_null(event);
    dlclose(stand_in);
    return;
  }
  ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, HURRAY_IPC_EXPORTS_EVENTS);
  long live_before = live_objects(stand_in);

  /* An ordinary event is not exported, whatever the runtime would do. */
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_ipc_event record;
  memset(&record, 0xEE, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(event, &record, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.expected, the_case->tag);
  ck_assert_msg(strstr(err.detail, "HURRAY_PLUGIN_EVENT_EXPORTABLE") != NULL, "detail: %s",
                err.detail);
  ck_assert_uint_eq(record.kind, 0xEEEEEEEEu); /* nothing written */
  hurray_plugin_event_release(event);

  hurray_plugin_event *exported = NULL;
  ck_assert_int_eq(
      hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &exported, &err),
      HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1);
  /* PL-VER-5: a caller that knows only the first 16 bytes gets 16. */
  memset(&record, 0xEE, sizeof record);
  record.struct_size = 16;
  ck_assert_int_eq(hurray_plugin_event_export(exported, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.struct_size, 16u);
  ck_assert_uint_eq(record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  ck_assert_uint_eq(record.handle_size, 64u);
  ck_assert_uint_eq(record.device_tag, the_case->tag);
  ck_assert_uint_eq(record.handle[0], 0xEEu);
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(exported, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.reserved[0] | record.reserved[1] | record.reserved[2], 0u);

  /* Refused records: the host's checks, then the plugin's and the
   * runtime's; nothing is opened. */
  hurray_plugin_event *imported = NULL;
  hurray_plugin_ipc_event bad = record;
  bad.struct_size = 8;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  bad = record;
  bad.device_tag = HURRAY_DEVICE_CPU;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_DEVICE_TAG_MISMATCH);
  bad = record;
  bad.handle_size = 16; /* within 1..64, not the runtime's size */
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 16u);
  bad = record;
  bad.handle[0] ^= 0xFFu; /* not a handle the runtime made */
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_DEVICE_ERROR);
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 1, &record, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_ptr_null(imported);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1);

  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &record, &imported, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before + 2); /* one opened event */
  ck_assert_ptr_eq(hurray_plugin_event_plugin(imported), plugin);
  /* The import's state is the exporter's. */
  setenv("HURRAY_FAKE_EVENT_HANG", "1", 1);
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(imported, 1000000u, &err), HURRAY_ERR_TIMEOUT);
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(imported, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  ck_assert_int_eq(hurray_plugin_event_native(imported, &native, &err), HURRAY_OK);
  ck_assert_uint_eq(native.native_type, expected_native_type(the_case->tag));
  /* An import is the exporter's event: not exported again (PL-IPC-8). */
  memset(&bad, 0xEE, sizeof bad);
  bad.struct_size = sizeof bad;
  ck_assert_int_eq(hurray_plugin_event_export(imported, &bad, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(err.detail, "imported") != NULL, "detail: %s", err.detail);
  ck_assert_uint_eq(bad.kind, 0xEEEEEEEEu);
  hurray_plugin_event_release(imported);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1); /* closed, once */
  /* The exporter's event is still there. */
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(exported, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  hurray_plugin_event_release(exported);
  ck_assert_int_eq(live_objects(stand_in), live_before);
  dlclose(stand_in);
}
END_TEST

/* PL-IPC-11, PL-DEV-3, PL-IPC-7: a device whose runtime cannot share events
 * (CUDA without CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, HIP 5 refusing
 * hipEventInterprocess) does not declare HURRAY_IPC_EXPORTS_EVENTS, and the
 * host refuses an exportable event on it (UNSUPPORTED, index 1) before the
 * plugin is asked; ordinary events are unaffected. */
START_TEST(device_without_ipc_events_refuses_exportable_events) {
  setenv("HURRAY_FAKE_NO_IPC_EVENTS", "1", 1);
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_device_info info = describe(plugin, 0);
  ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, 0u);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(
      hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err),
      HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_uint_eq(err.expected, the_case->tag);
  ck_assert_msg(strstr(err.detail, "HURRAY_IPC_EXPORTS_EVENTS") != NULL, "detail: %s", err.detail);
  ck_assert_ptr_null(event);
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_event_release(event);
}
END_TEST

/* What the event importer failed at (its exit status and the byte it sends). */
static const char *const event_importer_steps[] = {
    "nothing",
    "receive the event record",
    "load the plugin with the stand-in",
    "import the event",
    "see the exporter's pending record (a wait that times out)",
    "receive the exporter's go",
    "see the exporter's completed record",
    "leave the stand-in holding nothing of the import"};

enum {
  EVENT_IMPORTER_STEPS = sizeof event_importer_steps / sizeof event_importer_steps[0],
  EVENT_PENDING_SEEN = 0xA5 /* the importer saw the pending record; its go, please */
};

/* The event importer (a second process, no Check): receives the exporter's
 * hurray_plugin_ipc_event, loads the same plugin with the same stand-in,
 * imports it (PL-IPC-9), finds the exporter's pending record (a short wait
 * times out), says so and waits for the exporter's go, then waits until the
 * exporter's new record completes, and releases the import (PL-IPC-9: the
 * import is closed, the stand-in holds nothing of it). Returns 0 or the
 * failed step's index in event_importer_steps. */
static unsigned char import_event_in_this_process(int socket_fd) {
  hurray_plugin_ipc_event record;
  if (read(socket_fd, &record, sizeof record) != (ssize_t)sizeof record) {
    return 1;
  }
  hurray_plugin_registry *own;
  hurray_plugin *plugin;
  void *stand_in;
  long (*live)(void);
  if (!importer_load(&own, &plugin, &stand_in, &live)) {
    return 2;
  }
  hurray_error err;
  long live_before = live != NULL ? live() : -1;
  unsigned char step = 0;
  unsigned char go = 0;
  hurray_plugin_event *event = NULL;
  if (hurray_plugin_event_import(plugin, 0, &record, &event, &err) != HURRAY_OK) {
    fprintf(stderr, "event importer: %s\n", err.detail);
    step = 3;
  } else if (hurray_plugin_event_wait(event, 1000000u, &err) != HURRAY_ERR_TIMEOUT) {
    step = 4;
  } else {
    unsigned char seen = EVENT_PENDING_SEEN;
    if (write(socket_fd, &seen, 1) != 1 || read(socket_fd, &go, 1) != 1) {
      step = 5;
    } else if (hurray_plugin_event_wait(event, 10000000000u, &err) != HURRAY_OK) {
      fprintf(stderr, "event importer: %s\n", err.detail);
      step = 6;
    }
  }
  hurray_plugin_event_release(event);
  if (step == 0 && (live == NULL || live() != live_before)) {
    step = 7;
  }
  hurray_plugin_registry_destroy(own);
  dlclose(stand_in);
  return step;
}

int run_event_importer(int socket_fd) {
  return importer_reply(socket_fd, import_event_in_this_process(socket_fd));
}

/* PL-IPC-7..9 across two processes with the runtimes' IPC event handles:
 * an exportable event is recorded while the device does not finish, and
 * its record alone goes over a socket to a second process started from
 * this program, which imports it with the same plugin and stand-in and
 * finds it pending; the exporter then records it again on a device that
 * finishes, and the importer's hurray_plugin_event_wait completes; the
 * importer releases its import and exits 0, and the exporter's event is
 * untouched (it waits and releases as before). */
START_TEST(ipc_event_opens_in_another_process) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_event *event = NULL;
  hurray_status s =
      hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE, &event, &err);
  ck_assert_msg(s == HURRAY_OK, "%s", err.detail);
  setenv("HURRAY_FAKE_EVENT_HANG", "1", 1);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(event, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  ck_assert_uint_eq(record.handle_size, 64u);
  ck_assert_uint_eq(record.device_tag, the_case->tag);
  long live_before = live_objects(stand_in);

  pid_t child;
  int exporter = spawn_importer("event-importer", &child);
  ck_assert_int_eq(write(exporter, &record, sizeof record), (ssize_t)sizeof record);
  unsigned char step = 0xFF;
  ck_assert_int_eq(read(exporter, &step, 1), 1);
  if (step == EVENT_PENDING_SEEN) {
    /* The importer saw the pending record: now a record that completes. */
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
    unsigned char go = 1;
    ck_assert_int_eq(write(exporter, &go, 1), 1);
    step = 0xFF;
    ck_assert_int_eq(read(exporter, &step, 1), 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  close(exporter);
  ck_assert_msg(step == 0, "the event importer failed to %s",
                step < EVENT_IMPORTER_STEPS ? event_importer_steps[step] : "answer");
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_int_eq(live_objects(stand_in), live_before);
  /* The exporter's event is untouched by the importer's release. */
  ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  hurray_plugin_event_release(event);
  ck_assert_int_eq(live_objects(stand_in), live_before - 1);
  dlclose(stand_in);
}
END_TEST

void vendor_add_ipc_event_tests(TCase *tc) {
  tcase_add_test(tc, ipc_events_open_the_same_event);
  if (exports_events(the_case->tag)) {
    /* The plugins that export events (PL-IPC-11). */
    tcase_add_test(tc, ipc_event_opens_in_another_process);
    tcase_add_test(tc, device_without_ipc_events_refuses_exportable_events);
  }
}
