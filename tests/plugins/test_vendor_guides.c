/*
 * The C code of docs/plugin-abi.md and docs/vendor-guide.md, extracted from
 * the guides at build time (tests/handoff/extract_guide_examples.py),
 * compiled with the project's warnings and run here, so that the guides
 * cannot drift from the library (issue 44). docs/handoff-guide.md's code is
 * run by tests/handoff/test_handoff_guide.c. The vendor guide's whole
 * program, acme_host.c, is compiled apart with its main renamed
 * vendor_guide_host_main; its table check is linked with the template's
 * source, as a vendor's unit test links their plugin's. What needs a runtime
 * this machine lacks (CUDA) runs on the plugins it has and is checked to
 * refuse as the guide says.
 *
 * Environment: HURRAY_TEMPLATE_PLUGIN_DIR (the example-private plugin's
 * build folder), HURRAY_CPU_PLUGIN (the cpu plugin, built).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"

#include "plugin_abi_examples.h"
#include "vendor_guide_examples.h"
#include "check_main.h"

/* What docs/plugin-abi.md's native-event example calls (the guide declares
 * it as CUDA does): CUDA's wait, counted here. */
static int cu_stream_waits;
int cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  (void)stream;
  (void)event;
  (void)flags;
  cu_stream_waits++;
  return 0;
}

/* docs/vendor-guide.md's acme_host.c, main renamed. */
int vendor_guide_host_main(int argc, char **argv);

static char *env(const char *name) {
  char *value = getenv(name);
  ck_assert_msg(value != NULL, "%s is not set", name);
  return value;
}

static hurray_plugin_registry *registry;

static hurray_plugin *load(const char *file) {
  hurray_error err;
  hurray_plugin *plugin = NULL;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_status s = hurray_plugin_load(registry, file, 0, &plugin, &err);
  ck_assert_msg(s == HURRAY_OK, "%s: %s", file, err.detail);
  return plugin;
}

/* The fixture's teardown: it runs after a test that failed as well, so a
 * failure leaves nothing loaded for the next test (they share the process). */
static void unload(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
}

/* The vendor guide's section 12: the template (there renamed acme) loaded
 * by name, a buffer handed over producer_synced and with an event; the cpu
 * plugin, producer_synced only; a name not found. */
START_TEST(host_program_hands_buffers_over) {
  setenv("HURRAY_PLUGIN_PATH", env("HURRAY_TEMPLATE_PLUGIN_DIR"), 1);
  char program[] = "acme-host";
  char template_name[] = "example-private";
  char *template_args[] = {program, template_name, NULL};
  ck_assert_int_eq(vendor_guide_host_main(2, template_args), 0);
  char missing[] = "nothere";
  char *missing_args[] = {program, missing, NULL};
  ck_assert_int_eq(vendor_guide_host_main(2, missing_args), 1);
  char cpu_dir[4096];
  snprintf(cpu_dir, sizeof cpu_dir, "%s", env("HURRAY_CPU_PLUGIN"));
  *strrchr(cpu_dir, '/') = '\0';
  setenv("HURRAY_PLUGIN_PATH", cpu_dir, 1);
  char cpu[] = "cpu";
  char *cpu_args[] = {program, cpu, NULL};
  ck_assert_int_eq(vendor_guide_host_main(2, cpu_args), 0);
  unsetenv("HURRAY_PLUGIN_PATH");
}
END_TEST

/* The vendor guide's section 13: the table check, on the template's table. */
START_TEST(table_check_passes_the_template) { ck_assert_int_eq(table_is_valid(), 0); }
END_TEST

/* docs/plugin-abi.md, native events: the template gives no native handle,
 * so the example answers UNSUPPORTED and never calls the runtime. */
START_TEST(native_event_example) {
  char file[4096];
  snprintf(file, sizeof file, "%s/hurray-plugin-example-private.so",
           env("HURRAY_TEMPLATE_PLUGIN_DIR"));
  hurray_plugin *plugin = load(file);
  hurray_error err;
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  accepted.event = event;
  accepted.event_kind = HURRAY_EVENT_KIND_PLUGIN;
  ck_assert_int_eq(wait_natively(&accepted, NULL, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_int_eq(cu_stream_waits, 0);
  hurray_plugin_event_release(event);
}
END_TEST

/* docs/plugin-abi.md, memory across processes, on the cpu plugin in one
 * process: exported, the descriptor "received" (a duplicate), imported and
 * read: the producer's bytes. */
START_TEST(ipc_memory_example) {
  hurray_plugin *cpu = load(env("HURRAY_CPU_PLUGIN"));
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  hurray_plugin_ipc_memory memory;
  ck_assert_int_eq(export_buffer(cpu, 4096, &buffer, &memory, &err), HURRAY_OK);
  unsigned char bytes[4096];
  memset(bytes, 0x6B, sizeof bytes);
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  int received = dup(memory.fd);
  ck_assert_int_ge(received, 0);
  close(memory.fd); /* sent: the producer's to close */
  memory.fd = received;
  unsigned char back[4096];
  memset(back, 0, sizeof back);
  ck_assert_int_eq(import_and_read(cpu, &memory, back, sizeof back, &err), HURRAY_OK);
  ck_assert_mem_eq(back, bytes, sizeof bytes);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
}
END_TEST

/* docs/plugin-abi.md, events across processes: the cpu plugin exports no
 * events, so the producer's side is UNSUPPORTED and creates nothing, and
 * the consumer's side refuses a record no plugin wrote. */
START_TEST(ipc_event_example) {
  hurray_plugin *cpu = load(env("HURRAY_CPU_PLUGIN"));
  hurray_error err;
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(export_event(cpu, NULL, &event, &record, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_ptr_null(event);
  record.struct_size = sizeof record;
  record.kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE;
  record.handle_size = 64;
  record.device_tag = HURRAY_DEVICE_CPU;
  ck_assert_int_eq(wait_exported(cpu, &record, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(hurray_plugin_outstanding(cpu, NULL, NULL), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("vendor_guides");
  TCase *t = hurray_check_case(s, "guides", NULL, unload, 120);
  tcase_add_test(t, host_program_hands_buffers_over);
  tcase_add_test(t, table_check_passes_the_template);
  tcase_add_test(t, native_event_example);
  tcase_add_test(t, ipc_memory_example);
  tcase_add_test(t, ipc_event_example);
  return hurray_check_run_with(s, CK_NOFORK);
}
