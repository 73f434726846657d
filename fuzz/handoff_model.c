/*
 * The handoff fuzz target's oracle (fuzz/handoff_model.h): the steps of the
 * HO-SM-2 table as transcribed from specs/handoff.md in handoff_spec_table.h,
 * not taken from core/proven/handoff_state.c, so that the two can disagree.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "handoff_model.h"

#include <stddef.h>
#include <string.h>

#include "fuzz_check.h"
#include "handoff_spec_table.h"
#include "hurray/handoff.h"

FUZZ_ORACLE_BEGIN

_Static_assert(ST_COUNT == HANDOFF_SPEC_STATES && OP_COUNT == HANDOFF_SPEC_OPS,
               "the model's states and operations are the transcribed table's");

const char *handoff_model_state_name(uint32_t state) {
  FUZZ_CHECK(state < ST_COUNT);
  return handoff_spec_state_names[state];
}

model_step handoff_model_transition(uint32_t state, uint32_t op) {
  model_step m = {HURRAY_ERR_INVALID_ARGUMENT, (int)state, HURRAY_HANDOFF_EFFECT_NONE};
  if (state >= ST_COUNT || op >= OP_COUNT) {
    return m;
  }
  const char *cell = handoff_spec_table[state][op];
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
        if (strlen(handoff_spec_state_names[s]) == name_len &&
            strncmp(cell, handoff_spec_state_names[s], name_len) == 0) {
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
