/*
 * Fuzz target table_decode: a buffer table (BP-TABLE-1..6) with colocation
 * (BP-COLOC-1, BP-COLOC-2). The input is the table bytes, as a file or a
 * descriptor would carry them (anything after the table is trailing data).
 *
 * Oracle, for every input:
 *  - hurray_buffer_table_decode and _decode_exact agree with the reference
 *    reader (fuzz/reference_decoder.c) on status, payload and every decoded
 *    handle; on a refusal *count and out[] stay untouched (BP-TABLE-8);
 *  - hurray_buffer_table_check gives the reference's verdict for room for
 *    every handle, and hurray_buffer_table_handle reads every accepted
 *    handle's fields and refuses the index past the count (BP-TABLE-10);
 *  - a capacity one short of the count is reported before any handle is
 *    written (BP-TABLE-4);
 *  - an accepted table encodes back to the same bytes, and the encoder
 *    refuses what the reader would refuse, with the same error (BP-ORDER-1:
 *    a writer never produces what a reader rejects), and a refused encode
 *    leaves every byte of the caller's buffer and *written as they were
 *    (BP-TABLE-9);
 *  - hurray_validate_colocation agrees with the reference on the handles
 *    as given, valid or not;
 *  - NULL arguments are refused with the position of the argument;
 *  - the *_flags functions (BP-TABLE-7): without a flag, and with
 *    HURRAY_BUFFER_TABLE_ALLOW_EMPTY on a count other than 0, the reference
 *    reader's verdict and handles; with the flag, a count of 0 is a table of
 *    no handle (exact: only when it is the whole input), out[] and err
 *    untouched, and zero handles encode to that one byte; any other flag
 *    bit is refused with the flags as value.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

#define MAX_HANDLES HURRAY_BUFFER_TABLE_MAX_HANDLES
#define NOT_WRITTEN ((size_t)0xC0FFEEu)
/* Checks of argument handling whose outcome does not depend on the table's
 * size run on small tables only: a full pass over 255 handles would buy
 * nothing but fewer executions per second. */
#define SMALL_TABLE 4u

/* Room for 255 handles plus one guard entry past the largest count. */
static hurray_buffer_handle out[MAX_HANDLES + 1];
static ref_fields want_handles[MAX_HANDLES];
static hurray_buffer_handle raw[MAX_HANDLES + 1];
static uint8_t encoded[HURRAY_BUFFER_TABLE_MAX_SIZE];

#define POISON_BYTE 0x5A

static void poison_out(size_t entries) { memset(out, POISON_BYTE, entries * sizeof out[0]); }

/* A plain loop rather than memcmp: the engines hook memcmp, and this runs on
 * every input. */
static bool still_poisoned(const void *start, size_t bytes) {
  const unsigned char *p = start;
  for (size_t i = 0; i < bytes; i++) {
    if (p[i] != POISON_BYTE) {
      return false;
    }
  }
  return true;
}

static bool out_untouched(size_t from, size_t to) {
  return still_poisoned(&out[from], (to - from) * sizeof out[0]);
}

static void poison_encoded(size_t bytes) { memset(encoded, POISON_BYTE, bytes); }

static bool encoded_untouched(size_t bytes) { return still_poisoned(encoded, bytes); }

static bool same_handle(const hurray_buffer_handle *h, const ref_fields *f) {
  return h->byte_size == f->byte_size && h->alignment == f->alignment &&
         h->device_tag == f->device_tag && h->sync_mode == f->sync_mode &&
         h->memory_class == f->memory_class;
}

/* One decode call (exact or not) against the reference; returns its status
 * (out[] then holds what the call decoded). */
static hurray_status check_decode(const uint8_t *data, size_t size, bool exact) {
  size_t n = size > 0 ? data[0] : 0;
  /* The entries a decoder could fill from this input, plus one guard. */
  size_t present = size > 0 ? (size - 1) / 16 : 0;
  size_t watched = (n < present ? n : present) + 1;
  poison_out(watched);
  size_t count = NOT_WRITTEN;
  size_t want_count = NOT_WRITTEN;
  hurray_error err;
  ref_error_poison(&err);
  ref_verdict want = ref_decode_table(data, size, MAX_HANDLES, exact, want_handles, &want_count);
  hurray_status s =
      exact ? hurray_buffer_table_decode_exact(data, size, out, MAX_HANDLES, &count, &err)
            : hurray_buffer_table_decode(data, size, out, MAX_HANDLES, &count, &err);
  FUZZ_CHECK(ref_verdict_matches(want, s, &err));
  if (s != HURRAY_OK) {
    /* BP-TABLE-8: a refused table leaves out[] and *count as they were,
     * whatever it was refused for (TRAILING_BYTES of a valid table too). */
    FUZZ_CHECK(count == NOT_WRITTEN && out_untouched(0, watched));
    return s;
  }
  FUZZ_CHECK(ref_error_is_poisoned(&err));
  FUZZ_CHECK(count == want_count && count == n);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(same_handle(&out[i], &want_handles[i]));
  }
  FUZZ_CHECK(out_untouched(watched - 1, watched));
  return s;
}

/* BP-TABLE-4: one slot short is reported before anything is decoded. */
static void check_capacity(const uint8_t *data, size_t size) {
  size_t n = data[0];
  poison_out(n + 1);
  size_t count = NOT_WRITTEN;
  hurray_error err;
  hurray_status s = hurray_buffer_table_decode(data, size, out, n - 1, &count, &err);
  FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_CAPACITY, n, n - 1, 0), s, &err));
  FUZZ_CHECK(count == NOT_WRITTEN && out_untouched(0, n + 1));
}

static void check_null_arguments(const uint8_t *data, size_t size) {
  hurray_error err;
  size_t count = 0;
  FUZZ_CHECK(hurray_buffer_table_decode(NULL, size, out, MAX_HANDLES, &count, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0);
  FUZZ_CHECK(hurray_buffer_table_decode(data, size, NULL, MAX_HANDLES, &count, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2);
  FUZZ_CHECK(hurray_buffer_table_decode(data, size, out, MAX_HANDLES, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 4);
  /* Argument errors come before anything in the table (BP-TABLE-2 reads
   * nothing before them). */
  FUZZ_CHECK(hurray_buffer_table_decode_exact(data, size, out, MAX_HANDLES, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 4);
  size_t written = 0;
  FUZZ_CHECK(hurray_buffer_table_encode(NULL, 1, encoded, sizeof encoded, &written, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0);
  FUZZ_CHECK(hurray_buffer_table_encode(raw, 1, NULL, sizeof encoded, &written, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2);
  FUZZ_CHECK(hurray_buffer_table_encode(raw, 1, encoded, sizeof encoded, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 4);
  FUZZ_CHECK(hurray_validate_colocation(NULL, 1, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0);
}

/* An accepted table encodes back to its own bytes; a short buffer is refused. */
static void check_round_trip(const uint8_t *data, size_t n) {
  size_t occupied = hurray_buffer_table_encoded_size(n);
  FUZZ_CHECK(occupied == 1 + 16 * n);
  size_t written = 0;
  hurray_error err;
  ref_error_poison(&err);
  hurray_status s = hurray_buffer_table_encode(out, n, encoded, sizeof encoded, &written, &err);
  FUZZ_CHECK(s == HURRAY_OK && ref_error_is_poisoned(&err));
  FUZZ_CHECK(written == occupied && memcmp(encoded, data, occupied) == 0);
  if (n > SMALL_TABLE) {
    return;
  }
  written = NOT_WRITTEN;
  poison_encoded(occupied - 1);
  s = hurray_buffer_table_encode(out, n, encoded, occupied - 1, &written, &err);
  FUZZ_CHECK(
      ref_verdict_matches(ref_fail(HURRAY_ERR_CAPACITY, occupied, occupied - 1, 0), s, &err));
  FUZZ_CHECK(written == NOT_WRITTEN && encoded_untouched(occupied - 1));
}

/* The handles present in the input, taken as values without any check:
 * what a producer might hand the encoder. */
static void check_writer_side(const uint8_t *data, size_t size, bool input_valid) {
  size_t complete = (size - 1) / 16;
  size_t n = data[0] < complete ? data[0] : complete;
  ref_fields fields[MAX_HANDLES];
  for (size_t i = 0; i < n; i++) {
    fields[i] = ref_read_fields(data + 1 + 16 * i);
    raw[i].byte_size = fields[i].byte_size;
    raw[i].alignment = fields[i].alignment;
    raw[i].device_tag = fields[i].device_tag;
    raw[i].sync_mode = fields[i].sync_mode;
    raw[i].memory_class = fields[i].memory_class;
  }

  hurray_error err;
  ref_error_poison(&err);
  hurray_device_tag device = 0x77;
  ref_verdict want = ref_colocation(fields, n);
  hurray_status s = hurray_validate_colocation(raw, n, &device, &err);
  FUZZ_CHECK(ref_verdict_matches(want, s, &err));
  FUZZ_CHECK(s == HURRAY_OK ? device == fields[0].device_tag && ref_error_is_poisoned(&err)
                            : device == 0x77);
  FUZZ_CHECK(hurray_validate_colocation(raw, n, NULL, NULL) == s);

  if (input_valid) {
    return; /* check_round_trip encoded these very handles */
  }
  /* The encoder validates every handle (BP-ORDER-1 steps 2..8) and then
   * colocation before it writes anything. */
  if (n == 0) {
    want = ref_fail(HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 0, 0);
  } else {
    want = ref_ok();
    for (size_t i = 0; i < n && want.status == HURRAY_OK; i++) {
      want = ref_check_fields(&fields[i], i);
    }
    if (want.status == HURRAY_OK) {
      want = ref_colocation(fields, n);
    }
  }
  size_t written = NOT_WRITTEN;
  ref_error_poison(&err);
  poison_encoded(sizeof encoded);
  s = hurray_buffer_table_encode(raw, n, encoded, sizeof encoded, &written, &err);
  FUZZ_CHECK(ref_verdict_matches(want, s, &err));
  FUZZ_CHECK(s == HURRAY_OK ? written == 1 + 16 * n
                            : written == NOT_WRITTEN && encoded_untouched(sizeof encoded));
  if (s == HURRAY_OK) {
    /* What the writer wrote, the reader reads back unchanged. */
    size_t count = 0;
    FUZZ_CHECK(hurray_buffer_table_decode_exact(encoded, written, out, MAX_HANDLES, &count, NULL) ==
                   HURRAY_OK &&
               count == n);
    for (size_t i = 0; i < n; i++) {
      FUZZ_CHECK(hurray_buffer_handle_equal(&out[i], &raw[i]));
    }
  }
  /* More handles than a count byte can say (BP-TABLE-1). */
  FUZZ_CHECK(ref_verdict_matches(
      ref_fail(HURRAY_ERR_CAPACITY, MAX_HANDLES + 1, MAX_HANDLES, 0),
      hurray_buffer_table_encode(raw, MAX_HANDLES + 1, encoded, sizeof encoded, &written, &err),
      &err));
}

/* BP-TABLE-7: the zero-count table of a composite head, only with the flag. */
static void check_flags(const uint8_t *data, size_t size) {
  bool zero_count = size >= 1 && data[0] == 0;
  for (int exact = 0; exact < 2; exact++) {
    size_t plain_count = NOT_WRITTEN;
    ref_verdict plain =
        ref_decode_table(data, size, MAX_HANDLES, exact, want_handles, &plain_count);
    for (uint32_t flags = 0; flags <= HURRAY_BUFFER_TABLE_ALLOW_EMPTY; flags++) {
      ref_verdict want = plain;
      size_t want_count = plain.status == HURRAY_OK ? plain_count : NOT_WRITTEN;
      if (flags == HURRAY_BUFFER_TABLE_ALLOW_EMPTY && zero_count) {
        bool trailing = exact && size > 1;
        want = trailing ? ref_fail(HURRAY_ERR_TRAILING_BYTES, size, 1, 0) : ref_ok();
        want_count = trailing ? NOT_WRITTEN : 0;
      }
      poison_out(1);
      size_t count = NOT_WRITTEN;
      hurray_error err;
      ref_error_poison(&err);
      hurray_status s = exact ? hurray_buffer_table_decode_exact_flags(data, size, out, MAX_HANDLES,
                                                                       &count, flags, &err)
                              : hurray_buffer_table_decode_flags(data, size, out, MAX_HANDLES,
                                                                 &count, flags, &err);
      FUZZ_CHECK(ref_verdict_matches(want, s, &err));
      FUZZ_CHECK(count == want_count);
      if (s == HURRAY_OK) {
        FUZZ_CHECK(ref_error_is_poisoned(&err));
        for (size_t i = 0; i < count; i++) {
          FUZZ_CHECK(same_handle(&out[i], &want_handles[i]));
        }
      }
      if (zero_count || s != HURRAY_OK) {
        FUZZ_CHECK(out_untouched(0, 1));  // BP-TABLE-7, BP-TABLE-8
      }
    }
  }
  /* Any other flag bit, whatever the input, before the table is read. */
  uint32_t bad = 2u << (size % 31u);
  size_t count = NOT_WRITTEN;
  hurray_error err;
  hurray_status s = hurray_buffer_table_decode_flags(data, size, out, MAX_HANDLES, &count,
                                                     bad | HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
  FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_INVALID_ARGUMENT,
                                          bad | HURRAY_BUFFER_TABLE_ALLOW_EMPTY,
                                          HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5),
                                 s, &err) &&
             count == NOT_WRITTEN);
  /* The same for the exact decoder and the encoder with flags, and their
   * NULL arguments, named by position (in/handles 0, out 2, count/written 4),
   * before the flags: no wire byte reaches these paths, the input picks the
   * bad bit and which argument is NULL. */
  s = hurray_buffer_table_decode_exact_flags(data, size, out, MAX_HANDLES, &count, bad, &err);
  FUZZ_CHECK(ref_verdict_matches(
                 ref_fail(HURRAY_ERR_INVALID_ARGUMENT, bad, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5), s,
                 &err) &&
             count == NOT_WRITTEN);
  size_t written = NOT_WRITTEN;
  s = hurray_buffer_table_encode_flags(raw, size % 4u, encoded, sizeof encoded, &written, bad,
                                       &err);
  FUZZ_CHECK(ref_verdict_matches(
                 ref_fail(HURRAY_ERR_INVALID_ARGUMENT, bad, HURRAY_BUFFER_TABLE_ALLOW_EMPTY, 5), s,
                 &err) &&
             written == NOT_WRITTEN);
  const size_t null_at = (size_t)(size % 3u) * 2u; /* 0, 2 or 4 */
  const hurray_status null_exact = hurray_buffer_table_decode_exact_flags(
      null_at == 0 ? NULL : data, size, null_at == 2 ? NULL : out, MAX_HANDLES,
      null_at == 4 ? NULL : &count, bad, &err);
  FUZZ_CHECK(
      ref_verdict_matches(ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, null_at), null_exact, &err));
  const hurray_status null_plain =
      hurray_buffer_table_decode_flags(null_at == 0 ? NULL : data, size, null_at == 2 ? NULL : out,
                                       MAX_HANDLES, null_at == 4 ? NULL : &count, 0, &err);
  FUZZ_CHECK(
      ref_verdict_matches(ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, null_at), null_plain, &err));
  const hurray_status null_encode =
      hurray_buffer_table_encode_flags(null_at == 0 ? NULL : raw, 1, null_at == 2 ? NULL : encoded,
                                       sizeof encoded, null_at == 4 ? NULL : &written, bad, &err);
  FUZZ_CHECK(
      ref_verdict_matches(ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, null_at), null_encode, &err) &&
      count == NOT_WRITTEN && written == NOT_WRITTEN);
  if (zero_count) {
    written = NOT_WRITTEN;
    ref_error_poison(&err);
    s = hurray_buffer_table_encode_flags(raw, 0, encoded, sizeof encoded, &written,
                                         HURRAY_BUFFER_TABLE_ALLOW_EMPTY, &err);
    FUZZ_CHECK(s == HURRAY_OK && written == 1 && encoded[0] == data[0] &&
               ref_error_is_poisoned(&err));
    poison_encoded(1);
    written = NOT_WRITTEN;
    FUZZ_CHECK(hurray_buffer_table_encode_flags(raw, 0, encoded, sizeof encoded, &written, 0,
                                                &err) == HURRAY_ERR_EMPTY_BUFFER_LIST &&
               written == NOT_WRITTEN && encoded_untouched(1));  // BP-TABLE-9
  }
}

/* BP-TABLE-10: the check without stores gives the reference's verdict for a
 * decoder with room for every handle, writes *count only on success, err
 * only on failure, and its accessor reads each accepted handle's fields and
 * refuses the index past the count. */
static void check_without_stores(const uint8_t *data, size_t size) {
  size_t count = NOT_WRITTEN;
  size_t want_count = NOT_WRITTEN;
  hurray_error err;
  ref_error_poison(&err);
  ref_verdict want = ref_decode_table(data, size, MAX_HANDLES, false, want_handles, &want_count);
  const hurray_status s = hurray_buffer_table_check(data, size, &count, &err);
  FUZZ_CHECK(ref_verdict_matches(want, s, &err));
  if (s != HURRAY_OK) {
    FUZZ_CHECK(count == NOT_WRITTEN);
    return;
  }
  FUZZ_CHECK(ref_error_is_poisoned(&err));
  FUZZ_CHECK(count == want_count && count == data[0]);
  for (size_t i = 0; i < count; i++) {
    hurray_buffer_handle h;
    FUZZ_CHECK(hurray_buffer_table_handle(data, i, &h, &err) == HURRAY_OK &&
               same_handle(&h, &want_handles[i]) && h.reserved == 0);
  }
  hurray_buffer_handle past;
  memset(&past, POISON_BYTE, sizeof past);
  FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_INVALID_ARGUMENT, count, count, 1),
                                 hurray_buffer_table_handle(data, count, &past, &err), &err) &&
             still_poisoned(&past, sizeof past));
  /* NULL arguments: the check's in is argument 0, its count argument 2; the
   * accessor's table 0, its out 2. */
  ref_error_poison(&err);
  const bool null_in = count % 2u == 0u; /* an accepted table's size is odd, its count not */
  size_t untouched = NOT_WRITTEN;
  const hurray_status null_status =
      hurray_buffer_table_check(null_in ? NULL : data, size, null_in ? &untouched : NULL, &err);
  FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, null_in ? 0 : 2),
                                 null_status, &err) &&
             untouched == NOT_WRITTEN);
  const hurray_status null_handle =
      hurray_buffer_table_handle(null_in ? NULL : data, 0, null_in ? &past : NULL, &err);
  FUZZ_CHECK(ref_verdict_matches(ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, null_in ? 0 : 2),
                                 null_handle, &err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)check_decode(data, size, true);
  check_without_stores(data, size);
  bool complete = size >= 1 && size >= 1 + 16 * (size_t)data[0];
  if (complete && data[0] > 0) {
    check_capacity(data, size);
  }
  /* Last, so that out[] holds the decoded handles for the round trip. */
  bool valid = check_decode(data, size, false) == HURRAY_OK;
  if (valid) {
    check_round_trip(data, data[0]);
  }
  check_null_arguments(data, size);
  if (size >= 1) {
    check_writer_side(data, size, valid);
  }
  check_flags(data, size);
  return 0;
}

FUZZ_ORACLE_END
