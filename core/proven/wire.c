/*
 * The 16-byte wire form of one handle (BP-WIRE-1, BP-WIRE-2, BP-ORDER-1) and
 * the buffer table around it (BP-TABLE-1..6).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "handle_rules.h"
#include "hurray/buffer.h"

/* Little-endian loads written byte by byte: independent of the host's byte
 * order and alignment, and compiled to single loads on little-endian hosts
 * (gcc and clang both merge a sum of shifted bytes, as they do an OR; a sum
 * is what the provers relate to the byte values). */
/*@
  requires \valid_read(p + (0 .. 7));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le64(p);  // BP-WIRE-1
*/
static inline uint64_t load_le64(const uint8_t *p) {
  return (uint64_t)p[0] + ((uint64_t)p[1] << 8) + ((uint64_t)p[2] << 16) +
         ((uint64_t)p[3] << 24) + ((uint64_t)p[4] << 32) + ((uint64_t)p[5] << 40) +
         ((uint64_t)p[6] << 48) + ((uint64_t)p[7] << 56);
}

/*@
  requires \valid_read(p + (0 .. 3));
  terminates \true;
  assigns \nothing;
  ensures \result == bp_le32(p);  // BP-WIRE-1
*/
static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] + ((uint32_t)p[1] << 8) + ((uint32_t)p[2] << 16) +
         ((uint32_t)p[3] << 24);
}

/* Stores byte k as v / 256^k % 256: arithmetic the provers handle without
 * bit reasoning, and which gcc and clang compile to one 8- (4-) byte store. */
/*@
  requires \valid(p + (0 .. 7));
  terminates \true;
  assigns p[0 .. 7];
  ensures p[0] == bp_byte(v, 0) && p[1] == bp_byte(v, 1) && p[2] == bp_byte(v, 2) &&
          p[3] == bp_byte(v, 3) && p[4] == bp_byte(v, 4) && p[5] == bp_byte(v, 5) &&
          p[6] == bp_byte(v, 6) && p[7] == bp_byte(v, 7);  // BP-WIRE-1
*/
static inline void store_le64(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)(v % 0x100u);
  p[1] = (uint8_t)(v / 0x100u % 0x100u);
  p[2] = (uint8_t)(v / 0x10000u % 0x100u);
  p[3] = (uint8_t)(v / 0x1000000u % 0x100u);
  p[4] = (uint8_t)(v / 0x100000000u % 0x100u);
  p[5] = (uint8_t)(v / 0x10000000000u % 0x100u);
  p[6] = (uint8_t)(v / 0x1000000000000u % 0x100u);
  p[7] = (uint8_t)(v / 0x100000000000000u % 0x100u);
}

/*@
  requires \valid(p + (0 .. 3));
  terminates \true;
  assigns p[0 .. 3];
  ensures p[0] == bp_byte(v, 0) && p[1] == bp_byte(v, 1) && p[2] == bp_byte(v, 2) &&
          p[3] == bp_byte(v, 3);  // BP-WIRE-1
*/
static inline void store_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v % 0x100u);
  p[1] = (uint8_t)(v / 0x100u % 0x100u);
  p[2] = (uint8_t)(v / 0x10000u % 0x100u);
  p[3] = (uint8_t)(v / 0x1000000u % 0x100u);
}

/*@
  requires \valid_read(handle);
  requires \valid(out + (0 .. 15));
  requires \separated(handle, out + (0 .. 15));
  terminates \true;
  assigns out[0 .. 15];
  ensures bp_encodes(out, \old(*handle));  // BP-WIRE-1, BP-WIRE-2
*/
void hurray_buffer_handle_encode(const hurray_buffer_handle *handle,
                                 uint8_t out[HURRAY_BUFFER_HANDLE_SIZE]) {
  store_le64(out, handle->byte_size);
  store_le32(out + 8, handle->alignment);
  out[12] = handle->device_tag;
  out[13] = handle->sync_mode;
  out[14] = handle->memory_class;
  out[15] = 0u;
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
  if (in[15] != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, in[15], 0, index);
  }
  uint64_t byte_size = load_le64(in);
  uint32_t alignment = load_le32(in + 8);
  hurray_status status =
      hurray_handle_fields_check(byte_size, alignment, in[12], in[13], in[14], index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  out->byte_size = byte_size;
  out->alignment = alignment;
  out->device_tag = in[12];
  out->sync_mode = in[13];
  out->memory_class = in[14];
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

/*@
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
  terminates \true;
  assigns out[0 .. \min(cap, 255) - 1], *count, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_in:
    assumes in == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes in != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior no_count:
    assumes in != \null && out != \null && count == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 4);
  behavior empty_input:  // BP-TABLE-2
    assumes in != \null && out != \null && count != \null && len < 1;
    ensures \result == HURRAY_ERR_TRUNCATED && bp_error_is(err, \result, len, 1, 0);
    ensures *count == \old(*count);
  behavior truncated:  // BP-TABLE-2: the length is checked before any handle is read
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len < bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRUNCATED;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
  behavior empty_table:  // BP-TABLE-3
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *count == \old(*count);
  behavior capacity:  // BP-TABLE-4: before any handle is decoded
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap < in[0];
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, \old(in[0]), cap, 0);
    ensures *count == \old(*count);
  behavior handles:  // BP-TABLE-5: reads stay inside the table, writes inside out[0 .. count)
    assumes in != \null && out != \null && count != \null && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    ensures \result == HURRAY_OK ==> *count == \old(in[0]);
    ensures \result != HURRAY_OK ==> *count == \old(*count);
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
  hurray_status status = decode_one(in + 1, &out[0], 0, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const uint8_t tag0 = out[0].device_tag;
  const uint8_t class0 = out[0].memory_class;
  size_t mismatch = 0; /* 0: none yet (handle 0 cannot mismatch itself) */
  /*@
    loop invariant 1 <= i <= n;
    loop invariant mismatch < i;
    loop assigns i, mismatch, status, out[1 .. n - 1];
    loop assigns err->status, err->value, err->expected, err->index, err->detail[0];
    loop variant n - i;
  */
  for (size_t i = 1; i < n; i++) {
    const uint8_t *p = in + 1 + HURRAY_BUFFER_HANDLE_SIZE * i;
    uint64_t byte_size = load_le64(p);
    uint32_t alignment = load_le32(p + 8);
    uint8_t tag = p[12];
    uint8_t sync = p[13];
    uint8_t memory_class = p[14];
    /* Fast path: a handle with the first handle's tag and class (already
     * valid, so the tag, class and pair rules hold) needs only the reserved
     * byte, sync and alignment rules. Anything else takes decode_one(),
     * which gives the exact error of BP-ORDER-1. */
    bool same_place = tag == tag0 && memory_class == class0 && p[15] == 0u;
    bool sync_ok = sync <= HURRAY_SYNC_CONSUMER_STREAM &&
                   (tag0 != HURRAY_DEVICE_CPU || sync == HURRAY_SYNC_PRODUCER_SYNCED);
    bool align_ok = alignment != 0u && (alignment & (alignment - 1u)) == 0u &&
                    (byte_size == 0u || alignment >= HURRAY_MIN_BUFFER_ALIGNMENT);
    if (same_place && sync_ok && align_ok) {
      out[i].byte_size = byte_size;
      out[i].alignment = alignment;
      out[i].device_tag = tag;
      out[i].sync_mode = sync;
      out[i].memory_class = memory_class;
      continue;
    }
    status = decode_one(p, &out[i], i, err);
    if (status != HURRAY_OK) {
      return status;
    }
    if (mismatch == 0u && (tag != tag0 || memory_class != class0)) {
      mismatch = i;
    }
  }
  if (mismatch != 0u) {
    if (out[mismatch].device_tag != tag0) {
      return hurray_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, out[mismatch].device_tag, tag0,
                         mismatch);
    }
    return hurray_fail(err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, out[mismatch].memory_class, class0,
                       mismatch);
  }
  *count = n;
  return HURRAY_OK;
}

/*@
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
  terminates \true;
  assigns out[0 .. \min(cap, 255) - 1], *count, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_in:
    assumes in == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes in != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior early:  // BP-TABLE-2..4, as hurray_buffer_table_decode()
    assumes in != \null && out != \null;
    assumes len < 1 || len < bp_table_size(in[0]) || in[0] == 0 || cap < in[0];
    ensures \result != HURRAY_OK;
    ensures count != \null ==> *count == \old(*count);
  behavior handles:  // BP-TABLE-5, BP-TABLE-6
    assumes in != \null && out != \null;
    assumes !(len < 1 || len < bp_table_size(in[0]) || in[0] == 0 || cap < in[0]);
    ensures \result == HURRAY_OK ==>
              len == bp_table_size(\old(in[0])) && count != \null && *count == \old(in[0]);
    ensures \result != HURRAY_OK && count != \null ==> *count == \old(*count);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_decode_exact(const uint8_t *in, size_t len,
                                               hurray_buffer_handle *out, size_t cap,
                                               size_t *count, hurray_error *err) {
  size_t decoded = 0;
  hurray_status status = hurray_buffer_table_decode(in, len, out, cap, &decoded, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* BP-TABLE-6 */
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * decoded;
  if (len != needed) {
    return hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, needed, 0);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  *count = decoded;
  return HURRAY_OK;
}

/*@
  requires handles == \null || \valid_read(handles + (0 .. \min(count, 255) - 1));
  requires out == \null || \valid(out + (0 .. cap - 1));
  requires written == \null || \valid(written);
  requires err == \null || \valid(err);
  requires handles != \null && out != \null ==>
             \separated(handles + (0 .. \min(count, 255) - 1), out + (0 .. cap - 1));
  requires handles != \null ==>
             \separated(handles + (0 .. \min(count, 255) - 1), err);
  requires handles != \null && written != \null ==>
             \separated(handles + (0 .. \min(count, 255) - 1), written);
  requires out != \null ==> \separated(out + (0 .. cap - 1), err);
  requires out != \null && written != \null ==> \separated(out + (0 .. cap - 1), written);
  requires written != \null ==> \separated(written, err);
  terminates \true;
  assigns out[0 .. cap - 1], *written, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_handles:
    assumes handles == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes handles != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior no_written:
    assumes handles != \null && out != \null && written == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 4);
  behavior empty:  // BP-TABLE-3
    assumes handles != \null && out != \null && written != \null && count == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
  behavior too_many:  // BP-TABLE-1
    assumes handles != \null && out != \null && written != \null && count > 255;
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, count, 255, 0);
  behavior checked:  // BP-TABLE-1: exactly 1 + 16 * count bytes, inside out[0 .. cap)
    assumes handles != \null && out != \null && written != \null && 1 <= count <= 255;
    ensures \result == HURRAY_OK ==>
              cap >= bp_table_size(count) && *written == bp_table_size(count) && out[0] == count;
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_encode(const hurray_buffer_handle *handles, size_t count,
                                         uint8_t *out, size_t cap, size_t *written,
                                         hurray_error *err) {
  if (handles == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (written == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (count == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  if (count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, count, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  /*@
    loop invariant 0 <= i <= count;
    loop assigns i, err->status, err->value, err->expected, err->index, err->detail[0];
    loop variant count - i;
  */
  for (size_t i = 0; i < count; i++) {
    const hurray_buffer_handle *h = &handles[i];
    hurray_status status = hurray_handle_fields_check(h->byte_size, h->alignment, h->device_tag,
                                                      h->sync_mode, h->memory_class, i, err);
    if (status != HURRAY_OK) {
      return status;
    }
  }
  hurray_status status = hurray_validate_colocation(handles, count, NULL, err);
  if (status != HURRAY_OK) {
    return status;
  }
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * count;
  if (cap < needed) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, needed, cap, 0);
  }
  out[0] = (uint8_t)count;
  /*@
    loop invariant 0 <= i <= count;
    loop invariant out[0] == count;
    loop assigns i, out[1 .. 16 * count];
    loop variant count - i;
  */
  for (size_t i = 0; i < count; i++) {
    hurray_buffer_handle_encode(&handles[i], out + 1 + HURRAY_BUFFER_HANDLE_SIZE * i);
  }
  *written = needed;
  return HURRAY_OK;
}
