/*
 * libhurray device plugin: ROCm / HIP (device tag 0x02 rocm).
 *
 * Runtime: the HIP runtime, loaded at run time from "libamdhip64.so" (the
 * development name), then "libamdhip64.so.6" and "libamdhip64.so.5" (the
 * sonames ROCm and Debian 12's libamdhip64-5 ship), or only from the file
 * named by HURRAY_ROCM_LIBRARY. Types and constants come from Debian's
 * <hip/hip_runtime_api.h> (libamdhip64-dev). With the runtime present but no
 * AMD GPU (no /dev/kfd), hipInit fails and the plugin reports zero devices
 * with the HIP error; it never waits on the kernel driver.
 *
 * Memory classes (facts §5, specs BP-PAIR-1):
 *   standard    -> hipMalloc
 *   host_pinned -> hipHostMalloc (hipHostMallocPortable | hipHostMallocMapped)
 *   unified     -> hipMallocManaged (hipMemAttachGlobal), only where the
 *                  device reports hipDeviceAttributeManagedMemory
 *   peer        -> hipMalloc with peer access enabled from every device
 *                  hipDeviceCanAccessPeer allows (xGMI / PCIe); offered only
 *                  by a device that has at least one such peer.
 * IPC: HURRAY_IPC_EXPORTS_EVENTS (BP-XPORT-3) for a device where the runtime
 * has hipIpcGetEventHandle and hipIpcOpenEventHandle and makes an event with
 * hipEventInterprocess | hipEventDisableTiming (probed once per device at
 * init: HIP before ROCm 6, Debian 12's included, refuses the flag); such
 * events are exported (PL-IPC-11). Streams never cross processes.
 *
 * Streams are hipStream_t values; NULL means the plugin's own non-blocking
 * stream of the device. Every entry selects its device with hipSetDevice.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */
#include "gpu_ipc_event.h" /* plugins/common, in-tree only: shared by the GPU runtime plugins */
#include "gpu_plugin_frame.h"
#include "gpu_runtime_memory.h"
#include "polled_wait.h"
#include "runtime_loader.h"
#include "vendor_call_error.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: Debian's <hip/hip_runtime_api.h> (included above) */
/* ------------------------------------------------------------------------ */

#define ROCM_LIBRARY_ENV "HURRAY_ROCM_LIBRARY"
/* The largest alignment allocate() offers: beyond what the driver gives, it
 * over-allocates and aligns the address up, so the bound is a choice. */
#define ROCM_MAX_ALIGNMENT 65536u

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* Every driver function the plugin calls, X(return type, name, (parameter
 * types)), expanded into the struct of pointers and into the dlsym list. The
 * _v2 names are the driver's real exports behind cuda.h's macros. */

#define ROCM_SYMBOLS(X)                                                          \
  X(hipError_t, hipInit, (unsigned int))                                         \
  X(const char *, hipGetErrorName, (hipError_t))                                 \
  X(hipError_t, hipGetDeviceCount, (int *))                                      \
  X(hipError_t, hipDeviceGet, (hipDevice_t *, int))                              \
  X(hipError_t, hipDeviceGetName, (char *, int, hipDevice_t))                    \
  X(hipError_t, hipDeviceGetAttribute, (int *, hipDeviceAttribute_t, int))       \
  X(hipError_t, hipDeviceTotalMem, (size_t *, hipDevice_t))                      \
  X(hipError_t, hipDeviceCanAccessPeer, (int *, int, int))                       \
  X(hipError_t, hipSetDevice, (int))                                             \
  X(hipError_t, hipDeviceEnablePeerAccess, (int, unsigned int))                  \
  X(hipError_t, hipMalloc, (void **, size_t))                                    \
  X(hipError_t, hipFree, (void *))                                               \
  X(hipError_t, hipHostMalloc, (void **, size_t, unsigned int))                  \
  X(hipError_t, hipHostFree, (void *))                                           \
  X(hipError_t, hipMallocManaged, (void **, size_t, unsigned int))               \
  X(hipError_t, hipMemcpy, (void *, const void *, size_t, hipMemcpyKind))        \
  X(hipError_t, hipIpcGetMemHandle, (hipIpcMemHandle_t *, void *))               \
  X(hipError_t, hipIpcOpenMemHandle, (void **, hipIpcMemHandle_t, unsigned int)) \
  X(hipError_t, hipIpcCloseMemHandle, (void *))                                  \
  X(hipError_t, hipEventCreateWithFlags, (hipEvent_t *, unsigned))               \
  X(hipError_t, hipEventRecord, (hipEvent_t, hipStream_t))                       \
  X(hipError_t, hipEventQuery, (hipEvent_t))                                     \
  X(hipError_t, hipEventDestroy, (hipEvent_t))                                   \
  X(hipError_t, hipStreamCreateWithFlags, (hipStream_t *, unsigned int))         \
  X(hipError_t, hipStreamWaitEvent, (hipStream_t, hipEvent_t, unsigned int))     \
  X(hipError_t, hipStreamQuery, (hipStream_t))                                   \
  X(hipError_t, hipStreamDestroy, (hipStream_t))

/* Runtime functions the plugin can do without: a runtime that lacks them
 * leaves the pointer NULL and the feature off (PL-IPC-11), never a crash. */
#define ROCM_OPTIONAL_SYMBOLS(X)                                           \
  X(hipError_t, hipIpcGetEventHandle, (hipIpcEventHandle_t *, hipEvent_t)) \
  X(hipError_t, hipIpcOpenEventHandle, (hipEvent_t *, hipIpcEventHandle_t))

typedef struct rocm_symbols {
#define ROCM_SYMBOL_FIELD(ret, name, args) ret(*name) args;
  ROCM_SYMBOLS(ROCM_SYMBOL_FIELD)
  ROCM_OPTIONAL_SYMBOLS(ROCM_SYMBOL_FIELD)
#undef ROCM_SYMBOL_FIELD
} rocm_symbols;

typedef struct rocm_device {
  hipDevice_t device;
  hipStream_t stream; /* the plugin's stream: what a NULL stream means */
  char name[HURRAY_PLUGIN_DEVICE_NAME_SIZE];
  uint64_t memory_bytes;
  /* managed: hipDeviceAttributeManagedMemory; has_peer: at least one
   * device hipDeviceCanAccessPeer allows */
  plugin_gpu_device_traits traits;
  bool ipc_events; /* the IPC event calls exist and hipEventInterprocess works */
} rocm_device;

typedef struct rocm_state {
  gpu_plugin_frame frame; /* first: the runtime, the device count, the reason */
  rocm_symbols hip;
  rocm_device *devices;
} rocm_state;

typedef struct rocm_event {
  hipEvent_t event;
  uint32_t device_index;
} rocm_event;

static const char *rocm_error_name(const rocm_state *s, hipError_t code) {
  const char *name = s->hip.hipGetErrorName != NULL ? s->hip.hipGetErrorName(code) : NULL;
  return name != NULL ? name : "unknown hipError_t";
}

/* A failed vendor call: DEVICE_ERROR (value: the hipError_t), or OUT_OF_MEMORY
 * (value: the bytes asked for) when the driver says so. */
static hurray_status rocm_vendor_fail(const rocm_state *s, hurray_error *err, const char *call,
                                      hipError_t code, uint64_t bytes) {
  return plugin_vendor_call_fail(err, call, (int)code, rocm_error_name(s, code),
                                 code == hipErrorOutOfMemory, bytes);
}

/* Selects the device on this thread: HIP's per-thread current device is
 * what hipMalloc, hipEventCreate and the default stream refer to. */
static hurray_status rocm_enter(const rocm_state *s, uint32_t device_index, hurray_error *err) {
  hipError_t r = s->hip.hipSetDevice(s->devices[device_index].device);
  return r == hipSuccess ? HURRAY_OK : rocm_vendor_fail(s, err, "hipSetDevice", r, 0);
}

/* An entry's device index: INVALID_ARGUMENT (value: the index, expected: the
 * count) for one past the devices. */
static hurray_status rocm_check_device(const rocm_state *s, uint32_t device_index,
                                       hurray_error *err) {
  return hurray_support_check_device("rocm", device_index, s->frame.device_count, err);
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static void rocm_release_devices(void *state, uint32_t count) {
  rocm_state *s = state;
  for (uint32_t i = 0; i < count; i++) {
    rocm_device *d = &s->devices[i];
    if (d->stream != NULL && s->hip.hipSetDevice(d->device) == hipSuccess) {
      (void)s->hip.hipStreamDestroy(d->stream);
    }
  }
  free(s->devices);
  s->devices = NULL;
  s->frame.device_count = 0;
}

/* Sets up one device: attributes and the plugin's stream. false with
 * s->frame.reason set on failure (nothing left held). */
static bool rocm_open_device(rocm_state *s, int ordinal, rocm_device *d) {
  hipError_t r = s->hip.hipDeviceGet(&d->device, ordinal);
  const char *call = "hipDeviceGet";
  int managed = 0;
  size_t total = 0;
  if (r == hipSuccess) {
    call = "hipDeviceGetName";
    r = s->hip.hipDeviceGetName(d->name, (int)sizeof d->name, d->device);
  }
  if (r == hipSuccess) {
    call = "hipDeviceGetAttribute";
    r = s->hip.hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, d->device);
  }
  if (r == hipSuccess) {
    call = "hipDeviceTotalMem";
    r = s->hip.hipDeviceTotalMem(&total, d->device);
  }
  if (r == hipSuccess) {
    call = "hipSetDevice";
    r = s->hip.hipSetDevice(d->device);
  }
  if (r == hipSuccess) {
    call = "hipStreamCreateWithFlags";
    r = s->hip.hipStreamCreateWithFlags(&d->stream, hipStreamNonBlocking);
  }
  if (r != hipSuccess) {
    d->stream = NULL;
    snprintf(s->frame.reason, sizeof s->frame.reason, "%s (device %d): %s (%d)", call, ordinal,
             rocm_error_name(s, r), (int)r);
    return false;
  }
  d->name[sizeof d->name - 1] = '\0';
  d->memory_bytes = total;
  d->traits.host_pinned = true;
  d->traits.managed = managed != 0;
  /* PL-IPC-11: the flag's support is the runtime's to say, so ask it once
   * (the device is current from above). */
  hipEvent_t probe = NULL;
  d->ipc_events = s->hip.hipIpcGetEventHandle != NULL && s->hip.hipIpcOpenEventHandle != NULL &&
                  s->hip.hipEventCreateWithFlags(&probe, hipEventInterprocess |
                                                             hipEventDisableTiming) == hipSuccess;
  if (d->ipc_events) {
    (void)s->hip.hipEventDestroy(probe);
  }
  return true;
}

/* Enables peer access between every pair the runtime allows; a device with
 * at least one peer offers the peer class. */
static void rocm_enable_peers(void *state) {
  rocm_state *s = state;
  for (uint32_t i = 0; i < s->frame.device_count; i++) {
    for (uint32_t j = 0; j < s->frame.device_count; j++) {
      int can = 0;
      if (i == j ||
          s->hip.hipDeviceCanAccessPeer(&can, s->devices[i].device, s->devices[j].device) !=
              hipSuccess ||
          can == 0 || s->hip.hipSetDevice(s->devices[i].device) != hipSuccess) {
        continue;
      }
      hipError_t r = s->hip.hipDeviceEnablePeerAccess(s->devices[j].device, 0);
      if (r == hipSuccess || r == hipErrorPeerAccessAlreadyEnabled) {
        s->devices[i].traits.has_peer = true;
        s->devices[j].traits.has_peer = true;
      }
    }
  }
}

/* The runtime's half of gpu_plugin_open_devices and gpu_plugin_close. */
static int rocm_start(void *state) { return (int)((rocm_state *)state)->hip.hipInit(0); }

static int rocm_device_count(void *state, int *count) {
  return (int)((rocm_state *)state)->hip.hipGetDeviceCount(count);
}

static const char *rocm_code_name(const void *state, int code) {
  return rocm_error_name(state, (hipError_t)code);
}

static bool rocm_make_devices(void *state, size_t count) {
  rocm_state *s = state;
  s->devices = calloc(count, sizeof *s->devices);
  return s->devices != NULL;
}

static bool rocm_open_ordinal(void *state, int ordinal) {
  rocm_state *s = state;
  return rocm_open_device(s, ordinal, &s->devices[ordinal]);
}

static void rocm_forget_symbols(void *state) {
  rocm_state *s = state;
  memset(&s->hip, 0, sizeof s->hip);
}

static const gpu_plugin_vendor rocm_vendor = {
    .plugin = "rocm",
    .init_call = "hipInit",
    .count_call = "hipGetDeviceCount",
    .init = rocm_start,
    .device_count = rocm_device_count,
    .error_name = rocm_code_name,
    .make_devices = rocm_make_devices,
    .open_device = rocm_open_ordinal,
    .release_devices = rocm_release_devices,
    .enable_peers = rocm_enable_peers,
    .forget_symbols = rocm_forget_symbols,
};

/* Opens the first HIP runtime that loads (the override alone when set) and
 * every device; on any failure the state holds zero devices and the reason
 * (PL-AVAIL-1). */
static void rocm_open(rocm_state *s) {
  static const char *const defaults[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  const char *library = NULL;
  /* The X-macro's second expansion: every symbol, required, into s->hip. */
#define ROCM_SYMBOL_ENTRY(ret, name, args) {#name, &s->hip.name, HURRAY_TRUE},
#define ROCM_OPTIONAL_ENTRY(ret, name, args) {#name, &s->hip.name, HURRAY_FALSE},
  const hurray_support_symbol symbols[] = {ROCM_SYMBOLS(ROCM_SYMBOL_ENTRY)
                                               ROCM_OPTIONAL_SYMBOLS(ROCM_OPTIONAL_ENTRY)};
#undef ROCM_OPTIONAL_ENTRY
#undef ROCM_SYMBOL_ENTRY
  /* The reason names every file tried and why. */
  s->frame.library = plugin_load_runtime(
      ROCM_LIBRARY_ENV, defaults, sizeof defaults / sizeof defaults[0], 0, symbols,
      sizeof symbols / sizeof symbols[0], &library, s->frame.reason, sizeof s->frame.reason);
  if (s->frame.library == NULL) {
    return;
  }
  gpu_plugin_open_devices(s, &rocm_vendor, library);
}

static void rocm_close(void *state) { gpu_plugin_close(state, &rocm_vendor); }

static hurray_status rocm_init(void **out_state, hurray_error *err) {
  rocm_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "rocm: no memory for the plugin state");
  }
  rocm_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static hurray_status rocm_describe_device(void *state, uint32_t device_index,
                                          hurray_plugin_device_info *out, hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const rocm_device *d = &s->devices[device_index];
  plugin_gpu_describe(d->name, d->memory_bytes,
                      d->ipc_events ? HURRAY_IPC_EXPORTS_EVENTS : 0u /* PL-IPC-11 */, d->traits,
                      ROCM_MAX_ALIGNMENT, out);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

/* One runtime allocation of `bytes` in the class; *out is its base. */
static hipError_t rocm_raw_allocate(const rocm_state *s, hurray_memory_class memory_class,
                                    size_t bytes, uint64_t *out, const char **call) {
  void *p = NULL;
  hipError_t r;
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    *call = "hipHostMalloc";
    r = s->hip.hipHostMalloc(&p, bytes, hipHostMallocPortable | hipHostMallocMapped);
  } else if (memory_class == HURRAY_MEMORY_UNIFIED) {
    *call = "hipMallocManaged";
    r = s->hip.hipMallocManaged(&p, bytes, hipMemAttachGlobal);
  } else {
    *call = "hipMalloc";
    r = s->hip.hipMalloc(&p, bytes);
  }
  *out = (uint64_t)(uintptr_t)p;
  return r;
}

static void rocm_raw_free(const rocm_state *s, hurray_memory_class memory_class, uint64_t base) {
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    (void)s->hip.hipHostFree((void *)(uintptr_t)base);
  } else {
    (void)s->hip.hipFree((void *)(uintptr_t)base);
  }
}

static hurray_status rocm_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                   uint32_t alignment, hurray_memory_class memory_class,
                                   uint32_t flags, hurray_plugin_allocation *out,
                                   hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const rocm_device *d = &s->devices[device_index];
  status = plugin_gpu_check_allocate("rocm", HURRAY_DEVICE_ROCM, d->traits, device_index, byte_size,
                                     alignment, memory_class, flags, ROCM_MAX_ALIGNMENT,
                                     ROCM_MAX_ALIGNMENT, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = rocm_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const char *call = NULL;
  uint64_t base = 0;
  hipError_t r = rocm_raw_allocate(s, memory_class, (size_t)byte_size, &base, &call);
  if (r == hipSuccess && hurray_support_lowest_set_bit(base) < alignment) {
    /* The driver's guarantee is smaller than asked: allocate with slack and
     * align the address up; free() uses the base kept in plugin_data. */
    rocm_raw_free(s, memory_class, base);
    r = rocm_raw_allocate(s, memory_class, (size_t)byte_size + alignment, &base, &call);
  }
  if (r != hipSuccess) {
    return rocm_vendor_fail(s, err, call, r, byte_size);
  }
  /* HIP maps pinned and managed memory at the same address on the device. */
  plugin_gpu_allocation(device_index, memory_class, base, byte_size, alignment, ROCM_MAX_ALIGNMENT,
                        true, (void *)(uintptr_t)base, out);
  return HURRAY_OK;
}

static void rocm_free(void *state, const hurray_plugin_allocation *allocation) {
  const rocm_state *s = state;
  if (allocation->device_index >= s->frame.device_count ||
      rocm_enter(s, allocation->device_index, NULL) != HURRAY_OK) {
    return;
  }
  uint64_t base = (uint64_t)(uintptr_t)allocation->plugin_data;
  if ((base & PLUGIN_GPU_IMPORTED_MARK) != 0u) { /* PL-IPC-4: close the import, never free */
    (void)s->hip.hipIpcCloseMemHandle((void *)(uintptr_t)(base - PLUGIN_GPU_IMPORTED_MARK));
  } else {
    rocm_raw_free(s, allocation->memory_class, base);
  }
}

/* PL-IPC-2: the runtime's IPC handle of the allocation's base (plugin_data)
 * and the buffer's offset from it; the handle covers device memory only. */
static hurray_status rocm_export_memory(void *state, const hurray_plugin_allocation *allocation,
                                        hurray_plugin_ipc_memory *out, hurray_error *err) {
  const rocm_state *s = state;
  uint64_t base = plugin_gpu_base_of(allocation);
  hurray_status status = plugin_gpu_check_export("rocm", HURRAY_DEVICE_ROCM, allocation, err);
  if (status == HURRAY_OK) {
    status = rocm_enter(s, allocation->device_index, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  hipIpcMemHandle_t handle;
  memset(&handle, 0, sizeof handle);
  hipError_t r = s->hip.hipIpcGetMemHandle(&handle, (void *)(uintptr_t)base);

  if (r != hipSuccess) {
    return rocm_vendor_fail(s, err, "hipIpcGetMemHandle", r, 0);
  }
  plugin_gpu_exported_handle(handle.reserved, sizeof handle.reserved, base, allocation, out);
  return HURRAY_OK;
}

/* PL-IPC-3: opens the handle on the device; the buffer sits at the
 * exporter's offset from the mapped base. free() closes it (plugin_data
 * carries the base with PLUGIN_GPU_IMPORTED_MARK). */
static hurray_status rocm_import_memory(void *state, uint32_t device_index,
                                        const hurray_plugin_ipc_memory *in,
                                        hurray_plugin_allocation *out, hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hipIpcMemHandle_t handle;
  status = plugin_gpu_check_import("rocm", in, sizeof handle.reserved, err);
  if (status != HURRAY_OK) {
    return status;
  }
  memcpy(handle.reserved, in->handle, sizeof handle.reserved);
  status = rocm_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  void *mapped = 0;
  hipError_t r = s->hip.hipIpcOpenMemHandle(&mapped, handle, hipIpcMemLazyEnablePeerAccess);

  if (r != hipSuccess) {
    return rocm_vendor_fail(s, err, "hipIpcOpenMemHandle", r, 0);
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

/* One blocking copy of `bytes` from `from` to `to`, one of them on the device. */
static hurray_status rocm_copy(const rocm_state *s, uint32_t device_index, void *to,
                               const void *from, uint64_t bytes, hipMemcpyKind kind,
                               hurray_error *err) {
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status == HURRAY_OK && bytes > 0) {
    status = rocm_enter(s, device_index, err);
  }
  if (status != HURRAY_OK || bytes == 0) {
    return status;
  }
  hipError_t r = s->hip.hipMemcpy(to, from, (size_t)bytes, kind);
  return r == hipSuccess ? HURRAY_OK : rocm_vendor_fail(s, err, "hipMemcpy", r, 0);
}

static hurray_status rocm_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                         uint64_t dst_offset, const void *src, uint64_t bytes,
                                         hurray_error *err) {
  return rocm_copy(state, dst->device_index, (unsigned char *)dst->address + dst_offset, src, bytes,
                   hipMemcpyHostToDevice, err);
}

static hurray_status rocm_copy_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                       uint64_t src_offset, uint64_t bytes, hurray_error *err) {
  return rocm_copy(state, src->device_index, dst, (const unsigned char *)src->address + src_offset,
                   bytes, hipMemcpyDeviceToHost, err);
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* One hipEvent_t of the device: made with the runtime's creation flags
 * `hip_flags`, or opened from another process's `handle` when given
 * (PL-IPC-9). */
static hurray_status rocm_new_event(const rocm_state *s, uint32_t device_index, unsigned hip_flags,
                                    const hipIpcEventHandle_t *handle, void **out_event,
                                    hurray_error *err) {
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  rocm_event *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *e, 0,
                                     "rocm: no memory for an event");
  }
  status = rocm_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    free(e);
    return status;
  }
  hipError_t r = handle != NULL ? s->hip.hipIpcOpenEventHandle(&e->event, *handle)
                                : s->hip.hipEventCreateWithFlags(&e->event, hip_flags);
  if (r != hipSuccess) {
    free(e);
    return rocm_vendor_fail(
        s, err, handle != NULL ? "hipIpcOpenEventHandle" : "hipEventCreateWithFlags", r, 0);
  }
  e->device_index = device_index;
  *out_event = e;
  return HURRAY_OK;
}

static hurray_status rocm_create_event(void *state, uint32_t device_index, void **out_event,
                                       hurray_error *err) {
  return rocm_new_event(state, device_index, hipEventDisableTiming, NULL, out_event, err);
}

/* PL-IPC-7: an event another process can open (hipEventInterprocess, with
 * hipEventDisableTiming as the runtime requires). */
static hurray_status rocm_create_event_flags(void *state, uint32_t device_index, uint32_t flags,
                                             void **out_event, hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (flags != HURRAY_PLUGIN_EVENT_EXPORTABLE || !s->devices[device_index].ipc_events) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, flags, HURRAY_DEVICE_ROCM,
        "rocm: device %u exports no events (hipEventInterprocess refused or "
        "hipIpcGetEventHandle missing), flags 0x%X",
        (unsigned)device_index, (unsigned)flags);
  }
  return rocm_new_event(s, device_index, hipEventInterprocess | hipEventDisableTiming, NULL,
                        out_event, err);
}

/* The caller's stream, or the device's own where it passes none (NULL). */
static hipStream_t rocm_stream_or_own(const rocm_state *s, uint32_t device_index, void *stream) {
  return stream != NULL ? (hipStream_t)stream : s->devices[device_index].stream;
}

static hurray_status rocm_record_event(void *state, void *event, void *stream, hurray_error *err) {
  const rocm_state *s = state;
  const rocm_event *e = event;
  hurray_status status = rocm_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hipError_t r = s->hip.hipEventRecord(e->event, rocm_stream_or_own(s, e->device_index, stream));
  return r == hipSuccess ? HURRAY_OK : rocm_vendor_fail(s, err, "hipEventRecord", r, 0);
}

/* Polls `query` on the event or stream of the device, selected on this
 * thread, until it stops answering NOT_READY or the timeout passes (never a
 * blocking driver call with a deadline). */
static hurray_status rocm_poll(const rocm_state *s, uint32_t device_index, bool is_event,
                               void *object, uint64_t timeout_ns, hurray_error *err) {
  hurray_status status = rocm_enter(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const char *call = is_event ? "hipEventQuery" : "hipStreamQuery";
  plugin_polled_wait wait = plugin_polled_wait_start(timeout_ns, 1000u);
  for (;;) {
    hipError_t r = is_event ? s->hip.hipEventQuery((hipEvent_t)object)
                            : s->hip.hipStreamQuery((hipStream_t)object);
    if (r != hipErrorNotReady) {
      return r == hipSuccess ? HURRAY_OK : rocm_vendor_fail(s, err, call, r, 0);
    }
    if (!plugin_polled_wait_again(&wait, err, "%s: still hipErrorNotReady", call)) {
      return HURRAY_ERR_TIMEOUT;
    }
  }
}

static hurray_status rocm_wait_event(void *state, void *event, uint64_t timeout_ns,
                                     hurray_error *err) {
  const rocm_event *e = event;
  return rocm_poll(state, e->device_index, true, e->event, timeout_ns, err);
}

static void rocm_release_event(void *state, void *event) {
  const rocm_state *s = state;
  rocm_event *e = event;
  if (rocm_enter(s, e->device_index, NULL) == HURRAY_OK) {
    (void)s->hip.hipEventDestroy(e->event);
  }
  free(e);
}

static hurray_status rocm_wait_stream(void *state, uint32_t device_index, void *stream,
                                      uint64_t timeout_ns, hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return rocm_poll(s, device_index, false, rocm_stream_or_own(s, device_index, stream), timeout_ns,
                   err);
}

static hurray_status rocm_stream_wait_event(void *state, void *stream, void *event,
                                            hurray_error *err) {
  const rocm_state *s = state;
  const rocm_event *e = event;
  hurray_status status = rocm_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hipError_t r =
      s->hip.hipStreamWaitEvent(rocm_stream_or_own(s, e->device_index, stream), e->event, 0);
  return r == hipSuccess ? HURRAY_OK : rocm_vendor_fail(s, err, "hipStreamWaitEvent", r, 0);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the hipEvent_t itself; never recorded, it is complete for
 * hipStreamWaitEvent as for us (PL-EVENT-1). */
static hurray_status rocm_native_event(void *state, void *event, hurray_plugin_native_event *out,
                                       hurray_error *err) {
  (void)state;
  (void)err;
  const rocm_event *e = event;
  out->native_type = HURRAY_NATIVE_EVENT_HIP_EVENT;
  out->handle = (uint64_t)(uintptr_t)e->event;
  return HURRAY_OK;
}

/* PL-IPC-8: the runtime's 64-byte handle of an interprocess event. */
static hurray_status rocm_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                                       hurray_error *err) {
  const rocm_state *s = state;
  const rocm_event *e = event;
  if (s->hip.hipIpcGetEventHandle == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_ROCM,
                                     "rocm: the runtime has no hipIpcGetEventHandle");
  }
  hurray_status status = rocm_enter(s, e->device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hipIpcEventHandle_t handle;
  memset(&handle, 0, sizeof handle);
  hipError_t r = s->hip.hipIpcGetEventHandle(&handle, e->event);
  if (r != hipSuccess) {
    return rocm_vendor_fail(s, err, "hipIpcGetEventHandle", r, 0);
  }
  plugin_gpu_exported_event(handle.reserved, sizeof handle.reserved, out);
  return HURRAY_OK;
}

/* PL-IPC-9: opens the handle as a hipEvent_t of the device; release_event's
 * hipEventDestroy closes it (the runtime frees an imported event that way). */
static hurray_status rocm_import_event(void *state, uint32_t device_index,
                                       const hurray_plugin_ipc_event *in, void **out_event,
                                       hurray_error *err) {
  const rocm_state *s = state;
  hurray_status status = rocm_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hipIpcEventHandle_t handle;
  status =
      plugin_gpu_check_event_import("rocm", "hipIpcEventHandle_t", in, sizeof handle.reserved, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (s->hip.hipIpcOpenEventHandle == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_ROCM,
                                     "rocm: the runtime has no hipIpcOpenEventHandle");
  }
  memcpy(handle.reserved, in->handle, sizeof handle.reserved);
  return rocm_new_event(s, device_index, 0u, &handle, out_event, err);
}

static const hurray_plugin_table rocm_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "rocm",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_ROCM,
    .init = rocm_init,
    .shutdown = rocm_close,
    .count_devices = gpu_plugin_count_devices,
    .describe_device = rocm_describe_device,
    .allocate = rocm_allocate,
    .free = rocm_free,
    .copy_to_device = rocm_copy_to_device,
    .copy_to_host = rocm_copy_to_host,
    .unavailable_reason = gpu_plugin_unavailable_reason,
    .create_event = rocm_create_event,
    .record_event = rocm_record_event,
    .wait_event = rocm_wait_event,
    .release_event = rocm_release_event,
    .wait_stream = rocm_wait_stream,
    .stream_wait_event = rocm_stream_wait_event,
    .native_event = rocm_native_event,
    .export_memory = rocm_export_memory,
    .import_memory = rocm_import_memory,
    .create_event_flags = rocm_create_event_flags,
    .export_event = rocm_export_event,
    .import_event = rocm_import_event,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &rocm_table;
}
