/*
 * libhurray device plugin: Metal (device tag 0x03 metal).
 *
 * Runtime: the Metal framework through the Objective-C runtime, both loaded
 * at run time by metal_objc.c: "/usr/lib/libobjc.A.dylib" and
 * "/System/Library/Frameworks/Metal.framework/Metal", the latter overridable
 * with HURRAY_METAL_LIBRARY. Every Objective-C message goes through the
 * function-pointer table of metal_ops.h, so this file holds only the
 * plugin's logic: sections 2 and 3 (vendor declarations and the vendor
 * symbol table) are in metal_objc.c, and the tests link this same file
 * against a fake table (tests/fakes/fake_metal_ops.c). On a system without
 * Metal the plugin initialises and reports zero devices, saying which
 * library could not be loaded.
 *
 * One device: MTLCreateSystemDefaultDevice().
 * Memory classes (facts §5, specs BP-PAIR-1), newBufferWithLength:options:
 *   standard    -> MTLStorageModePrivate (GPU only; copies go through a
 *                  shared staging buffer and a blit);
 *   host_pinned -> MTLStorageModeManaged, discrete GPUs only (the device
 *                  reports no unified memory); writes call didModifyRange:,
 *                  reads synchronizeResource: first;
 *   unified     -> MTLStorageModeShared, on unified-memory devices (Apple
 *                  silicon); the host reads and writes the contents directly.
 * Alignment: measured from [buffer contents] (shared, managed) or
 * [buffer gpuAddress] (private, macOS 13+); where a private buffer has no
 * visible address, the guarantee reported is 256 bytes (Metal's buffer
 * offset alignment) with alignment_basis DEVICE_GUARANTEE. Metal buffers are
 * page-aligned, so up to 4096 bytes is offered; an address that measures
 * less than asked is refused, never downgraded.
 * Events: one MTLSharedEvent per plugin event, signalled with a rising value
 * by encodeSignalEvent:value: on a command buffer; waits poll signaledValue
 * against a deadline. Streams are MTLCommandQueue objects (NULL: the
 * plugin's queue). No IPC capability is declared.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hurray/plugin_vendor.h"
#include "metal_ops.h"
#include "plugin_allocation.h"
#include "hurray/plugin_support.h"

/* Sections 2 (vendor declarations) and 3 (the vendor symbol table): see
 * metal_objc.c and metal_ops.h. */

#define METAL_MAX_ALIGNMENT 4096u
#define METAL_PRIVATE_GUARANTEE 256u

typedef struct metal_state {
  metal_ops mtl;
  bool opened;
  void *device;
  void *queue;
  bool unified_memory;
  uint64_t memory_bytes;
  char name[HURRAY_PLUGIN_DEVICE_NAME_SIZE];
  uint32_t device_count; /* 0 or 1 */
  char reason[HURRAY_ERROR_DETAIL_SIZE];
} metal_state;

typedef struct metal_event {
  void *shared_event;
  /* Last value a recording will signal; 0 = never recorded (complete).
   * Atomic-free: the ABI allows concurrent entries on different events, and
   * one event is recorded and waited on by its owner in turn. */
  uint64_t target;
} metal_event;

static uint64_t metal_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static void metal_open(metal_state *s) {
  if (!metal_ops_open(&s->mtl, s->reason, sizeof s->reason)) {
    return;
  }
  s->opened = true;
  void *pool = s->mtl.pool_push();
  s->device = s->mtl.create_system_default_device();
  if (s->device == NULL) {
    snprintf(s->reason, sizeof s->reason,
             "MTLCreateSystemDefaultDevice returned nil: no Metal device");
  } else {
    s->queue = s->mtl.new_command_queue(s->device);
    if (s->queue == NULL) {
      snprintf(s->reason, sizeof s->reason, "[MTLDevice newCommandQueue] returned nil");
      s->mtl.release(s->device);
      s->device = NULL;
    }
  }
  if (s->device != NULL) {
    s->mtl.device_name(s->device, s->name, sizeof s->name);
    s->unified_memory = s->mtl.has_unified_memory(s->device);
    s->memory_bytes = s->mtl.recommended_max_working_set_size(s->device);
    s->device_count = 1;
  }
  s->mtl.pool_pop(pool);
  if (s->device == NULL) {
    metal_ops_close(&s->mtl);
    s->opened = false;
  }
}

static hurray_status metal_init(void **out_state, hurray_error *err) {
  metal_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "metal: no memory for the plugin state");
  }
  metal_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static void metal_shutdown(void *state) {
  metal_state *s = state;
  if (s->opened) {
    s->mtl.release(s->queue);
    s->mtl.release(s->device);
    metal_ops_close(&s->mtl);
  }
  free(s);
}

static hurray_status metal_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((metal_state *)state)->device_count;
  return HURRAY_OK;
}

static size_t metal_unavailable_reason(void *state, char *buf, size_t cap) {
  const metal_state *s = state;
  int n = snprintf(buf, cap, "%s", s->device_count > 0 ? "" : s->reason);
  return n < 0 ? 0 : (size_t)n;
}

/* The storage mode of each class this device offers (see the header). */
static bool metal_storage_of(const metal_state *s, hurray_memory_class memory_class,
                             uint64_t *options) {
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: *options = METAL_STORAGE_PRIVATE; return true;
    case HURRAY_MEMORY_HOST_PINNED: *options = METAL_STORAGE_MANAGED; return !s->unified_memory;
    case HURRAY_MEMORY_UNIFIED: *options = METAL_STORAGE_SHARED; return s->unified_memory;
    default: return false;
  }
}

static hurray_status metal_check_device(const metal_state *s, uint32_t device_index,
                                        hurray_error *err) {
  if (device_index >= s->device_count) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index,
                                     s->device_count, "metal: no device %u",
                                     (unsigned)device_index);
  }
  return HURRAY_OK;
}

static hurray_status metal_describe_device(void *state, uint32_t device_index,
                                           hurray_plugin_device_info *out, hurray_error *err) {
  const metal_state *s = state;
  hurray_status status = metal_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.ipc_capabilities = 0u;
  memcpy(info.name, s->name, sizeof info.name);
  info.memory_bytes = s->memory_bytes;
  static const hurray_memory_class classes[] = {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED,
                                                HURRAY_MEMORY_UNIFIED};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    uint64_t options = 0;
    if (metal_storage_of(s, classes[i], &options)) {
      hurray_plugin_memory_class_info *c = &info.memory_classes[info.memory_class_count++];
      c->memory_class = classes[i];
      c->flags = classes[i] == HURRAY_MEMORY_STANDARD ? 0u : HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE;
      c->max_alignment = METAL_MAX_ALIGNMENT;
    }
  }
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

static hurray_status metal_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                    uint32_t alignment, hurray_memory_class memory_class,
                                    uint32_t flags, hurray_plugin_allocation *out,
                                    hurray_error *err) {
  const metal_state *s = state;
  uint64_t options = 0;
  hurray_status status = metal_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (!metal_storage_of(s, memory_class, &options)) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_METAL,
                                     "metal: memory class 0x%02X is not offered by this %s device",
                                     (unsigned)memory_class,
                                     s->unified_memory ? "unified-memory" : "discrete");
  }
  if (flags != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0,
                                     "metal: allocate flags must be 0 in ABI 1.x");
  }
  if (alignment > METAL_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, METAL_MAX_ALIGNMENT,
                                     "metal: alignment %u above the %u this plugin guarantees",
                                     (unsigned)alignment, METAL_MAX_ALIGNMENT);
  }
  void *pool = s->mtl.pool_push();
  void *buffer = s->mtl.new_buffer(s->device, byte_size, options);
  void *contents =
      buffer != NULL && options != METAL_STORAGE_PRIVATE ? s->mtl.buffer_contents(buffer) : NULL;
  uint64_t gpu_address = buffer != NULL ? s->mtl.buffer_gpu_address(buffer) : 0u;
  s->mtl.pool_pop(pool);
  if (buffer == NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
        "[MTLDevice newBufferWithLength:%llu options:0x%llx] returned nil",
        (unsigned long long)byte_size, (unsigned long long)options);
  }
  hurray_plugin_allocation a;
  plugin_allocation_init(&a, byte_size, device_index, memory_class);
  a.host_address = contents;
  a.device_address = gpu_address;
  a.plugin_data = buffer;
  uint64_t measured;
  if (contents != NULL) {
    /* The base address of shared or managed storage is its contents pointer. */
    a.address = contents;
    measured = hurray_support_lowest_set_bit((uint64_t)(uintptr_t)contents);
    a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  } else if (gpu_address != 0) {
    /* Private storage: the GPU resource handle is the MTLBuffer (BP-DEV-5). */
    a.address = buffer;
    measured = hurray_support_lowest_set_bit(gpu_address);
    a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  } else {
    a.address = buffer;
    measured = METAL_PRIVATE_GUARANTEE;
    a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  }
  if (measured < alignment) {
    s->mtl.release(buffer);
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, measured,
                                     "metal: the buffer is aligned to %llu bytes, %u were asked",
                                     (unsigned long long)measured, (unsigned)alignment);
  }
  a.alignment = (uint32_t)(measured < METAL_MAX_ALIGNMENT ? measured : METAL_MAX_ALIGNMENT);
  hurray_plugin_copy_out(out, &a, sizeof a);
  return HURRAY_OK;
}

static void metal_free(void *state, const hurray_plugin_allocation *allocation) {
  const metal_state *s = state;
  s->mtl.release(allocation->plugin_data);
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */
/* The host has already checked the range (PL-COPY-2). Private storage goes
 * through a shared staging buffer and a blit; waitUntilCompleted returns
 * when the GPU has done it. */

static hurray_status metal_blit_through_staging(const metal_state *s, void *buffer, uint64_t offset,
                                                void *host, uint64_t bytes, bool to_device,
                                                hurray_error *err) {
  void *pool = s->mtl.pool_push();
  void *staging = s->mtl.new_buffer(s->device, bytes, METAL_STORAGE_SHARED);
  void *command_buffer = staging != NULL ? s->mtl.command_buffer(s->queue) : NULL;
  if (staging == NULL || command_buffer == NULL) {
    if (staging != NULL) {
      s->mtl.release(staging);
    }
    s->mtl.pool_pop(pool);
    return hurray_support_entry_fail(
        err, HURRAY_ERR_OUT_OF_MEMORY, bytes, 0,
        "metal: no staging buffer or command buffer for a %llu-byte copy",
        (unsigned long long)bytes);
  }
  unsigned char *contents = s->mtl.buffer_contents(staging);
  if (to_device) {
    memcpy(contents, host, (size_t)bytes);
    s->mtl.blit_copy(command_buffer, staging, 0, buffer, offset, bytes);
  } else {
    s->mtl.blit_copy(command_buffer, buffer, offset, staging, 0, bytes);
  }
  s->mtl.commit(command_buffer);
  s->mtl.wait_until_completed(command_buffer);
  if (!to_device) {
    memcpy(host, contents, (size_t)bytes);
  }
  s->mtl.release(staging);
  s->mtl.pool_pop(pool);
  return HURRAY_OK;
}

static hurray_status metal_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                          uint64_t dst_offset, const void *src, uint64_t bytes,
                                          hurray_error *err) {
  const metal_state *s = state;
  if (bytes == 0) {
    return HURRAY_OK;
  }
  if (dst->host_address == NULL) {
    return metal_blit_through_staging(s, dst->plugin_data, dst_offset, (void *)(uintptr_t)src,
                                      bytes, true, err);
  }
  memcpy((unsigned char *)dst->host_address + dst_offset, src, (size_t)bytes);
  if (dst->memory_class == HURRAY_MEMORY_HOST_PINNED) {
    s->mtl.buffer_did_modify_range(dst->plugin_data, dst_offset, bytes);
  }
  return HURRAY_OK;
}

static hurray_status metal_copy_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                        uint64_t src_offset, uint64_t bytes, hurray_error *err) {
  const metal_state *s = state;
  if (bytes == 0) {
    return HURRAY_OK;
  }
  if (src->host_address == NULL) {
    return metal_blit_through_staging(s, src->plugin_data, src_offset, dst, bytes, false, err);
  }
  if (src->memory_class == HURRAY_MEMORY_HOST_PINNED) {
    /* Managed storage: bring the GPU's writes back to the CPU copy first. */
    void *pool = s->mtl.pool_push();
    void *command_buffer = s->mtl.command_buffer(s->queue);
    if (command_buffer == NULL) {
      s->mtl.pool_pop(pool);
      return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                       "[MTLCommandQueue commandBuffer] returned nil");
    }
    s->mtl.blit_synchronize(command_buffer, src->plugin_data);
    s->mtl.commit(command_buffer);
    s->mtl.wait_until_completed(command_buffer);
    s->mtl.pool_pop(pool);
  }
  memcpy(dst, (const unsigned char *)src->host_address + src_offset, (size_t)bytes);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* An MTLSharedEvent on the device, at signaled value 0. */
static hurray_status metal_new_shared_event(const metal_state *s, void **out_shared_event,
                                            hurray_error *err) {
  *out_shared_event = s->mtl.new_shared_event(s->device);
  if (*out_shared_event == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                     "[MTLDevice newSharedEvent] returned nil");
  }
  return HURRAY_OK;
}

static hurray_status metal_create_event(void *state, uint32_t device_index, void **out_event,
                                        hurray_error *err) {
  const metal_state *s = state;
  hurray_status status = metal_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  metal_event *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *e, 0,
                                     "metal: no memory for an event");
  }
  status = metal_new_shared_event(s, &e->shared_event, err);
  if (status != HURRAY_OK) {
    free(e);
    return status;
  }
  *out_event = e;
  return HURRAY_OK;
}

/* Commits a command buffer on `queue` that signals (or waits for) the
 * event's value. */
static hurray_status metal_encode_event(const metal_state *s, void *queue, void *shared_event,
                                        uint64_t value, bool signal, hurray_error *err) {
  void *pool = s->mtl.pool_push();
  void *command_buffer = s->mtl.command_buffer(queue != NULL ? queue : s->queue);
  if (command_buffer == NULL) {
    s->mtl.pool_pop(pool);
    return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                     "[MTLCommandQueue commandBuffer] returned nil");
  }
  if (signal) {
    s->mtl.encode_signal_event(command_buffer, shared_event, value);
  } else {
    s->mtl.encode_wait_for_event(command_buffer, shared_event, value);
  }
  s->mtl.commit(command_buffer);
  s->mtl.pool_pop(pool);
  return HURRAY_OK;
}

static hurray_status metal_record_event(void *state, void *event, void *stream, hurray_error *err) {
  metal_event *e = event;
  uint64_t value = e->target + 1u;
  hurray_status status = metal_encode_event(state, stream, e->shared_event, value, true, err);
  if (status == HURRAY_OK) {
    e->target = value;
  }
  return status;
}

static hurray_status metal_poll_event(const metal_state *s, void *shared_event, uint64_t target,
                                      uint64_t timeout_ns, hurray_error *err) {
  uint64_t start = metal_now_ns();
  long pause_ns = 1000;
  while (s->mtl.signaled_value(shared_event) < target) {
    if (timeout_ns != HURRAY_PLUGIN_WAIT_FOREVER && metal_now_ns() - start >= timeout_ns) {
      return hurray_support_entry_fail(
          err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
          "MTLSharedEvent signaledValue still below %llu after %llu ns (not complete)",
          (unsigned long long)target, (unsigned long long)timeout_ns);
    }
    struct timespec pause = {0, pause_ns};
    nanosleep(&pause, NULL);
    pause_ns = pause_ns < 1000000 ? pause_ns * 2 : pause_ns;
  }
  return HURRAY_OK;
}

static hurray_status metal_wait_event(void *state, void *event, uint64_t timeout_ns,
                                      hurray_error *err) {
  const metal_event *e = event;
  return metal_poll_event(state, e->shared_event, e->target, timeout_ns, err);
}

static void metal_release_event(void *state, void *event) {
  const metal_state *s = state;
  metal_event *e = event;
  s->mtl.release(e->shared_event);
  free(e);
}

static hurray_status metal_stream_wait_event(void *state, void *stream, void *event,
                                             hurray_error *err) {
  const metal_event *e = event;
  if (e->target == 0) {
    return HURRAY_OK;
  }
  return metal_encode_event(state, stream, e->shared_event, e->target, false, err);
}

static hurray_status metal_wait_stream(void *state, uint32_t device_index, void *stream,
                                       uint64_t timeout_ns, hurray_error *err) {
  /* The marker event lives on this stack frame: it never leaves this call,
   * so it needs no allocation (and cannot be a null pointer). */
  const metal_state *s = state;
  hurray_status status = metal_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  metal_event marker = {NULL, 0};
  status = metal_new_shared_event(s, &marker.shared_event, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = metal_record_event(state, &marker, stream, err);
  if (status == HURRAY_OK) {
    status = metal_wait_event(state, &marker, timeout_ns, err);
  }
  s->mtl.release(marker.shared_event);
  return status;
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the MTLSharedEvent and the value its last record signals (0:
 * never recorded, already reached). */
static hurray_status metal_native_event(void *state, void *event, hurray_plugin_native_event *out,
                                        hurray_error *err) {
  (void)state;
  (void)err;
  const metal_event *e = event;
  out->native_type = HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
  out->handle = (uint64_t)(uintptr_t)e->shared_event;
  out->wait_value = e->target;
  return HURRAY_OK;
}

static const hurray_plugin_table metal_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "metal",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_METAL,
    .init = metal_init,
    .shutdown = metal_shutdown,
    .count_devices = metal_count_devices,
    .describe_device = metal_describe_device,
    .allocate = metal_allocate,
    .free = metal_free,
    .copy_to_device = metal_copy_to_device,
    .copy_to_host = metal_copy_to_host,
    .unavailable_reason = metal_unavailable_reason,
    .create_event = metal_create_event,
    .record_event = metal_record_event,
    .wait_event = metal_wait_event,
    .release_event = metal_release_event,
    .wait_stream = metal_wait_stream,
    .stream_wait_event = metal_stream_wait_event,
    .native_event = metal_native_event,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &metal_table;
}
