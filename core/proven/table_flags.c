/*
 * The buffer table functions with flags (BP-TABLE-7): the zero-count table of
 * a composite head, legal only when the caller says so. Everything else goes
 * to the table reader (wire.c) and writer (wire_encode.c) unchanged.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"
#include "table_rules.h"

/*@
  requires bp_table_reader_frame(in, len, out, cap, count, err);  // never past len
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
  behavior unknown_flags:  // BP-TABLE-7: before the table is read
    assumes in != \null && out != \null && count != \null && flags > 1;
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT && bp_error_is(err, \result, flags, 1, 5);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_input:  // BP-TABLE-2, BP-TABLE-7
    assumes in != \null && out != \null && count != \null && flags <= 1 && len < 1;
    ensures \result == HURRAY_ERR_TRUNCATED && bp_error_is(err, \result, len, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior truncated:  // BP-TABLE-2
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len < bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRUNCATED;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_table:  // BP-TABLE-3: count 0 without the flag
    assumes in != \null && out != \null && count != \null && flags == 0 && len >= 1;
    assumes in[0] == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_allowed:  // BP-TABLE-7: zero handles, nothing written to out or err
    assumes in != \null && out != \null && count != \null && flags == 1 && len >= 1;
    assumes in[0] == 0;
    assigns *count;
    ensures \result == HURRAY_OK && *count == 0;
  behavior capacity:  // BP-TABLE-4
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap < in[0];
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, \old(in[0]), cap, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior invalid_handle:  // BP-TABLE-5, BP-ORDER-1
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes !bp_table_handles_valid(in, in[0]);
    ensures \exists integer k; 0 <= k < \old(in[0]) && bp_table_handles_valid{Pre}(in, k) &&
              bp_wire_rejected{Post, Pre}(\result, err, k, bp_table_handle(in, k));
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior not_colocated:  // BP-COLOC-2
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes bp_table_handles_valid(in, in[0]) && !bp_table_colocated(in, in[0]);
    ensures \exists integer k; 1 <= k < \old(in[0]) &&
              bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior accepted:  // BP-TABLE-1..5, BP-COLOC-1
    assumes in != \null && out != \null && count != \null && flags <= 1;
    assumes bp_valid_table(in, len) && cap >= in[0];
    ensures \result == HURRAY_OK && *count == \old(in[0]);
    ensures bp_table_decoded{Post, Pre}(out, in, \old(in[0]));  // BP-WIRE-1
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_decode_flags(const uint8_t *in, size_t len,
                                               hurray_buffer_handle *out, size_t cap,
                                               size_t *count, uint32_t flags,
                                               hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (flags > HURRAY_BUFFER_TABLE_ALLOW_EMPTY) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, HURRAY_BUFFER_TABLE_ALLOW_EMPTY,
                       5);
  }
  if (flags == HURRAY_BUFFER_TABLE_ALLOW_EMPTY && len >= 1u && in[0] == 0u) {
    *count = 0;
    return HURRAY_OK;
  }
  return hurray_buffer_table_decode(in, len, out, cap, count, err);
}

/*@
  requires bp_table_reader_frame(in, len, out, cap, count, err);  // never past len
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
  behavior unknown_flags:  // BP-TABLE-7: before the table is read
    assumes in != \null && out != \null && count != \null && flags > 1;
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT && bp_error_is(err, \result, flags, 1, 5);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_input:  // BP-TABLE-2, BP-TABLE-7
    assumes in != \null && out != \null && count != \null && flags <= 1 && len < 1;
    ensures \result == HURRAY_ERR_TRUNCATED && bp_error_is(err, \result, len, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior truncated:  // BP-TABLE-2
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len < bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRUNCATED;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_table:  // BP-TABLE-3: count 0 without the flag
    assumes in != \null && out != \null && count != \null && flags == 0 && len >= 1;
    assumes in[0] == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_trailing:  // BP-TABLE-6, BP-TABLE-7: the table is the single byte 0x00
    assumes in != \null && out != \null && count != \null && flags == 1 && len > 1;
    assumes in[0] == 0;
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_TRAILING_BYTES && bp_error_is(err, \result, len, 1, 0);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior empty_allowed:  // BP-TABLE-7: zero handles, nothing written to out or err
    assumes in != \null && out != \null && count != \null && flags == 1 && len == 1;
    assumes in[0] == 0;
    assigns *count;
    ensures \result == HURRAY_OK && *count == 0;
  behavior capacity:  // BP-TABLE-4
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap < in[0];
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, \old(in[0]), cap, 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior invalid_handle:  // BP-TABLE-5, BP-ORDER-1
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes !bp_table_handles_valid(in, in[0]);
    ensures \exists integer k; 0 <= k < \old(in[0]) && bp_table_handles_valid{Pre}(in, k) &&
              bp_wire_rejected{Post, Pre}(\result, err, k, bp_table_handle(in, k));
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior not_colocated:  // BP-COLOC-2
    assumes in != \null && out != \null && count != \null && flags <= 1 && len >= 1;
    assumes len >= bp_table_size(in[0]) && in[0] >= 1 && cap >= in[0];
    assumes bp_table_handles_valid(in, in[0]) && !bp_table_colocated(in, in[0]);
    ensures \exists integer k; 1 <= k < \old(in[0]) &&
              bp_table_mismatch_at{Post, Pre}(\result, err, in, k);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior trailing:  // BP-TABLE-6
    assumes in != \null && out != \null && count != \null && flags <= 1;
    assumes bp_valid_table(in, len) && cap >= in[0] && len > bp_table_size(in[0]);
    ensures \result == HURRAY_ERR_TRAILING_BYTES;
    ensures bp_error_is(err, \result, len, bp_table_size(\old(in[0])), 0);
    ensures *count == \old(*count);
    ensures bp_handles_unchanged{Pre, Post}(out, \min(cap, 255));  // BP-TABLE-8
  behavior accepted:  // BP-TABLE-1..6, BP-COLOC-1
    assumes in != \null && out != \null && count != \null && flags <= 1;
    assumes bp_valid_table(in, len) && cap >= in[0] && len == bp_table_size(in[0]);
    ensures \result == HURRAY_OK && *count == \old(in[0]);
    ensures bp_table_decoded{Post, Pre}(out, in, \old(in[0]));  // BP-WIRE-1
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_decode_exact_flags(const uint8_t *in, size_t len,
                                                     hurray_buffer_handle *out, size_t cap,
                                                     size_t *count, uint32_t flags,
                                                     hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (flags > HURRAY_BUFFER_TABLE_ALLOW_EMPTY) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, HURRAY_BUFFER_TABLE_ALLOW_EMPTY,
                       5);
  }
  if (flags == HURRAY_BUFFER_TABLE_ALLOW_EMPTY && len >= 1u && in[0] == 0u) {
    if (len > 1u) {
      return hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, 1u, 0);
    }
    *count = 0;
    return HURRAY_OK;
  }
  return hurray_buffer_table_decode_exact(in, len, out, cap, count, err);
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
  assigns out[0 .. cap - 1], *written;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_handles:
    assumes handles == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior no_out:
    assumes handles != \null && out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior no_written:
    assumes handles != \null && out != \null && written == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 4);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior unknown_flags:  // BP-TABLE-7: before anything is checked or written
    assumes handles != \null && out != \null && written != \null && flags > 1;
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT && bp_error_is(err, \result, flags, 1, 5);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior empty:  // BP-TABLE-3: count 0 without the flag
    assumes handles != \null && out != \null && written != \null && flags == 0 && count == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior empty_too_small:  // BP-TABLE-7: the zero-count table needs its count byte
    assumes handles != \null && out != \null && written != \null && flags == 1 && count == 0;
    assumes cap < 1;
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, 1, cap, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior empty_encoded:  // BP-TABLE-7: the single byte 0x00, err untouched
    assumes handles != \null && out != \null && written != \null && flags == 1 && count == 0;
    assumes cap >= 1;
    assigns out[0], *written;
    ensures \result == HURRAY_OK && *written == 1 && out[0] == 0;
  behavior too_many:  // BP-TABLE-1: the count is one byte
    assumes handles != \null && out != \null && written != \null && flags <= 1 && count > 255;
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, count, 255, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior invalid_handle:  // BP-ORDER-1
    assumes handles != \null && out != \null && written != \null && flags <= 1;
    assumes 1 <= count <= 255 && !bp_list_valid(handles, count);
    ensures \exists integer k; 0 <= k < count && bp_list_valid(handles, k) &&
              bp_fields_rejected(\result, err, k, handles[k].byte_size, handles[k].alignment,
                                 handles[k].device_tag, handles[k].sync_mode,
                                 handles[k].memory_class);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior not_colocated:  // BP-COLOC-2
    assumes handles != \null && out != \null && written != \null && flags <= 1;
    assumes 1 <= count <= 255 && bp_list_valid(handles, count) && !bp_colocated(handles, count);
    ensures \exists integer k; 1 <= k < count && bp_list_mismatch_at(\result, err, handles, k);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior too_small:  // BP-TABLE-1: value is the size needed
    assumes handles != \null && out != \null && written != \null && flags <= 1;
    assumes 1 <= count <= 255 && bp_list_valid(handles, count) && bp_colocated(handles, count);
    assumes cap < bp_table_size(count);
    ensures \result == HURRAY_ERR_CAPACITY &&
              bp_error_is(err, \result, bp_table_size(count), cap, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior encoded:  // BP-TABLE-1, BP-WIRE-1: exactly 1 + 16 * count bytes
    assumes handles != \null && out != \null && written != \null && flags <= 1;
    assumes 1 <= count <= 255 && bp_list_valid(handles, count) && bp_colocated(handles, count);
    assumes cap >= bp_table_size(count);
    ensures \result == HURRAY_OK && *written == bp_table_size(count) && out[0] == count;
    ensures bp_table_encodes{Post, Pre}(out, handles, count);
    ensures bp_error_unchanged{Pre, Post}(err);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_table_encode_flags(const hurray_buffer_handle *handles, size_t count,
                                               uint8_t *out, size_t cap, size_t *written,
                                               uint32_t flags, hurray_error *err) {
  if (handles == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (written == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (flags > HURRAY_BUFFER_TABLE_ALLOW_EMPTY) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, HURRAY_BUFFER_TABLE_ALLOW_EMPTY,
                       5);
  }
  if (flags == HURRAY_BUFFER_TABLE_ALLOW_EMPTY && count == 0u) {
    if (cap < 1u) {
      return hurray_fail(err, HURRAY_ERR_CAPACITY, 1u, cap, 0);
    }
    out[0] = 0;
    *written = 1u;
    return HURRAY_OK;
  }
  return hurray_buffer_table_encode(handles, count, out, cap, written, err);
}
