/*
 * DLPack device types: BP-DLPACK-1 (export) and BP-DLPACK-2 (import).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

/* DLPack type for a named device whose every non-peer class shares one
 * DLPack value; 0 when the device does not work that way. */
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

hurray_status hurray_dlpack_device_type_to_pair(int32_t device_type,
                                                hurray_device_tag *out_device_tag,
                                                hurray_memory_class *out_memory_class,
                                                hurray_error *err) {
  hurray_device_tag tag;
  hurray_memory_class memory_class = HURRAY_MEMORY_STANDARD;
  switch (device_type) {
    case HURRAY_DLPACK_CPU: tag = HURRAY_DEVICE_CPU; break;
    case HURRAY_DLPACK_CUDA: tag = HURRAY_DEVICE_CUDA; break;
    case HURRAY_DLPACK_CUDA_HOST:
      tag = HURRAY_DEVICE_CUDA;
      memory_class = HURRAY_MEMORY_HOST_PINNED;
      break;
    case HURRAY_DLPACK_CUDA_MANAGED:
      tag = HURRAY_DEVICE_CUDA;
      memory_class = HURRAY_MEMORY_UNIFIED;
      break;
    case HURRAY_DLPACK_ROCM: tag = HURRAY_DEVICE_ROCM; break;
    case HURRAY_DLPACK_ROCM_HOST:
      tag = HURRAY_DEVICE_ROCM;
      memory_class = HURRAY_MEMORY_HOST_PINNED;
      break;
    case HURRAY_DLPACK_METAL: tag = HURRAY_DEVICE_METAL; break;
    case HURRAY_DLPACK_VULKAN: tag = HURRAY_DEVICE_VULKAN; break;
    case HURRAY_DLPACK_WEBGPU: tag = HURRAY_DEVICE_WEBGPU; break;
    case HURRAY_DLPACK_HEXAGON: tag = HURRAY_DEVICE_HEXAGON; break;
    case HURRAY_DLPACK_ONEAPI: tag = HURRAY_DEVICE_LEVEL_ZERO; break;
    case HURRAY_DLPACK_OPENCL: tag = HURRAY_DEVICE_OPENCL; break;
    default:
      return hurray_fail(err, HURRAY_ERR_UNSUPPORTED, (uint64_t)(int64_t)device_type, 0, 0);
  }
  if (out_device_tag == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (out_memory_class == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  *out_device_tag = tag;
  *out_memory_class = memory_class;
  return HURRAY_OK;
}
