/*
 * The 16-byte wire form of one handle (BP-WIRE-1, BP-WIRE-2, BP-ORDER-1) and
 * the reader of the buffer table around it (BP-TABLE-1..6, BP-TABLE-8). The
 * writer of both is wire_encode.c; the table functions with flags
 * (BP-TABLE-7), table_flags.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include "error_set.h"
#include "handle_rules.h"
#include "little_endian.h"
#include "table_rules.h"
#include "hurray/buffer.h"

/* BP-ORDER-1 for the handle at `in`, position `index` of its table; writes
 * nothing but *err, and that only on failure. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // BP-WIRE-2, BP-ORDER-1
    assumes bp_valid_wire_handle(in);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // BP-ORDER-1: the first rule broken
    assumes !bp_valid_wire_handle(in);
    ensures \result != HURRAY_OK;
    ensures bp_wire_rejected{Post, Pre}(\result, err, index, in);
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status check_one(const uint8_t *in, size_t index, hurray_error *err) {
  if (in[15] != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, in[15], 0, index);
  }
  return hurray_handle_fields_check(load_le64(in), load_le32(in + 8), in[12], in[13], in[14],
                                    index, err);
}

/* Writes the field values of the 16 bytes at `in` to *out (BP-WIRE-1). Every
 * load comes before the first store, so no proof has to show that a store to
 * *out left the bytes still to be read alone. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires \valid(out);
  requires \separated(in + (0 .. 15), out);
  terminates \true;
  assigns *out;
  ensures bp_decoded_from{Post, Pre}(out, in);  // BP-WIRE-1
  ensures out->reserved == 0;                    // HO-ABI-3
*/
static inline void store_decoded(const uint8_t *in, hurray_buffer_handle *out) {
  const uint64_t byte_size = load_le64(in);
  const uint32_t alignment = load_le32(in + 8);
  const uint8_t device_tag = in[12];
  const uint8_t sync_mode = in[13];
  const uint8_t memory_class = in[14];
  out->byte_size = byte_size;
  out->alignment = alignment;
  out->device_tag = device_tag;
  out->sync_mode = sync_mode;
  out->memory_class = memory_class;
  out->reserved = 0u;
}

/* BP-ORDER-1 for one handle at position `index`; writes *out only on success. */
/*@
  requires \valid_read(in + (0 .. 15));
  requires \valid(out);
  requires err == \null || \valid(err);
  requires \separated(in + (0 .. 15), out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // BP-WIRE-1, BP-ORDER-1
    assumes bp_valid_wire_handle(in);
    ensures \result == HURRAY_OK && bp_decoded_from{Post, Pre}(out, in);
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // BP-ORDER-1: the first rule broken
    assumes !bp_valid_wire_handle(in);
    ensures \result != HURRAY_OK;
    ensures bp_wire_rejected{Post, Pre}(\result, err, index, in);
    ensures *out == \old(*out);
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status decode_one(const uint8_t *in, hurray_buffer_handle *out, size_t index,
                                hurray_error *err) {
  hurray_status status = check_one(in, index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  //@ assert bp_error_unchanged{Pre, Here}(err);
  store_decoded(in, out);
  //@ assert bp_error_unchanged{Pre, Here}(err);
  return HURRAY_OK;
}

/*@
  requires in == \null || \valid_read(in + (0 .. 15));
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  requires in != \null && out != \null ==> \separated(in + (0 .. 15), out, err);
  requires in != \null ==> \separated(in + (0 .. 15), err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_in:
    assumes in == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes in != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 1);
  behavior accepted:  // BP-WIRE-1, BP-WIRE-2, BP-ORDER-1: OK iff the spec predicate
    assumes in != \null && out != \null && bp_valid_wire_handle(in);
    ensures \result == HURRAY_OK && bp_decoded_from{Post, Pre}(out, in);
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // BP-ORDER-1: the first rule broken, its values
    assumes in != \null && out != \null && !bp_valid_wire_handle(in);
    ensures bp_wire_rejected{Post, Pre}(\result, err, 0, in);
    ensures *out == \old(*out);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_handle_decode(const uint8_t in[HURRAY_BUFFER_HANDLE_SIZE],
                                          hurray_buffer_handle *out, hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  return decode_one(in, out, 0, err);
}

/*@
  requires count <= (SIZE_MAX - 1) / 16;  // beyond it the size does not fit a size_t
  terminates \true;
  assigns \nothing;
  ensures \result == bp_table_size(count);  // BP-TABLE-1
*/
size_t hurray_buffer_table_encoded_size(size_t count) {
  return 1u + HURRAY_BUFFER_HANDLE_SIZE * count;
}

/* BP-ALIGN-1 on the table's fast path, in four instructions and no branch.
 * Multiplying 2^k by the de Bruijn constant 0x077CB531 shifts that 5-bit
 * de Bruijn sequence left by k, so the product's top five bits (modulo 2^32)
 * differ for each of the 32 powers of two a u32 holds; the slot they name
 * holds that power. Any other value, 0 included, lands on a slot holding a
 * different number. Unlike the bit trick (a & (a - 1)) == 0 this is
 * arithmetic the provers can follow: the product is written modulo 2^32
 * and the shift as a division, which compile to the same instructions. */
static const uint32_t power_of_two_in_slot[32] = {
    1u,         2u,         268435456u, 4u,        536870912u, 16384u,    16777216u, 8u,
    1073741824u, 4194304u,  1048576u,   32768u,    33554432u,  131072u,   16u,       256u,
    2147483648u, 134217728u, 8192u,     8388608u,  2097152u,   524288u,   65536u,    128u,
    67108864u,  4096u,      262144u,    64u,       2048u,      32u,       1024u,     512u};

/*@
  terminates \true;
  assigns \nothing;
  ensures \result <==> bp_power_of_two_u32(alignment);  // BP-ALIGN-1
*/
static inline bool alignment_is_power_of_two_fast(uint32_t alignment) {
  const uint32_t slot = (uint32_t)((uint64_t)alignment * 0x077CB531u % 0x100000000u / 0x8000000u);
  /*@ assert slot == 0 || slot == 1 || slot == 2 || slot == 3 || slot == 4 || slot == 5 ||
             slot == 6 || slot == 7 || slot == 8 || slot == 9 || slot == 10 || slot == 11 ||
             slot == 12 || slot == 13 || slot == 14 || slot == 15 || slot == 16 ||
             slot == 17 || slot == 18 || slot == 19 || slot == 20 || slot == 21 ||
             slot == 22 || slot == 23 || slot == 24 || slot == 25 || slot == 26 ||
             slot == 27 || slot == 28 || slot == 29 || slot == 30 || slot == 31; */
  return power_of_two_in_slot[slot] == alignment;
}

/* The table loop's fast path: a handle at the first handle's device tag and
 * memory class (valid, so the tag, class and pair rules hold for it too)
 * needs only the reserved byte, sync mode and alignment rules. It answers
 * "valid" or "ask check_one()", never "invalid": check_one() alone gives
 * the exact error of BP-ORDER-1. */
/*@
  requires \valid_read(p + (0 .. 15));
  requires bp_valid_device_tag(tag0) && bp_valid_memory_class(class0);
  requires bp_valid_pair(tag0, class0);
  terminates \true;
  assigns \nothing;
  ensures \result ==> bp_valid_wire_handle(p) && p[12] == tag0 && p[14] == class0;  // BP-ORDER-1
*/
static inline bool same_place_handle_is_valid(const uint8_t *p, uint8_t tag0, uint8_t class0) {
  const uint64_t byte_size = load_le64(p);
  const uint32_t alignment = load_le32(p + 8);
  return p[12] == tag0 && p[14] == class0 && p[15] == 0u &&
         p[13] <= HURRAY_SYNC_CONSUMER_STREAM &&
         (tag0 != HURRAY_DEVICE_CPU || p[13] == HURRAY_SYNC_PRODUCER_SYNCED) &&
         alignment_is_power_of_two_fast(alignment) &&
         (byte_size == 0u || alignment >= HURRAY_MIN_BUFFER_ALIGNMENT);
}

/* BP-COLOC-2 over the table at `in`, whose n handles are valid: the first
 * handle whose device tag or memory class differs from handle 0's, tag
 * first. Writes nothing but *err, and that only on failure. */
/*@
  requires bp_table_checker_frame(in, n, err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior colocated:  // BP-COLOC-1
    assumes bp_table_colocated(in, n);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  behavior not_colocated:  // BP-COLOC-2
    assumes !bp_table_colocated(in, n);
    ensures \exists integer k; 1 <= k < n && bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status check_table_colocation(const uint8_t *in, size_t n, hurray_error *err) {
  const uint8_t tag0 = in[1 + 12];
  const uint8_t class0 = in[1 + 14];
  /*@
    loop invariant 1 <= i <= n;
    loop invariant bp_table_colocated(in, i);
    loop assigns i;
    loop variant n - i;
  */
  for (size_t i = 1; i < n; i++) {
    const uint8_t *p = in + 1 + HURRAY_BUFFER_HANDLE_SIZE * i;
    if (p[12] != tag0 || p[14] != class0) {
      //@ assert !(bp_table_handle(in, i)[12] == tag0 && bp_table_handle(in, i)[14] == class0);
      const hurray_status status =
          p[12] != tag0
              ? hurray_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, p[12], tag0, i)
              : hurray_fail(err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, p[14], class0, i);
      //@ assert bp_table_mismatch_at{Here, Pre}(status, err, in, i);
      return status;
    }
  }
  return HURRAY_OK;
}

/* Pass 1 of a table decode (BP-TABLE-5, BP-COLOC-2): checks the n handles
 * of the table at `in` (its count byte first) in order, then colocation,
 * and writes nothing but *err. Checking before copying means the loop reads
 * memory nothing writes, which keeps its proof small; the bytes are in L1
 * cache for the copy that follows. A handle on the fast path shares handle
 * 0's tag and class, so colocation needs its own pass only when some handle
 * took the slow one. */
/*@
  requires bp_table_checker_frame(in, n, err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior invalid_handle:  // BP-TABLE-5, BP-ORDER-1: the first invalid handle, at its index
    assumes !bp_table_handles_valid(in, n);
    ensures \result != HURRAY_OK;  // what a caller needs to know nothing was copied (BP-TABLE-8)
    ensures \exists integer k; 0 <= k < n && bp_table_handles_valid(in, k) &&
              bp_wire_rejected{Post, Pre}(\result, err, k, bp_table_handle(in, k));
  behavior not_colocated:  // BP-COLOC-2: after every handle, the first mismatch
    assumes bp_table_handles_valid(in, n) && !bp_table_colocated(in, n);
    ensures \result != HURRAY_OK;
    ensures \exists integer k; 1 <= k < n && bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
  behavior accepted:  // BP-TABLE-5, BP-COLOC-1
    assumes bp_table_handles_valid(in, n) && bp_table_colocated(in, n);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status check_table_handles(const uint8_t *in, size_t n, hurray_error *err) {
  hurray_status status = check_one(in + 1, 0, err);
  if (status != HURRAY_OK) {
    //@ assert bp_wire_rejected{Here, Pre}(status, err, 0, bp_table_handle(in, 0));
    //@ assert !bp_table_handles_valid(in, n);
    // The witness of invalid_handle's \exists, named on each return path.
    /*@ assert \exists integer k; 0 <= k < n && bp_table_handles_valid(in, k) &&
          bp_wire_rejected{Here, Pre}(status, err, k, bp_table_handle(in, k)); */
    return status;
  }
  //@ assert bp_valid_wire_handle(bp_table_handle(in, 0));
  const uint8_t tag0 = in[1 + 12];
  const uint8_t class0 = in[1 + 14];
  //@ assert bp_valid_device_tag(tag0) && bp_valid_memory_class(class0);
  //@ assert bp_valid_pair(tag0, class0);
  size_t slow_handles = 0;
  /*@
    loop invariant 1 <= i <= n;
    loop invariant slow_handles < i;
    loop invariant bp_table_handles_valid(in, i);
    loop invariant slow_handles == 0 ==> bp_table_colocated(in, i);
    loop invariant bp_error_unchanged{Pre, Here}(err);
    loop assigns i, status, slow_handles;
    loop assigns err->status, err->value, err->expected, err->index, err->detail[0];
    loop variant n - i;
  */
  for (size_t i = 1; i < n; i++) {
    const uint8_t *p = in + 1 + HURRAY_BUFFER_HANDLE_SIZE * i;
    if (same_place_handle_is_valid(p, tag0, class0)) {
      //@ assert bp_valid_wire_handle(bp_table_handle(in, i));
      //@ assert bp_table_handle(in, i)[12] == tag0 && bp_table_handle(in, i)[14] == class0;
      continue;
    }
    slow_handles++;
    status = check_one(p, i, err);
    if (status != HURRAY_OK) {
      //@ assert bp_table_handles_valid(in, i);
      //@ assert bp_wire_rejected{Here, Pre}(status, err, i, bp_table_handle(in, i));
      //@ assert !bp_table_handles_valid(in, n);
      /*@ assert \exists integer k; 0 <= k < n && bp_table_handles_valid(in, k) &&
            bp_wire_rejected{Here, Pre}(status, err, k, bp_table_handle(in, k)); */
      return status;
    }
    //@ assert bp_valid_wire_handle(bp_table_handle(in, i));
  }
  //@ assert bp_table_handles_valid(in, n);
  if (slow_handles == 0u) {
    //@ assert bp_table_colocated(in, n);
    return HURRAY_OK;
  }
  return check_table_colocation(in, n, err);
}

/* Pass 2 of a table decode: the field values of the n handles, already
 * checked, into out[0 .. n) (BP-WIRE-1). */
/*@
  requires 1 <= n <= 255;
  requires \valid_read(in + (0 .. bp_table_size(n) - 1));
  requires \valid(out + (0 .. n - 1));
  requires \separated(in + (0 .. bp_table_size(n) - 1), out + (0 .. n - 1));
  terminates \true;
  assigns out[0 .. n - 1];
  ensures bp_table_decoded{Post, Pre}(out, in, n);  // BP-WIRE-1, BP-TABLE-5
*/
static void copy_table_handles(const uint8_t *in, size_t n, hurray_buffer_handle *out) {
  /*@
    loop invariant 0 <= i <= n;
    loop invariant \forall integer k; 0 <= k < bp_table_size(n) ==> in[k] == \at(in[k], Pre);
    loop invariant bp_table_decoded{Here, Pre}(out, in, i);
    loop assigns i, out[0 .. n - 1];
    loop variant n - i;
  */
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = in + 1 + HURRAY_BUFFER_HANDLE_SIZE * i;
    /*@ assert bp_le64(p) == bp_le64{Pre}(p) && bp_le32(p + 8) == bp_le32{Pre}(p + 8) &&
               p[12] == bp_byte_at{Pre}(p, 12) && p[13] == bp_byte_at{Pre}(p, 13) &&
               p[14] == bp_byte_at{Pre}(p, 14); */
    store_decoded(p, &out[i]);
  }
}

/*@
  // bp_table_reader_frame, spelled out: its ILP32 proof of not_colocated's
  // BP-TABLE-8 ensures ran past 3 minutes with the predicate folded.
  requires in != \null && len >= 1 ==>
             \valid_read(in + (0 .. \min(len, bp_table_size(in[0])) - 1));  // never past
  requires out != \null ==> \valid(out + (0 .. \min(cap, 255) - 1));
  requires err == \null || \valid(err);
  requires in != \null && len >= 1 && out != \null ==>
             \separated(in + (0 .. \min(len, bp_table_size(in[0])) - 1),
                        out + (0 .. \min(cap, 255) - 1));
  requires in != \null && len >= 1 ==>
             \separated(in + (0 .. \min(len, bp_table_size(in[0])) - 1), err);
  requires out != \null ==> \separated(out + (0 .. \min(cap, 255) - 1), err);
  requires count == \null || \valid(count);
  requires count != \null ==> \separated(count, err);
  requires count != \null && out != \null ==>
             \separated(count, out + (0 .. \min(cap, 255) - 1));
  requires count != \null && in != \null && len >= 1 ==>
             \separated(count, in + (0 .. \min(len, bp_table_size(in[0])) - 1));
  terminates \true;
  assigns out[0 .. \min(cap, 255) - 1], *count;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_in:
    assumes in == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes in != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior no_count:
    assumes in != \null && out != \null && count == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 4);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_input:  // BP-TABLE-2
    assumes in != \null && out != \null && count != \null && len < 1;
    ensures \result == HURRAY_ERR_TRUNCATED && bp_error_is(err, \result, len, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior truncated:  // BP-TABLE-2: the length is checked before any handle is read
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len < bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRUNCATED;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_table:  // BP-TABLE-3
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior capacity:  // BP-TABLE-4: before any handle is decoded
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap < in[0];
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, \old(in[0]), cap, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior invalid_handle:  // BP-TABLE-5, BP-ORDER-1: the first invalid handle, at its index
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes !bp_table_handles_valid(in, in[0]);
    ensures \exists integer k; 0 <= k < \old(in[0]) && bp_table_handles_valid{Pre}(in, k) &&
              bp_wire_rejected{Post, Pre}(\result, err, k, bp_table_handle(in, k));
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior not_colocated:  // BP-COLOC-2: after every handle, the first mismatch
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes bp_table_handles_valid(in, in[0]) && !bp_table_colocated(in, in[0]);
    ensures \exists integer k; 1 <= k < \old(in[0]) &&
              bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior accepted:  // BP-TABLE-1..5, BP-COLOC-1: OK iff the spec accepts the table
    assumes in != \null && out != \null && count != \null;
    assumes bp_valid_table(in, len) && cap >= in[0];
    ensures \result == HURRAY_OK && *count == \old(in[0]);
    ensures bp_table_decoded{Post, Pre}(out, in, \old(in[0]));  // BP-WIRE-1
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_decode(const uint8_t *in, size_t len, hurray_buffer_handle *out,
                                         size_t cap, size_t *count, hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  /* BP-TABLE-2: the length is known before any handle is read. */
  if (len < 1u) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, 1u, 0);
  }
  size_t n = in[0];
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * n;
  if (len < needed) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, needed, 0);
  }
  /* BP-TABLE-3 */
  if (n == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  /* BP-TABLE-4 */
  if (cap < n) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, n, cap, 0);
  }
  /* BP-TABLE-5: every handle in order, then colocation (BP-COLOC-2). */
  hurray_status status = check_table_handles(in, n, err);
  if (status != HURRAY_OK) {
    return status;
  }
  //@ assert bp_error_unchanged{Pre, Here}(err);
  *count = n;
  copy_table_handles(in, n, out);
  //@ assert *count == n;
  //@ assert bp_error_unchanged{Pre, Here}(err);
  return HURRAY_OK;
}

/* BP-TABLE-6: the decoder for an input that must be one table and nothing
 * more. Its refusals are the decoder's, stated once in table_rules.h
 * (bp_table_reader_refusal) and proved here against the decoder's own
 * behaviors; bytes after a valid table are refused after all of them. */
/*@
  requires bp_table_reader_frame(in, len, out, cap, count, err);  // never past len
  terminates \true;
  assigns out[0 .. \min(cap, 255) - 1], *count;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // BP-TABLE-1..6, BP-COLOC-1: the whole input is one valid table
    assumes bp_table_accepted(in, len, out, cap, count) && len == bp_table_size(in[0]);
    ensures \result == HURRAY_OK && *count == \old(in[0]);
    ensures bp_table_decoded{Post, Pre}(out, in, \old(in[0]));  // BP-WIRE-1
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior trailing:  // BP-TABLE-6: after every rule the table itself could break
    assumes bp_table_accepted(in, len, out, cap, count) && len > bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRAILING_BYTES && *count == \old(*count);
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures out_kept: bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior refused:  // as hurray_buffer_table_decode(): the first rule broken
    assumes !bp_table_accepted(in, len, out, cap, count);
    ensures \result != HURRAY_OK;
    ensures bp_table_reader_refusal{Post, Pre}(\result, err, in, len, out, cap, count);
    ensures in != \null && out != \null ==>
              bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_decode_exact(const uint8_t *in, size_t len,
                                               hurray_buffer_handle *out, size_t cap,
                                               size_t *count, hurray_error *err) {
  /* BP-TABLE-6: bytes after the table are reported after everything the
   * table itself could be rejected for. Every input the decoder refuses,
   * or accepts without bytes after its table, is the decoder's to answer;
   * a longer one is only checked, never copied into out[], because it is
   * refused whatever the table holds (BP-TABLE-8). The assert after each
   * write to *err hands WP, path by path, the fact the failing behaviors'
   * BP-TABLE-8 ensures need; left to find it in the merge of every path, Z3
   * and CVC4 took 80 s or timed out. */
  const size_t n = in != NULL && len >= 1u ? in[0] : 0u;
  const size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * n;
  if (in == NULL || out == NULL || count == NULL || len <= needed) {
    const hurray_status decoded = hurray_buffer_table_decode(in, len, out, cap, count, err);
    /* The decoder's answer in this contract's words, a group of its
     * behaviors at a time, each guard read at Pre like the predicate's
     * rules; one assertion for all took both provers past 30 s. */
    /*@ assert by_arguments: in == \null || out == \null || count == \null ==>
          bp_table_reader_refusal{Here, Pre}(decoded, err, in, len, out, cap, count); */
    /*@ assert by_length: in != \null && out != \null && count != \null &&
          (len < 1 || len < bp_table_size(\at(in[0], Pre))) ==>
          bp_table_reader_refusal{Here, Pre}(decoded, err, in, len, out, cap, count); */
    /*@ assert by_count: in != \null && out != \null && count != \null && len >= 1 &&
          len >= bp_table_size(\at(in[0], Pre)) &&
          (\at(in[0], Pre) == 0 || cap < \at(in[0], Pre)) ==>
          bp_table_reader_refusal{Here, Pre}(decoded, err, in, len, out, cap, count); */
    /*@ assert by_handle: in != \null && out != \null && count != \null && len >= 1 &&
          len >= bp_table_size(\at(in[0], Pre)) && \at(in[0], Pre) >= 1 && cap >= \at(in[0], Pre) &&
          !bp_table_handles_valid{Pre}(in, \at(in[0], Pre)) ==>
          bp_table_reader_refusal{Here, Pre}(decoded, err, in, len, out, cap, count); */
    /*@ assert by_colocation: in != \null && out != \null && count != \null && len >= 1 &&
          len >= bp_table_size(\at(in[0], Pre)) && \at(in[0], Pre) >= 1 && cap >= \at(in[0], Pre) &&
          bp_table_handles_valid{Pre}(in, \at(in[0], Pre)) &&
          !bp_table_colocated{Pre}(in, \at(in[0], Pre)) ==>
          bp_table_reader_refusal{Here, Pre}(decoded, err, in, len, out, cap, count); */
    return decoded;
  }
  hurray_status status;
  if (n == 0u) {  // BP-TABLE-3
    status = hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
    //@ assert bp_handles_unchanged{Pre, Here}(out, \min(cap, 255));
    //@ assert bp_table_reader_refusal{Here, Pre}(status, err, in, len, out, cap, count);
  } else if (cap < n) {  // BP-TABLE-4
    status = hurray_fail(err, HURRAY_ERR_CAPACITY, n, cap, 0);
    //@ assert bp_handles_unchanged{Pre, Here}(out, \min(cap, 255));
    //@ assert bp_table_reader_refusal{Here, Pre}(status, err, in, len, out, cap, count);
  } else {
    status = check_table_handles(in, n, err);  // BP-TABLE-5
    //@ assert bp_handles_unchanged{Pre, Here}(out, \min(cap, 255));
    /*@ assert status != HURRAY_OK ==>
          bp_table_reader_refusal{Here, Pre}(status, err, in, len, out, cap, count); */
    if (status == HURRAY_OK) {
      status = hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, needed, 0);
      //@ assert bp_handles_unchanged{Pre, Here}(out, \min(cap, 255));
    }
  }
  return status;
}

/* BP-TABLE-10: the decoder's verdict without its stores. The same steps as
 * hurray_buffer_table_decode() less the capacity, which cannot fail here;
 * its behaviors are the decoder's, named alike, and
 * proofs/theorems/table_check.c proves the two give the same status and
 * error for every input. */
/*@
  requires in != \null && len >= 1 ==>
             \valid_read(in + (0 .. \min(len, bp_table_size(in[0])) - 1));  // never past
  requires err == \null || \valid(err);
  requires in != \null && len >= 1 ==>
             \separated(in + (0 .. \min(len, bp_table_size(in[0])) - 1), err);
  requires count == \null || \valid(count);
  requires count != \null ==> \separated(count, err);
  requires count != \null && in != \null && len >= 1 ==>
             \separated(count, in + (0 .. \min(len, bp_table_size(in[0])) - 1));
  terminates \true;
  assigns *count;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_argument:  // the first NULL argument, by its position: in 0, count 2
    assumes in == \null || count == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, in == \null ? 0 : 2);
  behavior empty_input:  // BP-TABLE-2
    assumes in != \null && count != \null && len < 1;
    ensures \result == HURRAY_ERR_TRUNCATED && bp_error_is(err, \result, len, 1, 0);
    ensures *count == \old(*count);
  behavior truncated:  // BP-TABLE-2: the length is checked before any handle is read
    assumes in != \null && count != \null && len >= 1;
    assumes len < bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRUNCATED;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
  behavior empty_table:  // BP-TABLE-3
    assumes in != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *count == \old(*count);
  behavior invalid_handle:  // BP-TABLE-5, BP-ORDER-1: the first invalid handle, at its index
    assumes in != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1;
    assumes !bp_table_handles_valid(in, in[0]);
    ensures \exists integer k; 0 <= k < \old(in[0]) && bp_table_handles_valid{Pre}(in, k) &&
              bp_wire_rejected{Post, Pre}(\result, err, k, bp_table_handle(in, k));
    ensures *count == \old(*count);
  behavior not_colocated:  // BP-COLOC-2: after every handle, the first mismatch
    assumes in != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1;
    assumes bp_table_handles_valid(in, in[0]) && !bp_table_colocated(in, in[0]);
    ensures \exists integer k; 1 <= k < \old(in[0]) &&
              bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
    ensures *count == \old(*count);
  behavior accepted:  // BP-TABLE-1..3, BP-TABLE-5, BP-COLOC-1: OK iff the spec accepts it
    assumes in != \null && count != \null;
    assumes bp_valid_table(in, len);
    ensures \result == HURRAY_OK && *count == \old(in[0]);
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_check(const uint8_t *in, size_t len, size_t *count,
                                        hurray_error *err) {
  if (in == NULL || count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, in == NULL ? 0u : 2u);
  }
  if (len < 1u) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, 1u, 0);
  }
  const size_t n = in[0];
  const size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * n;
  if (len < needed) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, needed, 0);
  }
  if (n == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  const hurray_status status = check_table_handles(in, n, err);
  if (status != HURRAY_OK) {
    return status;
  }
  *count = n;
  return HURRAY_OK;
}

/* BP-TABLE-10: handle `index` of a checked table. It reads the count byte,
 * then the 16 bytes of that handle only: a table the check accepted holds
 * every handle below its count, and the count byte is all an index past it
 * needs. */
/*@
  requires table != \null ==> \valid_read(table + (0 .. bp_table_size(table[0]) - 1));
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  requires table != \null && out != \null ==>
             \separated(table + (0 .. bp_table_size(table[0]) - 1), out);
  requires table != \null ==> \separated(table + (0 .. bp_table_size(table[0]) - 1), err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_argument:  // the first NULL argument, by its position: table 0, out 2
    assumes table == \null || out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, table == \null ? 0 : 2);
  behavior past_count:  // BP-TABLE-10
    assumes table != \null && out != \null && index >= table[0];
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT;
    ensures bp_error_is(err, \result, index, \old(table[0]), 1);
    ensures *out == \old(*out);
  behavior in_table:  // BP-WIRE-1, BP-TABLE-10
    assumes table != \null && out != \null && index < table[0];
    ensures \result == HURRAY_OK;
    ensures bp_decoded_from{Post, Pre}(out, bp_table_handle(table, index));
    ensures out->reserved == 0;
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_handle(const uint8_t *table, size_t index,
                                         hurray_buffer_handle *out, hurray_error *err) {
  if (table == NULL || out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, table == NULL ? 0u : 2u);
  }
  const size_t count = table[0];
  if (index >= count) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, index, count, 1);
  }
  store_decoded(table + 1 + HURRAY_BUFFER_HANDLE_SIZE * index, out);
  return HURRAY_OK;
}
