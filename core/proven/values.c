/*
 * The three byte-valued fields: which bytes are acceptable, and their names.
 * Rules: BP-DEV-1..4, BP-MEM-1..3, BP-SYNC-1 (specs/buffer-protocol.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include "error_set.h"
#include "hurray/buffer.h"

/*@
  terminates \true;
  assigns \nothing;
  ensures \result == 1 <==> bp_private_device_tag(tag);  // BP-DEV-3
  ensures \result == 0 || \result == 1;                   // HO-ABI-5
*/
hurray_bool32 hurray_device_tag_is_private(hurray_device_tag tag) {
  return tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST ? HURRAY_TRUE
                                                                                 : HURRAY_FALSE;
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

/* The names of include/hurray/buffer.h: one row per named tag, indexed by
 * its value, then invalid, private and reserved. A table rather than a
 * switch: fewer paths to prove, and the contract pins every name. */
static const char device_tag_names[12][11] = {
    "cpu",
    "cuda",
    "rocm",
    "metal",
    "vulkan",
    "webgpu",
    "hexagon",
    "level_zero",
    "opencl",
    "invalid",
    "private",
    "reserved",
};

/*@
  terminates \true;
  assigns \result \from tag;
  ensures \valid_read(\result + (0 .. 10));
  ensures name_cpu: tag == HURRAY_DEVICE_CPU ==>  // "cpu"
      \result[0] == 'c' && \result[1] == 'p' && \result[2] == 'u' && \result[3] == 0;
  ensures name_cuda: tag == HURRAY_DEVICE_CUDA ==>  // "cuda"
      \result[0] == 'c' && \result[1] == 'u' && \result[2] == 'd' && \result[3] == 'a' &&
      \result[4] == 0;
  ensures name_rocm: tag == HURRAY_DEVICE_ROCM ==>  // "rocm"
      \result[0] == 'r' && \result[1] == 'o' && \result[2] == 'c' && \result[3] == 'm' &&
      \result[4] == 0;
  ensures name_metal: tag == HURRAY_DEVICE_METAL ==>  // "metal"
      \result[0] == 'm' && \result[1] == 'e' && \result[2] == 't' && \result[3] == 'a' &&
      \result[4] == 'l' && \result[5] == 0;
  ensures name_vulkan: tag == HURRAY_DEVICE_VULKAN ==>  // "vulkan"
      \result[0] == 'v' && \result[1] == 'u' && \result[2] == 'l' && \result[3] == 'k' &&
      \result[4] == 'a' && \result[5] == 'n' && \result[6] == 0;
  ensures name_webgpu: tag == HURRAY_DEVICE_WEBGPU ==>  // "webgpu"
      \result[0] == 'w' && \result[1] == 'e' && \result[2] == 'b' && \result[3] == 'g' &&
      \result[4] == 'p' && \result[5] == 'u' && \result[6] == 0;
  ensures name_hexagon: tag == HURRAY_DEVICE_HEXAGON ==>  // "hexagon"
      \result[0] == 'h' && \result[1] == 'e' && \result[2] == 'x' && \result[3] == 'a' &&
      \result[4] == 'g' && \result[5] == 'o' && \result[6] == 'n' && \result[7] == 0;
  ensures name_level_zero: tag == HURRAY_DEVICE_LEVEL_ZERO ==>  // "level_zero"
      \result[0] == 'l' && \result[1] == 'e' && \result[2] == 'v' && \result[3] == 'e' &&
      \result[4] == 'l' && \result[5] == '_' && \result[6] == 'z' && \result[7] == 'e' &&
      \result[8] == 'r' && \result[9] == 'o' && \result[10] == 0;
  ensures name_opencl: tag == HURRAY_DEVICE_OPENCL ==>  // "opencl"
      \result[0] == 'o' && \result[1] == 'p' && \result[2] == 'e' && \result[3] == 'n' &&
      \result[4] == 'c' && \result[5] == 'l' && \result[6] == 0;
  ensures name_invalid: bp_invalid_device_tag(tag) ==>  // "invalid"
      \result[0] == 'i' && \result[1] == 'n' && \result[2] == 'v' && \result[3] == 'a' &&
      \result[4] == 'l' && \result[5] == 'i' && \result[6] == 'd' && \result[7] == 0;
  ensures name_private: bp_private_device_tag(tag) ==>  // "private"
      \result[0] == 'p' && \result[1] == 'r' && \result[2] == 'i' && \result[3] == 'v' &&
      \result[4] == 'a' && \result[5] == 't' && \result[6] == 'e' && \result[7] == 0;
  ensures name_reserved: bp_reserved_device_tag(tag) ==>  // "reserved"
      \result[0] == 'r' && \result[1] == 'e' && \result[2] == 's' && \result[3] == 'e' &&
      \result[4] == 'r' && \result[5] == 'v' && \result[6] == 'e' && \result[7] == 'd' &&
      \result[8] == 0;
*/
const char *hurray_device_tag_name(hurray_device_tag tag) {
  return device_tag_names[tag <= HURRAY_DEVICE_OPENCL ? tag
                          : tag == HURRAY_DEVICE_INVALID ? 9u
                          : hurray_device_tag_is_private(tag) ? 10u
                                                              : 11u];
}

/*@
  terminates \true;
  assigns \nothing;
  ensures \result == 1 <==> bp_private_memory_class(memory_class);  // BP-MEM-2
  ensures \result == 0 || \result == 1;                              // HO-ABI-5
*/
hurray_bool32 hurray_memory_class_is_private(hurray_memory_class memory_class) {
  return memory_class >= HURRAY_MEMORY_PRIVATE_FIRST && memory_class <= HURRAY_MEMORY_PRIVATE_LAST
             ? HURRAY_TRUE
             : HURRAY_FALSE;
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

/* The names of include/hurray/buffer.h: one row per named class, indexed by
 * its value, then invalid, private and reserved. */
static const char memory_class_names[7][12] = {
    "standard",
    "host_pinned",
    "unified",
    "peer",
    "invalid",
    "private",
    "reserved",
};

/*@
  terminates \true;
  assigns \result \from memory_class;
  ensures \valid_read(\result + (0 .. 11));
  ensures name_standard: memory_class == HURRAY_MEMORY_STANDARD ==>  // "standard"
      \result[0] == 's' && \result[1] == 't' && \result[2] == 'a' && \result[3] == 'n' &&
      \result[4] == 'd' && \result[5] == 'a' && \result[6] == 'r' && \result[7] == 'd' &&
      \result[8] == 0;
  ensures name_host_pinned: memory_class == HURRAY_MEMORY_HOST_PINNED ==>  // "host_pinned"
      \result[0] == 'h' && \result[1] == 'o' && \result[2] == 's' && \result[3] == 't' &&
      \result[4] == '_' && \result[5] == 'p' && \result[6] == 'i' && \result[7] == 'n' &&
      \result[8] == 'n' && \result[9] == 'e' && \result[10] == 'd' && \result[11] == 0;
  ensures name_unified: memory_class == HURRAY_MEMORY_UNIFIED ==>  // "unified"
      \result[0] == 'u' && \result[1] == 'n' && \result[2] == 'i' && \result[3] == 'f' &&
      \result[4] == 'i' && \result[5] == 'e' && \result[6] == 'd' && \result[7] == 0;
  ensures name_peer: memory_class == HURRAY_MEMORY_PEER ==>  // "peer"
      \result[0] == 'p' && \result[1] == 'e' && \result[2] == 'e' && \result[3] == 'r' &&
      \result[4] == 0;
  ensures name_invalid: bp_invalid_memory_class(memory_class) ==>  // "invalid"
      \result[0] == 'i' && \result[1] == 'n' && \result[2] == 'v' && \result[3] == 'a' &&
      \result[4] == 'l' && \result[5] == 'i' && \result[6] == 'd' && \result[7] == 0;
  ensures name_private: bp_private_memory_class(memory_class) ==>  // "private"
      \result[0] == 'p' && \result[1] == 'r' && \result[2] == 'i' && \result[3] == 'v' &&
      \result[4] == 'a' && \result[5] == 't' && \result[6] == 'e' && \result[7] == 0;
  ensures name_reserved: bp_reserved_memory_class(memory_class) ==>  // "reserved"
      \result[0] == 'r' && \result[1] == 'e' && \result[2] == 's' && \result[3] == 'e' &&
      \result[4] == 'r' && \result[5] == 'v' && \result[6] == 'e' && \result[7] == 'd' &&
      \result[8] == 0;
*/
const char *hurray_memory_class_name(hurray_memory_class memory_class) {
  return memory_class_names[memory_class <= HURRAY_MEMORY_PEER ? memory_class
                            : memory_class == HURRAY_MEMORY_INVALID ? 4u
                            : hurray_memory_class_is_private(memory_class) ? 5u
                                                                           : 6u];
}

/*@
  terminates \true;
  assigns \nothing;
  ensures \result == 0;  // BP-SYNC-1: no private sync modes; HO-ABI-5
*/
hurray_bool32 hurray_sync_mode_is_private(hurray_sync_mode mode) {
  (void)mode;
  return HURRAY_FALSE;
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

/* The names of include/hurray/buffer.h: one row per valid mode, indexed by
 * its value, then invalid and reserved (BP-SYNC-1: no private modes). */
static const char sync_mode_names[5][16] = {
    "producer_synced",
    "event",
    "consumer_stream",
    "invalid",
    "reserved",
};

/*@
  terminates \true;
  assigns \result \from mode;
  ensures \valid_read(\result + (0 .. 15));
  ensures name_producer_synced: mode == HURRAY_SYNC_PRODUCER_SYNCED ==>  // "producer_synced"
      \result[0] == 'p' && \result[1] == 'r' && \result[2] == 'o' && \result[3] == 'd' &&
      \result[4] == 'u' && \result[5] == 'c' && \result[6] == 'e' && \result[7] == 'r' &&
      \result[8] == '_' && \result[9] == 's' && \result[10] == 'y' && \result[11] == 'n' &&
      \result[12] == 'c' && \result[13] == 'e' && \result[14] == 'd' && \result[15] == 0;
  ensures name_event: mode == HURRAY_SYNC_EVENT ==>  // "event"
      \result[0] == 'e' && \result[1] == 'v' && \result[2] == 'e' && \result[3] == 'n' &&
      \result[4] == 't' && \result[5] == 0;
  ensures name_consumer_stream: mode == HURRAY_SYNC_CONSUMER_STREAM ==>  // "consumer_stream"
      \result[0] == 'c' && \result[1] == 'o' && \result[2] == 'n' && \result[3] == 's' &&
      \result[4] == 'u' && \result[5] == 'm' && \result[6] == 'e' && \result[7] == 'r' &&
      \result[8] == '_' && \result[9] == 's' && \result[10] == 't' && \result[11] == 'r' &&
      \result[12] == 'e' && \result[13] == 'a' && \result[14] == 'm' && \result[15] == 0;
  ensures name_invalid: mode == HURRAY_SYNC_INVALID ==>  // "invalid"
      \result[0] == 'i' && \result[1] == 'n' && \result[2] == 'v' && \result[3] == 'a' &&
      \result[4] == 'l' && \result[5] == 'i' && \result[6] == 'd' && \result[7] == 0;
  ensures name_reserved: HURRAY_SYNC_CONSUMER_STREAM < mode < HURRAY_SYNC_INVALID ==>  // "reserved"
      \result[0] == 'r' && \result[1] == 'e' && \result[2] == 's' && \result[3] == 'e' &&
      \result[4] == 'r' && \result[5] == 'v' && \result[6] == 'e' && \result[7] == 'd' &&
      \result[8] == 0;
*/
const char *hurray_sync_mode_name(hurray_sync_mode mode) {
  return sync_mode_names[mode <= HURRAY_SYNC_CONSUMER_STREAM ? mode
                         : mode == HURRAY_SYNC_INVALID       ? 3u
                                                             : 4u];
}
