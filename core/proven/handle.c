/*
 * The buffer handle value: its rules (BP-ORDER-1 steps 2..8), constructors
 * and accessors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include "error_set.h"
#include "handle_rules.h"
#include "hurray/buffer.h"

/*@
  requires err == \null || \valid(err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior accepted:  // BP-ORDER-1 steps 2..8 all hold
    assumes bp_valid_fields(byte_size, alignment, device_tag, sync_mode, memory_class);
    assigns \nothing;
    ensures \result == HURRAY_OK;
    ensures bp_error_unchanged{Pre, Post}(err);
  behavior rejected:  // BP-ORDER-1: the first rule broken, its error and values
    assumes !bp_valid_fields(byte_size, alignment, device_tag, sync_mode, memory_class);
    ensures \result != HURRAY_OK;
    ensures bp_fields_rejected(\result, err, index, byte_size, alignment, device_tag,
                               sync_mode, memory_class);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_handle_fields_check(uint64_t byte_size, uint32_t alignment,
                                         uint8_t device_tag, uint8_t sync_mode,
                                         uint8_t memory_class, size_t index, hurray_error *err) {
  /* BP-DEV-4, BP-DEV-2 */
  if (device_tag == HURRAY_DEVICE_INVALID) {
    return hurray_fail(err, HURRAY_ERR_INVALID_DEVICE_TAG, device_tag, 0, index);
  }
  if (device_tag >= HURRAY_DEVICE_RESERVED_FIRST && device_tag <= HURRAY_DEVICE_RESERVED_LAST) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_DEVICE_TAG, device_tag, 0, index);
  }
  /* BP-SYNC-1 */
  if (sync_mode > HURRAY_SYNC_CONSUMER_STREAM) {
    return hurray_fail(err, HURRAY_ERR_INVALID_SYNC_MODE, sync_mode, 0, index);
  }
  /* BP-MEM-3 */
  if (memory_class == HURRAY_MEMORY_INVALID) {
    return hurray_fail(err, HURRAY_ERR_INVALID_MEMORY_CLASS, memory_class, 0, index);
  }
  if (memory_class >= HURRAY_MEMORY_RESERVED_FIRST &&
      memory_class <= HURRAY_MEMORY_RESERVED_LAST) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_MEMORY_CLASS, memory_class, 0, index);
  }
  /* BP-ALIGN-1 */
  if (!hurray_alignment_is_power_of_two(alignment)) {
    return hurray_fail(err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, alignment, 0, index);
  }
  /* BP-ALIGN-2, BP-ALIGN-3 */
  if (byte_size != 0u && alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    return hurray_fail(err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment,
                       HURRAY_MIN_BUFFER_ALIGNMENT, index);
  }
  /* BP-SYNC-2 */
  if (device_tag == HURRAY_DEVICE_CPU && sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
    return hurray_fail(err, HURRAY_ERR_INVALID_SYNC_MODE, sync_mode, HURRAY_SYNC_PRODUCER_SYNCED,
                       index);
  }
  /* BP-PAIR-1..3 */
  if (!hurray_pair_is_valid(device_tag, memory_class)) {
    return hurray_fail(err, HURRAY_ERR_INVALID_PAIR, memory_class, device_tag, index);
  }
  return HURRAY_OK;
}

/*@
  requires handle == \null || \valid_read(handle);
  requires err == \null || \valid(err);
  requires handle != \null ==> \separated(handle, err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior no_handle:
    assumes handle == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 0);
  behavior valid:  // BP-ORDER-1 steps 2..8
    assumes handle != \null && bp_valid_handle(*handle);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  behavior invalid:  // BP-ORDER-1 steps 2..8
    assumes handle != \null && !bp_valid_handle(*handle);
    ensures bp_fields_rejected(\result, err, 0, handle->byte_size, handle->alignment,
                               handle->device_tag, handle->sync_mode, handle->memory_class);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_handle_validate(const hurray_buffer_handle *handle,
                                            hurray_error *err) {
  if (handle == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  return hurray_handle_fields_check(handle->byte_size, handle->alignment, handle->device_tag,
                                    handle->sync_mode, handle->memory_class, 0, err);
}

/*@
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior rejected:  // BP-ORDER-1: constructors enforce exactly the reader's rules
    assumes !bp_valid_fields(byte_size, alignment, device_tag, sync_mode, memory_class);
    ensures bp_fields_rejected(\result, err, 0, byte_size, alignment, device_tag, sync_mode,
                               memory_class);
    ensures out != \null ==> *out == \old(*out);  // written only on success
  behavior no_out:
    assumes bp_valid_fields(byte_size, alignment, device_tag, sync_mode, memory_class);
    assumes out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 5);
  behavior built:
    assumes bp_valid_fields(byte_size, alignment, device_tag, sync_mode, memory_class);
    assumes out != \null;
    ensures \result == HURRAY_OK && bp_valid_handle(*out);
    ensures bp_error_unchanged{Pre, Post}(err);
    ensures out->byte_size == byte_size && out->alignment == alignment &&
            out->device_tag == device_tag && out->sync_mode == sync_mode &&
            out->memory_class == memory_class && out->reserved == 0;  // HO-ABI-3
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_handle_with_memory_class(uint64_t byte_size, uint32_t alignment,
                                                     hurray_device_tag device_tag,
                                                     hurray_sync_mode sync_mode,
                                                     hurray_memory_class memory_class,
                                                     hurray_buffer_handle *out,
                                                     hurray_error *err) {
  hurray_status status =
      hurray_handle_fields_check(byte_size, alignment, device_tag, sync_mode, memory_class, 0, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 5);
  }
  out->byte_size = byte_size;
  out->alignment = alignment;
  out->device_tag = device_tag;
  out->sync_mode = sync_mode;
  out->memory_class = memory_class;
  out->reserved = 0u;  // HO-ABI-3
  return HURRAY_OK;
}

/*@
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior rejected:  // BP-ORDER-1, with memory class standard (BP-MEM-1)
    assumes !bp_valid_fields(byte_size, alignment, device_tag, sync_mode, 0x00);
    ensures bp_fields_rejected(\result, err, 0, byte_size, alignment, device_tag, sync_mode,
                               0x00);
    ensures out != \null ==> *out == \old(*out);  // written only on success
  behavior no_out:
    assumes bp_valid_fields(byte_size, alignment, device_tag, sync_mode, 0x00);
    assumes out == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 4);
  behavior built:
    assumes bp_valid_fields(byte_size, alignment, device_tag, sync_mode, 0x00);
    assumes out != \null;
    ensures \result == HURRAY_OK && bp_valid_handle(*out);
    ensures bp_error_unchanged{Pre, Post}(err);
    ensures out->byte_size == byte_size && out->alignment == alignment &&
            out->device_tag == device_tag && out->sync_mode == sync_mode &&
            out->memory_class == 0x00 && out->reserved == 0;  // HO-ABI-3
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_buffer_handle_new(uint64_t byte_size, uint32_t alignment,
                                       hurray_device_tag device_tag, hurray_sync_mode sync_mode,
                                       hurray_buffer_handle *out, hurray_error *err) {
  hurray_status status = hurray_handle_fields_check(byte_size, alignment, device_tag, sync_mode,
                                                    HURRAY_MEMORY_STANDARD, 0, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  out->byte_size = byte_size;
  out->alignment = alignment;
  out->device_tag = device_tag;
  out->sync_mode = sync_mode;
  out->memory_class = HURRAY_MEMORY_STANDARD;
  out->reserved = 0u;  // HO-ABI-3
  return HURRAY_OK;
}

/*@
  terminates \true;
  assigns \nothing;
  ensures \result.byte_size == 0 && \result.alignment == 1 &&  // BP-ALIGN-3
          \result.device_tag == device_tag && \result.sync_mode == 0x00 &&
          \result.memory_class == 0x00 && \result.reserved == 0;  // HO-ABI-3
  ensures bp_valid_fields(\result.byte_size, \result.alignment, \result.device_tag,
                          \result.sync_mode, \result.memory_class) <==>
          bp_valid_device_tag(device_tag);
*/
hurray_buffer_handle hurray_buffer_handle_empty(hurray_device_tag device_tag) {
  hurray_buffer_handle handle;
  handle.byte_size = 0u;
  handle.alignment = 1u;
  handle.device_tag = device_tag;
  handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  handle.memory_class = HURRAY_MEMORY_STANDARD;
  handle.reserved = 0u;  // HO-ABI-3
  return handle;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == handle->byte_size;
*/
uint64_t hurray_buffer_handle_byte_size(const hurray_buffer_handle *handle) {
  return handle->byte_size;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == handle->alignment;
*/
uint32_t hurray_buffer_handle_alignment(const hurray_buffer_handle *handle) {
  return handle->alignment;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == handle->device_tag;
*/
hurray_device_tag hurray_buffer_handle_device_tag(const hurray_buffer_handle *handle) {
  return handle->device_tag;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == handle->sync_mode;
*/
hurray_sync_mode hurray_buffer_handle_sync_mode(const hurray_buffer_handle *handle) {
  return handle->sync_mode;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == handle->memory_class;
*/
hurray_memory_class hurray_buffer_handle_memory_class(const hurray_buffer_handle *handle) {
  return handle->memory_class;
}

/*@
  requires \valid_read(handle);
  terminates \true;
  assigns \nothing;
  ensures \result == 1 <==> handle->byte_size == 0;  // BP-ALIGN-3
  ensures \result == 0 || \result == 1;             // HO-ABI-5
*/
hurray_bool32 hurray_buffer_handle_is_empty(const hurray_buffer_handle *handle) {
  return handle->byte_size == 0u ? HURRAY_TRUE : HURRAY_FALSE;
}

/*@
  requires \valid_read(a) && \valid_read(b);
  terminates \true;
  assigns \nothing;
  ensures \result == 1 <==> a->byte_size == b->byte_size && a->alignment == b->alignment &&
                            a->device_tag == b->device_tag && a->sync_mode == b->sync_mode &&
                            a->memory_class == b->memory_class;
  ensures \result == 0 || \result == 1;  // HO-ABI-5
*/
hurray_bool32 hurray_buffer_handle_equal(const hurray_buffer_handle *a,
                                         const hurray_buffer_handle *b) {
  return a->byte_size == b->byte_size && a->alignment == b->alignment &&
                 a->device_tag == b->device_tag && a->sync_mode == b->sync_mode &&
                 a->memory_class == b->memory_class
             ? HURRAY_TRUE
             : HURRAY_FALSE;
}
