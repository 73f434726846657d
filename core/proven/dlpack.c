/*
 * DLPack device types: BP-DLPACK-1 (export) and BP-DLPACK-2 (import).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

/* DLPack type for a named device whose every non-peer class shares one
 * DLPack value; 0 when the device does not work that way. */
/*@
  terminates \true;
  assigns \nothing;
  ensures \result == bp_dlpack_of_pair(device_tag, 0x00) || \result == 0;
  ensures \result != 0 <==> (device_tag == 0x00 || device_tag == 0x03 || device_tag == 0x04 ||
                             device_tag == 0x06 || device_tag == 0x07 || device_tag == 0x08);
  ensures \forall integer c; 0x00 <= c <= 0x02 && \result != 0 ==>
            bp_dlpack_of_pair(device_tag, c) == \result;
*/
static int32_t classless_device_type(hurray_device_tag device_tag) {
  switch (device_tag) {
    case HURRAY_DEVICE_CPU: return HURRAY_DLPACK_CPU;
    case HURRAY_DEVICE_METAL: return HURRAY_DLPACK_METAL;
    case HURRAY_DEVICE_VULKAN: return HURRAY_DLPACK_VULKAN;
    case HURRAY_DEVICE_HEXAGON: return HURRAY_DLPACK_HEXAGON;
    case HURRAY_DEVICE_LEVEL_ZERO: return HURRAY_DLPACK_ONEAPI;
    case HURRAY_DEVICE_OPENCL: return HURRAY_DLPACK_OPENCL;
    default: return 0;
  }
}

/*@
  requires out_device_type == \null || \valid(out_device_type);
  requires err == \null || \valid(err);
  requires out_device_type != \null ==> \separated(out_device_type, err);
  terminates \true;
  assigns *out_device_type, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior unsupported:  // BP-DLPACK-1: never a guess
    assumes bp_dlpack_of_pair(device_tag, memory_class) == 0;
    ensures \result == HURRAY_ERR_UNSUPPORTED;
    ensures bp_error_is(err, \result, memory_class, device_tag, 0);
    ensures out_device_type != \null ==> *out_device_type == \old(*out_device_type);
  behavior no_out:
    assumes bp_dlpack_of_pair(device_tag, memory_class) != 0 && out_device_type == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior mapped:  // BP-DLPACK-1
    assumes bp_dlpack_of_pair(device_tag, memory_class) != 0 && out_device_type != \null;
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
    ensures *out_device_type == bp_dlpack_of_pair(device_tag, memory_class);
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_dlpack_device_type_from_pair(hurray_device_tag device_tag,
                                                  hurray_memory_class memory_class,
                                                  int32_t *out_device_type, hurray_error *err) {
  int32_t type = 0;
  if (memory_class <= HURRAY_MEMORY_UNIFIED) {
    type = classless_device_type(device_tag);
    if (type == 0) {
      if (device_tag == HURRAY_DEVICE_CUDA) {
        type = memory_class == HURRAY_MEMORY_STANDARD      ? HURRAY_DLPACK_CUDA
               : memory_class == HURRAY_MEMORY_HOST_PINNED ? HURRAY_DLPACK_CUDA_HOST
                                                           : HURRAY_DLPACK_CUDA_MANAGED;
      } else if (device_tag == HURRAY_DEVICE_ROCM) {
        type = memory_class == HURRAY_MEMORY_STANDARD      ? HURRAY_DLPACK_ROCM
               : memory_class == HURRAY_MEMORY_HOST_PINNED ? HURRAY_DLPACK_ROCM_HOST
                                                           : 0;
      } else if (device_tag == HURRAY_DEVICE_WEBGPU && memory_class == HURRAY_MEMORY_STANDARD) {
        type = HURRAY_DLPACK_WEBGPU;
      }
    }
  }
  if (type == 0) {
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, device_tag, 0);
  }
  if (out_device_type == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  *out_device_type = type;
  return HURRAY_OK;
}

/* The device tag of a DLPack device type (BP-DLPACK-2); HURRAY_DEVICE_INVALID
 * for a type with no mapping. The switch lives here, in a function of its own,
 * so that the caller's goals do not split over its twelve cases. */
/*@
  terminates \true;
  assigns \nothing;
  ensures \result == bp_dlpack_tag(device_type);
  ensures \result != 0xFF ==> bp_dlpack_of_pair(\result, bp_dlpack_class(device_type)) == device_type;
*/
static hurray_device_tag dlpack_device_tag(int32_t device_type) {
  switch (device_type) {
    case HURRAY_DLPACK_CPU: return HURRAY_DEVICE_CPU;
    case HURRAY_DLPACK_CUDA:
    case HURRAY_DLPACK_CUDA_HOST:
    case HURRAY_DLPACK_CUDA_MANAGED: return HURRAY_DEVICE_CUDA;
    case HURRAY_DLPACK_ROCM:
    case HURRAY_DLPACK_ROCM_HOST: return HURRAY_DEVICE_ROCM;
    case HURRAY_DLPACK_METAL: return HURRAY_DEVICE_METAL;
    case HURRAY_DLPACK_VULKAN: return HURRAY_DEVICE_VULKAN;
    case HURRAY_DLPACK_WEBGPU: return HURRAY_DEVICE_WEBGPU;
    case HURRAY_DLPACK_HEXAGON: return HURRAY_DEVICE_HEXAGON;
    case HURRAY_DLPACK_ONEAPI: return HURRAY_DEVICE_LEVEL_ZERO;
    case HURRAY_DLPACK_OPENCL: return HURRAY_DEVICE_OPENCL;
    default: return HURRAY_DEVICE_INVALID;
  }
}

/* The memory class of a DLPack device type that has a device tag
 * (BP-DLPACK-2): pinned host memory and managed memory have types of their
 * own, every other type is standard memory. */
/*@
  terminates \true;
  assigns \nothing;
  ensures \result == bp_dlpack_class(device_type);
*/
static hurray_memory_class dlpack_memory_class(int32_t device_type) {
  if (device_type == HURRAY_DLPACK_CUDA_HOST || device_type == HURRAY_DLPACK_ROCM_HOST) {
    return HURRAY_MEMORY_HOST_PINNED;
  }
  if (device_type == HURRAY_DLPACK_CUDA_MANAGED) {
    return HURRAY_MEMORY_UNIFIED;
  }
  return HURRAY_MEMORY_STANDARD;
}

/*@
  requires out_device_tag == \null || \valid(out_device_tag);
  requires out_memory_class == \null || \valid(out_memory_class);
  requires err == \null || \valid(err);
  requires out_device_tag != \null && out_memory_class != \null ==>
             \separated(out_device_tag, out_memory_class);
  requires out_device_tag != \null ==> \separated(out_device_tag, err);
  requires out_memory_class != \null ==> \separated(out_memory_class, err);
  terminates \true;
  assigns *out_device_tag, *out_memory_class, err->status, err->value, err->expected, err->index, err->detail[0];
  behavior unsupported:  // BP-DLPACK-2
    assumes bp_dlpack_tag(device_type) == 0xFF;
    ensures \result == HURRAY_ERR_UNSUPPORTED;
    ensures bp_error_is(err, \result,
                        device_type >= 0 ? device_type : device_type + 18446744073709551616,
                        0, 0);
    ensures out_device_tag != \null ==> *out_device_tag == \old(*out_device_tag);
    ensures out_memory_class != \null ==> *out_memory_class == \old(*out_memory_class);
  behavior no_tag_out:
    assumes bp_dlpack_tag(device_type) != 0xFF && out_device_tag == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 1);
  behavior no_class_out:
    assumes bp_dlpack_tag(device_type) != 0xFF && out_device_tag != \null;
    assumes out_memory_class == \null;
    ensures \result == HURRAY_ERR_NULL_ARGUMENT && bp_error_is(err, \result, 0, 0, 2);
  behavior mapped:  // BP-DLPACK-2
    assumes bp_dlpack_tag(device_type) != 0xFF && out_device_tag != \null;
    assumes out_memory_class != \null;
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
    ensures *out_device_tag == bp_dlpack_tag(device_type);
    ensures *out_memory_class == bp_dlpack_class(device_type);
    ensures bp_dlpack_of_pair(*out_device_tag, *out_memory_class) == device_type;
  complete behaviors;
  disjoint behaviors;
*/
hurray_status hurray_dlpack_device_type_to_pair(int32_t device_type,
                                                hurray_device_tag *out_device_tag,
                                                hurray_memory_class *out_memory_class,
                                                hurray_error *err) {
  hurray_device_tag tag = dlpack_device_tag(device_type);
  if (tag == HURRAY_DEVICE_INVALID) {
    /* The value is (uint64_t)device_type, written without converting a
     * negative number to an unsigned type (-warn-unsigned-downcast). */
    uint64_t value = device_type >= 0 ? (uint64_t)device_type
                                      : UINT64_MAX - (uint64_t)(-(int64_t)device_type) + 1u;
    return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, value, 0, 0);
  }
  if (out_device_tag == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (out_memory_class == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  *out_device_tag = tag;
  *out_memory_class = dlpack_memory_class(device_type);
  return HURRAY_OK;
}
