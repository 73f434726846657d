/*
 * Cost of one C ABI handoff (specs/handoff.md): init, offer, accept (with
 * its full cross-check) and release of one buffer, with and without the
 * optional destroy — producer_synced, and event with its event wait and event
 * release — against
 * a baseline measured in the same run: calling the same release callbacks
 * directly, which is what a consumer without the library would do at least.
 *
 * The machine may be shared, so each figure is the best (lowest) of several
 * repetitions: interference only ever adds time.
 *
 * Usage: bench_handoff [repetitions] [handoffs-per-repetition]
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hurray/handoff.h"

#include "bench_build.h"
#include "bench_counts.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t buffer_releases;
static uint64_t event_releases;

static void release_buffer(void *buffer, void *ctx) {
  (void)ctx;
  buffer_releases += (uintptr_t)buffer & 1u ? 2u : 1u;
}

static void release_event(void *event, void *ctx) {
  (void)ctx;
  event_releases += (uintptr_t)event & 1u ? 2u : 1u;
}

/* Through volatile pointers so the baseline calls cannot be inlined away. */
static void (*volatile direct_buffer_release)(void *, void *) = release_buffer;
static void (*volatile direct_event_release)(void *, void *) = release_event;

/* The bench measures successful handoffs only: any failure ends the run. */
static void must(hurray_status status, const char *what) {
  if (status != HURRAY_OK) {
    fprintf(stderr, "bench_handoff: %s failed: %s\n", what, hurray_status_name(status));
    exit(2);
  }
}

static void one_handoff(const hurray_buffer_handle *handle, const hurray_buffer_offer *offer,
                        int event_mode, int destroy) {
  hurray_handoff h;
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  hurray_handoff_init(&h);
  must(hurray_handoff_offer(&h, handle, offer, NULL), "offer");
  must(hurray_handoff_accept(&h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, NULL), "accept");
  if (event_mode) {
    must(hurray_handoff_record_event_wait(&h, NULL), "record_event_wait");
    must(hurray_handoff_release_event(&h, NULL), "release_event");
  }
  must(hurray_handoff_release(&h, NULL), "release");
  if (destroy) {
    must(hurray_handoff_destroy(&h, NULL), "destroy");
  }
}

int main(int argc, char **argv) {
  bench_print_build("bench_handoff");
  bench_counts counts = {200, 20000};
  if (!bench_read_counts(argc, argv, "handoffs-per-repetition", &counts)) {
    return 2;
  }
  if (hurray_c_abi_version() < HURRAY_C_ABI_VERSION) {
    fprintf(stderr, "bench_handoff: library C ABI %u older than header %u\n",
            hurray_c_abi_version(), HURRAY_C_ABI_VERSION);
    return 2;
  }
  /* A CUDA buffer: its pointer is opaque to the library and never touched. */
  void *device_pointer = (void *)(uintptr_t)0x7f0000200000u;
  int event_object;
  const hurray_buffer_handle ps_handle = {
      1u << 20, 4096u, HURRAY_DEVICE_CUDA, HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_MEMORY_STANDARD, 0};
  const hurray_buffer_handle ev_handle = {
      1u << 20, 4096u, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, HURRAY_MEMORY_STANDARD, 0};
  const hurray_buffer_offer ps_offer =
      hurray_buffer_offer_make(device_pointer, release_buffer, NULL, hurray_sync_payload_none());
  const hurray_buffer_offer ev_offer = hurray_buffer_offer_make(
      device_pointer, release_buffer, NULL,
      hurray_sync_payload_event(&event_object, HURRAY_DEVICE_CUDA, release_event, NULL));

  /* Figures, each the best over the repetitions, in ns for `counts.per_repetition` handoffs. */
  enum { PS, PS_DESTROY, EVENT, EVENT_DESTROY, BASE_PS, BASE_EVENT, FIGURES };
  double best[FIGURES];
  for (int f = 0; f < FIGURES; f++) best[f] = 1e300;
  for (long r = 0; r < counts.repetitions; r++) {
    double t[FIGURES + 1];
    t[0] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) one_handoff(&ps_handle, &ps_offer, 0, 0);
    t[1] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) one_handoff(&ps_handle, &ps_offer, 0, 1);
    t[2] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) one_handoff(&ev_handle, &ev_offer, 1, 0);
    t[3] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) one_handoff(&ev_handle, &ev_offer, 1, 1);
    t[4] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) direct_buffer_release(device_pointer, NULL);
    t[5] = now_ns();
    for (long i = 0; i < counts.per_repetition; i++) {
      direct_event_release(&event_object, NULL);
      direct_buffer_release(device_pointer, NULL);
    }
    t[6] = now_ns();
    for (int f = 0; f < FIGURES; f++) {
      if (t[f + 1] - t[f] < best[f]) best[f] = t[f + 1] - t[f];
    }
  }
  const uint64_t per_rep = (uint64_t)counts.repetitions * (uint64_t)counts.per_repetition;
  const uint64_t expected_buffer = per_rep * 6u;
  const uint64_t expected_event = per_rep * 3u;
  if (buffer_releases != expected_buffer || event_releases != expected_event) {
    fprintf(stderr, "bench_handoff: callbacks %llu/%llu, expected %llu/%llu\n",
            (unsigned long long)buffer_releases, (unsigned long long)event_releases,
            (unsigned long long)expected_buffer, (unsigned long long)expected_event);
    return 1;
  }
  const double n = (double)counts.per_repetition;
  printf("C ABI handoff, ns per handoff, best of %ld repetitions x %ld handoffs\n",
         counts.repetitions, counts.per_repetition);
  printf("  baseline, direct call of the buffer release:            %6.1f ns\n", best[BASE_PS] / n);
  printf("  baseline, direct calls of event and buffer releases:    %6.1f ns\n",
         best[BASE_EVENT] / n);
  printf("  producer_synced  init+offer+accept+release:             %6.1f ns  (%.1fx baseline)\n",
         best[PS] / n, best[PS] / best[BASE_PS]);
  printf("  producer_synced  ... +destroy:                          %6.1f ns  (%.1fx baseline)\n",
         best[PS_DESTROY] / n, best[PS_DESTROY] / best[BASE_PS]);
  printf("  event  init+offer+accept+wait+release_event+release:    %6.1f ns  (%.1fx baseline)\n",
         best[EVENT] / n, best[EVENT] / best[BASE_EVENT]);
  printf("  event  ... +destroy:                                    %6.1f ns  (%.1fx baseline)\n",
         best[EVENT_DESTROY] / n, best[EVENT_DESTROY] / best[BASE_EVENT]);
  printf("  goal (issue 40: producer_synced offer+accept+release at most 20 ns): %s\n",
         best[PS] / n <= 20.0 ? "met" : "not met");
  return 0;
}
