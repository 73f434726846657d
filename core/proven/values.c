/*
 * The three byte-valued fields: which bytes are acceptable, and their names.
 * Rules: BP-DEV-1..4, BP-MEM-1..3, BP-SYNC-1 (specs/buffer-protocol.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

/*@
  terminates \true;
  assigns \nothing;
  ensures \result <==> bp_private_device_tag(tag);  // BP-DEV-3
*/
bool hurray_device_tag_is_private(hurray_device_tag tag) {
  return tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST;
}

/*@
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior invalid:  // BP-DEV-4
    assumes bp_invalid_device_tag(byte);
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_INVALID_DEVICE_TAG;
    ensures bp_error_is(err, \result, byte, 0, 0);
  behavior reserved:  // BP-DEV-2
    assumes bp_reserved_device_tag(byte);
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_RESERVED_DEVICE_TAG;
    ensures bp_error_is(err, \result, byte, 0, 0);
  behavior no_out:
    assumes bp_valid_device_tag(byte) && out == \null;
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, 1);
  behavior accepted:  // BP-DEV-1, BP-DEV-3
    assumes bp_valid_device_tag(byte) && out != \null;
    assigns *out;
    ensures \result == HURRAY_OK && *out == byte;
  complete behaviors;
  disjoint behaviors;
*/
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

/*@
  terminates \true;
  assigns \result \from tag;
  ensures \valid_read(\result);
*/
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

/*@
  terminates \true;
  assigns \nothing;
  ensures \result <==> bp_private_memory_class(memory_class);  // BP-MEM-2
*/
bool hurray_memory_class_is_private(hurray_memory_class memory_class) {
  return memory_class >= HURRAY_MEMORY_PRIVATE_FIRST &&
         memory_class <= HURRAY_MEMORY_PRIVATE_LAST;
}

/*@
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior invalid:  // BP-MEM-3
    assumes bp_invalid_memory_class(byte);
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_INVALID_MEMORY_CLASS;
    ensures bp_error_is(err, \result, byte, 0, 0);
  behavior reserved:  // BP-MEM-3
    assumes bp_reserved_memory_class(byte);
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_RESERVED_MEMORY_CLASS;
    ensures bp_error_is(err, \result, byte, 0, 0);
  behavior no_out:
    assumes bp_valid_memory_class(byte) && out == \null;
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, 1);
  behavior accepted:  // BP-MEM-1, BP-MEM-2
    assumes bp_valid_memory_class(byte) && out != \null;
    assigns *out;
    ensures \result == HURRAY_OK && *out == byte;
  complete behaviors;
  disjoint behaviors;
*/
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

/*@
  terminates \true;
  assigns \result \from memory_class;
  ensures \valid_read(\result);
*/
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

/*@
  terminates \true;
  assigns \nothing;
  ensures \result == \false;  // BP-SYNC-1: no private sync modes
*/
bool hurray_sync_mode_is_private(hurray_sync_mode mode) {
  (void)mode;
  return false;
}

/*@
  requires out == \null || \valid(out);
  requires err == \null || \valid(err);
  requires out != \null ==> \separated(out, err);
  terminates \true;
  assigns *out, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior invalid:  // BP-SYNC-1
    assumes !bp_valid_sync_mode(byte);
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_INVALID_SYNC_MODE;
    ensures bp_error_is(err, \result, byte, 0, 0);
  behavior no_out:
    assumes bp_valid_sync_mode(byte) && out == \null;
    assigns err->status, err->value, err->expected, err->index, err->detail[0];
    ensures \result == HURRAY_ERR_NULL_ARGUMENT;
    ensures bp_error_is(err, \result, 0, 0, 1);
  behavior accepted:  // BP-SYNC-1
    assumes bp_valid_sync_mode(byte) && out != \null;
    assigns *out;
    ensures \result == HURRAY_OK && *out == byte;
  complete behaviors;
  disjoint behaviors;
*/
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

/*@
  terminates \true;
  assigns \result \from mode;
  ensures \valid_read(\result);
*/
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
