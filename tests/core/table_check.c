/*
 * The table check without stores and its handle accessor (BP-TABLE-10):
 * the check's verdict against the spec oracle and against the decoder on the
 * same bytes, that it writes nothing but the count or the error, and the
 * accessor's fields against the bytes written field by field and against the
 * decoder, an index past the count refused.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"
#include "spec_oracle.h"
#include "test_support.h"

enum { MAX_TABLE = 1 + 16 * 255 };

static bool errors_equal(const hurray_error *a, const hurray_error *b) {
  return a->status == b->status && a->value == b->value && a->expected == b->expected &&
         a->index == b->index && strcmp(a->detail, b->detail) == 0;
}

/* A random table of n handles, valid and colocated unless `fault` breaks
 * one handle (r's bits pick which and how). */
static void random_table(uint8_t *table, size_t n, uint64_t r, int fault) {
  table[0] = (uint8_t)n;
  for (size_t i = 0; i < n; i++) {
    const uint64_t size = (uint64_t)(i * 977u + (r & 0xFFFFu)) * 64u;
    const uint8_t sync = (uint8_t)((i + (r >> 20)) % 3u);
    spec_put_handle(table + 1 + 16 * i, size, 64u << (i % 6u), 0x01, sync, 0x00, 0x00);
  }
  uint8_t *h = table + 1 + 16 * ((r >> 24) % n);
  switch (fault) {
    case 1: h[15] = (uint8_t)(1u + (r >> 32) % 255u); break; /* BP-WIRE-2 */
    case 2: h[12] = (uint8_t)(r >> 40); break;               /* any device tag */
    case 3: h[13] = (uint8_t)(r >> 40); break;               /* any sync mode */
    case 4: h[14] = (uint8_t)(r >> 40); break;               /* any memory class */
    case 5: h[8 + (r >> 40) % 4u] ^= (uint8_t)(1u << ((r >> 44) % 8u)); break; /* alignment */
    case 6:
      h[12] = 0x00;
      h[13] = 0x00;
      break; /* a CPU handle among CUDA */
    default: break;
  }
}

/* BP-TABLE-10: for every input the decoder's status, error and count (with
 * room for 255 handles), and the spec oracle's status; nothing but *count
 * written on success and nothing but err on failure. */
START_TEST(check_is_decode_verdict) {
  static uint8_t table[MAX_TABLE + 8];
  uint64_t state = 0x7AB1E0C4EC4ULL;
  for (int round = 0; round < 20000; round++) {
    const uint64_t r = next_random(&state);
    size_t n = (size_t)(r % 256u);
    if (round % 4 == 0) n = (size_t)(r % 5u);
    memset(table, 0xEE, sizeof table);
    if (n == 0) {
      table[0] = 0;
    } else {
      random_table(table, n, next_random(&state), (int)((r >> 12) % 8u));
    }
    size_t len = 1 + 16 * n;
    switch ((r >> 56) % 4u) {
      case 0: len = (size_t)((r >> 32) % (len + 1)); break;
      case 1: len += 1 + (size_t)((r >> 32) % 7u); break;
      default: break;
    }
    uint8_t before[MAX_TABLE + 8];
    memcpy(before, table, sizeof before);

    size_t checked = 777;
    hurray_error check_err = junk_error();
    const hurray_error untouched = check_err;
    const hurray_status got = hurray_buffer_table_check(table, len, &checked, &check_err);

    static hurray_buffer_handle out[255];
    size_t decoded = 777;
    hurray_error decode_err = junk_error();
    const hurray_status want =
        hurray_buffer_table_decode(table, len, out, 255, &decoded, &decode_err);

    size_t spec_index = 0;
    const spec_verdict spec = spec_table_verdict(table, len, 255, &spec_index);
    REQUIRE(got == spec.status, "round %d (n %zu, len %zu): check says %s, the spec %s", round, n,
            len, hurray_status_name(got), hurray_status_name(spec.status));
    REQUIRE(got == want, "round %d (n %zu, len %zu): check says %s, the decoder %s", round, n, len,
            hurray_status_name(got), hurray_status_name(want));
    REQUIRE(memcmp(before, table, sizeof before) == 0, "round %d: the check wrote its input",
            round);
    if (got == HURRAY_OK) {
      ck_assert_uint_eq(checked, n);
      ck_assert_uint_eq(checked, decoded);
      REQUIRE(memcmp(&check_err, &untouched, sizeof check_err) == 0,
              "round %d: an accepted table wrote err", round);
    } else {
      ck_assert_uint_eq(checked, 777);
      REQUIRE(errors_equal(&check_err, &decode_err),
              "round %d: check error %s value %llu expected %llu index %zu, decoder's %s value "
              "%llu expected %llu index %zu",
              round, hurray_status_name(check_err.status), (unsigned long long)check_err.value,
              (unsigned long long)check_err.expected, check_err.index,
              hurray_status_name(decode_err.status), (unsigned long long)decode_err.value,
              (unsigned long long)decode_err.expected, decode_err.index);
    }
  }
}
END_TEST

/* NULL arguments: in is argument 0, count argument 2 (BP-TABLE-10 says
 * nothing of them; the index names the argument, as everywhere). */
START_TEST(check_null_arguments) {
  uint8_t table[17] = {1};
  spec_put_handle(table + 1, 64, 64, 0x00, 0x00, 0x00, 0x00);
  size_t count = 5;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_check(NULL, sizeof table, &count, &err);
  require_error("in NULL", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  ck_assert_uint_eq(count, 5);
  err = junk_error();
  status = hurray_buffer_table_check(table, sizeof table, NULL, &err);
  require_error("count NULL", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  ck_assert_uint_eq(hurray_buffer_table_check(table, sizeof table, &count, NULL), HURRAY_OK);
  ck_assert_uint_eq(count, 1);
}
END_TEST

static bool handle_is(const hurray_buffer_handle *h, uint64_t size, uint32_t alignment, uint8_t tag,
                      uint8_t sync, uint8_t memory_class) {
  return h->byte_size == size && h->alignment == alignment && h->device_tag == tag &&
         h->sync_mode == sync && h->memory_class == memory_class && h->reserved == 0;
}

/* BP-WIRE-1 through the accessor: each field as written, for every handle
 * of a full table; an index at or past the count is refused, naming the
 * index and the count, with *out untouched; NULL arguments by position. */
START_TEST(accessor_reads_the_fields) {
  static uint8_t table[MAX_TABLE];
  table[0] = 255;
  for (size_t i = 0; i < 255; i++) {
    const uint64_t size = 0x0102030405060708ULL + i * 0x1000u;
    spec_put_handle(table + 1 + 16 * i, size, 64u << (i % 8u), 0xF3, (uint8_t)(i % 3u), 0xF7, 0x00);
  }
  size_t count = 0;
  hurray_error err = junk_error();
  REQUIRE(hurray_buffer_table_check(table, sizeof table, &count, &err) == HURRAY_OK,
          "private-tag table refused: %s", hurray_status_name(err.status));
  ck_assert_uint_eq(count, 255);
  for (size_t i = 0; i < count; i++) {
    hurray_buffer_handle h;
    memset(&h, 0xAB, sizeof h);
    err = junk_error();
    const hurray_error untouched = err;
    ck_assert_uint_eq(hurray_buffer_table_handle(table, i, &h, &err), HURRAY_OK);
    REQUIRE(handle_is(&h, 0x0102030405060708ULL + i * 0x1000u, 64u << (i % 8u), 0xF3,
                      (uint8_t)(i % 3u), 0xF7),
            "handle %zu: size %llu alignment %u tag 0x%02X sync %u class 0x%02X", i,
            (unsigned long long)h.byte_size, h.alignment, h.device_tag, h.sync_mode,
            h.memory_class);
    ck_assert(memcmp(&err, &untouched, sizeof err) == 0);
  }
  /* A table of 2 handles followed by the bytes of a third: index 2 is
   * refused, whatever follows. */
  uint8_t two[1 + 16 * 3];
  memcpy(two, table, sizeof two);
  two[0] = 2;
  const size_t past[] = {2, 3, 255, 256, SIZE_MAX};
  for (size_t k = 0; k < sizeof past / sizeof past[0]; k++) {
    hurray_buffer_handle h;
    memset(&h, 0xAB, sizeof h);
    err = junk_error();
    const hurray_status status = hurray_buffer_table_handle(two, past[k], &h, &err);
    require_error("index past the count", status, &err, HURRAY_ERR_INVALID_ARGUMENT, past[k], 2, 1);
    ck_assert_uint_eq(first_changed_byte(&h, sizeof h, 0xAB), sizeof h);
  }
  hurray_buffer_handle h;
  err = junk_error();
  require_error("table NULL", hurray_buffer_table_handle(NULL, 0, &h, &err), &err,
                HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  err = junk_error();
  require_error("out NULL", hurray_buffer_table_handle(two, 0, NULL, &err), &err,
                HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
}
END_TEST

/* The accessor agrees with what the decoder writes, handle by handle. */
START_TEST(accessor_is_decode) {
  static uint8_t table[MAX_TABLE];
  uint64_t state = 0xACCE55ULL;
  for (int round = 0; round < 2000; round++) {
    const size_t n = 1 + (size_t)(next_random(&state) % 255u);
    random_table(table, n, next_random(&state), 0);
    static hurray_buffer_handle out[255];
    size_t count = 0;
    ck_assert_uint_eq(hurray_buffer_table_decode(table, 1 + 16 * n, out, 255, &count, NULL),
                      HURRAY_OK);
    for (size_t i = 0; i < count; i++) {
      hurray_buffer_handle h;
      ck_assert_uint_eq(hurray_buffer_table_handle(table, i, &h, NULL), HURRAY_OK);
      ck_assert(handle_is(&h, out[i].byte_size, out[i].alignment, out[i].device_tag,
                          out[i].sync_mode, out[i].memory_class));
    }
  }
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("buffer table check", "table check", SWEEP_TIMEOUT_S,
                           check_is_decode_verdict, check_null_arguments, accessor_reads_the_fields,
                           accessor_is_decode);
}
