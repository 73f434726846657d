/*
 * Stand-in for a webgpu.h implementation (libwgpu_native.so /
 * libwebgpu_dawn.so): the functions the webgpu plugin calls, with the
 * declarations of plugins/webgpu/webgpu_declarations.h, backed by host
 * memory. Asynchronous answers (adapter, device, map, error scope) are queued
 * and delivered by wgpuInstanceProcessEvents, as in AllowProcessEvents mode.
 * Switches: fake_common.h. HURRAY_FAKE_DEVICES=0: no adapter.
 * HURRAY_FAKE_OOM=1: buffer creation raises an OutOfMemory error (caught by
 * an error scope) and returns an error buffer, as implementations do.
 * HURRAY_FAKE_EVENT_HANG=1: work submitted from then on never completes, so
 * maps waiting for it never answer (until their buffer is destroyed).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#include "fake_common.h"
#include "webgpu_declarations.h"

#define MAP_ABORTED 4u
#define MAP_ERROR 3u
#define ADAPTER_UNAVAILABLE 3u

struct WGPUInstanceImpl {
  int unused;
};
struct WGPUAdapterImpl {
  int unused;
};
struct WGPUQueueImpl {
  int unused;
};
struct WGPUDeviceImpl {
  bool hung;
  WGPUErrorFilter scope_filters[8];
  WGPUErrorType scope_errors[8];
  size_t scope_depth;
};
struct WGPUBufferImpl {
  uint64_t size;
  unsigned char *data; /* NULL for an error buffer */
  bool mapped;
  bool map_pending;
  bool destroyed;
};
typedef struct fake_copy {
  WGPUBuffer from;
  uint64_t from_offset;
  WGPUBuffer to;
  uint64_t to_offset;
  uint64_t size;
} fake_copy;
struct WGPUCommandEncoderImpl {
  fake_copy copies[8];
  size_t count;
};
struct WGPUCommandBufferImpl {
  fake_copy copies[8];
  size_t count;
};

/* One queued answer. */
typedef enum answer_kind { ANSWER_ADAPTER, ANSWER_DEVICE, ANSWER_MAP, ANSWER_SCOPE } answer_kind;
typedef struct fake_answer {
  answer_kind kind;
  uint32_t status;
  uint32_t error_type;
  void *object;
  WGPUBuffer buffer; /* ANSWER_MAP */
  bool waits_for_device;
  void (*callback)(void);
  void *userdata1;
  void *userdata2;
  struct fake_answer *next;
} fake_answer;

static fake_registry registry = FAKE_REGISTRY_INIT;
static fake_answer *answers;
static struct WGPUDeviceImpl *the_device;
static uint64_t next_future = 1;

FAKE_EXPORT long hurray_fake_live_objects(void);
long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

static WGPUStringView text(const char *s) {
  WGPUStringView view = {s, WGPU_STRLEN};
  return view;
}

/* Queues `a` for wgpuInstanceProcessEvents, to be delivered through the
 * callback of the call's info: each call's callback has a type of its own,
 * kept here as a plain function pointer of the same size. */
static WGPUFuture queue_answer(fake_answer *a, const void *callback, void *userdata1,
                               void *userdata2) {
  memcpy(&a->callback, callback, sizeof a->callback);
  a->userdata1 = userdata1;
  a->userdata2 = userdata2;
  a->next = answers;
  answers = a;
  WGPUFuture future = {next_future++};
  return future;
}

FAKE_EXPORT WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor *descriptor);
WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor *descriptor) {
  (void)descriptor;
  return fake_new_object(&registry, sizeof(struct WGPUInstanceImpl));
}

FAKE_EXPORT void wgpuInstanceRelease(WGPUInstance instance);
void wgpuInstanceRelease(WGPUInstance instance) { fake_free_object(&registry, instance); }

FAKE_EXPORT WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                                  const WGPURequestAdapterOptions *options,
                                                  WGPURequestAdapterCallbackInfo info);
WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                      const WGPURequestAdapterOptions *options,
                                      WGPURequestAdapterCallbackInfo info) {
  (void)instance;
  (void)options;
  fake_answer *a = calloc(1, sizeof *a);
  a->kind = ANSWER_ADAPTER;
  if (fake_device_count() > 0) {
    a->status = WGPU_STATUS_SUCCESS;
    a->object = fake_new_object(&registry, sizeof(struct WGPUAdapterImpl));
  } else {
    a->status = ADAPTER_UNAVAILABLE;
  }
  return queue_answer(a, &info.callback, info.userdata1, info.userdata2);
}

FAKE_EXPORT void wgpuAdapterRelease(WGPUAdapter adapter);
void wgpuAdapterRelease(WGPUAdapter adapter) { fake_free_object(&registry, adapter); }

FAKE_EXPORT WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter,
                                                const WGPUDeviceDescriptor *descriptor,
                                                WGPURequestDeviceCallbackInfo info);
WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor,
                                    WGPURequestDeviceCallbackInfo info) {
  (void)adapter;
  (void)descriptor;
  fake_answer *a = calloc(1, sizeof *a);
  a->kind = ANSWER_DEVICE;
  a->status = WGPU_STATUS_SUCCESS;
  the_device = fake_new_object(&registry, sizeof(struct WGPUDeviceImpl));
  a->object = the_device;
  return queue_answer(a, &info.callback, info.userdata1, info.userdata2);
}

FAKE_EXPORT void wgpuDeviceRelease(WGPUDevice device);
void wgpuDeviceRelease(WGPUDevice device) {
  if (device == the_device) {
    the_device = NULL;
  }
  fake_free_object(&registry, device);
}

FAKE_EXPORT WGPUQueue wgpuDeviceGetQueue(WGPUDevice device);
WGPUQueue wgpuDeviceGetQueue(WGPUDevice device) {
  (void)device;
  return fake_new_object(&registry, sizeof(struct WGPUQueueImpl));
}

FAKE_EXPORT void wgpuQueueRelease(WGPUQueue queue);
void wgpuQueueRelease(WGPUQueue queue) { fake_free_object(&registry, queue); }

FAKE_EXPORT void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter);
void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter) {
  if (device->scope_depth < 8) {
    device->scope_filters[device->scope_depth] = filter;
    device->scope_errors[device->scope_depth] = WGPUErrorType_NoError;
  }
  device->scope_depth++;
}

FAKE_EXPORT WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device,
                                               WGPUPopErrorScopeCallbackInfo info);
WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo info) {
  fake_answer *a = calloc(1, sizeof *a);
  a->kind = ANSWER_SCOPE;
  a->status = device->scope_depth > 0 ? WGPU_STATUS_SUCCESS : 2u;
  if (device->scope_depth > 0) {
    device->scope_depth--;
    a->error_type = device->scope_depth < 8 ? device->scope_errors[device->scope_depth]
                                            : WGPUErrorType_NoError;
  }
  return queue_answer(a, &info.callback, info.userdata1, info.userdata2);
}

FAKE_EXPORT WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device,
                                              const WGPUBufferDescriptor *descriptor);
WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, const WGPUBufferDescriptor *descriptor) {
  WGPUBuffer buffer = fake_new_object(&registry, sizeof *buffer);
  buffer->size = descriptor->size;
  if (fake_env_flag("HURRAY_FAKE_OOM") || descriptor->size % 4u != 0 || descriptor->size == 0) {
    /* An error buffer; the error goes to the innermost matching scope. */
    for (size_t i = device->scope_depth; i > 0; i--) {
      if (i - 1 < 8 && device->scope_filters[i - 1] == WGPUErrorFilter_OutOfMemory) {
        device->scope_errors[i - 1] = WGPUErrorType_OutOfMemory;
        break;
      }
    }
    return buffer;
  }
  buffer->data = fake_allocate(&registry, (size_t)descriptor->size, 0, 0);
  memset(buffer->data, 0, (size_t)descriptor->size);
  buffer->mapped = descriptor->mappedAtCreation != 0;
  return buffer;
}

FAKE_EXPORT WGPUCommandEncoder
wgpuDeviceCreateCommandEncoder(WGPUDevice device, const WGPUCommandEncoderDescriptor *descriptor);
WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device,
                                                  const WGPUCommandEncoderDescriptor *descriptor) {
  (void)device;
  (void)descriptor;
  return fake_new_object(&registry, sizeof(struct WGPUCommandEncoderImpl));
}

FAKE_EXPORT void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer source,
                                                      uint64_t source_offset,
                                                      WGPUBuffer destination,
                                                      uint64_t destination_offset, uint64_t size);
void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer source,
                                          uint64_t source_offset, WGPUBuffer destination,
                                          uint64_t destination_offset, uint64_t size) {
  if (encoder->count < 8) {
    fake_copy copy = {source, source_offset, destination, destination_offset, size};
    encoder->copies[encoder->count++] = copy;
  }
}

FAKE_EXPORT WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder,
                                                       const WGPUCommandBufferDescriptor *d);
WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder,
                                           const WGPUCommandBufferDescriptor *d) {
  (void)d;
  WGPUCommandBuffer commands = fake_new_object(&registry, sizeof *commands);
  memcpy(commands->copies, encoder->copies, sizeof commands->copies);
  commands->count = encoder->count;
  return commands;
}

FAKE_EXPORT void wgpuCommandEncoderRelease(WGPUCommandEncoder encoder);
void wgpuCommandEncoderRelease(WGPUCommandEncoder encoder) { fake_free_object(&registry, encoder); }

FAKE_EXPORT void wgpuCommandBufferRelease(WGPUCommandBuffer commands);
void wgpuCommandBufferRelease(WGPUCommandBuffer commands) { fake_free_object(&registry, commands); }

/* Copies run at submission; a copy out of range or between mapped buffers
 * is a validation error in WebGPU and does nothing here. */
FAKE_EXPORT void wgpuQueueSubmit(WGPUQueue queue, size_t count, const WGPUCommandBuffer *commands);
void wgpuQueueSubmit(WGPUQueue queue, size_t count, const WGPUCommandBuffer *commands) {
  (void)queue;
  for (size_t i = 0; i < count; i++) {
    for (size_t j = 0; j < commands[i]->count; j++) {
      const fake_copy *c = &commands[i]->copies[j];
      if (c->from->data != NULL && c->to->data != NULL && !c->from->mapped && !c->to->mapped &&
          c->from_offset + c->size <= c->from->size && c->to_offset + c->size <= c->to->size) {
        memcpy(c->to->data + c->to_offset, c->from->data + c->from_offset, (size_t)c->size);
      }
    }
  }
  if (the_device != NULL && fake_env_flag("HURRAY_FAKE_EVENT_HANG")) {
    the_device->hung = true;
  }
}

FAKE_EXPORT WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset,
                                          size_t size, WGPUBufferMapCallbackInfo info);
WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,
                              WGPUBufferMapCallbackInfo info) {
  (void)mode;
  fake_answer *a = calloc(1, sizeof *a);
  a->kind = ANSWER_MAP;
  a->buffer = buffer;
  bool valid = buffer->data != NULL && !buffer->mapped && !buffer->map_pending &&
               !buffer->destroyed && offset + size <= buffer->size;
  a->status = valid ? WGPU_STATUS_SUCCESS : MAP_ERROR;
  a->waits_for_device = valid;
  buffer->map_pending = valid;
  return queue_answer(a, &info.callback, info.userdata1, info.userdata2);
}

FAKE_EXPORT void *wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset, size_t size);
void *wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  if (!buffer->mapped || buffer->data == NULL || offset + size > buffer->size) {
    return NULL;
  }
  return buffer->data + offset;
}

FAKE_EXPORT const void *wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset,
                                                      size_t size);
const void *wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  return wgpuBufferGetMappedRange(buffer, offset, size);
}

FAKE_EXPORT void wgpuBufferUnmap(WGPUBuffer buffer);
void wgpuBufferUnmap(WGPUBuffer buffer) { buffer->mapped = false; }

/* Destroying a buffer aborts its pending map: the answer still comes. */
FAKE_EXPORT void wgpuBufferDestroy(WGPUBuffer buffer);
void wgpuBufferDestroy(WGPUBuffer buffer) {
  for (fake_answer *a = answers; a != NULL; a = a->next) {
    if (a->kind == ANSWER_MAP && a->buffer == buffer) {
      a->status = MAP_ABORTED;
      a->waits_for_device = false;
      a->buffer = NULL;
    }
  }
  if (buffer->data != NULL) {
    (void)fake_release(&registry, buffer->data, -1);
    buffer->data = NULL;
  }
  buffer->destroyed = true;
  buffer->mapped = false;
  buffer->map_pending = false;
}

FAKE_EXPORT void wgpuBufferRelease(WGPUBuffer buffer);
void wgpuBufferRelease(WGPUBuffer buffer) {
  if (!buffer->destroyed) {
    wgpuBufferDestroy(buffer);
  }
  fake_free_object(&registry, buffer);
}

/* Delivers every answer that is ready; a map waits while the device hangs. */
FAKE_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance);
void wgpuInstanceProcessEvents(WGPUInstance instance) {
  (void)instance;
  fake_answer *ready = NULL;
  for (fake_answer **link = &answers; *link != NULL;) {
    fake_answer *a = *link;
    if (a->waits_for_device && the_device != NULL && the_device->hung) {
      link = &a->next;
      continue;
    }
    *link = a->next;
    a->next = ready;
    ready = a;
  }
  while (ready != NULL) {
    fake_answer *a = ready;
    ready = a->next;
    if (a->kind == ANSWER_ADAPTER) {
      WGPURequestAdapterCallback cb;
      memcpy(&cb, &a->callback, sizeof cb);
      cb(a->status, a->object,
         text(a->status == WGPU_STATUS_SUCCESS ? "" : "no adapter (HURRAY_FAKE_DEVICES=0)"),
         a->userdata1, a->userdata2);
    } else if (a->kind == ANSWER_DEVICE) {
      WGPURequestDeviceCallback cb;
      memcpy(&cb, &a->callback, sizeof cb);
      cb(a->status, a->object, text(""), a->userdata1, a->userdata2);
    } else if (a->kind == ANSWER_MAP) {
      if (a->buffer != NULL) {
        a->buffer->map_pending = false;
        a->buffer->mapped = a->status == WGPU_STATUS_SUCCESS;
      }
      WGPUBufferMapCallback cb;
      memcpy(&cb, &a->callback, sizeof cb);
      cb(a->status, text(a->status == MAP_ABORTED ? "aborted: buffer destroyed" : ""), a->userdata1,
         a->userdata2);
    } else {
      WGPUPopErrorScopeCallback cb;
      memcpy(&cb, &a->callback, sizeof cb);
      cb(a->status, a->error_type, text(""), a->userdata1, a->userdata2);
    }
    free(a);
  }
}
