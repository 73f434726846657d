/*
 * The conformance checks of a device plugin: what hurray-plugin-check runs
 * on a vendor's plugin (specs/cli.md CLI-CHK-1..6) and what the plugin tests
 * of this tree run on the in-tree plugins (tests/plugins/test_plugin_real.c,
 * test_plugin_ipc.c), one implementation for both. No test framework: a
 * check is a function that stops at its first failed expectation
 * (conformance_fail, a longjmp back to conformance_run_check) with a message
 * a vendor can act on (CLI-CHK-5).
 *
 * Internal to the tool and the tests (not installed, not libhurray's API).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CONFORMANCE_H
#define HURRAY_CONFORMANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/handoff.h"
#include "hurray/plugin.h"

#if defined(__GNUC__) || defined(__clang__)
#define CONFORMANCE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CONFORMANCE_PRINTF(f, a)
#endif

/** One check being run: the plugin file, its registry and plugin. */
typedef struct conformance_run conformance_run;

/** A check: runs on a plugin loaded into a fresh registry. */
typedef void (*conformance_check_fn)(conformance_run *run);

typedef struct conformance_check {
  /** Its name on the command line and in reports, e.g. "allocation". */
  const char *name;
  /** The rules it checks, e.g. "PL-ALLOC-1..5". */
  const char *rules;
  /** What it checks, one line. */
  const char *what;
  /** false only for checks that run without a device (the table). */
  bool needs_device;
  /** Whether it observes the plugin being unmapped by an unload: such a
   * check is skipped when a check of this process failed before and the
   * plugin is still mapped, held by what that check left (PL-LIFE-1). */
  bool observes_unload;
  conformance_check_fn run;
} conformance_check;

typedef enum conformance_result {
  CONFORMANCE_PASS = 0,
  CONFORMANCE_FAIL = 1,
  CONFORMANCE_SKIP = 2
} conformance_result;

enum { CONFORMANCE_DETAIL_SIZE = 1024, CONFORMANCE_NOTES_SIZE = 4096 };

/** How one check went. */
typedef struct conformance_outcome {
  conformance_result result;
  /** FAIL: the first expectation that did not hold; SKIP: why; PASS: "". */
  char detail[CONFORMANCE_DETAIL_SIZE];
  /** Measured values and remarks, one per line (each ending in '\n'). */
  char notes[CONFORMANCE_NOTES_SIZE];
} conformance_outcome;

/** The number of checks; they run in the order of CLI-CHK-2. */
size_t conformance_check_count(void);

/** The i-th check, or NULL past the count. */
const conformance_check *conformance_check_at(size_t i);

/** The check called `name`, or NULL. */
const conformance_check *conformance_check_find(const char *name);

/**
 * Runs one check on the plugin at `plugin_file` (a path as
 * hurray_plugin_load takes it): creates a registry, loads the file, skips a
 * check that needs a device when the plugin has none (the plugin's reason in
 * the detail), runs the check and destroys the registry. A file the loader
 * refuses is a FAIL naming the loader's status and detail. Not reentrant: one
 * check runs at a time in a process.
 */
void conformance_run_check(const conformance_check *check, const char *plugin_file,
                           conformance_outcome *out);

/**
 * The child process of the IPC checks: when argv is
 * {program, CONFORMANCE_IPC_CHILD, MODE, PLUGIN_FILE, DEVICE, FD}, runs that side
 * (imports what the parent sends on socket FD through its own load of the
 * plugin, answers one verdict byte) and returns its exit status; otherwise
 * returns -1. Every program that runs the IPC checks calls it first in main.
 */
int conformance_ipc_child_main(int argc, char **argv);

/** The first argument of the IPC checks' child process. */
#define CONFORMANCE_IPC_CHILD "--conformance-ipc-child"

/* ------------------------------------------------------------------------ */
/* For the checks                                                           */
/* ------------------------------------------------------------------------ */

/** The plugin under test; NULL once the check unloaded it. */
hurray_plugin *conformance_plugin(const conformance_run *run);

/** The plugin file as given to conformance_run_check. */
const char *conformance_file(const conformance_run *run);

/** Unloads the plugin and destroys the registry now (buffers may stay held,
 * PL-LIFE-1); conformance_plugin answers NULL afterwards. */
void conformance_unload(conformance_run *run);

/** Ends the check with `result` (FAIL or SKIP) and the formatted message. */
CONFORMANCE_PRINTF(3, 4)
_Noreturn void conformance_stop(conformance_run *run, conformance_result result, const char *format,
                                ...);

/** Ends the check as failed with the formatted message (CLI-CHK-5). */
#define conformance_fail(run, ...) conformance_stop((run), CONFORMANCE_FAIL, __VA_ARGS__)

/** Ends the check as skipped, saying why. */
#define conformance_skip(run, ...) conformance_stop((run), CONFORMANCE_SKIP, __VA_ARGS__)

/** Adds one line to the check's notes (a measured value, a remark). */
CONFORMANCE_PRINTF(2, 3) void conformance_note(conformance_run *run, const char *format, ...);

/**
 * Fails the check unless `got` is `expected`: "<what>: returned GOT (its
 * detail), expected EXPECTED", where <what> is the formatted call or step
 * and the detail is err's when got is a failure and err is not NULL.
 */
CONFORMANCE_PRINTF(5, 6)
void conformance_expect_status(conformance_run *run, hurray_status got, hurray_status expected,
                               const hurray_error *err, const char *format, ...);

/** Fails the check unless got == want: "<what>: is GOT, expected WANT". */
CONFORMANCE_PRINTF(4, 5)
void conformance_expect_eq(conformance_run *run, uint64_t got, uint64_t want, const char *format,
                           ...);

/** Fails the check with the formatted message unless cond holds. */
#define CONFORM(run, cond, ...)             \
  do {                                      \
    if (!(cond)) {                          \
      conformance_fail((run), __VA_ARGS__); \
    }                                       \
  } while (0)

/** The plugin's table as the loader reads it (the entry's answer to this
 * host, normalised by hurray_plugin_table_validate: entries past its
 * struct_size NULL); fails the check when it cannot be read. */
void conformance_table_of(conformance_run *run, hurray_plugin_table *out);

/** Whether `path` is mapped in this process now (/proc/self/maps), so that
 * "unloaded" is observed rather than assumed (PL-LOAD-6, PL-LOAD-7). */
bool conformance_file_is_mapped(const char *path);

/** A memory class's name for messages ("standard", "private(0xF1)"). */
const char *conformance_class_name(hurray_memory_class memory_class, char buf[32]);

/* The checks, in the order of CLI-CHK-2 (checks_*.c). */
void conformance_check_table(conformance_run *run);
void conformance_check_devices(conformance_run *run);
void conformance_check_allocation(conformance_run *run);
void conformance_check_copy(conformance_run *run);
void conformance_check_events(conformance_run *run);
void conformance_check_native_event(conformance_run *run);
void conformance_check_handoff(conformance_run *run);
void conformance_check_concurrency(conformance_run *run);
void conformance_check_unload_with_buffers_held(conformance_run *run);
void conformance_check_unload_idle(conformance_run *run);
void conformance_check_double_free(conformance_run *run);
void conformance_check_free_after_unload(conformance_run *run);
void conformance_check_racing_free(conformance_run *run);
void conformance_check_free_racing_unload(conformance_run *run);
void conformance_check_ipc_memory(conformance_run *run);
void conformance_check_ipc_event(conformance_run *run);

#endif /* HURRAY_CONFORMANCE_H */
