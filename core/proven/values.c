/*
 * The three byte-valued fields: which bytes are acceptable, and their names.
 * Rules: BP-DEV-1..4, BP-MEM-1..3, BP-SYNC-1 (specs/buffer-protocol.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

bool hurray_device_tag_is_private(hurray_device_tag tag) {
  return tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST;
}

hurray_status hurray_device_tag_from_byte(uint8_t byte, hurray_device_tag *out,
                                          hurray_error *err) {
  if (byte == HURRAY_DEVICE_INVALID) {
    return hurray_fail(err, HURRAY_ERR_INVALID_DEVICE_TAG, byte, 0, 0);
  }
  if (byte >= HURRAY_DEVICE_RESERVED_FIRST && byte <= HURRAY_DEVICE_RESERVED_LAST) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_DEVICE_TAG, byte, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  *out = byte;
  return HURRAY_OK;
}

const char *hurray_device_tag_name(hurray_device_tag tag) {
  switch (tag) {
    case HURRAY_DEVICE_CPU: return "cpu";
    case HURRAY_DEVICE_CUDA: return "cuda";
    case HURRAY_DEVICE_ROCM: return "rocm";
    case HURRAY_DEVICE_METAL: return "metal";
    case HURRAY_DEVICE_VULKAN: return "vulkan";
    case HURRAY_DEVICE_WEBGPU: return "webgpu";
    case HURRAY_DEVICE_HEXAGON: return "hexagon";
    case HURRAY_DEVICE_LEVEL_ZERO: return "level_zero";
    case HURRAY_DEVICE_OPENCL: return "opencl";
    case HURRAY_DEVICE_INVALID: return "invalid";
    default: break;
  }
  return hurray_device_tag_is_private(tag) ? "private" : "reserved";
}

bool hurray_memory_class_is_private(hurray_memory_class memory_class) {
  return memory_class >= HURRAY_MEMORY_PRIVATE_FIRST &&
         memory_class <= HURRAY_MEMORY_PRIVATE_LAST;
}

hurray_status hurray_memory_class_from_byte(uint8_t byte, hurray_memory_class *out,
                                            hurray_error *err) {
  if (byte == HURRAY_MEMORY_INVALID) {
    return hurray_fail(err, HURRAY_ERR_INVALID_MEMORY_CLASS, byte, 0, 0);
  }
  if (byte >= HURRAY_MEMORY_RESERVED_FIRST && byte <= HURRAY_MEMORY_RESERVED_LAST) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_MEMORY_CLASS, byte, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  *out = byte;
  return HURRAY_OK;
}

const char *hurray_memory_class_name(hurray_memory_class memory_class) {
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: return "standard";
    case HURRAY_MEMORY_HOST_PINNED: return "host_pinned";
    case HURRAY_MEMORY_UNIFIED: return "unified";
    case HURRAY_MEMORY_PEER: return "peer";
    case HURRAY_MEMORY_INVALID: return "invalid";
    default: break;
  }
  return hurray_memory_class_is_private(memory_class) ? "private" : "reserved";
}

bool hurray_sync_mode_is_private(hurray_sync_mode mode) {
  (void)mode;
  return false;
}

hurray_status hurray_sync_mode_from_byte(uint8_t byte, hurray_sync_mode *out, hurray_error *err) {
  if (byte > HURRAY_SYNC_CONSUMER_STREAM) {
    return hurray_fail(err, HURRAY_ERR_INVALID_SYNC_MODE, byte, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  *out = byte;
  return HURRAY_OK;
}

const char *hurray_sync_mode_name(hurray_sync_mode mode) {
  switch (mode) {
    case HURRAY_SYNC_PRODUCER_SYNCED: return "producer_synced";
    case HURRAY_SYNC_EVENT: return "event";
    case HURRAY_SYNC_CONSUMER_STREAM: return "consumer_stream";
    case HURRAY_SYNC_INVALID: return "invalid";
    default: break;
  }
  return "reserved";
}
