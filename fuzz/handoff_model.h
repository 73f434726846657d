/*
 * The handoff state machine as the spec prints it (specs/handoff.md, HO-SM-2),
 * for the handoff fuzz target's oracle: the states and operations in the
 * spec's order, and the step its table gives for a pair.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_HANDOFF_MODEL_H
#define HURRAY_FUZZ_HANDOFF_MODEL_H

#include <stdint.h>

#include "hurray/buffer.h"

/* The spec's rows (states) and columns (operations), in its order. */
enum {
  ST_EMPTY,
  ST_OFFERED,
  ST_WITHDRAWN,
  ST_READABLE,
  ST_EVENT_PENDING,
  ST_EVENT_WAITED,
  ST_EVENT_RELEASED,
  ST_EVENT_DROPPED,
  ST_STREAM_BOUND,
  ST_STREAM_WAITED,
  ST_RELEASED,
  ST_DESTROYED,
  ST_COUNT
};

enum {
  OP_OFFER,
  OP_WITHDRAW,
  OP_ACC_PS,
  OP_ACC_EV,
  OP_ACC_CS,
  OP_EV_WAIT,
  OP_REL_EV,
  OP_ST_WAIT,
  OP_ACCESS,
  OP_ACCESS_OTHER,
  OP_RELEASE,
  OP_DESTROY,
  OP_TRANSFER,
  OP_COUNT
};

/* What the table says of one step: the status, the next state (the same
 * on an error) and the release it fires (HURRAY_HANDOFF_EFFECT_*). */
typedef struct model_step {
  hurray_status status;
  int next;
  int effect; /* HURRAY_HANDOFF_EFFECT_* */
} model_step;

/* The spec's name of a state below ST_COUNT, as its table prints it. */
const char *handoff_model_state_name(uint32_t state);

/* The table's step for (state, op); INVALID_ARGUMENT, nothing moved, for a
 * pair outside the table. */
model_step handoff_model_transition(uint32_t state, uint32_t op);

#endif /* HURRAY_FUZZ_HANDOFF_MODEL_H */
