/*
 * HO-SM-1..6: the transition function and the runtime, cell by cell, against
 * the table of specs/handoff.md transcribed by hand in fuzz/handoff_spec_table.h
 * (and checked here against the spec file itself, so the three cannot drift
 * apart; the handoff fuzz target's oracle reads the same transcription).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "handoff_spec_table.h" /* fuzz/: the transcription this test checks */
#include "handoff_test_support.h"

typedef struct expected_step {
  hurray_status status;
  int next;
  hurray_handoff_effect effect;
} expected_step;

static int state_by_name(const char *name, size_t len) {
  for (int s = 0; s < HANDOFF_SPEC_STATES; s++) {
    if (strlen(handoff_spec_state_names[s]) == len &&
        strncmp(handoff_spec_state_names[s], name, len) == 0) {
      return s;
    }
  }
  ck_abort_msg("unknown state name in the transcribed table: %.*s", (int)len, name);
  return -1;
}

static expected_step expected_for(int state, int op) {
  const char *cell = handoff_spec_table[state][op];
  expected_step e = {HURRAY_OK, state, HURRAY_HANDOFF_EFFECT_NONE};
  if (strcmp(cell, "ILL") == 0) {
    e.status = HURRAY_ERR_ILLEGAL_TRANSITION;
  } else if (strcmp(cell, "AR") == 0) {
    e.status = HURRAY_ERR_ALREADY_RELEASED;
  } else if (strcmp(cell, "UAD") == 0) {
    e.status = HURRAY_ERR_USE_AFTER_DESTROY;
  } else if (strcmp(cell, "=") != 0) {
    const char *bracket = strchr(cell, '[');
    size_t len = bracket != NULL ? (size_t)(bracket - cell - 1) : strlen(cell);
    e.next = state_by_name(cell, len);
    if (bracket != NULL) {
      e.effect = bracket[1] == 'B' ? HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER
                                   : HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
    }
  }
  return e;
}

START_TEST(transition_matches_every_cell) {
  int cells = 0;
  for (int s = 0; s < HANDOFF_SPEC_STATES; s++) {
    for (int o = 0; o < HANDOFF_SPEC_OPS; o++) {
      const expected_step e = expected_for(s, o);
      const hurray_handoff_step got =
          hurray_handoff_transition((hurray_handoff_state)s, (hurray_handoff_op)o);
      ck_assert_msg(got.status == e.status && (int)got.next == e.next && got.effect == e.effect,
                    "(%s, %s): got %s -> %s effect %d, spec says %s", handoff_spec_state_names[s],
                    hurray_handoff_op_name((uint32_t)o), hurray_status_name(got.status),
                    hurray_handoff_state_name(got.next), (int)got.effect, handoff_spec_table[s][o]);
      cells++;
    }
  }
  ck_assert_int_eq(cells, HANDOFF_SPEC_STATES * HANDOFF_SPEC_OPS);
}
END_TEST

START_TEST(transition_is_total_outside_the_enums) {
  const int values[] = {-1,  HANDOFF_SPEC_OPS, HANDOFF_SPEC_OPS + 1, 255,
                        256, 1 << 20,          -2147483647 - 1,      2147483647};
  const size_t n = sizeof values / sizeof values[0];
  for (size_t i = 0; i < n; i++) {
    for (int o = 0; o < HANDOFF_SPEC_OPS; o++) {
      hurray_handoff_step got =
          hurray_handoff_transition((hurray_handoff_state)values[i], (hurray_handoff_op)o);
      ck_assert_int_eq(got.status, HURRAY_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq((int)got.next, values[i]);
      ck_assert_int_eq(got.effect, HURRAY_HANDOFF_EFFECT_NONE);
      got = hurray_handoff_transition((hurray_handoff_state)o, (hurray_handoff_op)values[i]);
      ck_assert_int_eq(got.status, HURRAY_ERR_INVALID_ARGUMENT);
      ck_assert_int_eq((int)got.next, o);
      ck_assert_int_eq(got.effect, HURRAY_HANDOFF_EFFECT_NONE);
    }
  }
}
END_TEST

/* Splits a Markdown table row into trimmed, heap-copied cells; returns how many. */
static int split_row(const char *line, char *cells[], int max) {
  int n = 0;
  const char *p = strchr(line, '|');
  while (p != NULL && n < max) {
    const char *start = p + 1;
    const char *end = strchr(start, '|');
    if (end == NULL) {
      break;
    }
    while (start < end && *start == ' ') {
      start++;
    }
    const char *tail = end;
    while (tail > start && tail[-1] == ' ') {
      tail--;
    }
    cells[n++] = strndup(start, (size_t)(tail - start));
    p = end;
  }
  return n;
}

/* Opens the source file the environment variable `name` gives (meson sets it). */
static FILE *open_source_file(const char *name, const char *what) {
  const char *path = getenv(name);
  ck_assert_msg(path != NULL, "%s must name %s", name, what);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  return f;
}

START_TEST(transcription_equals_the_spec_file) {
  FILE *f = open_source_file("HURRAY_HANDOFF_SPEC", "specs/handoff.md");
  char line[1024];
  int rows_checked = 0;
  bool in_table = false;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "| state \\ op |", 14) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) {
      continue;
    }
    if (line[0] != '|') {
      break;
    }
    char *cells[HANDOFF_SPEC_OPS + 2] = {NULL};
    int n = split_row(line, cells, HANDOFF_SPEC_OPS + 2);
    ck_assert_int_ge(n, 1);
    if (strncmp(cells[0], "---", 3) != 0) {
      ck_assert_int_eq(n, HANDOFF_SPEC_OPS + 1);
      const int s = state_by_name(cells[0], strlen(cells[0]));
      ck_assert_int_eq(s, rows_checked);
      for (int o = 0; o < HANDOFF_SPEC_OPS; o++) {
        ck_assert_msg(strcmp(cells[o + 1], handoff_spec_table[s][o]) == 0,
                      "spec row %s column %d says '%s', the test says '%s'", cells[0], o,
                      cells[o + 1], handoff_spec_table[s][o]);
      }
      rows_checked++;
    }
    for (int i = 0; i < n; i++) {
      free(cells[i]);
    }
  }
  fclose(f);
  ck_assert_int_eq(rows_checked, HANDOFF_SPEC_STATES);
}
END_TEST

/* A cell of the proof's logic table (ho_table in core/proven/handoff_state.c)
 * in the spec's words: ho_same is "=", ho_ILL "ILL", ho_b(ho_x) "x [B]",
 * ho_e(ho_x) "x [E]", ho_x "x". Writes into `out` (cap bytes). */
static void logic_cell_as_spec(const char *cell, size_t len, char *out, size_t cap) {
  const char *effect = "";
  if (len > 6 && (strncmp(cell, "ho_b(", 5) == 0 || strncmp(cell, "ho_e(", 5) == 0) &&
      cell[len - 1] == ')') {
    effect = cell[3] == 'b' ? " [B]" : " [E]";
    cell += 5;
    len -= 6;
  }
  ck_assert_msg(len > 3 && strncmp(cell, "ho_", 3) == 0, "logic table cell '%.*s' is not ho_*",
                (int)len, cell);
  cell += 3;
  len -= 3;
  if (len == 4 && strncmp(cell, "same", 4) == 0) {
    snprintf(out, cap, "=");
  } else {
    snprintf(out, cap, "%.*s%s", (int)len, cell, effect);
  }
}

/* HO-SM-2 as the proof states it: the rows of ho_table, the logic function
 * the contract of hurray_handoff_transition says it computes, are the spec's
 * rows (hence a wrong row in the proof's table is caught here, and a wrong
 * function by WP). */
START_TEST(proof_table_equals_the_spec) {
  FILE *f = open_source_file("HURRAY_HANDOFF_PROVEN_TABLE", "core/proven/handoff_state.c");
  char line[1024];
  int rows = 0;
  bool in_table = false;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strstr(line, "logic integer ho_table(") != NULL) {
      in_table = true;
      continue;
    }
    if (!in_table) {
      continue;
    }
    const char *row = strstr(line, "ho_row(o, ");
    if (row == NULL) {
      break;
    }
    ck_assert_int_lt(rows, HANDOFF_SPEC_STATES);
    /* Rows before the last are guarded by their state's number. */
    if (rows < HANDOFF_SPEC_STATES - 1) {
      char guard[32];
      snprintf(guard, sizeof guard, "s == %d ? ", rows);
      ck_assert_msg(strstr(line, guard) != NULL && strstr(line, guard) < row,
                    "logic table row %d does not start with '%s'", rows, guard);
    }
    const char *p = row + strlen("ho_row(o, ");
    for (int o = 0; o < HANDOFF_SPEC_OPS; o++) {
      /* A cell ends at the comma or closing parenthesis at depth 0. */
      int depth = 0;
      const char *end = p;
      while (*end != '\0' && !(depth == 0 && (*end == ',' || *end == ')'))) {
        depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
        end++;
      }
      ck_assert_msg(*end != '\0', "logic table row %d ends after %d cells", rows, o);
      char cell[64];
      logic_cell_as_spec(p, (size_t)(end - p), cell, sizeof cell);
      ck_assert_msg(strcmp(cell, handoff_spec_table[rows][o]) == 0,
                    "proof's table row %s column %d says '%s', the spec says '%s'",
                    handoff_spec_state_names[rows], o, cell, handoff_spec_table[rows][o]);
      ck_assert_msg((o < HANDOFF_SPEC_OPS - 1) == (*end == ','),
                    "logic table row %d has %s than %d cells", rows, *end == ',' ? "more" : "fewer",
                    HANDOFF_SPEC_OPS);
      p = end + 1;
      while (*p == ' ') {
        p++;
      }
    }
    rows++;
  }
  fclose(f);
  ck_assert_int_eq(rows, HANDOFF_SPEC_STATES);
}
END_TEST

/* The list transfers go into; runtime_matches_every_cell creates and destroys it. */
static hurray_buffer_list *transfer_list;

/* The runtime operation that performs `op`. */
static hurray_status run_runtime_op(hurray_handoff *h, int op, release_log *log) {
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  const hurray_buffer_handle ps = cuda_handle(HURRAY_SYNC_PRODUCER_SYNCED);
  const hurray_buffer_offer offer = offer_for_mode(HURRAY_SYNC_PRODUCER_SYNCED, log);
  switch (op) {
    case HURRAY_HANDOFF_OP_OFFER: return hurray_handoff_offer(h, &ps, &offer, NULL);
    case HURRAY_HANDOFF_OP_WITHDRAW: return hurray_handoff_withdraw(h, NULL);
    case HURRAY_HANDOFF_OP_ACCEPT_PRODUCER_SYNCED:
    case HURRAY_HANDOFF_OP_ACCEPT_EVENT:
    case HURRAY_HANDOFF_OP_ACCEPT_CONSUMER_STREAM:
      return hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, NULL);
    case HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT: return hurray_handoff_record_event_wait(h, NULL);
    case HURRAY_HANDOFF_OP_RELEASE_EVENT: return hurray_handoff_release_event(h, NULL);
    case HURRAY_HANDOFF_OP_RECORD_STREAM_WAIT: return hurray_handoff_record_stream_wait(h, NULL);
    case HURRAY_HANDOFF_OP_ACCESS: return hurray_handoff_access(h, FAKE_STREAM, NULL, NULL);
    case HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM:
      return hurray_handoff_access(h, FAKE_OTHER_STREAM, NULL, NULL);
    case HURRAY_HANDOFF_OP_RELEASE: return hurray_handoff_release(h, NULL);
    case HURRAY_HANDOFF_OP_DESTROY: return hurray_handoff_destroy(h, NULL);
    case HURRAY_HANDOFF_OP_TRANSFER: {
      /* Into a fresh list, destroyed later by the caller (see list_of). */
      return hurray_buffer_list_push_handoff(transfer_list, h, NULL);
    }
    default: ck_abort_msg("no runtime operation %d", op); return HURRAY_OK;
  }
}

/* The sync mode an accept op needs the offer to carry. */
static hurray_sync_mode mode_of_accept(int op) {
  if (op == HURRAY_HANDOFF_OP_ACCEPT_EVENT) return HURRAY_SYNC_EVENT;
  if (op == HURRAY_HANDOFF_OP_ACCEPT_CONSUMER_STREAM) return HURRAY_SYNC_CONSUMER_STREAM;
  return HURRAY_SYNC_PRODUCER_SYNCED;
}

/* Every (state, op) through the real object: the status, the state after and
 * the callbacks fired are the table's, and an error changes nothing. */
START_TEST(runtime_matches_every_cell) {
  const int s = _i;
  for (int o = 0; o < HANDOFF_SPEC_OPS; o++) {
    release_log log;
    release_log_reset(&log);
    hurray_handoff h;
    drive_to_state(&h, (hurray_handoff_state)s, mode_of_accept(o), &log);
    const int buffer_before = atomic_load(&log.buffer_releases);
    const int event_before = atomic_load(&log.event_releases);
    const expected_step e = expected_for(s, o);
    ck_assert_int_eq(hurray_buffer_list_create(&transfer_list, NULL), HURRAY_OK);
    const hurray_status got = run_runtime_op(&h, o, &log);
    ck_assert_msg(got == e.status, "(%s, %s): runtime says %s, spec says %s",
                  handoff_spec_state_names[s], hurray_handoff_op_name((uint32_t)o),
                  hurray_status_name(got), handoff_spec_table[s][o]);
    ck_assert_uint_eq(hurray_handoff_state_of(&h), (unsigned)e.next);
    ck_assert_int_eq(atomic_load(&log.buffer_releases) - buffer_before,
                     e.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER ? 1 : 0);
    ck_assert_int_eq(atomic_load(&log.event_releases) - event_before,
                     e.effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT ? 1 : 0);
    /* A transfer fires nothing at the handoff; the list releases the buffer, once. */
    const bool transferred = o == HURRAY_HANDOFF_OP_TRANSFER && got == HURRAY_OK;
    ck_assert_uint_eq(hurray_buffer_list_count(transfer_list), transferred ? 1u : 0u);
    hurray_buffer_list_destroy(&transfer_list);
    ck_assert_int_eq(atomic_load(&log.buffer_releases) - buffer_before,
                     (e.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER || transferred) ? 1 : 0);
  }
}
END_TEST

/* The error names the operation and the state it was attempted in (HO-SM-3). */
START_TEST(errors_name_operation_and_state) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  drive_to_state(&h, HURRAY_HANDOFF_EVENT_PENDING, HURRAY_SYNC_EVENT, &log);
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_release(&h, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_RELEASE);
  ck_assert_uint_eq(err.expected, HURRAY_HANDOFF_EVENT_PENDING);
  char msg[256];
  hurray_error_format(&err, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "release") != NULL && strstr(msg, "event_pending") != NULL,
                "message does not name operation and state: %s", msg);
  ck_assert_int_eq(hurray_handoff_access(&h, NULL, NULL, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_uint_eq(err.value, HURRAY_HANDOFF_OP_ACCESS);
}
END_TEST

/* Random walks: along any path each callback fires at most once (HO-SM-5). */
START_TEST(random_paths_fire_each_release_at_most_once) {
  unsigned seed = 12345u;
  for (int walk = 0; walk < 20000; walk++) {
    int state = walk % HANDOFF_SPEC_STATES;
    int buffer_fired = 0;
    int event_fired = 0;
    for (int step = 0; step < 40; step++) {
      seed = seed * 1103515245u + 12345u;
      const int op = (int)((seed >> 16) % HANDOFF_SPEC_OPS);
      const hurray_handoff_step got =
          hurray_handoff_transition((hurray_handoff_state)state, (hurray_handoff_op)op);
      buffer_fired += got.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER;
      event_fired += got.effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT;
      state = (int)got.next;
    }
    ck_assert_int_le(buffer_fired, 1);
    ck_assert_int_le(event_fired, 1);
  }
}
END_TEST

int main(void) {
  Suite *suite = suite_create("handoff_table");
  TCase *tc = hurray_check_case(suite, "table", NULL, NULL, 0);
  tcase_add_test(tc, transition_matches_every_cell);
  tcase_add_test(tc, transition_is_total_outside_the_enums);
  tcase_add_test(tc, transcription_equals_the_spec_file);
  tcase_add_test(tc, proof_table_equals_the_spec);
  tcase_add_loop_test(tc, runtime_matches_every_cell, 0, HANDOFF_SPEC_STATES);
  tcase_add_test(tc, errors_name_operation_and_state);
  tcase_add_test(tc, random_paths_fire_each_release_at_most_once);
  return hurray_check_run(suite);
}
