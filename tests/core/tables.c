/*
 * Buffer tables (BP-TABLE-1..6, BP-TABLE-8) with colocation (BP-COLOC-2): every
 * truncation length, trailing bytes (decode vs decode_exact), count 0 and
 * 255, capacity, an invalid handle and a colocation failure at every
 * position, random tables against the spec model, and the table encoder.
 * Inputs live in heap blocks of exactly their length, so under ASan a read
 * past the input (BP-TABLE-2) fails the test.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

enum { MAX_TABLE = 1 + 16 * 255 };

/* Handle i of the standard test table: CUDA, standard, sync and alignment
 * varying with i, some buffers empty. Valid and colocated. */
static void put_good_handle(uint8_t *at, size_t i) {
  static const uint32_t alignments[] = {64, 4096, 128, 65536, 256};
  bool empty = i % 7 == 3;
  spec_put_handle(at, empty ? 0 : (uint64_t)(i + 1) * 1000u + i, empty ? 1u : alignments[i % 5],
                  0x01, (uint8_t)(i % 3), 0x00, 0x00);
}

static size_t put_good_table(uint8_t *table, size_t count) {
  table[0] = (uint8_t)count;
  for (size_t i = 0; i < count; i++) put_good_handle(table + 1 + 16 * i, i);
  return 1 + 16 * count;
}

/* A copy of in[0..len) in a heap block of exactly len bytes (1 when len is 0,
 * so the pointer is valid but nothing may be read). */
static uint8_t *exact_copy(const uint8_t *in, size_t len) {
  uint8_t *copy = malloc(len == 0 ? 1 : len);
  ck_assert_ptr_nonnull(copy);
  if (len > 0) memcpy(copy, in, len);
  return copy;
}

/* Decodes in[0..len) with both decoders and checks each against the spec
 * model; on success checks the handles against the input bytes, on failure
 * that neither out[] nor *count was written (BP-TABLE-8). */
static void require_table(const char *what, const uint8_t *in, size_t len, size_t cap) {
  enum { FILL = 0xA5 };
  size_t index;
  spec_verdict want = spec_table_verdict(in, len, cap, &index);
  uint8_t *copy = exact_copy(in, len);
  hurray_buffer_handle *out = malloc((cap == 0 ? 1 : cap) * sizeof *out);
  ck_assert_ptr_nonnull(out);
  for (int exact = 0; exact < 2; exact++) {
    size_t count = 0x5A5A;
    hurray_error err = junk_error();
    memset(out, FILL, (cap == 0 ? 1 : cap) * sizeof *out);
    hurray_status status = exact
                               ? hurray_buffer_table_decode_exact(copy, len, out, cap, &count, &err)
                               : hurray_buffer_table_decode(copy, len, out, cap, &count, &err);
    spec_verdict w = want;
    size_t n = len > 0 ? in[0] : 0;
    if (exact && w.status == HURRAY_OK && len != 1 + 16 * n) { /* BP-TABLE-6 */
      w = (spec_verdict){HURRAY_ERR_TRAILING_BYTES, len, 1 + 16 * n, true, true};
    }
    char name[160];
    snprintf(name, sizeof name, "%s: %s (len %zu, cap %zu)", what,
             exact ? "decode_exact" : "decode", len, cap);
    require_verdict(name, status, &err, w, w.status == HURRAY_OK ? 0 : index);
    if (w.status != HURRAY_OK) {
      REQUIRE(count == 0x5A5A, "%s: *count written on failure", name);
      size_t written = first_changed_byte(out, cap * sizeof *out, FILL);
      REQUIRE(written == cap * sizeof *out,
              "%s: out[] written on failure (BP-TABLE-8): byte %zu of handle %zu", name,
              written % sizeof *out, written / sizeof *out);
      continue;
    }
    REQUIRE(count == n, "%s: count %zu, want %zu", name, count, n);
    for (size_t i = 0; i < n; i++) {
      uint8_t again[16];
      hurray_buffer_handle_encode(&out[i], again);
      REQUIRE(memcmp(again, in + 1 + 16 * i, 16) == 0, "%s: handle %zu differs from the input",
              name, i);
    }
  }
  free(out);
  free(copy);
}

START_TEST(table_empty_input) {
  uint8_t nothing[1] = {1};
  hurray_buffer_handle out[1];
  size_t count = 7;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_decode(nothing, 0, out, 1, &count, &err);
  require_error("len 0", status, &err, HURRAY_ERR_TRUNCATED, 0, 1, ANY_INDEX);
  require_table("len 0", nothing, 0, 1);
  ck_assert_uint_eq(count, 7);
}
END_TEST

START_TEST(table_count_zero) {
  uint8_t table[40];
  memset(table, 0xFF, sizeof table); /* whatever follows is not looked at */
  table[0] = 0;
  for (size_t len = 1; len <= sizeof table; len++) {
    for (size_t cap = 0; cap < 3; cap++) {
      hurray_buffer_handle out[3];
      size_t count = 9;
      hurray_error err = junk_error();
      hurray_status status = hurray_buffer_table_decode(table, len, out, cap, &count, &err);
      ck_assert_int_eq(status, HURRAY_ERR_EMPTY_BUFFER_LIST);
      ck_assert_int_eq(err.status, HURRAY_ERR_EMPTY_BUFFER_LIST);
      status = hurray_buffer_table_decode_exact(table, len, out, cap, &count, &err);
      ck_assert_int_eq(status, HURRAY_ERR_EMPTY_BUFFER_LIST);
      ck_assert_uint_eq(count, 9);
      require_table("count 0", table, len, cap);
    }
  }
}
END_TEST

START_TEST(table_every_truncation_length) {
  static uint8_t table[MAX_TABLE];
  static const size_t counts[] = {1, 2, 3, 16, 100, 254, 255};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    size_t full = put_good_table(table, counts[c]);
    for (size_t len = 1; len < full; len++) {
      uint8_t *copy = exact_copy(table, len);
      hurray_buffer_handle *out = malloc(255 * sizeof *out);
      size_t count = 3;
      hurray_error err = junk_error();
      hurray_status status = hurray_buffer_table_decode(copy, len, out, 255, &count, &err);
      char what[64];
      snprintf(what, sizeof what, "count %zu, len %zu", counts[c], len);
      require_error(what, status, &err, HURRAY_ERR_TRUNCATED, len, full, ANY_INDEX);
      REQUIRE(count == 3, "%s: count written", what);
      free(out);
      free(copy);
    }
    require_table("full length", table, full, 255);
  }
  /* Length first (BP-TABLE-2): a truncated table whose handles are all
   * invalid, with a capacity of 0, is still TRUNCATED. */
  memset(table, 0xFF, sizeof table);
  table[0] = 200;
  for (size_t len = 1; len < 1 + 16 * 200; len += 7) {
    uint8_t *copy = exact_copy(table, len);
    hurray_buffer_handle out[1];
    size_t count = 0;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_table_decode(copy, len, out, 0, &count, &err);
    require_error("truncated garbage", status, &err, HURRAY_ERR_TRUNCATED, len, 1 + 16 * 200,
                  ANY_INDEX);
    free(copy);
  }
}
END_TEST

START_TEST(table_every_count_exact_and_short) {
  static uint8_t table[MAX_TABLE];
  for (size_t n = 1; n <= 255; n++) {
    size_t full = put_good_table(table, n);
    ck_assert_uint_eq(full, hurray_buffer_table_encoded_size(n));
    require_table("exact", table, full, n);
    require_table("one short", table, full - 1, n);
    require_table("one more capacity", table, full, n + 1);
  }
}
END_TEST

START_TEST(table_255_handles) {
  static uint8_t table[MAX_TABLE];
  size_t full = put_good_table(table, 255);
  ck_assert_uint_eq(full, 4081);
  ck_assert_uint_eq(HURRAY_BUFFER_TABLE_MAX_SIZE, 4081);
  ck_assert_uint_eq(HURRAY_BUFFER_TABLE_MAX_HANDLES, 255);
  uint8_t *copy = exact_copy(table, full);
  hurray_buffer_handle *out = malloc(255 * sizeof *out);
  size_t count = 0;
  ck_assert_int_eq(hurray_buffer_table_decode_exact(copy, full, out, 255, &count, NULL), HURRAY_OK);
  ck_assert_uint_eq(count, 255);
  for (size_t i = 0; i < 255; i++) {
    uint8_t want[16];
    put_good_handle(want, i);
    uint8_t got[16];
    hurray_buffer_handle_encode(&out[i], got);
    REQUIRE(memcmp(got, want, 16) == 0, "handle %zu", i);
  }
  free(out);
  free(copy);
}
END_TEST

START_TEST(table_trailing_bytes) {
  static uint8_t table[MAX_TABLE + 64];
  static const size_t counts[] = {1, 2, 9, 255};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    size_t full = put_good_table(table, counts[c]);
    for (size_t extra = 0; extra <= 64; extra++) {
      memset(table + full, (int)(0x11 * (extra % 16)), extra);
      /* decode ignores what follows; decode_exact rejects it (BP-TABLE-6). */
      require_table("trailing", table, full + extra, 255);
      if (extra > 0) {
        hurray_buffer_handle out[255];
        size_t count = 77;
        hurray_error err = junk_error();
        hurray_status status =
            hurray_buffer_table_decode_exact(table, full + extra, out, 255, &count, &err);
        require_error("trailing", status, &err, HURRAY_ERR_TRAILING_BYTES, full + extra, full,
                      ANY_INDEX);
        ck_assert_uint_eq(count, 77);
        status = hurray_buffer_table_decode(table, full + extra, out, 255, &count, &err);
        ck_assert_int_eq(status, HURRAY_OK);
        ck_assert_uint_eq(count, counts[c]);
      }
    }
  }
  /* The table itself is judged first: a bad handle or a colocation failure
   * is reported rather than the trailing bytes. */
  size_t full = put_good_table(table, 5);
  table[1 + 16 * 3 + 15] = 0x01; /* reserved byte of handle 3 */
  memset(table + full, 0, 10);
  hurray_buffer_handle out[5];
  size_t count = 0;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_decode_exact(table, full + 10, out, 5, &count, &err);
  require_status_value("bad handle + trailing", status, &err, HURRAY_ERR_RESERVED_BYTE_NONZERO, 1,
                       3);
  full = put_good_table(table, 5);
  table[1 + 16 * 2 + 12] = 0x02; /* handle 2 on ROCm */
  err = junk_error();
  status = hurray_buffer_table_decode_exact(table, full + 10, out, 5, &count, &err);
  require_error("mismatch + trailing", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 2, 1, 2);
}
END_TEST

START_TEST(table_capacity) {
  static uint8_t table[MAX_TABLE];
  for (size_t n = 1; n <= 255; n += (n < 20 ? 1 : 47)) {
    size_t full = put_good_table(table, n);
    for (size_t cap = 0; cap < n; cap++) {
      require_table("capacity", table, full, cap);
      hurray_buffer_handle *out = malloc((cap == 0 ? 1 : cap) * sizeof *out);
      size_t count = 5;
      hurray_error err = junk_error();
      hurray_status status = hurray_buffer_table_decode(table, full, out, cap, &count, &err);
      require_error("capacity", status, &err, HURRAY_ERR_CAPACITY, n, cap, ANY_INDEX);
      ck_assert_uint_eq(count, 5);
      free(out);
    }
  }
  /* Before any handle is decoded (BP-TABLE-4): handle 0 broken, cap 1 < 3. */
  size_t full = put_good_table(table, 3);
  table[1 + 12] = 0xFF;
  hurray_buffer_handle out[1];
  memset(out, 0x5A, sizeof out);
  hurray_buffer_handle untouched = out[0];
  size_t count = 0;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_decode(table, full, out, 1, &count, &err);
  require_error("capacity first", status, &err, HURRAY_ERR_CAPACITY, 3, 1, ANY_INDEX);
  ck_assert_mem_eq(&out[0], &untouched, sizeof untouched);
}
END_TEST

/* One fault per kind, applied to handle `at` of a CUDA standard table, with
 * the spec's answer for it. */
typedef struct fault {
  const char *name;
  int offset;
  uint8_t byte;       /* byte written at offset (tag, sync, class, reserved) */
  uint32_t alignment; /* or, when offset is 8 (0), this alignment with byte_size 4096 (0) */
  hurray_status status;
  uint64_t value;
  uint64_t expected;
  bool has_expected;
} fault;

static const fault faults[] = {
    {"reserved byte", 15, 0x80, 0, HURRAY_ERR_RESERVED_BYTE_NONZERO, 0x80, 0, false},
    {"reserved tag", 12, 0x09, 0, HURRAY_ERR_RESERVED_DEVICE_TAG, 0x09, 0, false},
    {"invalid tag", 12, 0xFF, 0, HURRAY_ERR_INVALID_DEVICE_TAG, 0xFF, 0, false},
    {"bad sync", 13, 0x03, 0, HURRAY_ERR_INVALID_SYNC_MODE, 0x03, 0, true},
    {"reserved class", 14, 0x04, 0, HURRAY_ERR_RESERVED_MEMORY_CLASS, 0x04, 0, false},
    {"invalid class", 14, 0xFF, 0, HURRAY_ERR_INVALID_MEMORY_CLASS, 0xFF, 0, false},
    {"private class", 14, 0xF0, 0, HURRAY_ERR_INVALID_PAIR, 0xF0, 0x01, true},
    {"alignment 3", 8, 0, 3, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 3, 0, false},
    {"alignment 0", 8, 0, 0, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 0, 0, false},
    {"alignment 32", 8, 0, 32, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32, 64, true},
    /* offset 0: an empty buffer (byte_size 0) with this alignment */
    {"empty, alignment 0", 0, 0, 0, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 0, 0, false},
    {"empty, alignment 3", 0, 0, 3, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 3, 0, false},
    {"empty, alignment 96", 0, 0, 96, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 96, 0, false},
};

static void apply_fault(uint8_t *handle, const fault *f) {
  if (f->offset == 8 || f->offset == 0) {
    spec_put_handle(handle, f->offset == 8 ? 4096 : 0, f->alignment, handle[12], handle[13],
                    handle[14], handle[15]);
  } else {
    handle[f->offset] = f->byte;
  }
}

START_TEST(table_invalid_handle_every_position) {
  static uint8_t table[MAX_TABLE];
  hurray_buffer_handle *out = malloc(255 * sizeof *out);
  for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
    for (size_t at = 0; at < 255; at++) {
      size_t full = put_good_table(table, 255);
      apply_fault(table + 1 + 16 * at, &faults[f]);
      size_t count = 1234;
      hurray_error err = junk_error();
      memset(out, 0x5A, 255 * sizeof *out);
      hurray_status status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
      char what[64];
      snprintf(what, sizeof what, "%s at %zu", faults[f].name, at);
      spec_verdict want = {faults[f].status, faults[f].value, faults[f].expected,
                           faults[f].has_expected, true};
      require_verdict(what, status, &err, want, at);
      REQUIRE(count == 1234, "%s: count written", what);
      /* BP-TABLE-8: not even the valid handles before the failing one. */
      size_t written = first_changed_byte(out, 255 * sizeof *out, 0x5A);
      REQUIRE(written == 255 * sizeof *out, "%s: out[%zu] written on failure (BP-TABLE-8)", what,
              written / sizeof *out);
      if (at % 50 == 0) require_table(what, table, full, 255);
    }
  }
  free(out);
}
END_TEST

START_TEST(table_cpu_rules_at_every_position) {
  /* A CPU table: the CPU sync rule (BP-SYNC-2) at every position, and an
   * individually valid CUDA event handle there, which is a colocation
   * failure (BP-COLOC-2), not a sync one. */
  static uint8_t table[MAX_TABLE];
  hurray_buffer_handle *out = malloc(255 * sizeof *out);
  for (size_t at = 1; at < 255; at++) {
    table[0] = 255;
    for (size_t i = 0; i < 255; i++) spec_put_handle(table + 1 + 16 * i, 64 * i, 64, 0, 0, 0, 0);
    table[1 + 16 * at + 13] = 0x01;
    size_t count = 0;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_table_decode(table, sizeof table, out, 255, &count, &err);
    require_error("cpu event", status, &err, HURRAY_ERR_INVALID_SYNC_MODE, 1, 0, at);
    table[1 + 16 * at + 12] = 0x01;
    err = junk_error();
    status = hurray_buffer_table_decode(table, sizeof table, out, 255, &count, &err);
    require_error("cuda event among cpu", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 1, 0, at);
  }
  /* First handle empty with alignment 1: a later non-empty handle with
   * alignment 1 is below the minimum, at its own index. */
  for (size_t at = 1; at < 255; at += 11) {
    table[0] = 255;
    for (size_t i = 0; i < 255; i++) spec_put_handle(table + 1 + 16 * i, 0, 1, 0xF2, 2, 0xF7, 0);
    spec_put_handle(table + 1 + 16 * at, 10, 1, 0xF2, 2, 0xF7, 0);
    size_t count = 0;
    hurray_error err = junk_error();
    hurray_status status = hurray_buffer_table_decode(table, sizeof table, out, 255, &count, &err);
    require_error("non-empty alignment 1", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 1, 64,
                  at);
  }
  free(out);
}
END_TEST

START_TEST(table_colocation_every_position) {
  static uint8_t table[MAX_TABLE];
  hurray_buffer_handle *out = malloc(255 * sizeof *out);
  for (size_t at = 1; at < 255; at++) {
    size_t full = put_good_table(table, 255);
    uint8_t *h = table + 1 + 16 * at;
    hurray_error err = junk_error();
    size_t count = 0;

    h[12] = 0x02; /* ROCm: another device */
    hurray_status status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
    require_error("device", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0x02, 0x01, at);

    h[12] = 0x01;
    h[14] = 0x02; /* CUDA unified: another class */
    err = junk_error();
    status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
    require_error("class", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x02, 0x00, at);

    h[12] = 0x04;
    h[14] = 0x03; /* Vulkan peer: both differ, the device is reported */
    err = junk_error();
    status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
    require_error("both", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0x04, 0x01, at);

    if (at + 1 < 255) {
      /* A second, later mismatch is not the one reported. */
      h[12] = 0x01;
      h[14] = 0x01;
      table[1 + 16 * 254 + 12] = 0x07;
      err = junk_error();
      status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
      require_error("first of two", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x01, 0x00, at);
      /* ...but a later invalid handle is: handles before colocation. */
      table[1 + 16 * 254 + 12] = 0x01;
      table[1 + 16 * 254 + 15] = 0x01;
      err = junk_error();
      status = hurray_buffer_table_decode(table, full, out, 255, &count, &err);
      require_status_value("mismatch then bad handle", status, &err,
                           HURRAY_ERR_RESERVED_BYTE_NONZERO, 0x01, 254);
    }
    if (at % 40 == 1) require_table("colocation", table, full, 255);
  }
  free(out);
}
END_TEST

/* Random tables: a mix of good handles, faults and other placements, so
 * every kind of answer appears, each checked against the spec model. */
START_TEST(table_random_against_spec_model) {
  static uint8_t table[MAX_TABLE + 8];
  uint64_t state = 0x1234567887654321ULL;
  unsigned seen[HURRAY_STATUS_COUNT] = {0};
  for (int round = 0; round < 4000; round++) {
    uint64_t r = next_random(&state);
    size_t n = 1 + (size_t)(r % 255);
    if (round % 5 == 0) n = 1 + (size_t)(r % 4);
    size_t full = put_good_table(table, n);
    int changes = (int)((r >> 8) % 3);
    for (int k = 0; k < changes; k++) {
      uint64_t q = next_random(&state);
      size_t at = (size_t)(q % n);
      uint8_t *h = table + 1 + 16 * at;
      switch ((q >> 8) % 4) {
        case 0: apply_fault(h, &faults[(q >> 16) % (sizeof faults / sizeof faults[0])]); break;
        case 1: h[12] = (uint8_t)((q >> 16) % 9); break;  /* another named device */
        case 2: h[14] = (uint8_t)((q >> 16) % 4); break;  /* another class */
        default: h[13] = (uint8_t)((q >> 16) % 3); break; /* another mode */
      }
    }
    size_t len = full;
    size_t cap = 255;
    switch ((r >> 16) % 8) {
      case 0: len = (size_t)((r >> 24) % (full + 1)); break; /* cut anywhere */
      case 1: len = full + (size_t)((r >> 24) % 8); break;   /* trailing bytes */
      case 2: cap = (size_t)((r >> 24) % (n + 1)); break;    /* small capacity */
      default: break;
    }
    require_table("random", table, len, cap);
    size_t index;
    seen[spec_table_verdict(table, len, cap, &index).status]++;
  }
  /* The generator reached every kind of answer a table can get. */
  static const hurray_status kinds[] = {HURRAY_OK,
                                        HURRAY_ERR_TRUNCATED,
                                        HURRAY_ERR_CAPACITY,
                                        HURRAY_ERR_DEVICE_TAG_MISMATCH,
                                        HURRAY_ERR_MEMORY_CLASS_MISMATCH,
                                        HURRAY_ERR_INVALID_PAIR,
                                        HURRAY_ERR_RESERVED_BYTE_NONZERO,
                                        HURRAY_ERR_INVALID_SYNC_MODE,
                                        HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    REQUIRE(seen[kinds[k]] > 0, "no random table got %s", hurray_status_name(kinds[k]));
  }
}
END_TEST

START_TEST(table_null_arguments) {
  uint8_t table[17];
  put_good_table(table, 1);
  hurray_buffer_handle out[1];
  size_t count = 0;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_table_decode(NULL, 17, out, 1, &count, &err);
  require_error("in", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  err = junk_error();
  status = hurray_buffer_table_decode(table, 17, NULL, 1, &count, &err);
  require_error("out", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  err = junk_error();
  status = hurray_buffer_table_decode(table, 17, out, 1, NULL, &err);
  require_error("count", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  err = junk_error();
  status = hurray_buffer_table_decode_exact(table, 17, out, 1, NULL, &err);
  require_error("count", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  /* A NULL count is reported before anything in the table is read. */
  err = junk_error();
  status = hurray_buffer_table_decode_exact(table, 0, out, 1, NULL, &err);
  require_error("count before length", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  /* err may be NULL: the status alone comes back. */
  ck_assert_int_eq(hurray_buffer_table_decode(table, 16, out, 1, &count, NULL),
                   HURRAY_ERR_TRUNCATED);
}
END_TEST

/* ---- the table encoder ---- */

static void good_handles(hurray_buffer_handle *handles, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t wire[16];
    put_good_handle(wire, i);
    ck_assert_int_eq(hurray_buffer_handle_decode(wire, &handles[i], NULL), HURRAY_OK);
  }
}

START_TEST(table_encode_every_count) {
  static hurray_buffer_handle handles[255];
  static uint8_t want[MAX_TABLE];
  static uint8_t got[MAX_TABLE + 16];
  good_handles(handles, 255);
  for (size_t n = 1; n <= 255; n++) {
    size_t full = put_good_table(want, n);
    memset(got, 0xEE, sizeof got);
    size_t written = 0;
    hurray_error err;
    ck_assert_int_eq(hurray_buffer_table_encode(handles, n, got, full, &written, &err), HURRAY_OK);
    ck_assert_uint_eq(written, full);
    REQUIRE(memcmp(got, want, full) == 0, "encode of %zu handles differs from BP-TABLE-1", n);
    REQUIRE(got[full] == 0xEE, "encode of %zu handles wrote past the table", n);
    hurray_buffer_handle back[255];
    size_t count = 0;
    ck_assert_int_eq(hurray_buffer_table_decode_exact(got, written, back, 255, &count, NULL),
                     HURRAY_OK);
    ck_assert_uint_eq(count, n);
    for (size_t i = 0; i < n; i++) ck_assert(hurray_buffer_handle_equal(&back[i], &handles[i]));
  }
}
END_TEST

START_TEST(table_encode_refusals) {
  static hurray_buffer_handle handles[256];
  static uint8_t out[MAX_TABLE + 32];
  good_handles(handles, 255);
  handles[255] = handles[0];
  size_t written = 99;
  hurray_error err = junk_error();
  memset(out, 0xEE, sizeof out);

  hurray_status status = hurray_buffer_table_encode(handles, 0, out, sizeof out, &written, &err);
  ck_assert_int_eq(status, HURRAY_ERR_EMPTY_BUFFER_LIST);
  err = junk_error();
  status = hurray_buffer_table_encode(handles, 256, out, sizeof out, &written, &err);
  require_error("256 handles", status, &err, HURRAY_ERR_CAPACITY, 256, 255, ANY_INDEX);
  /* Every too-small capacity, for a few counts. */
  for (size_t n = 1; n <= 255; n += 127) {
    size_t needed = 1 + 16 * n;
    for (size_t cap = 0; cap < needed; cap++) {
      err = junk_error();
      status = hurray_buffer_table_encode(handles, n, out, cap, &written, &err);
      require_error("small cap", status, &err, HURRAY_ERR_CAPACITY, needed, cap, ANY_INDEX);
    }
  }
  /* A handle a reader would reject, at every position, with its index. */
  for (size_t at = 0; at < 255; at++) {
    hurray_buffer_handle keep = handles[at];
    handles[at].alignment = 48;
    err = junk_error();
    status = hurray_buffer_table_encode(handles, 255, out, sizeof out, &written, &err);
    require_status_value("bad alignment", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 48,
                         at);
    handles[at] = keep;
    handles[at].memory_class = 0x10;
    err = junk_error();
    status = hurray_buffer_table_encode(handles, 255, out, sizeof out, &written, &err);
    require_status_value("reserved class", status, &err, HURRAY_ERR_RESERVED_MEMORY_CLASS, 0x10,
                         at);
    handles[at] = keep;
    if (at > 0) {
      handles[at].device_tag = 0x07;
      err = junk_error();
      status = hurray_buffer_table_encode(handles, 255, out, sizeof out, &written, &err);
      require_error("mixed devices", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0x07, 0x01, at);
      handles[at] = keep;
      handles[at].memory_class = 0x01;
      err = junk_error();
      status = hurray_buffer_table_encode(handles, 255, out, sizeof out, &written, &err);
      require_error("mixed classes", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x01, 0x00,
                    at);
      handles[at] = keep;
    }
  }
  err = junk_error();
  status = hurray_buffer_table_encode(NULL, 1, out, sizeof out, &written, &err);
  require_error("NULL handles", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  err = junk_error();
  status = hurray_buffer_table_encode(handles, 1, NULL, sizeof out, &written, &err);
  require_error("NULL out", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  err = junk_error();
  status = hurray_buffer_table_encode(handles, 1, out, sizeof out, NULL, &err);
  require_error("NULL written", status, &err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  /* BP-TABLE-9: no refused call wrote a byte of out[] or *written. */
  size_t changed = first_changed_byte(out, sizeof out, 0xEE);
  REQUIRE(changed == sizeof out, "byte %zu written by a refused encode", changed);
  ck_assert_uint_eq(written, 99);
}
END_TEST

START_TEST(table_encoded_size) {
  for (size_t n = 0; n <= 255; n++)
    ck_assert_uint_eq(hurray_buffer_table_encoded_size(n), 1 + 16 * n);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN(
      "buffer tables", "tables", SWEEP_TIMEOUT_S, table_empty_input, table_count_zero,
      table_every_truncation_length, table_every_count_exact_and_short, table_255_handles,
      table_trailing_bytes, table_capacity, table_invalid_handle_every_position,
      table_cpu_rules_at_every_position, table_colocation_every_position,
      table_random_against_spec_model, table_null_arguments, table_encode_every_count,
      table_encode_refusals, table_encoded_size);
}
