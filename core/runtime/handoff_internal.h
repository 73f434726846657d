/*
 * Between the handoff (handoff.c) and buffer lists (buffer_list.c): moving an
 * accepted buffer's release duty into a list (HO-LIST-7). Internal: not part
 * of the public API and not exported (no HURRAY_API: hidden in the shared
 * library); named hurray_internal_* because libhurray.a defines every
 * global under the hurray_ prefix (VER-SYM-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_RUNTIME_HANDOFF_INTERNAL_H
#define HURRAY_RUNTIME_HANDOFF_INTERNAL_H

#include "hurray/handoff.h"

/* What a list needs to own an accepted buffer. */
typedef struct handoff_owned_buffer {
  hurray_buffer_handle handle;
  void *data;
  hurray_buffer_release_fn release;
  void *release_ctx;
} handoff_owned_buffer;

/* Checks that the handoff could be transferred now (the table's answer for
 * HURRAY_HANDOFF_OP_TRANSFER in its current state) and fills *out; changes
 * nothing. */
hurray_status hurray_internal_handoff_transfer_peek(const hurray_handoff *handoff,
                                                    handoff_owned_buffer *out, hurray_error *err);

/* Takes the transfer step (one atomic step, like a release). Fails, changing
 * nothing, when another thread released or transferred it first. */
hurray_status hurray_internal_handoff_transfer_commit(hurray_handoff *handoff, hurray_error *err);

#endif
