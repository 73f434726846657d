/*
 * Stand-in for the HIP runtime (libamdhip64.so): the subset the rocm plugin
 * calls, with the prototypes of Debian's <hip/hip_runtime_api.h>, backed by
 * host memory. Switches: fake_common.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#include "fake_common.h"

enum { KIND_DEVICE = 1, KIND_HOST = 2, KIND_MANAGED = 3 };

struct ihipStream_t {
  const fake_event *blocked_on;
};
struct ihipEvent_t {
  fake_event_object object;
};

static fake_registry registry = FAKE_REGISTRY_INIT_NAMED("hip");
static _Thread_local int current_device;

FAKE_EXPORT long hurray_fake_live_objects(void);
long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

static bool valid_device(int dev) { return dev >= 0 && dev < fake_device_count(); }

hipError_t hipInit(unsigned int flags) {
  if (flags != 0) {
    return hipErrorInvalidValue;
  }
  return fake_device_count() > 0 ? hipSuccess : hipErrorNoDevice;
}

hipError_t hipDriverGetVersion(int *driverVersion) {
  if (driverVersion == NULL) {
    return hipErrorInvalidValue;
  }
  *driverVersion = HIP_VERSION;
  return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count) {
  if (count == NULL) {
    return hipErrorInvalidValue;
  }
  *count = fake_device_count() > 0 ? fake_device_count() : 0;
  return *count > 0 ? hipSuccess : hipErrorNoDevice;
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal) {
  if (device == NULL || !valid_device(ordinal)) {
    return hipErrorInvalidDevice;
  }
  *device = ordinal;
  return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device) {
  if (!valid_device(device) || name == NULL || len <= 0) {
    return hipErrorInvalidValue;
  }
  snprintf(name, (size_t)len, "Stand-in HIP device %d", device);
  return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId) {
  if (!valid_device(deviceId) || pi == NULL) {
    return hipErrorInvalidDevice;
  }
  switch (attr) {
    case hipDeviceAttributeManagedMemory:
    case hipDeviceAttributeConcurrentManagedAccess:
      *pi = fake_env_flag("HURRAY_FAKE_NO_UNIFIED") ? 0 : 1;
      break;
    default: *pi = 0; break;
  }
  return hipSuccess;
}

hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device) {
  if (!valid_device(device) || bytes == NULL) {
    return hipErrorInvalidDevice;
  }
  *bytes = (size_t)1 << 30;
  return hipSuccess;
}

hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId) {
  if (!valid_device(deviceId) || !valid_device(peerDeviceId) || canAccessPeer == NULL) {
    return hipErrorInvalidDevice;
  }
  *canAccessPeer = deviceId != peerDeviceId && !fake_env_flag("HURRAY_FAKE_NO_PEER");
  return hipSuccess;
}

hipError_t hipSetDevice(int deviceId) {
  if (!valid_device(deviceId)) {
    return hipErrorInvalidDevice;
  }
  current_device = deviceId;
  return hipSuccess;
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
  if (!valid_device(peerDeviceId) || peerDeviceId == current_device || flags != 0) {
    return hipErrorInvalidDevice;
  }
  return hipSuccess;
}

static hipError_t allocate(void **out, size_t size, int kind) {
  if (out == NULL) {
    return hipErrorInvalidValue;
  }
  if (!valid_device(current_device)) {
    return hipErrorNoDevice;
  }
  if (fake_env_flag("HURRAY_FAKE_OOM")) {
    return hipErrorOutOfMemory;
  }
  /* Device memory is shareable: its IPC handles open in other processes. */
  void *p = kind == KIND_DEVICE ? fake_allocate_shareable(&registry, size, kind, 0)
                                : fake_allocate(&registry, size, kind, 0);
  if (p == NULL) {
    return hipErrorOutOfMemory;
  }
  *out = p;
  return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size) { return allocate(ptr, size, KIND_DEVICE); }

hipError_t hipFree(void *ptr) {
  /* hipFree also frees managed memory, as in HIP. */
  if (fake_release(&registry, ptr, KIND_DEVICE) || fake_release(&registry, ptr, KIND_MANAGED)) {
    return hipSuccess;
  }
  return hipErrorInvalidValue;
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags) {
  if ((flags & ~(unsigned)(hipHostMallocPortable | hipHostMallocMapped)) != 0) {
    return hipErrorInvalidValue;
  }
  return allocate(ptr, size, KIND_HOST);
}

hipError_t hipHostFree(void *ptr) {
  return fake_release(&registry, ptr, KIND_HOST) ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags) {
  if (fake_env_flag("HURRAY_FAKE_NO_UNIFIED")) {
    return hipErrorNotSupported;
  }
  if (flags != hipMemAttachGlobal) {
    return hipErrorInvalidValue;
  }
  return allocate(dev_ptr, size, KIND_MANAGED);
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind) {
  bool ok = false;
  switch (kind) {
    case hipMemcpyHostToDevice: ok = fake_contains(&registry, dst, sizeBytes) && src != NULL; break;
    case hipMemcpyDeviceToHost: ok = fake_contains(&registry, src, sizeBytes) && dst != NULL; break;
    default: ok = false; break;
  }
  if (!ok) {
    return hipErrorInvalidValue;
  }
  memcpy(dst, src, sizeBytes);
  return hipSuccess;
}

/* A hipEvent_t is a fake_event_object (fake_common.h): the struct is its
 * only member, so the object's address is the event's. */
static hipEvent_t event_of(fake_event_object *object) { return (hipEvent_t)(void *)object; }

/* hipEventInterprocess as ROCm 6 accepts it (with hipEventDisableTiming, as
 * CUDA's rule); with HURRAY_FAKE_NO_IPC_EVENTS refused, as Debian 12's HIP 5
 * refuses it, which the plugin's probe at init reads as "events not
 * exported". */
hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags) {
  if (event == NULL || (flags & ~0x7u) != 0) {
    return hipErrorInvalidValue;
  }
  bool interprocess = (flags & hipEventInterprocess) != 0;
  if (interprocess &&
      ((flags & hipEventDisableTiming) == 0 || fake_env_flag("HURRAY_FAKE_NO_IPC_EVENTS"))) {
    return hipErrorInvalidValue;
  }
  fake_event_object *object = fake_event_object_new(&registry, interprocess);
  if (object == NULL) {
    return hipErrorOutOfMemory;
  }
  *event = event_of(object);
  return hipSuccess;
}

static bool valid_event(hipEvent_t event) {
  return event != NULL && fake_event_object_valid(&event->object);
}

/* The handle of an event made with hipEventInterprocess (its memfd page). */
hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event) {
  if (!valid_event(event)) {
    return hipErrorInvalidHandle;
  }
  if (handle == NULL || !fake_event_object_handle(&event->object, handle->reserved)) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

/* Opens the exporter's page: records there are what this event reports.
 * (The real runtime refuses an open in the exporting process,
 * hipErrorInvalidContext; the stand-in allows it, as for memory.) */
hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle) {
  if (event == NULL) {
    return hipErrorInvalidValue;
  }
  fake_event_object *object = fake_event_object_open(&registry, handle.reserved);
  if (object == NULL) {
    return hipErrorInvalidHandle;
  }
  *event = event_of(object);
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  (void)stream;
  if (!valid_event(event)) {
    return hipErrorInvalidHandle;
  }
  fake_event_record(event->object.state);
  return hipSuccess;
}

/* IPC memory handles of device allocations (fake_common.h: a memfd another
 * process maps). */
hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr) {
  if (handle == NULL || !fake_ipc_get(&registry, devPtr, handle->reserved)) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags) {
  if (devPtr == NULL || flags != hipIpcMemLazyEnablePeerAccess) {
    return hipErrorInvalidValue;
  }
  void *p = fake_ipc_open(&registry, handle.reserved);
  if (p == NULL) {
    return hipErrorInvalidHandle;
  }
  *devPtr = p;
  return hipSuccess;
}

hipError_t hipIpcCloseMemHandle(void *devPtr) {
  return fake_ipc_close(&registry, devPtr) ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipEventQuery(hipEvent_t event) {
  if (!valid_event(event)) {
    return hipErrorInvalidHandle;
  }
  return fake_event_complete(event->object.state) ? hipSuccess : hipErrorNotReady;
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  if (!valid_event(event)) {
    return hipErrorInvalidHandle;
  }
  while (!fake_event_complete(event->object.state)) {
    fake_pause();
  }
  return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event) {
  if (!valid_event(event)) {
    return hipErrorInvalidHandle;
  }
  fake_event_object_free(&registry, &event->object); /* an opened one: closed */
  return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags) {
  if (stream == NULL || (flags & ~(unsigned)hipStreamNonBlocking) != 0) {
    return hipErrorInvalidValue;
  }
  hipStream_t s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hipErrorOutOfMemory;
  }
  fake_count_object(&registry, 1);
  *stream = s;
  return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  if (!valid_event(event) || flags != 0) {
    return hipErrorInvalidHandle;
  }
  if (stream != NULL && !fake_event_complete(event->object.state)) {
    stream->blocked_on = event->object.state;
  }
  return hipSuccess;
}

hipError_t hipStreamQuery(hipStream_t stream) {
  if (stream != NULL && stream->blocked_on != NULL && !fake_event_complete(stream->blocked_on)) {
    return hipErrorNotReady;
  }
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  while (stream != NULL && stream->blocked_on != NULL && !fake_event_complete(stream->blocked_on)) {
    fake_pause();
  }
  return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  if (stream == NULL) {
    return hipErrorInvalidHandle;
  }
  free(stream);
  fake_count_object(&registry, -1);
  return hipSuccess;
}

const char *hipGetErrorName(hipError_t hip_error) {
  switch (hip_error) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    default: return "hipErrorUnknown";
  }
}
