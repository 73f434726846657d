/*
 * libhurray device plugin: CUDA (device tag 0x01 cuda).
 *
 * Runtime: the CUDA driver API, loaded at run time from "libcuda.so.1" (the
 * driver's soname), or from the file named by HURRAY_CUDA_LIBRARY. Only the
 * driver API is used (no libcudart), with the _v2 entry points where the
 * driver has them. Types and constants come from the toolkit's own cuda.h.
 *
 * Memory classes (facts §5, specs BP-PAIR-1):
 *   standard    -> cuMemAlloc_v2            (device memory)
 *   host_pinned -> cuMemHostAlloc           (page-locked, PORTABLE|DEVICEMAP)
 *   unified     -> cuMemAllocManaged        (only where the device reports
 *                                            CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)
 *   peer        -> cuMemAlloc_v2 with peer access enabled from every device
 *                  cuDeviceCanAccessPeer allows (NVLink / PCIe P2P); offered
 *                  only by a device that has at least one such peer.
 * IPC: HURRAY_IPC_EXPORTS_EVENTS where CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED
 * is set and the driver has cuIpcGetEventHandle and cuIpcOpenEventHandle
 * (PL-IPC-11: exportable events are made with CU_EVENT_INTERPROCESS |
 * CU_EVENT_DISABLE_TIMING); streams never cross processes.
 *
 * Streams are CUstream values; NULL means the plugin's own non-blocking
 * stream of the device. Every entry makes the device's primary context
 * current for the duration of the call, so it may be called from any thread.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */
#include "gpu_ipc_event.h" /* plugins/common, in-tree only: shared by the GPU runtime plugins */
#include "gpu_plugin_frame.h"
#include "gpu_runtime_memory.h"
#include "polled_wait.h"
#include "runtime_loader.h"
#include "vendor_call_error.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: the toolkit's own cuda.h (included above)        */
/* ------------------------------------------------------------------------ */

#define CUDA_DEFAULT_LIBRARY "libcuda.so.1"
#define CUDA_LIBRARY_ENV "HURRAY_CUDA_LIBRARY"
/* The largest alignment allocate() offers: beyond what the driver gives, it
 * over-allocates and aligns the address up, so the bound is a choice. */
#define CUDA_MAX_ALIGNMENT 65536u

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* Every driver function the plugin calls, X(return type, name, (parameter
 * types)), expanded into the struct of pointers and into the dlsym list. The
 * _v2 names are the driver's real exports behind cuda.h's macros. */

#define CUDA_SYMBOLS(X)                                                             \
  X(CUresult, cuInit, (unsigned int))                                               \
  X(CUresult, cuGetErrorName, (CUresult, const char **))                            \
  X(CUresult, cuDeviceGetCount, (int *))                                            \
  X(CUresult, cuDeviceGet, (CUdevice *, int))                                       \
  X(CUresult, cuDeviceGetName, (char *, int, CUdevice))                             \
  X(CUresult, cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))          \
  X(CUresult, cuDeviceTotalMem_v2, (size_t *, CUdevice))                            \
  X(CUresult, cuDeviceCanAccessPeer, (int *, CUdevice, CUdevice))                   \
  X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                    \
  X(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))                             \
  X(CUresult, cuCtxPushCurrent_v2, (CUcontext))                                     \
  X(CUresult, cuCtxPopCurrent_v2, (CUcontext *))                                    \
  X(CUresult, cuCtxEnablePeerAccess, (CUcontext, unsigned int))                     \
  X(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))                               \
  X(CUresult, cuMemFree_v2, (CUdeviceptr))                                          \
  X(CUresult, cuMemHostAlloc, (void **, size_t, unsigned int))                      \
  X(CUresult, cuMemFreeHost, (void *))                                              \
  X(CUresult, cuMemAllocManaged, (CUdeviceptr *, size_t, unsigned int))             \
  X(CUresult, cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                 \
  X(CUresult, cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))                       \
  X(CUresult, cuIpcGetMemHandle, (CUipcMemHandle *, CUdeviceptr))                   \
  X(CUresult, cuIpcOpenMemHandle_v2, (CUdeviceptr *, CUipcMemHandle, unsigned int)) \
  X(CUresult, cuIpcCloseMemHandle, (CUdeviceptr))                                   \
  X(CUresult, cuEventCreate, (CUevent *, unsigned int))                             \
  X(CUresult, cuEventRecord, (CUevent, CUstream))                                   \
  X(CUresult, cuEventQuery, (CUevent))                                              \
  X(CUresult, cuEventSynchronize, (CUevent))                                        \
  X(CUresult, cuEventDestroy_v2, (CUevent))                                         \
  X(CUresult, cuStreamCreate, (CUstream *, unsigned int))                           \
  X(CUresult, cuStreamWaitEvent, (CUstream, CUevent, unsigned int))                 \
  X(CUresult, cuStreamQuery, (CUstream))                                            \
  X(CUresult, cuStreamSynchronize, (CUstream))                                      \
  X(CUresult, cuStreamDestroy_v2, (CUstream))

/* Driver functions the plugin can do without: a driver that lacks them
 * leaves the pointer NULL and the feature off (PL-IPC-11), never a crash. */
#define CUDA_OPTIONAL_SYMBOLS(X)                                  \
  X(CUresult, cuIpcGetEventHandle, (CUipcEventHandle *, CUevent)) \
  X(CUresult, cuIpcOpenEventHandle, (CUevent *, CUipcEventHandle))

typedef struct cuda_symbols {
#define CUDA_SYMBOL_FIELD(ret, name, args) ret(*name) args;
  CUDA_SYMBOLS(CUDA_SYMBOL_FIELD)
  CUDA_OPTIONAL_SYMBOLS(CUDA_SYMBOL_FIELD)
#undef CUDA_SYMBOL_FIELD
} cuda_symbols;

typedef struct cuda_device {
  CUdevice device;
  CUcontext context; /* the primary context, retained by init */
  CUstream stream;   /* the plugin's stream: what a NULL stream means */
  char name[HURRAY_PLUGIN_DEVICE_NAME_SIZE];
  uint64_t memory_bytes;
  /* managed: CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY; has_peer: at least one
   * device cuDeviceCanAccessPeer allows */
  plugin_gpu_device_traits traits;
  bool unified_addressing;
  bool ipc_events; /* CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, and the IPC event calls exist */
} cuda_device;

typedef struct cuda_state {
  gpu_plugin_frame frame; /* first: the runtime, the device count, the reason */
  cuda_symbols cu;
  cuda_device *devices;
} cuda_state;

typedef struct cuda_event {
  CUevent event;
  uint32_t device_index;
} cuda_event;

static const char *cuda_error_name(const cuda_state *s, CUresult code) {
  const char *name = NULL;
  if (s->cu.cuGetErrorName == NULL || s->cu.cuGetErrorName(code, &name) != CUDA_SUCCESS ||
      name == NULL) {
    return "unknown CUresult";
  }
  return name;
}

/* A failed vendor call: DEVICE_ERROR (value: the CUresult), or OUT_OF_MEMORY
 * (value: the bytes asked for) when the driver says so. */
static hurray_status cuda_vendor_fail(const cuda_state *s, hurray_error *err, const char *call,
                                      CUresult code, uint64_t bytes) {
  return plugin_vendor_call_fail(err, call, (int)code, cuda_error_name(s, code),
                                 code == CUDA_ERROR_OUT_OF_MEMORY, bytes);
}

/* Makes the device's primary context current on this thread. */
static hurray_status cuda_enter(const cuda_state *s, uint32_t device_index, hurray_error *err) {
  CUresult r = s->cu.cuCtxPushCurrent_v2(s->devices[device_index].context);
  return r == CUDA_SUCCESS ? HURRAY_OK : cuda_vendor_fail(s, err, "cuCtxPushCurrent_v2", r, 0);
}

static void cuda_leave(const cuda_state *s) { (void)s->cu.cuCtxPopCurrent_v2(NULL); }

/* An entry's device index: INVALID_ARGUMENT (value: the index, expected: the
 * count) for one past the devices. */
static hurray_status cuda_check_device(const cuda_state *s, uint32_t device_index,
                                       hurray_error *err) {
  return hurray_support_check_device("cuda", device_index, s->frame.device_count, err);
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static void cuda_release_devices(void *state, uint32_t count) {
  cuda_state *s = state;
  for (uint32_t i = 0; i < count; i++) {
    cuda_device *d = &s->devices[i];
    if (d->stream != NULL && s->cu.cuCtxPushCurrent_v2(d->context) == CUDA_SUCCESS) {
      (void)s->cu.cuStreamDestroy_v2(d->stream);
      cuda_leave(s);
    }
    (void)s->cu.cuDevicePrimaryCtxRelease_v2(d->device);
  }
  free(s->devices);
  s->devices = NULL;
  s->frame.device_count = 0;
}

/* Sets up one device: attributes, the retained primary context and the
 * plugin's stream. false with s->frame.reason set on failure (nothing left held). */
static bool cuda_open_device(cuda_state *s, int ordinal, cuda_device *d) {
  CUresult r = s->cu.cuDeviceGet(&d->device, ordinal);
  const char *call = "cuDeviceGet";
  int managed = 0;
  int unified_addressing = 0;
  int ipc_events = 0;
  size_t total = 0;
  if (r == CUDA_SUCCESS) {
    call = "cuDeviceGetName";
    r = s->cu.cuDeviceGetName(d->name, (int)sizeof d->name, d->device);
  }
  if (r == CUDA_SUCCESS) {
    call = "cuDeviceGetAttribute";
    r = s->cu.cuDeviceGetAttribute(&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, d->device);
  }
  if (r == CUDA_SUCCESS) {
    r = s->cu.cuDeviceGetAttribute(&unified_addressing, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
                                   d->device);
  }
  if (r == CUDA_SUCCESS) {
    /* Older drivers do not know this attribute: read it as "no IPC events". */
    if (s->cu.cuDeviceGetAttribute(&ipc_events, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED,
                                   d->device) != CUDA_SUCCESS) {
      ipc_events = 0;
    }
    call = "cuDeviceTotalMem_v2";
    r = s->cu.cuDeviceTotalMem_v2(&total, d->device);
  }
  if (r == CUDA_SUCCESS) {
    call = "cuDevicePrimaryCtxRetain";
    r = s->cu.cuDevicePrimaryCtxRetain(&d->context, d->device);
  }
  if (r == CUDA_SUCCESS) {
    call = "cuCtxPushCurrent_v2";
    r = s->cu.cuCtxPushCurrent_v2(d->context);
    if (r == CUDA_SUCCESS) {
      call = "cuStreamCreate";
      r = s->cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING);
      cuda_leave(s);
    }
    if (r != CUDA_SUCCESS) {
      d->stream = NULL;
      (void)s->cu.cuDevicePrimaryCtxRelease_v2(d->device);
    }
  }
  if (r != CUDA_SUCCESS) {
    snprintf(s->frame.reason, sizeof s->frame.reason, "%s (device %d): %s (%d)", call, ordinal,
             cuda_error_name(s, r), (int)r);
    return false;
  }
  d->name[sizeof d->name - 1] = '\0';
  d->memory_bytes = total;
  d->traits.host_pinned = true;
  d->traits.managed = managed != 0;
  d->unified_addressing = unified_addressing != 0;
  d->ipc_events = ipc_events != 0 && s->cu.cuIpcGetEventHandle != NULL &&
                  s->cu.cuIpcOpenEventHandle != NULL;
  return true;
}

/* Enables peer access between every pair the driver allows; a device with
 * at least one peer offers the peer class. */
static void cuda_enable_peers(void *state) {
  cuda_state *s = state;
  for (uint32_t i = 0; i < s->frame.device_count; i++) {
    for (uint32_t j = 0; j < s->frame.device_count; j++) {
      int can = 0;
      if (i == j ||
          s->cu.cuDeviceCanAccessPeer(&can, s->devices[i].device, s->devices[j].device) !=
              CUDA_SUCCESS ||
          can == 0 || s->cu.cuCtxPushCurrent_v2(s->devices[i].context) != CUDA_SUCCESS) {
        continue;
      }
      CUresult r = s->cu.cuCtxEnablePeerAccess(s->devices[j].context, 0);
      cuda_leave(s);
      if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        s->devices[i].traits.has_peer = true;
        s->devices[j].traits.has_peer = true;
      }
    }
  }
}

/* The runtime's half of gpu_plugin_open_devices and gpu_plugin_close. */
static int cuda_start(void *state) { return (int)((cuda_state *)state)->cu.cuInit(0); }

static int cuda_device_count(void *state, int *count) {
  return (int)((cuda_state *)state)->cu.cuDeviceGetCount(count);
}

static const char *cuda_code_name(const void *state, int code) {
  return cuda_error_name(state, (CUresult)code);
}

static bool cuda_make_devices(void *state, size_t count) {
  cuda_state *s = state;
  s->devices = calloc(count, sizeof *s->devices);
  return s->devices != NULL;
}

static bool cuda_open_ordinal(void *state, int ordinal) {
  cuda_state *s = state;
  return cuda_open_device(s, ordinal, &s->devices[ordinal]);
}

static void cuda_forget_symbols(void *state) {
  cuda_state *s = state;
  memset(&s->cu, 0, sizeof s->cu);
}

static const gpu_plugin_vendor cuda_vendor = {
    .plugin = "cuda",
    .init_call = "cuInit",
    .count_call = "cuDeviceGetCount",
    .init = cuda_start,
    .device_count = cuda_device_count,
    .error_name = cuda_code_name,
    .make_devices = cuda_make_devices,
    .open_device = cuda_open_ordinal,
    .release_devices = cuda_release_devices,
    .enable_peers = cuda_enable_peers,
    .forget_symbols = cuda_forget_symbols,
};

/* Loads the driver and opens every device; on any failure the state holds
 * zero devices and the reason (PL-AVAIL-1). */
static void cuda_open(cuda_state *s) {
  static const char *const default_libraries[] = {CUDA_DEFAULT_LIBRARY};
  const char *library = NULL;
  /* The X-macros' second expansion: every symbol into s->cu, the first
   * list required, the second optional. */
#define CUDA_SYMBOL_ENTRY(ret, name, args) {#name, &s->cu.name, HURRAY_TRUE},
#define CUDA_OPTIONAL_ENTRY(ret, name, args) {#name, &s->cu.name, HURRAY_FALSE},
  const hurray_support_symbol symbols[] = {CUDA_SYMBOLS(CUDA_SYMBOL_ENTRY)
                                               CUDA_OPTIONAL_SYMBOLS(CUDA_OPTIONAL_ENTRY)};
#undef CUDA_OPTIONAL_ENTRY
#undef CUDA_SYMBOL_ENTRY
  s->frame.library = plugin_load_runtime(CUDA_LIBRARY_ENV, default_libraries, 1u, 0, symbols,
                                         sizeof symbols / sizeof symbols[0], &library,
                                         s->frame.reason, sizeof s->frame.reason);
  if (s->frame.library == NULL) {
    return;
  }
  gpu_plugin_open_devices(s, &cuda_vendor, library);
}

static void cuda_close(void *state) { gpu_plugin_close(state, &cuda_vendor); }

static hurray_status cuda_init(void **out_state, hurray_error *err) {
  cuda_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "cuda: no memory for the plugin state");
  }
  cuda_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static hurray_status cuda_describe_device(void *state, uint32_t device_index,
                                          hurray_plugin_device_info *out, hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const cuda_device *d = &s->devices[device_index];
  plugin_gpu_describe(d->name, d->memory_bytes,
                      d->ipc_events ? HURRAY_IPC_EXPORTS_EVENTS : 0u /* PL-IPC-11 */, d->traits,
                      CUDA_MAX_ALIGNMENT, out);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

/* One driver allocation of `bytes` in the class; *out is its base. */
static CUresult cuda_raw_allocate(const cuda_state *s, hurray_memory_class memory_class,
                                  size_t bytes, uint64_t *out, const char **call) {
  CUresult r;
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    void *host = NULL;
    *call = "cuMemHostAlloc";
    r = s->cu.cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    *out = (uint64_t)(uintptr_t)host;
  } else if (memory_class == HURRAY_MEMORY_UNIFIED) {
    CUdeviceptr p = 0;
    *call = "cuMemAllocManaged";
    r = s->cu.cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL);
    *out = (uint64_t)p;
  } else {
    CUdeviceptr p = 0;
    *call = "cuMemAlloc_v2";
    r = s->cu.cuMemAlloc_v2(&p, bytes);
    *out = (uint64_t)p;
  }
  return r;
}

static void cuda_raw_free(const cuda_state *s, hurray_memory_class memory_class, uint64_t base) {
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    (void)s->cu.cuMemFreeHost((void *)(uintptr_t)base);
  } else {
    (void)s->cu.cuMemFree_v2((CUdeviceptr)base);
  }
}

static hurray_status cuda_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                   uint32_t alignment, hurray_memory_class memory_class,
                                   uint32_t flags, hurray_plugin_allocation *out,
                                   hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const cuda_device *d = &s->devices[device_index];
  status = plugin_gpu_check_allocate("cuda", HURRAY_DEVICE_CUDA, d->traits, device_index, byte_size,
                                     alignment, memory_class, flags, CUDA_MAX_ALIGNMENT,
                                     CUDA_MAX_ALIGNMENT, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = cuda_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const char *call = NULL;
  uint64_t base = 0;
  CUresult r = cuda_raw_allocate(s, memory_class, (size_t)byte_size, &base, &call);
  if (r == CUDA_SUCCESS && hurray_support_lowest_set_bit(base) < alignment) {
    /* The driver's guarantee is smaller than asked: allocate with slack and
     * align the address up; free() uses the base kept in plugin_data. */
    cuda_raw_free(s, memory_class, base);
    r = cuda_raw_allocate(s, memory_class, (size_t)byte_size + alignment, &base, &call);
  }
  cuda_leave(s);
  if (r != CUDA_SUCCESS) {
    return cuda_vendor_fail(s, err, call, r, byte_size);
  }
  plugin_gpu_allocation(device_index, memory_class, base, byte_size, alignment, CUDA_MAX_ALIGNMENT,
                        d->unified_addressing, (void *)(uintptr_t)base, out);
  return HURRAY_OK;
}

static void cuda_free(void *state, const hurray_plugin_allocation *allocation) {
  const cuda_state *s = state;
  if (allocation->device_index >= s->frame.device_count ||
      cuda_enter(s, allocation->device_index, NULL) != HURRAY_OK) {
    return;
  }
  uint64_t base = (uint64_t)(uintptr_t)allocation->plugin_data;
  if ((base & PLUGIN_GPU_IMPORTED_MARK) != 0u) { /* PL-IPC-4: close the import, never free */
    (void)s->cu.cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)(base - PLUGIN_GPU_IMPORTED_MARK));
  } else {
    cuda_raw_free(s, allocation->memory_class, base);
  }
  cuda_leave(s);
}

/* PL-IPC-2: the runtime's IPC handle of the allocation's base (plugin_data)
 * and the buffer's offset from it; the handle covers device memory only. */
static hurray_status cuda_export_memory(void *state, const hurray_plugin_allocation *allocation,
                                        hurray_plugin_ipc_memory *out, hurray_error *err) {
  const cuda_state *s = state;
  uint64_t base = plugin_gpu_base_of(allocation);
  hurray_status status = plugin_gpu_check_export("cuda", HURRAY_DEVICE_CUDA, allocation, err);
  if (status == HURRAY_OK) {
    status = cuda_enter(s, allocation->device_index, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  CUipcMemHandle handle;
  memset(&handle, 0, sizeof handle);
  CUresult r = s->cu.cuIpcGetMemHandle(&handle, (CUdeviceptr)(uintptr_t)base);
  cuda_leave(s);
  if (r != CUDA_SUCCESS) {
    return cuda_vendor_fail(s, err, "cuIpcGetMemHandle", r, 0);
  }
  plugin_gpu_exported_handle(handle.reserved, sizeof handle.reserved, base, allocation, out);
  return HURRAY_OK;
}

/* PL-IPC-3: opens the handle on the device; the buffer sits at the
 * exporter's offset from the mapped base. free() closes it (plugin_data
 * carries the base with PLUGIN_GPU_IMPORTED_MARK). */
static hurray_status cuda_import_memory(void *state, uint32_t device_index,
                                        const hurray_plugin_ipc_memory *in,
                                        hurray_plugin_allocation *out, hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUipcMemHandle handle;
  status = plugin_gpu_check_import("cuda", in, sizeof handle.reserved, err);
  if (status != HURRAY_OK) {
    return status;
  }
  memcpy(handle.reserved, in->handle, sizeof handle.reserved);
  status = cuda_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUdeviceptr mapped = 0;
  CUresult r = s->cu.cuIpcOpenMemHandle_v2(&mapped, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  cuda_leave(s);
  if (r != CUDA_SUCCESS) {
    return cuda_vendor_fail(s, err, "cuIpcOpenMemHandle_v2", r, 0);
  }
  uint64_t base = (uint64_t)(uintptr_t)mapped;
  plugin_gpu_imported_allocation(device_index, base, in, HURRAY_PLUGIN_MAX_ALIGNMENT,
                                 (void *)(uintptr_t)(base | PLUGIN_GPU_IMPORTED_MARK), out);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */

/* The host has already checked that [offset, offset + bytes) lies inside the
 * allocation (PL-COPY-2). Both copies are blocking driver copies; with
 * unified addressing they also serve pinned and managed memory. */

/* One copy between host memory and the allocation at `offset`: to the
 * device from `from_host` when it is given, else to `to_host`. The host
 * never passes a NULL pointer with bytes to copy, so the one given names
 * the direction. */
static hurray_status cuda_copy(const cuda_state *s, const hurray_plugin_allocation *allocation,
                               uint64_t offset, const void *from_host, void *to_host,
                               uint64_t bytes, hurray_error *err) {
  hurray_status status = cuda_check_device(s, allocation->device_index, err);
  if (status == HURRAY_OK && bytes > 0) {
    status = cuda_enter(s, allocation->device_index, err);
  }
  if (status != HURRAY_OK || bytes == 0) {
    return status;
  }
  CUdeviceptr device = (CUdeviceptr)((uint64_t)(uintptr_t)allocation->address + offset);
  CUresult r = from_host != NULL ? s->cu.cuMemcpyHtoD_v2(device, from_host, (size_t)bytes)
                                 : s->cu.cuMemcpyDtoH_v2(to_host, device, (size_t)bytes);
  cuda_leave(s);
  return r == CUDA_SUCCESS
             ? HURRAY_OK
             : cuda_vendor_fail(s, err, from_host != NULL ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2",
                                r, 0);
}

static hurray_status cuda_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                         uint64_t dst_offset, const void *src, uint64_t bytes,
                                         hurray_error *err) {
  return cuda_copy(state, dst, dst_offset, src, NULL, bytes, err);
}

static hurray_status cuda_copy_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                       uint64_t src_offset, uint64_t bytes, hurray_error *err) {
  return cuda_copy(state, src, src_offset, NULL, dst, bytes, err);
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* One CUevent of the device: made with the driver's creation flags
 * `cu_flags`, or opened from another process's `handle` when given
 * (PL-IPC-9). */
static hurray_status cuda_new_event(const cuda_state *s, uint32_t device_index,
                                    unsigned int cu_flags, const CUipcEventHandle *handle,
                                    void **out_event, hurray_error *err) {
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  cuda_event *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *e, 0,
                                     "cuda: no memory for an event");
  }
  status = cuda_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    free(e);
    return status;
  }
  CUresult r = handle != NULL ? s->cu.cuIpcOpenEventHandle(&e->event, *handle)
                              : s->cu.cuEventCreate(&e->event, cu_flags);
  cuda_leave(s);
  if (r != CUDA_SUCCESS) {
    free(e);
    return cuda_vendor_fail(s, err, handle != NULL ? "cuIpcOpenEventHandle" : "cuEventCreate", r,
                            0);
  }
  e->device_index = device_index;
  *out_event = e;
  return HURRAY_OK;
}

static hurray_status cuda_create_event(void *state, uint32_t device_index, void **out_event,
                                       hurray_error *err) {
  return cuda_new_event(state, device_index, CU_EVENT_DISABLE_TIMING, NULL, out_event, err);
}

/* PL-IPC-7: an event another process can open; cuda.h requires
 * CU_EVENT_DISABLE_TIMING together with CU_EVENT_INTERPROCESS. */
static hurray_status cuda_create_event_flags(void *state, uint32_t device_index, uint32_t flags,
                                             void **out_event, hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (flags != HURRAY_PLUGIN_EVENT_EXPORTABLE || !s->devices[device_index].ipc_events) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, flags, HURRAY_DEVICE_CUDA,
        "cuda: device %u exports no events (CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED "
        "or cuIpcGetEventHandle missing), flags 0x%X",
        (unsigned)device_index, (unsigned)flags);
  }
  return cuda_new_event(s, device_index, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING, NULL,
                        out_event, err);
}

/* The caller's stream, or the device's own where it passes none (NULL). */
static CUstream cuda_stream_or_own(const cuda_state *s, uint32_t device_index, void *stream) {
  return stream != NULL ? (CUstream)stream : s->devices[device_index].stream;
}

static hurray_status cuda_record_event(void *state, void *event, void *stream, hurray_error *err) {
  const cuda_state *s = state;
  const cuda_event *e = event;
  hurray_status status = cuda_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUresult r = s->cu.cuEventRecord(e->event, cuda_stream_or_own(s, e->device_index, stream));
  cuda_leave(s);
  return r == CUDA_SUCCESS ? HURRAY_OK : cuda_vendor_fail(s, err, "cuEventRecord", r, 0);
}

/* Polls `query` on the event or stream of the device, in its context, until
 * it stops answering NOT_READY or the timeout passes (never a blocking
 * driver call with a deadline). */
static hurray_status cuda_poll(const cuda_state *s, uint32_t device_index, bool is_event,
                               void *object, uint64_t timeout_ns, hurray_error *err) {
  hurray_status status = cuda_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const char *call = is_event ? "cuEventQuery" : "cuStreamQuery";
  plugin_polled_wait wait = plugin_polled_wait_start(timeout_ns, 1000u);
  for (;;) {
    CUresult r = is_event ? s->cu.cuEventQuery((CUevent)object)
                          : s->cu.cuStreamQuery((CUstream)object);
    if (r != CUDA_ERROR_NOT_READY) {
      status = r == CUDA_SUCCESS ? HURRAY_OK : cuda_vendor_fail(s, err, call, r, 0);
      break;
    }
    if (!plugin_polled_wait_again(&wait, err, "%s: still CUDA_ERROR_NOT_READY", call)) {
      status = HURRAY_ERR_TIMEOUT;
      break;
    }
  }
  cuda_leave(s);
  return status;
}

static hurray_status cuda_wait_event(void *state, void *event, uint64_t timeout_ns,
                                     hurray_error *err) {
  const cuda_event *e = event;
  return cuda_poll(state, e->device_index, true, e->event, timeout_ns, err);
}

static void cuda_release_event(void *state, void *event) {
  const cuda_state *s = state;
  cuda_event *e = event;
  if (cuda_enter(s, e->device_index, NULL) == HURRAY_OK) {
    (void)s->cu.cuEventDestroy_v2(e->event);
    cuda_leave(s);
  }
  free(e);
}

static hurray_status cuda_wait_stream(void *state, uint32_t device_index, void *stream,
                                      uint64_t timeout_ns, hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return cuda_poll(s, device_index, false, cuda_stream_or_own(s, device_index, stream), timeout_ns,
                   err);
}

static hurray_status cuda_stream_wait_event(void *state, void *stream, void *event,
                                            hurray_error *err) {
  const cuda_state *s = state;
  const cuda_event *e = event;
  hurray_status status = cuda_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUresult r = s->cu.cuStreamWaitEvent(cuda_stream_or_own(s, e->device_index, stream), e->event, 0);
  cuda_leave(s);
  return r == CUDA_SUCCESS ? HURRAY_OK : cuda_vendor_fail(s, err, "cuStreamWaitEvent", r, 0);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the CUevent itself; never recorded, it is complete for
 * cuStreamWaitEvent as for us (PL-EVENT-1). */
static hurray_status cuda_native_event(void *state, void *event, hurray_plugin_native_event *out,
                                       hurray_error *err) {
  (void)state;
  (void)err;
  const cuda_event *e = event;
  out->native_type = HURRAY_NATIVE_EVENT_CU_EVENT;
  out->handle = (uint64_t)(uintptr_t)e->event;
  return HURRAY_OK;
}

/* PL-IPC-8: the driver's 64-byte handle of an interprocess event. */
static hurray_status cuda_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                                       hurray_error *err) {
  const cuda_state *s = state;
  const cuda_event *e = event;
  if (s->cu.cuIpcGetEventHandle == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_CUDA,
                                     "cuda: the driver has no cuIpcGetEventHandle");
  }
  hurray_status status = cuda_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUipcEventHandle handle;
  memset(&handle, 0, sizeof handle);
  CUresult r = s->cu.cuIpcGetEventHandle(&handle, e->event);
  cuda_leave(s);
  if (r != CUDA_SUCCESS) {
    return cuda_vendor_fail(s, err, "cuIpcGetEventHandle", r, 0);
  }
  plugin_gpu_exported_event(handle.reserved, sizeof handle.reserved, out);
  return HURRAY_OK;
}

/* PL-IPC-9: opens the handle as a CUevent of the device; release_event's
 * cuEventDestroy closes it (cuda.h: an imported event is freed that way). */
static hurray_status cuda_import_event(void *state, uint32_t device_index,
                                       const hurray_plugin_ipc_event *in, void **out_event,
                                       hurray_error *err) {
  const cuda_state *s = state;
  hurray_status status = cuda_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  CUipcEventHandle handle;
  status =
      plugin_gpu_check_event_import("cuda", "cuIpcEventHandle", in, sizeof handle.reserved, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (s->cu.cuIpcOpenEventHandle == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_CUDA,
                                     "cuda: the driver has no cuIpcOpenEventHandle");
  }
  memcpy(handle.reserved, in->handle, sizeof handle.reserved);
  return cuda_new_event(s, device_index, 0u, &handle, out_event, err);
}

static const hurray_plugin_table cuda_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "cuda",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_CUDA,
    .init = cuda_init,
    .shutdown = cuda_close,
    .count_devices = gpu_plugin_count_devices,
    .describe_device = cuda_describe_device,
    .allocate = cuda_allocate,
    .free = cuda_free,
    .copy_to_device = cuda_copy_to_device,
    .copy_to_host = cuda_copy_to_host,
    .unavailable_reason = gpu_plugin_unavailable_reason,
    .create_event = cuda_create_event,
    .record_event = cuda_record_event,
    .wait_event = cuda_wait_event,
    .release_event = cuda_release_event,
    .wait_stream = cuda_wait_stream,
    .stream_wait_event = cuda_stream_wait_event,
    .native_event = cuda_native_event,
    .export_memory = cuda_export_memory,
    .import_memory = cuda_import_memory,
    .create_event_flags = cuda_create_event_flags,
    .export_event = cuda_export_event,
    .import_event = cuda_import_event,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &cuda_table;
}
