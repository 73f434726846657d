/*
 * The writer of the wire forms: one handle's 16 little-endian bytes
 * (BP-WIRE-1, BP-WIRE-2) and the buffer table (BP-TABLE-1, BP-TABLE-9), whose
 * handles are checked (BP-ORDER-1, BP-COLOC-1) before its first byte is
 * written. The reader is wire.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "handle_rules.h"
#include "little_endian.h"
#include "hurray/buffer.h"

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

/*@
  requires 1 <= count <= 255;
  requires \valid_read(handles + (0 .. count - 1));
  requires err == \null || \valid(err);
  requires \separated(handles + (0 .. count - 1), err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior valid:  // BP-ORDER-1 steps 2..8 hold for every handle
    assumes bp_list_valid(handles, count);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  behavior invalid:  // BP-ORDER-1: the first invalid handle, at its index
    assumes !bp_list_valid(handles, count);
    ensures \exists integer k; 0 <= k < count && bp_list_valid(handles, k) &&
              bp_fields_rejected(\result, err, k, handles[k].byte_size, handles[k].alignment,
                                 handles[k].device_tag, handles[k].sync_mode,
                                 handles[k].memory_class);
  complete behaviors;
  disjoint behaviors;
*/
static hurray_status check_list_handles(const hurray_buffer_handle *handles, size_t count,
                                        hurray_error *err) {
  /*@
    loop invariant 0 <= i <= count;
    loop invariant bp_list_valid(handles, i);
    loop invariant bp_error_unchanged{Pre, Here}(err);
    loop assigns i, err->status, err->value, err->expected, err->index, err->detail[0];
    loop variant count - i;
  */
  for (size_t i = 0; i < count; i++) {
    const hurray_buffer_handle *h = &handles[i];
    hurray_status status = hurray_handle_fields_check(h->byte_size, h->alignment, h->device_tag,
                                                      h->sync_mode, h->memory_class, i, err);
    if (status != HURRAY_OK) {
      //@ assert bp_list_valid(handles, i) && !bp_valid_handle(handles[i]);
      return status;
    }
  }
  return HURRAY_OK;
}

/* Writes the wire form of every handle after the count byte. Kept apart
 * from the checks so that the loop's goals do not carry their error writes:
 * in WP's memory model the bytes written here share one memory with the
 * handles' byte-sized fields, and with the checks in the same function two
 * of the encoder's goals did not prove within 30 s. */
/*@
  requires 1 <= count <= 255;
  requires \valid_read(handles + (0 .. count - 1));
  requires \valid(out + (0 .. 16 * count));
  requires \separated(handles + (0 .. count - 1), out + (0 .. 16 * count));
  terminates \true;
  assigns out[1 .. 16 * count];
  ensures bp_table_encodes{Post, Pre}(out, handles, count);  // BP-TABLE-1, BP-WIRE-1
*/
static void encode_table_handles(const hurray_buffer_handle *handles, size_t count,
                                 uint8_t *out) {
  /*@
    loop invariant 0 <= i <= count;
    loop invariant \forall integer j; 0 <= j < count ==> handles[j] == \at(handles[j], Pre);
    loop invariant bp_table_encodes{Here, Pre}(out, handles, i);
    loop assigns i, out[1 .. 16 * count];
    loop variant count - i;
  */
  for (size_t i = 0; i < count; i++) {
    hurray_buffer_handle_encode(&handles[i], out + 1 + HURRAY_BUFFER_HANDLE_SIZE * i);
    // The lemma bp_table_encodes_kept carries the handles written before.
    //@ assert bp_table_bytes_kept{LoopCurrent, Here}(out, i);
    //@ assert bp_table_encodes{Here, Pre}(out, handles, i);
  }
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
  behavior empty:  // BP-TABLE-3
    assumes handles != \null && out != \null && written != \null && count == 0;
    ensures \result == HURRAY_ERR_EMPTY_BUFFER_LIST && bp_error_is(err, \result, 0, 1, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior too_many:  // BP-TABLE-1: the count is one byte
    assumes handles != \null && out != \null && written != \null && count > 255;
    ensures \result == HURRAY_ERR_CAPACITY && bp_error_is(err, \result, count, 255, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior invalid_handle:  // BP-ORDER-1: the first invalid handle, at its index
    assumes handles != \null && out != \null && written != \null && 1 <= count <= 255;
    assumes !bp_list_valid(handles, count);
    ensures \exists integer k; 0 <= k < count && bp_list_valid(handles, k) &&
              bp_fields_rejected(\result, err, k, handles[k].byte_size, handles[k].alignment,
                                 handles[k].device_tag, handles[k].sync_mode,
                                 handles[k].memory_class);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior not_colocated:  // BP-COLOC-2
    assumes handles != \null && out != \null && written != \null && 1 <= count <= 255;
    assumes bp_list_valid(handles, count) && !bp_colocated(handles, count);
    ensures \exists integer k; 1 <= k < count && bp_list_mismatch_at(\result, err, handles, k);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior too_small:  // BP-TABLE-1: value is the size needed
    assumes handles != \null && out != \null && written != \null && 1 <= count <= 255;
    assumes bp_list_valid(handles, count) && bp_colocated(handles, count);
    assumes cap < bp_table_size(count);
    ensures \result == HURRAY_ERR_CAPACITY &&
              bp_error_is(err, \result, bp_table_size(count), cap, 0);
    ensures *written == \old(*written);
    ensures bp_bytes_unchanged{Pre, Post}(out, cap);  // BP-TABLE-9
  behavior encoded:  // BP-TABLE-1, BP-WIRE-1: exactly 1 + 16 * count bytes
    assumes handles != \null && out != \null && written != \null && 1 <= count <= 255;
    assumes bp_list_valid(handles, count) && bp_colocated(handles, count);
    assumes cap >= bp_table_size(count);
    ensures \result == HURRAY_OK && *written == bp_table_size(count) && out[0] == count;
    ensures bp_table_encodes{Post, Pre}(out, handles, count);
    ensures bp_error_unchanged{Pre, Post}(err);
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
  hurray_status status = check_list_handles(handles, count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = hurray_validate_colocation(handles, count, NULL, err);
  if (status != HURRAY_OK) {
    return status;
  }
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * count;
  if (cap < needed) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, needed, cap, 0);
  }
  out[0] = (uint8_t)count;
  //@ assert \forall integer j; 0 <= j < count ==> handles[j] == \at(handles[j], Pre);
  encode_table_handles(handles, count, out);
  *written = needed;
  return HURRAY_OK;
}

/* BP-TABLE-7: the zero-count table of a composite head, read and written
 * only when the caller, who read the layout tag, passes
 * HURRAY_BUFFER_TABLE_ALLOW_EMPTY. Every other table goes to the functions
 * above unchanged, so their contracts are this function's for count >= 1
 * and for count 0 without the flag. */
