/*
 * The buffer handle value: its rules (BP-ORDER-1 steps 2..8), constructors
 * and accessors.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "handle_rules.h"
#include "hurray/buffer.h"

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
  if (alignment == 0u || (alignment & (alignment - 1u)) != 0u) {
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

hurray_status hurray_buffer_handle_validate(const hurray_buffer_handle *handle,
                                            hurray_error *err) {
  if (handle == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  return hurray_handle_fields_check(handle->byte_size, handle->alignment, handle->device_tag,
                                    handle->sync_mode, handle->memory_class, 0, err);
}

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
  return HURRAY_OK;
}

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
  return HURRAY_OK;
}

hurray_buffer_handle hurray_buffer_handle_empty(hurray_device_tag device_tag) {
  hurray_buffer_handle handle;
  handle.byte_size = 0u;
  handle.alignment = 1u;
  handle.device_tag = device_tag;
  handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  handle.memory_class = HURRAY_MEMORY_STANDARD;
  return handle;
}

uint64_t hurray_buffer_handle_byte_size(const hurray_buffer_handle *handle) {
  return handle->byte_size;
}

uint32_t hurray_buffer_handle_alignment(const hurray_buffer_handle *handle) {
  return handle->alignment;
}

hurray_device_tag hurray_buffer_handle_device_tag(const hurray_buffer_handle *handle) {
  return handle->device_tag;
}

hurray_sync_mode hurray_buffer_handle_sync_mode(const hurray_buffer_handle *handle) {
  return handle->sync_mode;
}

hurray_memory_class hurray_buffer_handle_memory_class(const hurray_buffer_handle *handle) {
  return handle->memory_class;
}

bool hurray_buffer_handle_is_empty(const hurray_buffer_handle *handle) {
  return handle->byte_size == 0u;
}

bool hurray_buffer_handle_equal(const hurray_buffer_handle *a, const hurray_buffer_handle *b) {
  return a->byte_size == b->byte_size && a->alignment == b->alignment &&
         a->device_tag == b->device_tag && a->sync_mode == b->sync_mode &&
         a->memory_class == b->memory_class;
}
