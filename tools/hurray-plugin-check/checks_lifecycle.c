/*
 * Threads and the lives of buffers and of the plugin (specs/cli.md
 * CLI-CHK-2): `concurrency` (PL-CALL-2), `unload-idle` (PL-LOAD-7),
 * `double-free`, `free-after-unload`, `racing-free` (PL-LIFE-3) and
 * `free-racing-unload` (PL-LIFE-1, PL-LIFE-3). Worker threads never fail a
 * check themselves: they return what went wrong and the check's thread
 * fails.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"

/* PL-CALL-2: allocate, write, read, events and free from several threads at
 * once; half the buffers are freed by a thread other than the one that
 * allocated them, as a handoff consumer would. */
enum { THREADS = 4, ROUNDS = 200 };

typedef struct worker {
  hurray_plugin *plugin;
  size_t index;
  bool events;
  hurray_plugin_buffer *handed_over[ROUNDS];
  const char *failed; /* the step that failed, NULL when none */
  hurray_error err;   /* its error */
} worker;

static void *allocate_rounds(void *arg) {
  worker *w = arg;
  hurray_error *err = &w->err;
  for (size_t r = 0; r < ROUNDS; r++) {
    hurray_plugin_buffer *buffer = NULL;
    if (hurray_plugin_allocate(w->plugin, 0, 4096 + r, 64, HURRAY_MEMORY_STANDARD, &buffer, err) !=
        HURRAY_OK) {
      w->failed = "allocate";
      return NULL;
    }
    unsigned char value = (unsigned char)(w->index * 31u + r);
    unsigned char back = 0;
    if (hurray_plugin_buffer_write(buffer, r, &value, 1, err) != HURRAY_OK ||
        hurray_plugin_buffer_read(buffer, r, &back, 1, err) != HURRAY_OK || back != value) {
      w->failed = "write and read back one byte";
      return NULL;
    }
    hurray_plugin_event *event = NULL;
    if (w->events &&
        (hurray_plugin_event_create(w->plugin, 0, &event, err) != HURRAY_OK ||
         hurray_plugin_event_record(event, NULL, err) != HURRAY_OK ||
         hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, err) != HURRAY_OK)) {
      w->failed = "event create, record and wait";
      return NULL;
    }
    hurray_plugin_event_release(event);
    if (r % 2u == 0u) {
      hurray_plugin_buffer_free(buffer);
      w->handed_over[r] = NULL;
    } else {
      w->handed_over[r] = buffer; /* freed later by the check's thread */
    }
  }
  return NULL;
}

void conformance_check_concurrency(conformance_run *run) {
  static worker workers[THREADS];
  pthread_t threads[THREADS];
  hurray_plugin *plugin = conformance_plugin(run);
  for (size_t t = 0; t < THREADS; t++) {
    memset(&workers[t], 0, sizeof workers[t]);
    workers[t].plugin = plugin;
    workers[t].index = t;
    workers[t].events = hurray_plugin_supports_events(plugin);
    CONFORM(run, pthread_create(&threads[t], NULL, allocate_rounds, &workers[t]) == 0,
            "pthread_create failed");
  }
  for (size_t t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
  }
  for (size_t t = 0; t < THREADS; t++) {
    for (size_t r = 0; r < ROUNDS; r++) {
      hurray_plugin_buffer_free(workers[(t + 1u) % THREADS].handed_over[r]);
    }
  }
  for (size_t t = 0; t < THREADS; t++) {
    CONFORM(run, workers[t].failed == NULL, "thread %zu of %d: %s failed: %s (%s)", t, THREADS,
            workers[t].failed, hurray_status_name(workers[t].err.status), workers[t].err.detail);
  }
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), 0,
                        "buffers and events outstanding after every thread's frees");
}

/* PL-LOAD-7: an unload with nothing live closes the plugin at once. */
void conformance_check_unload_idle(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), 0,
                        "outstanding before the unload");
  hurray_plugin_unload(plugin);
  conformance_unload(run);
  CONFORM(run, !conformance_file_is_mapped(path), "%s is still mapped after the unload", path);
}

/* PL-LIFE-3: a second free is refused with USE_AFTER_DESTROY naming the
 * buffer, calls nothing and changes no count, even once the buffer's record
 * was given to a new buffer; copies and accessors on the freed buffer are
 * refused the same way. */
void conformance_check_double_free(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK, &err, "allocate");
  conformance_expect_status(run, hurray_plugin_buffer_release(buffer, &err), HURRAY_OK, &err,
                            "the first free");
  memset(&err, 0, sizeof err);
  conformance_expect_status(run, hurray_plugin_buffer_release(buffer, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err, "a second free");
  conformance_expect_eq(run, err.value, (uint64_t)(uintptr_t)buffer,
                        "its error's value (the buffer)");
  char named[32];
  snprintf(named, sizeof named, "%p", (void *)buffer);
  CONFORM(run, strstr(err.detail, named) != NULL && strstr(err.detail, "already freed") != NULL,
          "the second free's detail does not say %s was already freed: %s", named, err.detail);
  hurray_plugin_buffer_free(buffer); /* the void form: refused, no effect */
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), 0,
                        "outstanding after the refused frees");

  /* The record is reused (this thread's cache gives it back first): the
   * stale pointer still names no live buffer, the new one is untouched. */
  hurray_plugin_buffer *next = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &next, &err),
      HURRAY_OK, &err, "allocate again");
  CONFORM(run, next != buffer, "a new buffer has the freed one's token");
  conformance_expect_status(run, hurray_plugin_buffer_release(buffer, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err,
                            "a free of the stale buffer once its record is reused");
  char bytes[4] = "abc";
  conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err, "a write to the freed buffer");
  conformance_expect_status(run, hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err, "a read of the freed buffer");
  CONFORM(run,
          hurray_plugin_buffer_handle(buffer) == NULL &&
              hurray_plugin_buffer_allocation(buffer) == NULL &&
              hurray_plugin_buffer_plugin(buffer) == NULL,
          "an accessor answered for the freed buffer");
  conformance_expect_status(run, hurray_plugin_buffer_write(next, 0, bytes, sizeof bytes, &err),
                            HURRAY_OK, &err, "a write to the new buffer");
  conformance_expect_status(run, hurray_plugin_buffer_release(next, &err), HURRAY_OK, &err,
                            "the new buffer's free");
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), 0,
                        "outstanding at the end");
  /* Not a buffer at all: an index past the host's table. */
  hurray_plugin_buffer *foreign = (hurray_plugin_buffer *)(uintptr_t)0x7FFFFFF0u;
  conformance_expect_status(run, hurray_plugin_buffer_release(foreign, &err),
                            HURRAY_ERR_INVALID_ARGUMENT, &err, "a free of a made-up token");
  conformance_expect_status(run, hurray_plugin_buffer_release(NULL, &err), HURRAY_OK, &err,
                            "a free of NULL");
}

/* PL-LIFE-3 after PL-LIFE-1: the legitimate release after the registry was
 * destroyed closes the plugin; a second release then, with the plugin's
 * code and state gone, is reported and touches neither. Likewise a buffer
 * freed before the unload and freed again after it. */
void conformance_check_free_after_unload(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *early = NULL;
  hurray_plugin_buffer *held = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &early, &err),
      HURRAY_OK, &err, "allocate");
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &held, &err),
      HURRAY_OK, &err, "allocate");
  hurray_plugin_buffer_free(early);
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  hurray_plugin_unload(plugin);
  conformance_unload(run);
  conformance_expect_status(run, hurray_plugin_buffer_release(early, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err,
                            "a second free, after the unload, of a buffer freed before it");
  CONFORM(run, conformance_file_is_mapped(path), "%s was closed while a buffer was held", path);
  conformance_expect_status(run, hurray_plugin_buffer_release(held, &err), HURRAY_OK, &err,
                            "the free of the held buffer after the unload");
  CONFORM(run, !conformance_file_is_mapped(path), "%s is still mapped after the last free", path);
  memset(&err, 0, sizeof err);
  conformance_expect_status(run, hurray_plugin_buffer_release(held, &err),
                            HURRAY_ERR_USE_AFTER_DESTROY, &err,
                            "a second free with the plugin gone");
  conformance_expect_eq(run, err.value, (uint64_t)(uintptr_t)held, "its error's value");
  hurray_plugin_buffer_release_callback(NULL, held); /* the handoff's path: no effect */
}

typedef struct racing_free {
  hurray_plugin_buffer **buffers;
  size_t count;
  pthread_barrier_t *start;
  int failures;
  hurray_status status; /* of the last free */
} racing_free;

static void *free_racer(void *arg) {
  racing_free *r = arg;
  pthread_barrier_wait(r->start);
  for (size_t i = 0; i < r->count; i++) {
    hurray_error err;
    r->status = hurray_plugin_buffer_release(r->buffers[i], &err);
    r->failures += r->status != HURRAY_OK;
  }
  return NULL;
}

/* Starts racers[0..n) at a barrier with `then` run by this thread between
 * the start and the joins (NULL: nothing). */
static void race(conformance_run *run, racing_free *racers, size_t n,
                 hurray_plugin_registry *then) {
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)n + 1u);
  pthread_t threads[2];
  for (size_t i = 0; i < n; i++) {
    racers[i].start = &start;
    CONFORM(run, pthread_create(&threads[i], NULL, free_racer, &racers[i]) == 0,
            "pthread_create failed");
  }
  pthread_barrier_wait(&start);
  hurray_plugin_registry_destroy(then); /* races the frees */
  for (size_t i = 0; i < n; i++) {
    pthread_join(threads[i], NULL);
  }
  pthread_barrier_destroy(&start);
}

/* PL-LIFE-3: two threads free the same buffer at once; exactly one frees
 * it, the other is told, the count ends at 0. */
void conformance_check_racing_free(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  for (int round = 0; round < 200; round++) {
    hurray_error err;
    memset(&err, 0, sizeof err);
    hurray_plugin_buffer *buffer = NULL;
    conformance_expect_status(
        run, hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_OK, &err, "allocate (round %d)", round);
    racing_free racers[2] = {{&buffer, 1, NULL, 0, HURRAY_OK}, {&buffer, 1, NULL, 0, HURRAY_OK}};
    race(run, racers, 2, NULL);
    int freed = (racers[0].status == HURRAY_OK) + (racers[1].status == HURRAY_OK);
    conformance_expect_eq(run, (uint64_t)freed, 1, "round %d: frees that succeeded", round);
    conformance_expect_status(
        run, racers[0].status == HURRAY_OK ? racers[1].status : racers[0].status,
        HURRAY_ERR_USE_AFTER_DESTROY, NULL, "round %d: the losing free", round);
    conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), 0,
                          "round %d: outstanding", round);
  }
}

/* PL-LIFE-1 under races: while two threads free a plugin's buffers, the
 * producer destroys the registry. Every free succeeds exactly once, the
 * plugin is closed exactly once, after the last free (it is mapped until
 * then and not after), whichever order the unload's scan and each free
 * take. ASan and TSan runs catch a close under a running free. */
enum { RACING_BUFFERS = 64, RACING_ROUNDS = 20 };

void conformance_check_free_racing_unload(conformance_run *run) {
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(conformance_plugin(run)));
  conformance_unload(run); /* this check loads its own registry each round */
  for (int round = 0; round < RACING_ROUNDS; round++) {
    hurray_error err;
    memset(&err, 0, sizeof err);
    hurray_plugin_registry *own = NULL;
    hurray_plugin *loaded = NULL;
    conformance_expect_status(run, hurray_plugin_registry_create(&own, &err), HURRAY_OK, &err,
                              "registry_create");
    conformance_expect_status(run, hurray_plugin_load(own, conformance_file(run), 0, &loaded, &err),
                              HURRAY_OK, &err, "load (round %d)", round);
    hurray_plugin_buffer *buffers[RACING_BUFFERS];
    for (size_t i = 0; i < RACING_BUFFERS; i++) {
      conformance_expect_status(
          run,
          hurray_plugin_allocate(loaded, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffers[i], &err),
          HURRAY_OK, &err, "allocate (round %d)", round);
    }
    conformance_expect_eq(run, hurray_plugin_outstanding(loaded, NULL, NULL), RACING_BUFFERS,
                          "round %d: outstanding", round);
    racing_free racers[2] = {
        {buffers, RACING_BUFFERS / 2, NULL, 0, HURRAY_OK},
        {buffers + RACING_BUFFERS / 2, RACING_BUFFERS / 2, NULL, 0, HURRAY_OK}};
    race(run, racers, 2, own);
    conformance_expect_eq(run, (uint64_t)(racers[0].failures + racers[1].failures), 0,
                          "round %d: frees that failed while the registry was destroyed", round);
    CONFORM(run, !conformance_file_is_mapped(path), "round %d: %s still mapped after the last free",
            round, path);
    /* Every token is dead now: a late free is refused, nothing reopened. */
    conformance_expect_status(run, hurray_plugin_buffer_release(buffers[0], &err),
                              HURRAY_ERR_USE_AFTER_DESTROY, &err, "round %d: a late free", round);
  }
}
