/*
 * The consumer-side lifecycle of a handoff as a pure transition function:
 * HO-SM-1..6, the table in specs/handoff.md. Part of the proven core (no
 * allocation, no I/O, no global state). core/runtime/handoff.c wraps it with
 * atomics and fires the callbacks it names.
 *
 * The table of HO-SM-2 is written once more below as the logic function
 * ho_table, row for row and cell for cell as in the spec, and the contract
 * says the function computes exactly it (ensures `table`). The test
 * tests/handoff/test_handoff_table.c checks those rows against the spec's
 * table text and the function against both, so the three cannot drift. The
 * other ensures name the properties the runtime relies on (HO-SM-5).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/handoff.h"

/*@
  predicate valid_state(integer s) = 0 <= s < HURRAY_HANDOFF_STATE_COUNT;
  predicate valid_op(integer o) = 0 <= o < HURRAY_HANDOFF_OP_COUNT;

  // The consumer holds the buffer and still owes its release (HO-OWN-3).
  predicate buffer_owed(integer s) =
    s == HURRAY_HANDOFF_READABLE || s == HURRAY_HANDOFF_EVENT_PENDING ||
    s == HURRAY_HANDOFF_EVENT_WAITED || s == HURRAY_HANDOFF_EVENT_RELEASED ||
    s == HURRAY_HANDOFF_EVENT_DROPPED || s == HURRAY_HANDOFF_STREAM_BOUND ||
    s == HURRAY_HANDOFF_STREAM_WAITED;

  // No buffer release can fire from here on, whatever happens next.
  predicate buffer_settled(integer s) =
    s == HURRAY_HANDOFF_WITHDRAWN || s == HURRAY_HANDOFF_RELEASED ||
    s == HURRAY_HANDOFF_DESTROYED;

  // The consumer holds the producer's event and still owes its release (HO-SYNC-3).
  predicate event_owed(integer s) =
    s == HURRAY_HANDOFF_EVENT_PENDING || s == HURRAY_HANDOFF_EVENT_WAITED;

  // No event release can fire from here on.
  predicate event_settled(integer s) =
    valid_state(s) && s != HURRAY_HANDOFF_EMPTY && s != HURRAY_HANDOFF_OFFERED && !event_owed(s);

  // The bytes may be touched on any stream (HO-SYNC-1..4).
  predicate readable_anywhere(integer s) =
    s == HURRAY_HANDOFF_READABLE || s == HURRAY_HANDOFF_EVENT_WAITED ||
    s == HURRAY_HANDOFF_EVENT_RELEASED || s == HURRAY_HANDOFF_STREAM_WAITED;

  // ---- The table of HO-SM-2 ----------------------------------------------
  // A cell is a code: a next state (0 .. 11) plus 16 times the callback the
  // step fires (ho_e: the event release, ho_b: the buffer release), or one
  // of the negative codes below. Names as in the spec's cells, prefixed ho_.
  logic integer ho_same = -1;  // "=": allowed, state unchanged
  logic integer ho_ILL = -2;   // ILLEGAL_TRANSITION
  logic integer ho_AR = -3;    // ALREADY_RELEASED
  logic integer ho_UAD = -4;   // USE_AFTER_DESTROY
  logic integer ho_e(integer next) = next + 16 * HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
  logic integer ho_b(integer next) = next + 16 * HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
  logic integer ho_offered = HURRAY_HANDOFF_OFFERED;
  logic integer ho_withdrawn = HURRAY_HANDOFF_WITHDRAWN;
  logic integer ho_readable = HURRAY_HANDOFF_READABLE;
  logic integer ho_event_pending = HURRAY_HANDOFF_EVENT_PENDING;
  logic integer ho_event_waited = HURRAY_HANDOFF_EVENT_WAITED;
  logic integer ho_event_released = HURRAY_HANDOFF_EVENT_RELEASED;
  logic integer ho_event_dropped = HURRAY_HANDOFF_EVENT_DROPPED;
  logic integer ho_stream_bound = HURRAY_HANDOFF_STREAM_BOUND;
  logic integer ho_stream_waited = HURRAY_HANDOFF_STREAM_WAITED;
  logic integer ho_released = HURRAY_HANDOFF_RELEASED;
  logic integer ho_destroyed = HURRAY_HANDOFF_DESTROYED;

  // Cell o of a row, o in operation order: offer withdraw acc_ps acc_ev
  // acc_cs ev_wait rel_ev st_wait access access_other release destroy transfer.
  logic integer ho_row(integer o, integer c0, integer c1, integer c2, integer c3,
                       integer c4, integer c5, integer c6, integer c7, integer c8,
                       integer c9, integer c10, integer c11, integer c12) =
    o == 0 ? c0 : o == 1 ? c1 : o == 2 ? c2 : o == 3 ? c3 : o == 4 ? c4 :
    o == 5 ? c5 : o == 6 ? c6 : o == 7 ? c7 : o == 8 ? c8 : o == 9 ? c9 :
    o == 10 ? c10 : o == 11 ? c11 : c12;

  // HO-SM-2: one row per state, in state order (the spec's rows).
  logic integer ho_table(integer s, integer o) =
    s == 0 ? ho_row(o, ho_offered, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_destroyed, ho_ILL) :
    s == 1 ? ho_row(o, ho_ILL, ho_withdrawn, ho_readable, ho_event_pending, ho_stream_bound, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL) :
    s == 2 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_destroyed, ho_ILL) :
    s == 3 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_same, ho_same, ho_b(ho_released), ho_ILL, ho_released) :
    s == 4 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_event_waited, ho_e(ho_event_dropped), ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL) :
    s == 5 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_same, ho_e(ho_event_released), ho_ILL, ho_same, ho_same, ho_ILL, ho_ILL, ho_ILL) :
    s == 6 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_AR, ho_AR, ho_ILL, ho_same, ho_same, ho_b(ho_released), ho_ILL, ho_released) :
    s == 7 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_AR, ho_AR, ho_ILL, ho_ILL, ho_ILL, ho_b(ho_released), ho_ILL, ho_ILL) :
    s == 8 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_stream_waited, ho_same, ho_ILL, ho_b(ho_released), ho_ILL, ho_ILL) :
    s == 9 ? ho_row(o, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_ILL, ho_same, ho_same, ho_same, ho_b(ho_released), ho_ILL, ho_released) :
    s == 10 ? ho_row(o, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_AR, ho_destroyed, ho_AR) :
    ho_row(o, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD, ho_UAD);

  // What a cell says the step returns (HO-SM-2, HO-SM-3: an error changes nothing).
  logic integer ho_cell_status(integer c) =
    c == ho_ILL ? HURRAY_ERR_ILLEGAL_TRANSITION :
    c == ho_AR ? HURRAY_ERR_ALREADY_RELEASED :
    c == ho_UAD ? HURRAY_ERR_USE_AFTER_DESTROY : HURRAY_OK;
  logic integer ho_cell_effect(integer c) =
    c >= 16 * HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER ? HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER :
    c >= 16 * HURRAY_HANDOFF_EFFECT_RELEASE_EVENT ? HURRAY_HANDOFF_EFFECT_RELEASE_EVENT :
    HURRAY_HANDOFF_EFFECT_NONE;
  logic integer ho_cell_next(integer s, integer c) = c < 0 ? s : c - 16 * ho_cell_effect(c);
*/

/*@
  terminates \true;
  assigns \nothing;

  // HO-SM-2, HO-SM-3: the step is the table's cell, for every valid pair.
  ensures table:
    valid_state(state) && valid_op(op) ==>
      \result.status == ho_cell_status(ho_table(state, op)) &&
      \result.next == ho_cell_next(state, ho_table(state, op)) &&
      \result.effect == ho_cell_effect(ho_table(state, op));
  ensures known_status:
    \result.status == HURRAY_OK || \result.status == HURRAY_ERR_ILLEGAL_TRANSITION ||
    \result.status == HURRAY_ERR_ALREADY_RELEASED ||
    \result.status == HURRAY_ERR_USE_AFTER_DESTROY ||
    \result.status == HURRAY_ERR_INVALID_ARGUMENT;
  ensures error_changes_nothing:
    \result.status != HURRAY_OK ==>
      \result.next == state && \result.effect == HURRAY_HANDOFF_EFFECT_NONE;
  ensures next_is_valid: valid_state(state) ==> valid_state(\result.next);
  ensures one_effect:
    \result.effect == HURRAY_HANDOFF_EFFECT_NONE ||
    \result.effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT ||
    \result.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;

  // Exactly-once, buffer (HO-SM-5): a buffer release leaves a state that owes
  // it for a settled one, settled states are closed under every step and
  // never fire it. Hence at most one buffer release on any path.
  ensures buffer_release_settles:
    \result.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER ==>
      buffer_owed(state) && buffer_settled(\result.next);
  ensures buffer_settled_is_closed:
    buffer_settled(state) ==>
      buffer_settled(\result.next) && \result.effect != HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
  // The event goes back before the buffer does (HO-SYNC-3).
  ensures event_before_buffer:
    \result.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER ==> !event_owed(state);

  // Exactly-once, event (HO-SM-5), by the same argument.
  ensures event_release_settles:
    \result.effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT ==>
      event_owed(state) && event_settled(\result.next);
  ensures event_settled_is_closed:
    event_settled(state) ==>
      event_settled(\result.next) && \result.effect != HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;

  // Access is a query (HO-SM-4): it never moves the state, and it succeeds
  // only where the bytes are readable on the stream asked for.
  ensures access_is_a_query:
    (op == HURRAY_HANDOFF_OP_ACCESS || op == HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM) ==>
      \result.next == state && \result.effect == HURRAY_HANDOFF_EFFECT_NONE;
  ensures access_needs_readable:
    (op == HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM && \result.status == HURRAY_OK) ==>
      readable_anywhere(state);
  ensures access_declared_stream:
    (op == HURRAY_HANDOFF_OP_ACCESS && \result.status == HURRAY_OK) ==>
      readable_anywhere(state) || state == HURRAY_HANDOFF_STREAM_BOUND;

  // A transfer hands the release duty to a buffer list (HO-LIST-7): only a
  // buffer readable anywhere with no event held, and it fires nothing here.
  ensures transfer_moves_the_duty:
    (op == HURRAY_HANDOFF_OP_TRANSFER && \result.status == HURRAY_OK) ==>
      readable_anywhere(state) && !event_owed(state) &&
      \result.next == HURRAY_HANDOFF_RELEASED &&
      \result.effect == HURRAY_HANDOFF_EFFECT_NONE;

  behavior out_of_range:
    assumes !valid_state(state) || !valid_op(op);
    ensures \result.status == HURRAY_ERR_INVALID_ARGUMENT;
  behavior destroyed:
    assumes valid_state(state) && valid_op(op);
    assumes state == HURRAY_HANDOFF_DESTROYED;
    ensures \result.status == HURRAY_ERR_USE_AFTER_DESTROY;
  behavior released:
    assumes valid_state(state) && valid_op(op);
    assumes state == HURRAY_HANDOFF_RELEASED;
    ensures op == HURRAY_HANDOFF_OP_DESTROY ==>
      \result.status == HURRAY_OK && \result.next == HURRAY_HANDOFF_DESTROYED;
    ensures op != HURRAY_HANDOFF_OP_DESTROY ==>
      \result.status == HURRAY_ERR_ALREADY_RELEASED;
  behavior live:
    assumes valid_state(state) && valid_op(op);
    assumes state != HURRAY_HANDOFF_DESTROYED && state != HURRAY_HANDOFF_RELEASED;
    ensures \result.status == HURRAY_OK || \result.status == HURRAY_ERR_ILLEGAL_TRANSITION ||
            \result.status == HURRAY_ERR_ALREADY_RELEASED;
    ensures \result.next == HURRAY_HANDOFF_DESTROYED ==> op == HURRAY_HANDOFF_OP_DESTROY;
    ensures \result.next == HURRAY_HANDOFF_RELEASED ==>
      op == HURRAY_HANDOFF_OP_RELEASE || op == HURRAY_HANDOFF_OP_TRANSFER;
  complete behaviors;
  disjoint behaviors;
*/
hurray_handoff_step hurray_handoff_transition(hurray_handoff_state state, hurray_handoff_op op) {
  hurray_handoff_step step = {HURRAY_OK, state, HURRAY_HANDOFF_EFFECT_NONE};
  /* Unsigned comparison: a negative value converts to a huge one and is rejected too. */
  if ((uint32_t)state >= (uint32_t)HURRAY_HANDOFF_STATE_COUNT ||
      (uint32_t)op >= (uint32_t)HURRAY_HANDOFF_OP_COUNT) {
    step.status = HURRAY_ERR_INVALID_ARGUMENT;
    return step;
  }
  /* HO-MIS-1: a destroyed object answers nothing but this. */
  if (state == HURRAY_HANDOFF_DESTROYED) {
    step.status = HURRAY_ERR_USE_AFTER_DESTROY;
    return step;
  }
  /* HO-OWN-3: after the release only destroy is left. */
  if (state == HURRAY_HANDOFF_RELEASED) {
    if (op == HURRAY_HANDOFF_OP_DESTROY) {
      step.next = HURRAY_HANDOFF_DESTROYED;
    } else {
      step.status = HURRAY_ERR_ALREADY_RELEASED;
    }
    return step;
  }
  switch (state) {
    case HURRAY_HANDOFF_EMPTY:
      if (op == HURRAY_HANDOFF_OP_OFFER) {
        step.next = HURRAY_HANDOFF_OFFERED;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_DESTROY) {
        step.next = HURRAY_HANDOFF_DESTROYED;
        return step;
      }
      break;
    case HURRAY_HANDOFF_OFFERED:
      if (op == HURRAY_HANDOFF_OP_WITHDRAW) {
        step.next = HURRAY_HANDOFF_WITHDRAWN;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_ACCEPT_PRODUCER_SYNCED) {
        step.next = HURRAY_HANDOFF_READABLE;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_ACCEPT_EVENT) {
        step.next = HURRAY_HANDOFF_EVENT_PENDING;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_ACCEPT_CONSUMER_STREAM) {
        step.next = HURRAY_HANDOFF_STREAM_BOUND;
        return step;
      }
      break;
    case HURRAY_HANDOFF_WITHDRAWN:
      if (op == HURRAY_HANDOFF_OP_DESTROY) {
        step.next = HURRAY_HANDOFF_DESTROYED;
        return step;
      }
      break;
    case HURRAY_HANDOFF_READABLE:
    case HURRAY_HANDOFF_STREAM_WAITED:
      if (op == HURRAY_HANDOFF_OP_ACCESS || op == HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM) {
        return step;
      }
      /* Recording a wait on one more stream is harmless once waited. */
      if (op == HURRAY_HANDOFF_OP_RECORD_STREAM_WAIT && state == HURRAY_HANDOFF_STREAM_WAITED) {
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RELEASE) {
        step.next = HURRAY_HANDOFF_RELEASED;
        step.effect = HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_TRANSFER) {
        step.next = HURRAY_HANDOFF_RELEASED;
        return step;
      }
      break;
    case HURRAY_HANDOFF_EVENT_PENDING:
      if (op == HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT) {
        step.next = HURRAY_HANDOFF_EVENT_WAITED;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RELEASE_EVENT) {
        step.next = HURRAY_HANDOFF_EVENT_DROPPED;
        step.effect = HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
        return step;
      }
      break;
    case HURRAY_HANDOFF_EVENT_WAITED:
      /* One wait per stream that will touch the buffer (BP-SYNC-3). */
      if (op == HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT || op == HURRAY_HANDOFF_OP_ACCESS ||
          op == HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM) {
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RELEASE_EVENT) {
        step.next = HURRAY_HANDOFF_EVENT_RELEASED;
        step.effect = HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
        return step;
      }
      break;
    case HURRAY_HANDOFF_EVENT_RELEASED:
    case HURRAY_HANDOFF_EVENT_DROPPED:
      /* The event is gone: waiting on it or releasing it again is a use after release. */
      if (op == HURRAY_HANDOFF_OP_RELEASE_EVENT || op == HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT) {
        step.status = HURRAY_ERR_ALREADY_RELEASED;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RELEASE) {
        step.next = HURRAY_HANDOFF_RELEASED;
        step.effect = HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
        return step;
      }
      /* A dropped event was never waited on: its bytes stay unreadable, and
       * it cannot go to a list that would lend them out. */
      if (state == HURRAY_HANDOFF_EVENT_RELEASED &&
          (op == HURRAY_HANDOFF_OP_ACCESS || op == HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM)) {
        return step;
      }
      if (state == HURRAY_HANDOFF_EVENT_RELEASED && op == HURRAY_HANDOFF_OP_TRANSFER) {
        step.next = HURRAY_HANDOFF_RELEASED;
        return step;
      }
      break;
    case HURRAY_HANDOFF_STREAM_BOUND:
      if (op == HURRAY_HANDOFF_OP_ACCESS) {
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RECORD_STREAM_WAIT) {
        step.next = HURRAY_HANDOFF_STREAM_WAITED;
        return step;
      }
      if (op == HURRAY_HANDOFF_OP_RELEASE) {
        step.next = HURRAY_HANDOFF_RELEASED;
        step.effect = HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
        return step;
      }
      break;
    default:
      break;
  }
  step.status = HURRAY_ERR_ILLEGAL_TRANSITION;
  return step;
}
