/*
 * The HO-SM-1 state names and the HO-SM-2 table of specs/handoff.md,
 * transcribed as text from the spec, not from core/proven/handoff_state.c,
 * so that the two can disagree. One transcription for the handoff fuzz
 * target's oracle (handoff_model.c) and for tests/handoff/test_handoff_table.c,
 * which checks it cell by cell against the spec file itself.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_HANDOFF_SPEC_TABLE_H
#define HURRAY_FUZZ_HANDOFF_SPEC_TABLE_H

#define HANDOFF_SPEC_STATES 12
#define HANDOFF_SPEC_OPS 13

/* The # column of the HO-SM-1 state table. */
static const char *const handoff_spec_state_names[HANDOFF_SPEC_STATES] = {
    "empty",         "offered",       "withdrawn",      "readable",
    "event_pending", "event_waited",  "event_released", "event_dropped",
    "stream_bound",  "stream_waited", "released",       "destroyed"};

/* HO-SM-2, one row per state, one cell per operation, in the spec's column
 * order: offer withdraw acc_ps acc_ev acc_cs ev_wait rel_ev st_wait access
 * access_other release destroy transfer. "[B]"/"[E]" mark the buffer /
 * event release. */
static const char *const handoff_spec_table[HANDOFF_SPEC_STATES][HANDOFF_SPEC_OPS] = {
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

#endif
