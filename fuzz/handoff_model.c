/*
 * The HO-SM-2 table transcribed as text from specs/handoff.md, the handoff
 * fuzz target's oracle (fuzz/handoff_model.h). Written from the spec, not
 * from core/proven/handoff_state.c, so that the two can disagree.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "handoff_model.h"

#include <stddef.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/handoff.h"

FUZZ_ORACLE_BEGIN

static const char *const state_names[ST_COUNT] = {"empty",          "offered",       "withdrawn",
                                                  "readable",       "event_pending", "event_waited",
                                                  "event_released", "event_dropped", "stream_bound",
                                                  "stream_waited",  "released",      "destroyed"};

/* One row per state, one cell per operation, in the spec's column order:
 * offer withdraw acc_ps acc_ev acc_cs ev_wait rel_ev st_wait access
 * access_other release destroy transfer. "[B]"/"[E]" mark the buffer /
 * event release. */
static const char *const table_rows[ST_COUNT][OP_COUNT] = {
    {"offered", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "destroyed",
     "ILL"},
    {"ILL", "withdrawn", "readable", "event_pending", "stream_bound", "ILL", "ILL", "ILL", "ILL",
     "ILL", "ILL", "ILL", "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "destroyed",
     "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "=", "=", "released [B]", "ILL",
     "released"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "event_waited", "event_dropped [E]", "ILL", "ILL", "ILL",
     "ILL", "ILL", "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "=", "event_released [E]", "ILL", "=", "=", "ILL", "ILL",
     "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "AR", "AR", "ILL", "=", "=", "released [B]", "ILL",
     "released"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "AR", "AR", "ILL", "ILL", "ILL", "released [B]", "ILL",
     "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "stream_waited", "=", "ILL", "released [B]",
     "ILL", "ILL"},
    {"ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "ILL", "=", "=", "=", "released [B]", "ILL",
     "released"},
    {"AR", "AR", "AR", "AR", "AR", "AR", "AR", "AR", "AR", "AR", "AR", "destroyed", "AR"},
    {"UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD", "UAD"},
};

const char *handoff_model_state_name(uint32_t state) {
  FUZZ_CHECK(state < ST_COUNT);
  return state_names[state];
}

model_step handoff_model_transition(uint32_t state, uint32_t op) {
  model_step m = {HURRAY_ERR_INVALID_ARGUMENT, (int)state, HURRAY_HANDOFF_EFFECT_NONE};
  if (state >= ST_COUNT || op >= OP_COUNT) {
    return m;
  }
  const char *cell = table_rows[state][op];
  if (strcmp(cell, "ILL") == 0) {
    m.status = HURRAY_ERR_ILLEGAL_TRANSITION;
  } else if (strcmp(cell, "AR") == 0) {
    m.status = HURRAY_ERR_ALREADY_RELEASED;
  } else if (strcmp(cell, "UAD") == 0) {
    m.status = HURRAY_ERR_USE_AFTER_DESTROY;
  } else {
    m.status = HURRAY_OK;
    if (strcmp(cell, "=") != 0) {
      size_t name_len = strcspn(cell, " ");
      m.next = -1;
      for (int s = 0; s < ST_COUNT; s++) {
        if (strlen(state_names[s]) == name_len && strncmp(cell, state_names[s], name_len) == 0) {
          m.next = s;
        }
      }
      FUZZ_CHECK(m.next >= 0);
      if (strstr(cell, "[B]") != NULL) {
        m.effect = HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
      } else if (strstr(cell, "[E]") != NULL) {
        m.effect = HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
      }
    }
  }
  return m;
}

FUZZ_ORACLE_END
