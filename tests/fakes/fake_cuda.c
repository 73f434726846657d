/*
 * Stand-in for the CUDA driver API (libcuda.so.1): the subset the cuda plugin
 * calls, with the prototypes of the toolkit's own cuda.h (so a signature that
 * drifts fails to compile), backed by host memory. Switches: fake_common.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#include <cuda.h>
#include <stdio.h>

#include "fake_common.h"

enum { KIND_DEVICE = 1, KIND_HOST = 2, KIND_MANAGED = 3 };

struct CUctx_st {
  CUdevice device;
  int retains;
};
struct CUstream_st {
  const fake_event *blocked_on;
};
struct CUevent_st {
  fake_event_object object;
};

static fake_registry registry = FAKE_REGISTRY_INIT_NAMED("cuda");
static struct CUctx_st primary_contexts[8];
static bool initialised;
static _Thread_local CUcontext current_context;

FAKE_EXPORT long hurray_fake_live_objects(void);
long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

static bool valid_device(CUdevice dev) { return dev >= 0 && dev < fake_device_count() && dev < 8; }

CUresult CUDAAPI cuInit(unsigned int Flags) {
  if (Flags != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (fake_device_count() <= 0) {
    return CUDA_ERROR_NO_DEVICE;
  }
  initialised = true;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion) {
  if (driverVersion == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count) {
  if (!initialised) {
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  *count = fake_device_count();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (!initialised) {
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  if (!valid_device(ordinal)) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  if (!valid_device(dev) || name == NULL || len <= 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  snprintf(name, (size_t)len, "Stand-in CUDA device %d", dev);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  if (!valid_device(dev) || pi == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
      *pi = fake_env_flag("HURRAY_FAKE_NO_UNIFIED") ? 0 : 1;
      break;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
      *pi = fake_env_flag("HURRAY_FAKE_NO_IPC_EVENTS") ? 0 : 1;
      break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *pi = 1; break;
    default: *pi = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  if (!valid_device(dev) || bytes == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *bytes = (size_t)1 << 30;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  if (!valid_device(dev) || !valid_device(peerDev) || canAccessPeer == NULL) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *canAccessPeer = dev != peerDev && !fake_env_flag("HURRAY_FAKE_NO_PEER");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (!valid_device(dev) || pctx == NULL) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  primary_contexts[dev].device = dev;
  if (primary_contexts[dev].retains++ == 0) {
    fake_count_object(&registry, 1);
  }
  *pctx = &primary_contexts[dev];
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  if (!valid_device(dev) || primary_contexts[dev].retains <= 0) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (--primary_contexts[dev].retains == 0) {
    fake_count_object(&registry, -1);
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  if (ctx == NULL || ctx->retains <= 0) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  current_context = ctx;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (pctx != NULL) {
    *pctx = current_context;
  }
  current_context = NULL;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  if (current_context == NULL || peerContext == NULL || Flags != 0) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  return CUDA_SUCCESS;
}

static CUresult allocate(void **out, size_t bytes, int kind) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (out == NULL || bytes == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (fake_env_flag("HURRAY_FAKE_OOM")) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  /* Device memory is shareable: its IPC handles open in other processes. */
  void *p = kind == KIND_DEVICE ? fake_allocate_shareable(&registry, bytes, kind, 0)
                                : fake_allocate(&registry, bytes, kind, 0);
  if (p == NULL) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *out = p;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  void *p = NULL;
  CUresult r = allocate(&p, bytesize, KIND_DEVICE);
  if (r == CUDA_SUCCESS) {
    *dptr = (CUdeviceptr)(uintptr_t)p;
  }
  return r;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) {
  /* cuMemFree frees managed memory too, as in CUDA. */
  void *p = (void *)(uintptr_t)dptr;
  if (fake_release(&registry, p, KIND_DEVICE) || fake_release(&registry, p, KIND_MANAGED)) {
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  if ((Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                           CU_MEMHOSTALLOC_WRITECOMBINED)) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return allocate(pp, bytesize, KIND_HOST);
}

CUresult CUDAAPI cuMemFreeHost(void *p) {
  return fake_release(&registry, p, KIND_HOST) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  if (fake_env_flag("HURRAY_FAKE_NO_UNIFIED")) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  void *p = NULL;
  CUresult r = allocate(&p, bytesize, KIND_MANAGED);
  if (r == CUDA_SUCCESS) {
    *dptr = (CUdeviceptr)(uintptr_t)p;
  }
  return r;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  void *dst = (void *)(uintptr_t)dstDevice;
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (!fake_contains(&registry, dst, ByteCount) || srcHost == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  memcpy(dst, srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  const void *src = (const void *)(uintptr_t)srcDevice;
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (!fake_contains(&registry, src, ByteCount) || dstHost == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  memcpy(dstHost, src, ByteCount);
  return CUDA_SUCCESS;
}

/* IPC memory handles of device allocations (fake_common.h: a memfd another
 * process maps), made and opened with a context current, as in CUDA. */
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (pHandle == NULL || !fake_ipc_get(&registry, (void *)(uintptr_t)dptr, pHandle->reserved)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (pdptr == NULL || (Flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  void *p = fake_ipc_open(&registry, handle.reserved);
  if (p == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *pdptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  return fake_ipc_close(&registry, (const void *)(uintptr_t)dptr) ? CUDA_SUCCESS
                                                                  : CUDA_ERROR_INVALID_VALUE;
}

/* A CUevent is a fake_event_object (fake_common.h): the struct is its only
 * member, so the object's address is the event's. */
static CUevent event_of(fake_event_object *object) { return (CUevent)(void *)object; }
static bool valid_event(CUevent hEvent) {
  return hEvent != NULL && fake_event_object_valid(&hEvent->object);
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (phEvent == NULL || (Flags & ~0x7u) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  /* As in cuda.h: CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING. */
  bool interprocess = (Flags & CU_EVENT_INTERPROCESS) != 0;
  if (interprocess && (Flags & CU_EVENT_DISABLE_TIMING) == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  fake_event_object *object = fake_event_object_new(&registry, interprocess);
  if (object == NULL) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *phEvent = event_of(object);
  return CUDA_SUCCESS;
}

/* The handle of an event made with CU_EVENT_INTERPROCESS (fake_common.h:
 * its memfd page); any other event is CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (!valid_event(event)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (pHandle == NULL || !fake_event_object_handle(&event->object, pHandle->reserved)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* Opens the exporter's page: records there are what this event reports. */
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (phEvent == NULL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  fake_event_object *object = fake_event_object_open(&registry, handle.reserved);
  if (object == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *phEvent = event_of(object);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  (void)hStream;
  if (!valid_event(hEvent)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  fake_event_record(hEvent->object.state);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
  if (!valid_event(hEvent)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  return fake_event_complete(hEvent->object.state) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  if (!valid_event(hEvent)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  while (!fake_event_complete(hEvent->object.state)) {
    fake_pause();
  }
  return CUDA_SUCCESS;
}

/* Destroys the event, or closes one opened from a handle (cuda.h: an
 * imported event is freed with cuEventDestroy). */
CUresult CUDAAPI cuEventDestroy(CUevent hEvent) {
  if (!valid_event(hEvent)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  fake_event_object_free(&registry, &hEvent->object);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  if (current_context == NULL) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (phStream == NULL || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUstream stream = calloc(1, sizeof *stream);
  if (stream == NULL) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  fake_count_object(&registry, 1);
  *phStream = stream;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  if (!valid_event(hEvent) || Flags != 0) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  /* A device-side wait: it returns at once; the stream stalls until then. */
  if (hStream != NULL && !fake_event_complete(hEvent->object.state)) {
    hStream->blocked_on = hEvent->object.state;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream) {
  if (hStream != NULL && hStream->blocked_on != NULL && !fake_event_complete(hStream->blocked_on)) {
    return CUDA_ERROR_NOT_READY;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  while (hStream != NULL && hStream->blocked_on != NULL &&
         !fake_event_complete(hStream->blocked_on)) {
    fake_pause();
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream) {
  if (hStream == NULL) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  free(hStream);
  fake_count_object(&registry, -1);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  static const struct {
    CUresult code;
    const char *name;
  } names[] = {
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
      {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
      {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
      {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
      {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
      {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
      {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
      {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (names[i].code == error) {
      *pStr = names[i].name;
      return CUDA_SUCCESS;
    }
  }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}
