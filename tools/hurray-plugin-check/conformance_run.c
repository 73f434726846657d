/*
 * Running one conformance check (conformance.h): a fresh registry per check,
 * the skip without a device (CLI-CHK-3), the first failed expectation as the
 * outcome (CLI-CHK-5), and the list of checks in the order of CLI-CHK-2.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

struct conformance_run {
  const char *file;
  hurray_plugin_registry *registry;
  hurray_plugin *plugin;
  conformance_outcome *out;
  jmp_buf stop;
};

/* name, rules, what, needs a device, observes the unload, function. */
static const conformance_check checks[] = {
    {"table", "PL-ENTRY-1..2, PL-NEG-1..5, PL-TABLE-1..10",
     "the entry answers; the table and its strings pass the loader's validation", false, false,
     conformance_check_table},
    {"devices", "PL-DEV-1..5, PL-AVAIL-1",
     "every device description is valid; the unavailable reason is snprintf-style", false, false,
     conformance_check_devices},
    {"allocation", "PL-ALLOC-1..5",
     "every class at alignments 64 up to its maximum declares what the address shows; refusals",
     true, false, conformance_check_allocation},
    {"copy", "PL-COPY-1..2",
     "bytes written come back unchanged, at offsets; out-of-range copies refused", true, false,
     conformance_check_copy},
    {"events", "PL-EVENT-1..4", "events record, wait (with and without a timeout) and release",
     true, false, conformance_check_events},
    {"native-event", "PL-EVENT-5", "the runtime's own handle behind a recorded event", true, false,
     conformance_check_native_event},
    {"handoff", "HO-OWN-1, HO-OWN-3, HO-PAY-6, BP-SYNC-2",
     "a plugin buffer handed over producer_synced, and with a plugin event; released once", true,
     false, conformance_check_handoff},
    {"concurrency", "PL-CALL-2",
     "allocate, copy, events and free from four threads, frees from another thread", true, false,
     conformance_check_concurrency},
    {"unload-with-buffers-held", "PL-LIFE-1..2, PL-LOAD-7",
     "a buffer handed over outlives the plugin's unload; its release closes the plugin", true, true,
     conformance_check_unload_with_buffers_held},
    {"unload-idle", "PL-LOAD-7", "an unload with nothing live closes the plugin at once", true,
     true, conformance_check_unload_idle},
    {"double-free", "PL-LIFE-3", "a second free is refused and changes nothing", true, false,
     conformance_check_double_free},
    {"free-after-unload", "PL-LIFE-3", "a free after the plugin is gone is refused", true, true,
     conformance_check_free_after_unload},
    {"racing-free", "PL-LIFE-3", "two threads freeing one buffer free it once", true, false,
     conformance_check_racing_free},
    {"free-racing-unload", "PL-LIFE-1, PL-LIFE-3",
     "frees racing the registry's destruction: each once, the plugin closed after the last", true,
     true, conformance_check_free_racing_unload},
    {"ipc-memory", "PL-IPC-1..6",
     "memory exported, imported and written by a second process (where the plugin exports)", true,
     false, conformance_check_ipc_memory},
    {"ipc-event", "PL-IPC-7..11",
     "an event exported, opened and waited on by a second process (where a device exports "
     "events)",
     true, false, conformance_check_ipc_event},
};

size_t conformance_check_count(void) { return sizeof checks / sizeof checks[0]; }

const conformance_check *conformance_check_at(size_t i) {
  return i < conformance_check_count() ? &checks[i] : NULL;
}

const conformance_check *conformance_check_find(const char *name) {
  for (size_t i = 0; i < conformance_check_count(); i++) {
    if (strcmp(checks[i].name, name) == 0) {
      return &checks[i];
    }
  }
  return NULL;
}

hurray_plugin *conformance_plugin(const conformance_run *run) { return run->plugin; }

const char *conformance_file(const conformance_run *run) { return run->file; }

void conformance_unload(conformance_run *run) {
  hurray_plugin_registry_destroy(run->registry);
  run->registry = NULL;
  run->plugin = NULL;
}

_Noreturn void conformance_stop(conformance_run *run, conformance_result result, const char *format,
                                ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(run->out->detail, sizeof run->out->detail, format, args);
  va_end(args); /* before the longjmp: va_end belongs in va_start's function */
  run->out->result = result;
  longjmp(run->stop, 1);
}

void conformance_note(conformance_run *run, const char *format, ...) {
  char *notes = run->out->notes;
  size_t used = strlen(notes);
  if (used + 2u >= sizeof run->out->notes) {
    return;
  }
  va_list args;
  va_start(args, format);
  vsnprintf(notes + used, sizeof run->out->notes - used - 1u, format, args);
  va_end(args);
  used = strlen(notes);
  notes[used] = '\n';
  notes[used + 1u] = '\0';
}

/* The outcome of a failed expectation: "<what>: <tail>", <what> formatted
 * from format and args. The caller ends the check after its va_end. */
CONFORMANCE_PRINTF(3, 0)
static void fail_detail(conformance_run *run, const char *tail, const char *format, va_list args) {
  char what[512];
  vsnprintf(what, sizeof what, format, args);
  snprintf(run->out->detail, sizeof run->out->detail, "%s: %s", what, tail);
  run->out->result = CONFORMANCE_FAIL;
}

void conformance_expect_status(conformance_run *run, hurray_status got, hurray_status expected,
                               const hurray_error *err, const char *format, ...) {
  if (got == expected) {
    return;
  }
  char tail[HURRAY_ERROR_DETAIL_SIZE + 128];
  bool detail = got != HURRAY_OK && err != NULL && err->detail[0] != '\0';
  snprintf(tail, sizeof tail, "returned %s%s%s%s, expected %s", hurray_status_name(got),
           detail ? " (" : "", detail ? err->detail : "", detail ? ")" : "",
           hurray_status_name(expected));
  va_list args;
  va_start(args, format);
  fail_detail(run, tail, format, args);
  va_end(args);
  longjmp(run->stop, 1);
}

void conformance_expect_eq(conformance_run *run, uint64_t got, uint64_t want, const char *format,
                           ...) {
  if (got == want) {
    return;
  }
  char tail[96];
  snprintf(tail, sizeof tail, "is %llu, expected %llu", (unsigned long long)got,
           (unsigned long long)want);
  va_list args;
  va_start(args, format);
  fail_detail(run, tail, format, args);
  va_end(args);
  longjmp(run->stop, 1);
}

bool conformance_file_is_mapped(const char *path) {
  char real[4096];
  if (realpath(path, real) == NULL) {
    return false;
  }
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) {
    return false;
  }
  char line[8192];
  bool found = false;
  while (fgets(line, sizeof line, maps) != NULL) {
    found = found || strstr(line, real) != NULL;
  }
  fclose(maps);
  return found;
}

const char *conformance_class_name(hurray_memory_class memory_class, char buf[32]) {
  hurray_memory_class_display(memory_class, buf, 32);
  return buf;
}

/* The loader's refusal, or no device: what a check that cannot start says. */
/* Whether a check of this process failed: what it held may keep the plugin
 * loaded. */
static bool earlier_failure;

static bool start(conformance_run *run, const conformance_check *check) {
  /* Mapped before this check loads it, after a failure: held by what the
   * failed check left. (Mapped with no failure before, the check runs, and
   * fails if the plugin never unloads.) */
  bool leftovers = earlier_failure && conformance_file_is_mapped(run->file);
  hurray_error err;
  memset(&err, 0, sizeof err);
  if (hurray_plugin_registry_create(&run->registry, &err) != HURRAY_OK) {
    run->out->result = CONFORMANCE_FAIL;
    snprintf(run->out->detail, sizeof run->out->detail, "no registry: %s", err.detail);
    return false;
  }
  hurray_status s = hurray_plugin_load(run->registry, run->file, 0, &run->plugin, &err);
  if (s != HURRAY_OK) {
    run->out->result = CONFORMANCE_FAIL;
    snprintf(run->out->detail, sizeof run->out->detail, "the loader refused the plugin: %s: %s",
             hurray_status_name(s), err.detail);
    return false;
  }
  if (check->observes_unload && leftovers) {
    run->out->result = CONFORMANCE_SKIP;
    snprintf(run->out->detail, sizeof run->out->detail,
             "an earlier failed check left buffers or events of the plugin held, which keep it "
             "loaded (PL-LIFE-1): fix that failure, or run this check alone (--check %s)",
             check->name);
    return false;
  }
  if (check->needs_device && hurray_plugin_device_count(run->plugin) == 0u) {
    char reason[CONFORMANCE_DETAIL_SIZE - 64];
    hurray_plugin_unavailable_reason(run->plugin, reason, sizeof reason);
    run->out->result = CONFORMANCE_SKIP;
    snprintf(run->out->detail, sizeof run->out->detail, "no device: %s",
             reason[0] != '\0' ? reason : "(the plugin gives no reason)");
    return false;
  }
  return true;
}

void conformance_run_check(const conformance_check *check, const char *plugin_file,
                           conformance_outcome *out) {
  /* Static, not automatic: the check changes it between setjmp and a
   * longjmp, after which an automatic object's value would be indeterminate
   * (C11 7.13.2.1). One check runs at a time (conformance.h). */
  static conformance_run run;
  memset(out, 0, sizeof *out);
  memset(&run, 0, sizeof run);
  run.file = plugin_file;
  run.out = out;
  if (start(&run, check) && setjmp(run.stop) == 0) {
    check->run(&run);
    out->result = CONFORMANCE_PASS;
  }
  /* After a failure buffers may still be held: the registry's destruction
   * then leaves the plugin loaded until they are freed (PL-LIFE-1). */
  conformance_unload(&run);
  earlier_failure = earlier_failure || out->result == CONFORMANCE_FAIL;
}
