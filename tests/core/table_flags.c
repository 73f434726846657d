/*
 * The zero-count buffer table of a composite head (BP-TABLE-7): the *_flags
 * table functions with and without HURRAY_BUFFER_TABLE_ALLOW_EMPTY, against
 * the functions without flags (which keep BP-TABLE-3) and the spec's bytes.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

enum { MAX_TABLE = 1 + 16 * 255 };

/* Handle i of a valid, colocated CUDA table. */
static void put_good_handle(uint8_t *at, size_t i) {
  spec_put_handle(at, (uint64_t)(i + 1) * 4096u, 4096u, 0x01, (uint8_t)(i % 3), 0x00, 0x00);
}

static bool errors_equal(const hurray_error *a, const hurray_error *b) {
  return a->status == b->status && a->value == b->value && a->expected == b->expected &&
         a->index == b->index && strcmp(a->detail, b->detail) == 0;
}

static bool handle_bytes_untouched(const hurray_buffer_handle *out, size_t n) {
  return first_changed_byte(out, n * sizeof *out, 0xAB) == n * sizeof *out;
}

/* BP-TABLE-7: with the flag, the single byte 0x00 is a table of no handle;
 * out[] and err are not written, whatever the capacity (0 included). */
START_TEST(flags_count_zero_allowed) {
  uint8_t table[40];
  memset(table, 0xFF, sizeof table);
  table[0] = 0;
  for (size_t cap = 0; cap < 3; cap++) {
    for (size_t len = 1; len <= sizeof table; len++) {
      hurray_buffer_handle out[3];
      memset(out, 0xAB, sizeof out);
      size_t count = 9;
      hurray_error err = junk_error();
      hurray_error junk = junk_error();
      hurray_status status = hurray_buffer_table_decode_flags(
          table, len, out, cap, &count, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
      /* What follows the count byte belongs to the descriptor. */
      REQUIRE(status == HURRAY_OK, "len %zu cap %zu: %s", len, cap, hurray_status_name(status));
      ck_assert_uint_eq(count, 0);
      ck_assert(errors_equal(&err, &junk));
      ck_assert(handle_bytes_untouched(out, 3));

      count = 9;
      status = hurray_buffer_table_decode_exact_flags(table, len, out, cap, &count,
                                                      HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
      if (len == 1) { /* the table is all of the input */
        ck_assert_int_eq(status, HURRAY_OK);
        ck_assert_uint_eq(count, 0);
        ck_assert(errors_equal(&err, &junk));
      } else { /* BP-TABLE-6: bytes after the one-byte table */
        require_error("exact, trailing", status, &err, HURRAY_ERR_TRAILING_BYTES, len, 1,
                      ANY_INDEX);
        ck_assert_uint_eq(count, 9);
      }
      ck_assert(handle_bytes_untouched(out, 3));
    }
  }
  /* BP-TABLE-2 still applies: the count byte must be there. */
  hurray_buffer_handle out[1];
  size_t count = 9;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_decode_flags(table, 0, out, 1, &count,
                                                          HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  require_error("len 0", status, &err, HURRAY_ERR_TRUNCATED, 0, 1, ANY_INDEX);
  err = junk_error();
  status = hurray_buffer_table_decode_exact_flags(table, 0, out, 1, &count,
                                                  HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  require_error("exact len 0", status, &err, HURRAY_ERR_TRUNCATED, 0, 1, ANY_INDEX);
  ck_assert_uint_eq(count, 9);
}
END_TEST

/* BP-TABLE-3: without the flag count 0 is refused, as by the plain functions. */
START_TEST(flags_count_zero_refused_without_flag) {
  uint8_t table[17] = {0};
  for (size_t len = 1; len <= sizeof table; len++) {
    hurray_buffer_handle out[2];
    size_t count = 9;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_table_decode_flags(table, len, out, 2, &count, 0, &err);
    require_error("decode", status, &err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, ANY_INDEX);
    err = junk_error();
    status = hurray_buffer_table_decode_exact_flags(table, len, out, 2, &count, 0, &err);
    require_error("decode_exact", status, &err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, ANY_INDEX);
    ck_assert_uint_eq(count, 9);
  }
}
END_TEST

/* The flag changes nothing for a count of 1 or more: every truncation,
 * trailing bytes, small capacities and broken handles give the plain
 * functions' status, error and handles (BP-TABLE-1..6 hold as before). */
START_TEST(flags_same_as_plain_for_nonzero_counts) {
  static uint8_t table[MAX_TABLE + 4];
  uint64_t state = 0x0B0B0B0B12345678ULL;
  for (int round = 0; round < 3000; round++) {
    uint64_t r = next_random(&state);
    size_t n = 1 + (size_t)(r % 255);
    if (round % 3 == 0) n = 1 + (size_t)(r % 4);
    table[0] = (uint8_t)n;
    for (size_t i = 0; i < n; i++) put_good_handle(table + 1 + 16 * i, i);
    size_t full = 1 + 16 * n;
    size_t len = full;
    size_t cap = 255;
    switch ((r >> 8) % 6) {
      case 0: len = (size_t)((r >> 16) % (full + 1)); break;
      case 1: len = full + 1 + (size_t)((r >> 16) % 3); break;
      case 2: cap = (size_t)((r >> 16) % (n + 1)); break;
      case 3: table[1 + 16 * ((r >> 16) % n) + 15] = 1; break;    /* reserved byte */
      case 4: table[1 + 16 * ((r >> 16) % n) + 12] = 0x02; break; /* another device */
      default: break;
    }
    for (uint32_t flags = 0; flags <= HURRAY_BUFFER_TABLE_ALLOW_EMPTY; flags++) {
      for (int exact = 0; exact < 2; exact++) {
        static hurray_buffer_handle want_out[255], got_out[255];
        memset(want_out, 0xAB, sizeof want_out);
        memset(got_out, 0xAB, sizeof got_out);
        size_t want_count = 7, got_count = 7;
        hurray_error want_err = junk_error(), got_err = junk_error();
        hurray_status want =
            exact ? hurray_buffer_table_decode_exact(table, len, want_out, cap, &want_count,
                                                     &want_err)
                  : hurray_buffer_table_decode(table, len, want_out, cap, &want_count, &want_err);
        hurray_status got = exact ? hurray_buffer_table_decode_exact_flags(
                                        table, len, got_out, cap, &got_count, flags, &got_err)
                                  : hurray_buffer_table_decode_flags(table, len, got_out, cap,
                                                                     &got_count, flags, &got_err);
        REQUIRE(got == want, "round %d flags %u exact %d: %s, plain %s", round, (unsigned)flags,
                exact, hurray_status_name(got), hurray_status_name(want));
        ck_assert(errors_equal(&got_err, &want_err));
        ck_assert_uint_eq(got_count, want_count);
        ck_assert(memcmp(got_out, want_out, sizeof got_out) == 0);
        REQUIRE(got == HURRAY_OK || handle_bytes_untouched(got_out, 255),
                "round %d flags %u exact %d: %s wrote out[] (BP-TABLE-8)", round, (unsigned)flags,
                exact, hurray_status_name(got));
      }
    }
  }
}
END_TEST

/* Any flag bit but HURRAY_BUFFER_TABLE_ALLOW_EMPTY is refused, naming the
 * flags, before the table is read; NULL arguments come first. */
START_TEST(flags_unknown_bits_refused) {
  static const uint32_t bad[] = {2u, 3u, 0x80u, 0x80000000u, 0xFFFFFFFFu};
  uint8_t table[1] = {0};
  hurray_buffer_handle handles[1];
  hurray_buffer_handle out[1];
  uint8_t bytes[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    size_t count = 9, written = 9;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_table_decode_flags(table, 0, out, 1, &count, bad[k], &err);
    require_error("decode", status, &err, HURRAY_ERR_INVALID_ARGUMENT, bad[k],
                  HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5);
    err = junk_error();
    status = hurray_buffer_table_decode_exact_flags(table, 1, out, 1, &count, bad[k], &err);
    require_error("decode_exact", status, &err, HURRAY_ERR_INVALID_ARGUMENT, bad[k],
                  HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5);
    err = junk_error();
    status =
        hurray_buffer_table_encode_flags(handles, 0, bytes, sizeof bytes, &written, bad[k], &err);
    require_error("encode", status, &err, HURRAY_ERR_INVALID_ARGUMENT, bad[k],
                  HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5);
    ck_assert_uint_eq(count, 9);
    ck_assert_uint_eq(written, 9);
    err = junk_error();
    status = hurray_buffer_table_decode_flags(NULL, 1, out, 1, &count, bad[k], &err);
    require_error("NULL in first", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
    err = junk_error();
    status = hurray_buffer_table_decode_exact_flags(table, 1, out, 1, NULL, bad[k], &err);
    require_error("NULL count first", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
    err = junk_error();
    status = hurray_buffer_table_encode_flags(handles, 0, bytes, sizeof bytes, NULL, bad[k], &err);
    require_error("NULL written first", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  ck_assert_uint_eq(first_changed_byte(bytes, sizeof bytes, 0xEE), sizeof bytes);  // BP-TABLE-9
}
END_TEST

/* BP-TABLE-7 on the writing side: zero handles make the byte 0x00, which the
 * reader with the flag reads back as zero handles; without the flag the
 * encoder refuses count 0 (BP-TABLE-3); other counts encode as before. */
START_TEST(flags_encode) {
  hurray_buffer_handle handles[3];
  for (size_t i = 0; i < 3; i++) {
    uint8_t wire[16];
    put_good_handle(wire, i);
    ck_assert_int_eq(hurray_buffer_handle_decode(wire, &handles[i], NULL), HURRAY_OK);
  }
  uint8_t out[64];
  memset(out, 0xEE, sizeof out);
  size_t written = 9;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_encode_flags(handles, 0, out, 0, &written,
                                                          HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  require_error("cap 0", status, &err, HURRAY_ERR_CAPACITY, 1, 0, ANY_INDEX);
  ck_assert_uint_eq(written, 9);
  ck_assert_uint_eq(out[0], 0xEE);
  err = junk_error();
  status = hurray_buffer_table_encode_flags(handles, 0, out, sizeof out, &written, 0, &err);
  require_error("no flag", status, &err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, ANY_INDEX);
  ck_assert_uint_eq(written, 9);
  ck_assert_uint_eq(first_changed_byte(out, sizeof out, 0xEE), sizeof out);  // BP-TABLE-9

  err = junk_error();
  hurray_error junk = junk_error();
  status = hurray_buffer_table_encode_flags(handles, 0, out, 1, &written,
                                            HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  ck_assert_int_eq(status, HURRAY_OK);
  ck_assert_uint_eq(written, 1);
  ck_assert_uint_eq(out[0], 0x00);
  ck_assert_uint_eq(out[1], 0xEE);
  ck_assert(errors_equal(&err, &junk));
  hurray_buffer_handle back[1];
  size_t count = 9;
  ck_assert_int_eq(hurray_buffer_table_decode_exact_flags(out, written, back, 0, &count,
                                                          HURRAY_BUFFER_TABLE_ALLOW_EMPTY, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(count, 0);

  for (size_t n = 1; n <= 3; n++) {
    uint8_t want[64], got[64];
    size_t want_written = 0, got_written = 0;
    memset(want, 0xEE, sizeof want);
    memset(got, 0xEE, sizeof got);
    ck_assert_int_eq(hurray_buffer_table_encode(handles, n, want, sizeof want, &want_written, NULL),
                     HURRAY_OK);
    ck_assert_int_eq(hurray_buffer_table_encode_flags(handles, n, got, sizeof got, &got_written,
                                                      HURRAY_BUFFER_TABLE_ALLOW_EMPTY, NULL),
                     HURRAY_OK);
    ck_assert_uint_eq(got_written, want_written);
    ck_assert(memcmp(got, want, sizeof got) == 0);
  }
  err = junk_error();
  status = hurray_buffer_table_encode_flags(NULL, 0, out, sizeof out, &written,
                                            HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  require_error("NULL handles", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("buffer table flags", "table flags", SWEEP_TIMEOUT_S,
                           flags_count_zero_allowed, flags_count_zero_refused_without_flag,
                           flags_same_as_plain_for_nonzero_counts, flags_unknown_bits_refused,
                           flags_encode);
}
