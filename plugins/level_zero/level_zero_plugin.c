/*
 * libhurray device plugin: Intel Level Zero / oneAPI (device tag 0x07
 * level_zero).
 *
 * Runtime: the Level Zero loader, loaded at run time from "libze_loader.so.1"
 * (Debian libze1), or from the file named by HURRAY_LEVEL_ZERO_LIBRARY. The
 * loader finds the drivers itself (libze_intel_gpu.so.1, ..., or those named
 * by ZE_ENABLE_ALT_DRIVERS); the plugin uses every GPU device of the first
 * driver that has one. Types and constants come from Debian's
 * <level_zero/ze_api.h> (libze-dev).
 *
 * Memory classes (facts §5, specs BP-PAIR-1):
 *   standard    -> zeMemAllocDevice
 *   host_pinned -> zeMemAllocHost   (where hostAllocCapabilities is non-zero)
 *   unified     -> zeMemAllocShared (where sharedSingleDeviceAllocCapabilities
 *                  is non-zero)
 *   peer        -> zeMemAllocDevice, offered by a device for which
 *                  zeDeviceCanAccessPeer is true for at least one other device
 *                  (device allocations of one context are then reachable).
 * Level Zero takes the alignment as an argument, so the plugin asks for it
 * and then measures the address it got.
 * IPC: Level Zero can export event pools (ZE_IPC_PROPERTY_FLAG_EVENT_POOL),
 * but the plugin's events are not created in IPC-capable pools, so it
 * declares no IPC capability (BP-XPORT-3 then allows producer_synced only).
 *
 * Streams are immediate command lists (ze_command_list_handle_t); NULL means
 * the plugin's own asynchronous immediate list of the device. Copies go
 * through a second, synchronous immediate list, so they are blocking.
 * Events each own a one-slot host-visible event pool. Command lists are not
 * thread-safe in Level Zero: one lock per device serialises appends to its
 * two lists, since the ABI lets any thread call any entry.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */
#include "gpu_runtime_memory.h"    /* plugins/common, in-tree only: shared by GPU runtime plugins */
#include "runtime_loader.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: Debian's <level_zero/ze_api.h> (included above)  */
/* ------------------------------------------------------------------------ */

#define ZE_DEFAULT_LIBRARY "libze_loader.so.1"
#define ZE_LIBRARY_ENV "HURRAY_LEVEL_ZERO_LIBRARY"
/* The largest alignment allocate() asks the driver for. */
#define ZE_MAX_ALIGNMENT 65536u
#define ZE_MAX_DEVICES 16u

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */

#define ZE_SYMBOLS(X)                                                                             \
  X(ze_result_t, zeInit, (ze_init_flags_t))                                                       \
  X(ze_result_t, zeDriverGet, (uint32_t *, ze_driver_handle_t *))                                 \
  X(ze_result_t, zeDeviceGet, (ze_driver_handle_t, uint32_t *, ze_device_handle_t *))             \
  X(ze_result_t, zeDeviceGetProperties, (ze_device_handle_t, ze_device_properties_t *))           \
  X(ze_result_t, zeDeviceGetMemoryAccessProperties,                                               \
    (ze_device_handle_t, ze_device_memory_access_properties_t *))                                 \
  X(ze_result_t, zeDeviceCanAccessPeer, (ze_device_handle_t, ze_device_handle_t, ze_bool_t *))    \
  X(ze_result_t, zeContextCreate,                                                                 \
    (ze_driver_handle_t, const ze_context_desc_t *, ze_context_handle_t *))                       \
  X(ze_result_t, zeContextDestroy, (ze_context_handle_t))                                         \
  X(ze_result_t, zeMemAllocDevice,                                                                \
    (ze_context_handle_t, const ze_device_mem_alloc_desc_t *, size_t, size_t, ze_device_handle_t, \
     void **))                                                                                    \
  X(ze_result_t, zeMemAllocHost,                                                                  \
    (ze_context_handle_t, const ze_host_mem_alloc_desc_t *, size_t, size_t, void **))             \
  X(ze_result_t, zeMemAllocShared,                                                                \
    (ze_context_handle_t, const ze_device_mem_alloc_desc_t *, const ze_host_mem_alloc_desc_t *,   \
     size_t, size_t, ze_device_handle_t, void **))                                                \
  X(ze_result_t, zeMemFree, (ze_context_handle_t, void *))                                        \
  X(ze_result_t, zeMemGetIpcHandle, (ze_context_handle_t, const void *, ze_ipc_mem_handle_t *))   \
  X(ze_result_t, zeMemOpenIpcHandle,                                                              \
    (ze_context_handle_t, ze_device_handle_t, ze_ipc_mem_handle_t, ze_ipc_memory_flags_t,         \
     void **))                                                                                    \
  X(ze_result_t, zeMemCloseIpcHandle, (ze_context_handle_t, const void *))                        \
  X(ze_result_t, zeCommandListCreateImmediate,                                                    \
    (ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t *,                    \
     ze_command_list_handle_t *))                                                                 \
  X(ze_result_t, zeCommandListDestroy, (ze_command_list_handle_t))                                \
  X(ze_result_t, zeCommandListAppendMemoryCopy,                                                   \
    (ze_command_list_handle_t, void *, const void *, size_t, ze_event_handle_t, uint32_t,         \
     ze_event_handle_t *))                                                                        \
  X(ze_result_t, zeCommandListAppendSignalEvent, (ze_command_list_handle_t, ze_event_handle_t))   \
  X(ze_result_t, zeCommandListAppendWaitOnEvents,                                                 \
    (ze_command_list_handle_t, uint32_t, ze_event_handle_t *))                                    \
  X(ze_result_t, zeEventPoolCreate,                                                               \
    (ze_context_handle_t, const ze_event_pool_desc_t *, uint32_t, ze_device_handle_t *,           \
     ze_event_pool_handle_t *))                                                                   \
  X(ze_result_t, zeEventPoolDestroy, (ze_event_pool_handle_t))                                    \
  X(ze_result_t, zeEventCreate,                                                                   \
    (ze_event_pool_handle_t, const ze_event_desc_t *, ze_event_handle_t *))                       \
  X(ze_result_t, zeEventDestroy, (ze_event_handle_t))                                             \
  X(ze_result_t, zeEventHostSynchronize, (ze_event_handle_t, uint64_t))                           \
  X(ze_result_t, zeEventHostReset, (ze_event_handle_t))

typedef struct ze_symbols {
#define ZE_SYMBOL_FIELD(ret, name, args) ret(*name) args;
  ZE_SYMBOLS(ZE_SYMBOL_FIELD)
#undef ZE_SYMBOL_FIELD
} ze_symbols;

typedef struct ze_device {
  ze_device_handle_t device;
  ze_command_list_handle_t stream; /* asynchronous: what a NULL stream means */
  ze_command_list_handle_t copier; /* synchronous: blocking copies */
  pthread_mutex_t lock;            /* appends to stream and copier */
  char name[HURRAY_PLUGIN_DEVICE_NAME_SIZE];
  /* host_pinned: hostAllocCapabilities; managed: shared single-device
   * allocations; has_peer: at least one device with peer access */
  plugin_gpu_device_traits traits;
} ze_device;

typedef struct ze_state {
  void *library;
  ze_symbols ze;
  ze_driver_handle_t driver;
  ze_context_handle_t context;
  uint32_t device_count;
  ze_device devices[ZE_MAX_DEVICES];
  char reason[HURRAY_SUPPORT_REASON_SIZE];
} ze_state;

/* One plugin event: its own one-slot pool. `recorded` is kept because a
 * Level Zero event starts unsignalled, while the ABI says a fresh event
 * counts as complete. */
typedef struct ze_plugin_event {
  ze_event_pool_handle_t pool;
  ze_event_handle_t event;
  uint32_t device_index;
  bool recorded;
} ze_plugin_event;

/* The names of the results this plugin can meet; the hex code otherwise. */
static const char *ze_result_name(ze_result_t r) {
  switch (r) {
    case ZE_RESULT_SUCCESS: return "ZE_RESULT_SUCCESS";
    case ZE_RESULT_NOT_READY: return "ZE_RESULT_NOT_READY";
    case ZE_RESULT_ERROR_UNINITIALIZED: return "ZE_RESULT_ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_DEVICE_LOST: return "ZE_RESULT_ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: return "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT";
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE: return "ZE_RESULT_ERROR_UNSUPPORTED_SIZE";
    case ZE_RESULT_ERROR_INVALID_ARGUMENT: return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
    case ZE_RESULT_ERROR_INVALID_NULL_HANDLE: return "ZE_RESULT_ERROR_INVALID_NULL_HANDLE";
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER: return "ZE_RESULT_ERROR_INVALID_NULL_POINTER";
    case ZE_RESULT_ERROR_UNKNOWN: return "ZE_RESULT_ERROR_UNKNOWN";
    default: return "ze_result_t";
  }
}

/* A failed vendor call: OUT_OF_MEMORY (value: the bytes asked for) for the
 * two out-of-memory results, DEVICE_ERROR (value: the result) otherwise. */
static hurray_status ze_vendor_fail(hurray_error *err, const char *call, ze_result_t r,
                                    uint64_t bytes) {
  if (r == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY || r == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, bytes, 0, "%s: %s (0x%x)", call,
                                     ze_result_name(r), (unsigned)r);
  }
  return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, (uint64_t)r, 0, "%s: %s (0x%x)",
                                   call, ze_result_name(r), (unsigned)r);
}

/* An entry's device index: INVALID_ARGUMENT (value: the index, expected: the
 * count) for one past the devices. */
static hurray_status ze_check_device(const ze_state *s, uint32_t device_index, hurray_error *err) {
  return hurray_support_check_device("level_zero", device_index, s->device_count, err);
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static ze_result_t ze_create_list(const ze_state *s, ze_device_handle_t device,
                                  ze_command_queue_mode_t mode, ze_command_list_handle_t *out) {
  ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .ordinal = 0,
                                  .mode = mode,
                                  .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  return s->ze.zeCommandListCreateImmediate(s->context, device, &desc, out);
}

static void ze_release_devices(ze_state *s) {
  for (uint32_t i = 0; i < s->device_count; i++) {
    if (s->devices[i].stream != NULL) {
      (void)s->ze.zeCommandListDestroy(s->devices[i].stream);
    }
    if (s->devices[i].copier != NULL) {
      (void)s->ze.zeCommandListDestroy(s->devices[i].copier);
    }
    pthread_mutex_destroy(&s->devices[i].lock);
  }
  s->device_count = 0;
  if (s->context != NULL) {
    (void)s->ze.zeContextDestroy(s->context);
    s->context = NULL;
  }
}

/* Opens one device of the driver; false with s->reason set on failure. */
static bool ze_open_device(ze_state *s, ze_device_handle_t handle, ze_device *d) {
  ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ze_device_memory_access_properties_t access = {
      .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
  const char *call = "zeDeviceGetProperties";
  ze_result_t r = s->ze.zeDeviceGetProperties(handle, &properties);
  if (r == ZE_RESULT_SUCCESS) {
    call = "zeDeviceGetMemoryAccessProperties";
    r = s->ze.zeDeviceGetMemoryAccessProperties(handle, &access);
  }
  d->device = handle;
  pthread_mutex_init(&d->lock, NULL);
  if (r == ZE_RESULT_SUCCESS) {
    call = "zeCommandListCreateImmediate";
    r = ze_create_list(s, handle, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, &d->stream);
  }
  if (r == ZE_RESULT_SUCCESS) {
    r = ze_create_list(s, handle, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, &d->copier);
  }
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(s->reason, sizeof s->reason, "%s: %s (0x%x)", call, ze_result_name(r), (unsigned)r);
    return false;
  }
  /* The driver's name may be longer than the ABI's field: keep its start. */
  size_t length = strnlen(properties.name, sizeof properties.name);
  length = length < sizeof d->name - 1u ? length : sizeof d->name - 1u;
  memcpy(d->name, properties.name, length);
  d->name[length] = '\0';
  d->traits.host_pinned = access.hostAllocCapabilities != 0;
  d->traits.managed = access.sharedSingleDeviceAllocCapabilities != 0;
  return true;
}

/* Loads the loader, takes the first driver with devices and opens them; on
 * any failure the state holds zero devices and the reason (PL-AVAIL-1). */
static void ze_open(ze_state *s) {
  static const char *const default_libraries[] = {ZE_DEFAULT_LIBRARY};
  const char *library = NULL;
  /* The X-macro's second expansion: every symbol, required, into s->ze. */
#define ZE_SYMBOL_ENTRY(ret, name, args) {#name, &s->ze.name, true},
  const hurray_support_symbol symbols[] = {ZE_SYMBOLS(ZE_SYMBOL_ENTRY)};
#undef ZE_SYMBOL_ENTRY
  s->library = plugin_load_runtime(ZE_LIBRARY_ENV, default_libraries, 1u, 0, symbols,
                                   sizeof symbols / sizeof symbols[0], &library, s->reason,
                                   sizeof s->reason);
  if (s->library == NULL) {
    return;
  }
  ze_result_t r = s->ze.zeInit(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(s->reason, sizeof s->reason, "%s: zeInit: %s (0x%x): no Level Zero driver loaded",
             library, ze_result_name(r), (unsigned)r);
    goto unload;
  }
  uint32_t driver_count = 1;
  r = s->ze.zeDriverGet(&driver_count, &s->driver);
  if (r != ZE_RESULT_SUCCESS || driver_count == 0) {
    snprintf(s->reason, sizeof s->reason, "%s: zeDriverGet: %s (0x%x), %u drivers", library,
             ze_result_name(r), (unsigned)r, (unsigned)driver_count);
    goto unload;
  }
  ze_device_handle_t handles[ZE_MAX_DEVICES];
  uint32_t count = ZE_MAX_DEVICES;
  r = s->ze.zeDeviceGet(s->driver, &count, handles);
  if (r != ZE_RESULT_SUCCESS || count == 0) {
    snprintf(s->reason, sizeof s->reason, "%s: zeDeviceGet: %u devices (%s)", library,
             (unsigned)(r == ZE_RESULT_SUCCESS ? count : 0u), ze_result_name(r));
    goto unload;
  }
  ze_context_desc_t context_desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
  r = s->ze.zeContextCreate(s->driver, &context_desc, &s->context);
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(s->reason, sizeof s->reason, "%s: zeContextCreate: %s (0x%x)", library,
             ze_result_name(r), (unsigned)r);
    s->context = NULL;
    goto unload;
  }
  for (uint32_t i = 0; i < count; i++) {
    s->device_count = i + 1u;
    if (!ze_open_device(s, handles[i], &s->devices[i])) {
      ze_release_devices(s);
      goto unload;
    }
  }
  for (uint32_t i = 0; i < s->device_count; i++) {
    for (uint32_t j = 0; j < s->device_count; j++) {
      ze_bool_t can = 0;
      if (i != j &&
          s->ze.zeDeviceCanAccessPeer(s->devices[i].device, s->devices[j].device, &can) ==
              ZE_RESULT_SUCCESS &&
          can) {
        s->devices[i].traits.has_peer = true;
      }
    }
  }
  return;
unload:
  memset(s->devices, 0, sizeof s->devices);
  dlclose(s->library);
  s->library = NULL;
  memset(&s->ze, 0, sizeof s->ze);
}

static hurray_status ze_plugin_init(void **out_state, hurray_error *err) {
  ze_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "level_zero: no memory for the plugin state");
  }
  ze_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static void ze_plugin_shutdown(void *state) {
  ze_state *s = state;
  if (s->library != NULL) {
    ze_release_devices(s);
    dlclose(s->library);
  }
  free(s);
}

static hurray_status ze_plugin_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((ze_state *)state)->device_count;
  return HURRAY_OK;
}

static size_t ze_plugin_unavailable_reason(void *state, char *buf, size_t cap) {
  ze_state *s = state;
  return hurray_support_copy_reason(buf, cap, s->device_count > 0 ? "" : s->reason);
}

static hurray_status ze_plugin_describe_device(void *state, uint32_t device_index,
                                               hurray_plugin_device_info *out, hurray_error *err) {
  ze_state *s = state;
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const ze_device *d = &s->devices[device_index];
  /* memory_bytes 0: zeDeviceGetMemoryProperties is not queried; no IPC events */
  plugin_gpu_describe(d->name, 0u, 0u, d->traits, ZE_MAX_ALIGNMENT, out);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

static hurray_status ze_plugin_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                        uint32_t alignment, hurray_memory_class memory_class,
                                        uint32_t flags, hurray_plugin_allocation *out,
                                        hurray_error *err) {
  ze_state *s = state;
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const ze_device *d = &s->devices[device_index];
  /* PL-IPC-6: IPC handles cover device allocations only. The runtime
   * aligns (no slack): an address it aligns less is refused below. */
  status = plugin_gpu_check_allocate("level_zero", HURRAY_DEVICE_LEVEL_ZERO, d->traits,
                                     device_index, byte_size, alignment, memory_class, flags,
                                     ZE_MAX_ALIGNMENT, 0u, err);
  if (status != HURRAY_OK) {
    return status;
  }
  ze_device_mem_alloc_desc_t device_desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  ze_host_mem_alloc_desc_t host_desc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  void *p = NULL;
  const char *call;
  ze_result_t r;
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    call = "zeMemAllocHost";
    r = s->ze.zeMemAllocHost(s->context, &host_desc, (size_t)byte_size, alignment, &p);
  } else if (memory_class == HURRAY_MEMORY_UNIFIED) {
    call = "zeMemAllocShared";
    r = s->ze.zeMemAllocShared(s->context, &device_desc, &host_desc, (size_t)byte_size, alignment,
                               d->device, &p);
  } else {
    call = "zeMemAllocDevice";
    r = s->ze.zeMemAllocDevice(s->context, &device_desc, (size_t)byte_size, alignment, d->device,
                               &p);
  }
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, call, r, byte_size);
  }
  uint64_t measured = hurray_support_lowest_set_bit((uint64_t)(uintptr_t)p);
  if (measured < alignment) {
    /* The driver ignored the alignment it was given: refuse, never downgrade. */
    (void)s->ze.zeMemFree(s->context, p);
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, measured,
                                     "%s returned an address aligned to %llu bytes, %u were asked",
                                     call, (unsigned long long)measured, (unsigned)alignment);
  }
  /* One unified virtual address space: the device address is the pointer. */
  plugin_gpu_allocation(device_index, memory_class, (uint64_t)(uintptr_t)p, byte_size, alignment,
                        ZE_MAX_ALIGNMENT, true, NULL, out);
  return HURRAY_OK;
}

/* plugin_data of an allocation opened from another process's IPC handle:
 * free() closes it rather than frees (PL-IPC-4). */
static char imported_mark;

static void ze_plugin_free(void *state, const hurray_plugin_allocation *allocation) {
  ze_state *s = state;
  if (allocation->plugin_data == &imported_mark) {
    (void)s->ze.zeMemCloseIpcHandle(s->context, allocation->address);
    return;
  }
  (void)s->ze.zeMemFree(s->context, allocation->address);
}

/* PL-IPC-2: the IPC handle of a device allocation (the buffer is the whole
 * allocation: offset 0). */
static hurray_status ze_plugin_export_memory(void *state,
                                             const hurray_plugin_allocation *allocation,
                                             hurray_plugin_ipc_memory *out, hurray_error *err) {
  ze_state *s = state;
  hurray_status status =
      plugin_gpu_check_export("level_zero", HURRAY_DEVICE_LEVEL_ZERO, allocation, err);
  if (status != HURRAY_OK) {
    return status;
  }
  ze_ipc_mem_handle_t handle;
  memset(&handle, 0, sizeof handle);
  ze_result_t r = s->ze.zeMemGetIpcHandle(s->context, allocation->address, &handle);
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, "zeMemGetIpcHandle", r, 0);
  }
  plugin_gpu_exported_handle(handle.data, sizeof handle.data,
                             (uint64_t)(uintptr_t)allocation->address, allocation, out);
  return HURRAY_OK;
}

/* PL-IPC-3: opens the handle on the device, in this plugin's context. */
static hurray_status ze_plugin_import_memory(void *state, uint32_t device_index,
                                             const hurray_plugin_ipc_memory *in,
                                             hurray_plugin_allocation *out, hurray_error *err) {
  ze_state *s = state;
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  ze_ipc_mem_handle_t handle;
  status = plugin_gpu_check_import("level_zero", in, sizeof handle.data, err);
  if (status != HURRAY_OK) {
    return status;
  }
  memcpy(handle.data, in->handle, sizeof handle.data);
  void *base = NULL;
  ze_result_t r =
      s->ze.zeMemOpenIpcHandle(s->context, s->devices[device_index].device, handle, 0, &base);
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, "zeMemOpenIpcHandle", r, 0);
  }
  plugin_gpu_imported_allocation(device_index, (uint64_t)(uintptr_t)base, in, ZE_MAX_ALIGNMENT,
                                 &imported_mark, out);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */
/* The host has already checked the range (PL-COPY-2). The synchronous
 * immediate list returns once the copy has completed. */

/* One copy of `bytes` from `from` to `to`, one of them on the device, on
 * its immediate list. */
static hurray_status ze_copy(ze_state *s, uint32_t device_index, void *to, const void *from,
                             uint64_t bytes, hurray_error *err) {
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK || bytes == 0) {
    return status;
  }
  ze_device *d = &s->devices[device_index];
  pthread_mutex_lock(&d->lock);
  ze_result_t r =
      s->ze.zeCommandListAppendMemoryCopy(d->copier, to, from, (size_t)bytes, NULL, 0, NULL);
  pthread_mutex_unlock(&d->lock);
  return r == ZE_RESULT_SUCCESS ? HURRAY_OK
                                : ze_vendor_fail(err, "zeCommandListAppendMemoryCopy", r, 0);
}

static hurray_status ze_plugin_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                              uint64_t dst_offset, const void *src, uint64_t bytes,
                                              hurray_error *err) {
  return ze_copy(state, dst->device_index, (unsigned char *)dst->address + dst_offset, src, bytes,
                 err);
}

static hurray_status ze_plugin_copy_to_host(void *state, void *dst,
                                            const hurray_plugin_allocation *src,
                                            uint64_t src_offset, uint64_t bytes,
                                            hurray_error *err) {
  return ze_copy(state, src->device_index, dst, (const unsigned char *)src->address + src_offset,
                 bytes, err);
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* A host-visible one-slot pool and its event, signalled and waited on by
 * both host and device. */
static ze_result_t ze_make_event(const ze_state *s, uint32_t device_index, ze_plugin_event *e) {
  ze_event_pool_desc_t pool_desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                    .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                    .count = 1};
  ze_device_handle_t device = s->devices[device_index].device;
  ze_result_t r = s->ze.zeEventPoolCreate(s->context, &pool_desc, 1, &device, &e->pool);
  if (r != ZE_RESULT_SUCCESS) {
    return r;
  }
  ze_event_desc_t event_desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                                .index = 0,
                                .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                                .wait = ZE_EVENT_SCOPE_FLAG_HOST};
  r = s->ze.zeEventCreate(e->pool, &event_desc, &e->event);
  if (r != ZE_RESULT_SUCCESS) {
    (void)s->ze.zeEventPoolDestroy(e->pool);
  }
  e->device_index = device_index;
  return r;
}

static void ze_unmake_event(const ze_state *s, ze_plugin_event *e) {
  (void)s->ze.zeEventDestroy(e->event);
  (void)s->ze.zeEventPoolDestroy(e->pool);
}

static ze_command_list_handle_t ze_stream_of(const ze_state *s, uint32_t device_index,
                                             void *stream) {
  return stream != NULL ? (ze_command_list_handle_t)stream : s->devices[device_index].stream;
}

/* Appends a signal of (or a wait on) `event` to the stream, under the
 * device's lock (see the header comment). */
static ze_result_t ze_append(ze_state *s, uint32_t device_index, void *stream,
                             ze_event_handle_t event, bool signal) {
  ze_device *d = &s->devices[device_index];
  ze_command_list_handle_t list = ze_stream_of(s, device_index, stream);
  pthread_mutex_lock(&d->lock);
  ze_result_t r = signal ? s->ze.zeCommandListAppendSignalEvent(list, event)
                         : s->ze.zeCommandListAppendWaitOnEvents(list, 1, &event);
  pthread_mutex_unlock(&d->lock);
  return r;
}

static hurray_status ze_plugin_create_event(void *state, uint32_t device_index, void **out_event,
                                            hurray_error *err) {
  ze_state *s = state;
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  ze_plugin_event *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *e, 0,
                                     "level_zero: no memory for an event");
  }
  ze_result_t r = ze_make_event(s, device_index, e);
  if (r != ZE_RESULT_SUCCESS) {
    free(e);
    return ze_vendor_fail(err, "zeEventPoolCreate/zeEventCreate", r, 0);
  }
  *out_event = e;
  return HURRAY_OK;
}

static hurray_status ze_plugin_record_event(void *state, void *event, void *stream,
                                            hurray_error *err) {
  ze_state *s = state;
  ze_plugin_event *e = event;
  /* Re-recording replaces the previous point: reset, then signal anew. */
  ze_result_t r = s->ze.zeEventHostReset(e->event);
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, "zeEventHostReset", r, 0);
  }
  r = ze_append(s, e->device_index, stream, e->event, true);
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, "zeCommandListAppendSignalEvent", r, 0);
  }
  e->recorded = true;
  return HURRAY_OK;
}

/* zeEventHostSynchronize takes the timeout itself (UINT64_MAX: forever,
 * which is HURRAY_PLUGIN_WAIT_FOREVER too). */
static hurray_status ze_host_wait(const ze_state *s, ze_event_handle_t event, uint64_t timeout_ns,
                                  hurray_error *err) {
  ze_result_t r = s->ze.zeEventHostSynchronize(event, timeout_ns);
  if (r == ZE_RESULT_SUCCESS) {
    return HURRAY_OK;
  }
  if (r == ZE_RESULT_NOT_READY) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
        "zeEventHostSynchronize: still ZE_RESULT_NOT_READY after %llu ns",
        (unsigned long long)timeout_ns);
  }
  return ze_vendor_fail(err, "zeEventHostSynchronize", r, 0);
}

static hurray_status ze_plugin_wait_event(void *state, void *event, uint64_t timeout_ns,
                                          hurray_error *err) {
  ze_state *s = state;
  const ze_plugin_event *e = event;
  return e->recorded ? ze_host_wait(s, e->event, timeout_ns, err) : HURRAY_OK;
}

static void ze_plugin_release_event(void *state, void *event) {
  ze_unmake_event(state, event);
  free(event);
}

/* An immediate list has no "wait for everything" of its own in Level Zero
 * 1.4: append a signal of a private event and wait for that. */
static hurray_status ze_plugin_wait_stream(void *state, uint32_t device_index, void *stream,
                                           uint64_t timeout_ns, hurray_error *err) {
  ze_state *s = state;
  hurray_status status = ze_check_device(s, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  ze_plugin_event marker;
  memset(&marker, 0, sizeof marker);
  ze_result_t r = ze_make_event(s, device_index, &marker);
  if (r != ZE_RESULT_SUCCESS) {
    return ze_vendor_fail(err, "zeEventPoolCreate/zeEventCreate", r, 0);
  }
  r = ze_append(s, device_index, stream, marker.event, true);
  status = r == ZE_RESULT_SUCCESS ? ze_host_wait(s, marker.event, timeout_ns, err)
                                  : ze_vendor_fail(err, "zeCommandListAppendSignalEvent", r, 0);
  ze_unmake_event(s, &marker);
  return status;
}

static hurray_status ze_plugin_stream_wait_event(void *state, void *stream, void *event,
                                                 hurray_error *err) {
  ze_state *s = state;
  ze_plugin_event *e = event;
  if (!e->recorded) {
    return HURRAY_OK;
  }
  ze_result_t r = ze_append(s, e->device_index, stream, e->event, false);
  return r == ZE_RESULT_SUCCESS ? HURRAY_OK
                                : ze_vendor_fail(err, "zeCommandListAppendWaitOnEvents", r, 0);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the ze_event_handle_t itself. An event never recorded is
 * never signalled in Level Zero, so a consumer's zeEventHostSynchronize
 * would wait forever: refused until the first record. */
static hurray_status ze_plugin_native_event(void *state, void *event,
                                            hurray_plugin_native_event *out, hurray_error *err) {
  (void)state;
  const ze_plugin_event *e = event;
  if (!e->recorded) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1,
        "level_zero: the event was never recorded; its ze_event_handle_t would "
        "never signal");
  }
  out->native_type = HURRAY_NATIVE_EVENT_ZE_EVENT;
  out->handle = (uint64_t)(uintptr_t)e->event;
  return HURRAY_OK;
}

static const hurray_plugin_table ze_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "level_zero",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_LEVEL_ZERO,
    .init = ze_plugin_init,
    .shutdown = ze_plugin_shutdown,
    .count_devices = ze_plugin_count_devices,
    .describe_device = ze_plugin_describe_device,
    .allocate = ze_plugin_allocate,
    .free = ze_plugin_free,
    .copy_to_device = ze_plugin_copy_to_device,
    .copy_to_host = ze_plugin_copy_to_host,
    .unavailable_reason = ze_plugin_unavailable_reason,
    .create_event = ze_plugin_create_event,
    .record_event = ze_plugin_record_event,
    .wait_event = ze_plugin_wait_event,
    .release_event = ze_plugin_release_event,
    .wait_stream = ze_plugin_wait_stream,
    .stream_wait_event = ze_plugin_stream_wait_event,
    .native_event = ze_plugin_native_event,
    .export_memory = ze_plugin_export_memory,
    .import_memory = ze_plugin_import_memory,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &ze_table;
}
