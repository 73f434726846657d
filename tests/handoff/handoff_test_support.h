/*
 * Shared by the handoff tests: release callbacks that count their calls and
 * remember their arguments, and offers for each sync mode.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_HANDOFF_SUPPORT_H
#define HURRAY_TESTS_HANDOFF_SUPPORT_H

#include <stdatomic.h>

#include "hurray/handoff.h"

/* One per buffer under test: the callbacks count into it. */
typedef struct release_log {
  atomic_int buffer_releases;
  atomic_int event_releases;
  void *buffer_seen;
  void *event_seen;
} release_log;

void release_log_reset(release_log *log);

/* ctx must be a release_log. */
void count_buffer_release(void *buffer, void *ctx);
void count_event_release(void *event, void *ctx);

/* Opaque device objects: their values only need to be distinct and non-NULL. */
extern int fake_event_object;
extern int fake_stream_object;
extern int fake_other_stream_object;
#define FAKE_EVENT ((void *)&fake_event_object)
#define FAKE_STREAM ((void *)&fake_stream_object)
#define FAKE_OTHER_STREAM ((void *)&fake_other_stream_object)
/* A device pointer the library never dereferences (CUDA memory is opaque). */
#define FAKE_DEVICE_POINTER ((void *)(uintptr_t)0x7f0000100000u)

/* A 4096-byte CUDA handle with the given sync mode (standard memory). */
hurray_buffer_handle cuda_handle(hurray_sync_mode mode);

/* A correct offer for `mode` on CUDA whose callbacks count into log. */
hurray_buffer_offer offer_for_mode(hurray_sync_mode mode, release_log *log);

/* Initialises `handoff`, offers it `handle` with `offer` and accepts it in
 * process. Fails the current Check test if a step is refused. Returns what
 * accept wrote. */
hurray_accepted_buffer offer_and_accept_buffer(hurray_handoff *handoff,
                                               const hurray_buffer_handle *handle,
                                               const hurray_buffer_offer *offer);

/* The same for the CUDA buffer of `mode` (cuda_handle, offer_for_mode). */
hurray_accepted_buffer offer_and_accept(hurray_handoff *handoff, hurray_sync_mode mode,
                                        release_log *log);

/* Drives a fresh handoff into `state` along the shortest legal path, using
 * the sync mode the state implies (or `mode_for_offered` for OFFERED and
 * the states before acceptance). Fails the current Check test if a step is
 * refused. The log counts the callbacks fired on the way. */
void drive_to_state(hurray_handoff *handoff, hurray_handoff_state state,
                    hurray_sync_mode mode_for_offered, release_log *log);

#endif
