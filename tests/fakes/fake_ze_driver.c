/*
 * Stand-in Level Zero *driver*, loaded by the real Level Zero loader
 * (Debian libze1: libze_loader.so.1) through ZE_ENABLE_ALT_DRIVERS=<path of
 * this library>. A driver exports the zeGet*ProcAddrTable functions of
 * <level_zero/ze_ddi.h>; the loader calls them and routes every API call
 * through the tables. This one fills the entries the level_zero plugin uses,
 * backed by host memory; every other entry stays NULL. Switches:
 * fake_common.h (HURRAY_FAKE_DEVICES=0 gives a driver with no device).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>
#include <stdio.h>

#include "fake_common.h"

enum { KIND_DEVICE = 1, KIND_HOST = 2, KIND_SHARED = 3 };

struct _ze_driver_handle_t {
  int unused;
};
struct _ze_device_handle_t {
  uint32_t index;
};
struct _ze_context_handle_t {
  int unused;
};
struct _ze_command_list_handle_t {
  bool synchronous;
  const fake_event *blocked_on;
};
struct _ze_event_pool_handle_t {
  uint32_t count;
};
struct _ze_event_handle_t {
  fake_event state;
  bool signalled;
};

static fake_registry registry = FAKE_REGISTRY_INIT_NAMED("ze");
static struct _ze_driver_handle_t the_driver;
static struct _ze_device_handle_t devices[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};

FAKE_EXPORT long hurray_fake_live_objects(void);
long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

static uint32_t device_count(void) {
  int n = fake_device_count();
  return n <= 0 ? 0u : n > 8 ? 8u : (uint32_t)n;
}

static ze_result_t fake_init(ze_init_flags_t flags) {
  (void)flags;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_driver_get(uint32_t *count, ze_driver_handle_t *drivers) {
  if (count == NULL) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (*count == 0 || drivers == NULL) {
    *count = 1;
    return ZE_RESULT_SUCCESS;
  }
  drivers[0] = &the_driver;
  *count = 1;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_driver_api_version(ze_driver_handle_t driver, ze_api_version_t *version) {
  (void)driver;
  *version = ZE_API_VERSION_1_4;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_driver_properties(ze_driver_handle_t driver,
                                          ze_driver_properties_t *properties) {
  (void)driver;
  memset(properties->uuid.id, 0x5a, sizeof properties->uuid.id);
  properties->driverVersion = 1;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_driver_ipc_properties(ze_driver_handle_t driver,
                                              ze_driver_ipc_properties_t *properties) {
  (void)driver;
  properties->flags = ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_driver_extensions(ze_driver_handle_t driver, uint32_t *count,
                                          ze_driver_extension_properties_t *properties) {
  (void)driver;
  (void)properties;
  *count = 0;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_device_get(ze_driver_handle_t driver, uint32_t *count,
                                   ze_device_handle_t *out) {
  (void)driver;
  if (*count == 0 || out == NULL) {
    *count = device_count();
    return ZE_RESULT_SUCCESS;
  }
  uint32_t n = *count < device_count() ? *count : device_count();
  for (uint32_t i = 0; i < n; i++) {
    out[i] = &devices[i];
  }
  *count = n;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_device_properties(ze_device_handle_t device,
                                          ze_device_properties_t *properties) {
  properties->type = ZE_DEVICE_TYPE_GPU;
  properties->vendorId = 0x8086;
  properties->deviceId = 0xfa4e;
  properties->maxMemAllocSize = (uint64_t)1 << 30;
  snprintf(properties->name, sizeof properties->name, "Stand-in Level Zero device %u",
           (unsigned)device->index);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_device_memory_access(ze_device_handle_t device,
                                             ze_device_memory_access_properties_t *properties) {
  (void)device;
  ze_memory_access_cap_flags_t rw = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
  properties->hostAllocCapabilities = rw;
  properties->deviceAllocCapabilities = rw;
  properties->sharedSingleDeviceAllocCapabilities = fake_env_flag("HURRAY_FAKE_NO_UNIFIED") ? 0u
                                                                                            : rw;
  properties->sharedCrossDeviceAllocCapabilities = 0;
  properties->sharedSystemAllocCapabilities = 0;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_device_can_access_peer(ze_device_handle_t device, ze_device_handle_t peer,
                                               ze_bool_t *value) {
  *value = device != peer && !fake_env_flag("HURRAY_FAKE_NO_PEER");
  return ZE_RESULT_SUCCESS;
}

static ze_result_t destroy_object(void *object) {
  fake_free_object(&registry, object);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_context_create(ze_driver_handle_t driver, const ze_context_desc_t *desc,
                                       ze_context_handle_t *out) {
  (void)driver;
  (void)desc;
  *out = fake_new_object(&registry, sizeof **out);
  if (*out == NULL) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_context_destroy(ze_context_handle_t context) {
  return destroy_object(context);
}

static ze_result_t allocate(size_t size, size_t alignment, int kind, void **out) {
  if (alignment != 0 && (alignment & (alignment - 1u)) != 0) {
    return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
  }
  if (fake_env_flag("HURRAY_FAKE_OOM")) {
    return kind == KIND_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                             : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  /* Device memory is shareable: its IPC handles open in other processes. */
  *out = kind == KIND_DEVICE ? fake_allocate_shareable(&registry, size, kind, alignment)
                             : fake_allocate(&registry, size, kind, alignment);
  return *out != NULL ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

static ze_result_t fake_mem_alloc_device(ze_context_handle_t context,
                                         const ze_device_mem_alloc_desc_t *desc, size_t size,
                                         size_t alignment, ze_device_handle_t device, void **out) {
  (void)context;
  (void)desc;
  (void)device;
  return allocate(size, alignment, KIND_DEVICE, out);
}

static ze_result_t fake_mem_alloc_host(ze_context_handle_t context,
                                       const ze_host_mem_alloc_desc_t *desc, size_t size,
                                       size_t alignment, void **out) {
  (void)context;
  (void)desc;
  return allocate(size, alignment, KIND_HOST, out);
}

static ze_result_t fake_mem_alloc_shared(ze_context_handle_t context,
                                         const ze_device_mem_alloc_desc_t *device_desc,
                                         const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                         size_t alignment, ze_device_handle_t device, void **out) {
  (void)context;
  (void)device_desc;
  (void)host_desc;
  (void)device;
  if (fake_env_flag("HURRAY_FAKE_NO_UNIFIED")) {
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  }
  return allocate(size, alignment, KIND_SHARED, out);
}

static ze_result_t fake_mem_free(ze_context_handle_t context, void *ptr) {
  (void)context;
  return fake_release(&registry, ptr, -1) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* IPC memory handles of device allocations (fake_common.h: a memfd another
 * process maps). */
static ze_result_t fake_mem_get_ipc_handle(ze_context_handle_t context, const void *ptr,
                                           ze_ipc_mem_handle_t *handle) {
  (void)context;
  if (handle == NULL || !fake_ipc_get(&registry, ptr, handle->data)) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_mem_open_ipc_handle(ze_context_handle_t context, ze_device_handle_t device,
                                            ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags,
                                            void **out) {
  (void)context;
  (void)device;
  if (out == NULL || (flags & ~(ze_ipc_memory_flags_t)(ZE_IPC_MEMORY_FLAG_BIAS_CACHED |
                                                       ZE_IPC_MEMORY_FLAG_BIAS_UNCACHED)) != 0) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  *out = fake_ipc_open(&registry, handle.data);
  return *out != NULL ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static ze_result_t fake_mem_close_ipc_handle(ze_context_handle_t context, const void *ptr) {
  (void)context;
  return fake_ipc_close(&registry, ptr) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static ze_result_t fake_list_create_immediate(ze_context_handle_t context,
                                              ze_device_handle_t device,
                                              const ze_command_queue_desc_t *desc,
                                              ze_command_list_handle_t *out) {
  (void)context;
  (void)device;
  *out = fake_new_object(&registry, sizeof **out);
  if (*out == NULL) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  (*out)->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_list_destroy(ze_command_list_handle_t list) { return destroy_object(list); }

/* An event signalled behind a wait that never completes never completes. */
static void signal_event(ze_command_list_handle_t list, ze_event_handle_t event) {
  if (event != NULL) {
    fake_event_record(&event->state);
    if (list->blocked_on != NULL && !fake_event_complete(list->blocked_on)) {
      event->state.hangs = true;
    }
    event->signalled = true;
  }
}

static ze_result_t fake_list_copy(ze_command_list_handle_t list, void *dst, const void *src,
                                  size_t size, ze_event_handle_t signal, uint32_t wait_count,
                                  ze_event_handle_t *waits) {
  (void)wait_count;
  (void)waits;
  if (!fake_contains(&registry, dst, size) && !fake_contains(&registry, src, size)) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  memcpy(dst, src, size);
  signal_event(list, signal);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_list_signal(ze_command_list_handle_t list, ze_event_handle_t event) {
  signal_event(list, event);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_list_wait(ze_command_list_handle_t list, uint32_t count,
                                  ze_event_handle_t *events) {
  for (uint32_t i = 0; i < count; i++) {
    if (!fake_event_complete(&events[i]->state)) {
      list->blocked_on = &events[i]->state;
    }
  }
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_pool_create(ze_context_handle_t context, const ze_event_pool_desc_t *desc,
                                    uint32_t device_count_, ze_device_handle_t *devices_,
                                    ze_event_pool_handle_t *out) {
  (void)context;
  (void)device_count_;
  (void)devices_;
  *out = fake_new_object(&registry, sizeof **out);
  if (*out == NULL) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  (*out)->count = desc->count;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_pool_destroy(ze_event_pool_handle_t pool) { return destroy_object(pool); }

static ze_result_t fake_event_create(ze_event_pool_handle_t pool, const ze_event_desc_t *desc,
                                     ze_event_handle_t *out) {
  if (desc->index >= pool->count) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  *out = fake_new_object(&registry, sizeof **out);
  if (*out == NULL) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  (*out)->state.magic = FAKE_EVENT_MAGIC;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_event_destroy(ze_event_handle_t event) {
  event->state.magic = 0;
  return destroy_object(event);
}

static bool event_done(const struct _ze_event_handle_t *event) {
  return event->signalled && fake_event_complete(&event->state);
}

static ze_result_t fake_event_query(ze_event_handle_t event) {
  return event_done(event) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

/* Waits up to `timeout` ns, as the API says (UINT64_MAX: forever). */
static ze_result_t fake_event_host_synchronize(ze_event_handle_t event, uint64_t timeout) {
  for (uint64_t waited_ms = 0; !event_done(event); waited_ms++) {
    if (timeout != UINT64_MAX && waited_ms * 1000000u >= timeout) {
      return ZE_RESULT_NOT_READY;
    }
    fake_pause();
  }
  return ZE_RESULT_SUCCESS;
}

static ze_result_t fake_event_host_reset(ze_event_handle_t event) {
  event->signalled = false;
  event->state.recorded = false;
  return ZE_RESULT_SUCCESS;
}

/* The exported table getters: the loader checks the major version. */
#define FAKE_TABLE_GETTER(getter, table_type, fill)                                       \
  FAKE_EXPORT ze_result_t ZE_APICALL getter(ze_api_version_t version, table_type *table); \
  ze_result_t ZE_APICALL getter(ze_api_version_t version, table_type *table) {            \
    if (table == NULL) {                                                                  \
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                                        \
    }                                                                                     \
    if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)) {          \
      return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;                                         \
    }                                                                                     \
    memset(table, 0, sizeof *table);                                                      \
    fill;                                                                                 \
    return ZE_RESULT_SUCCESS;                                                             \
  }

FAKE_TABLE_GETTER(zeGetGlobalProcAddrTable, ze_global_dditable_t, table->pfnInit = fake_init)
FAKE_TABLE_GETTER(zeGetDriverProcAddrTable, ze_driver_dditable_t,
                  (table->pfnGet = fake_driver_get,
                   table->pfnGetApiVersion = fake_driver_api_version,
                   table->pfnGetProperties = fake_driver_properties,
                   table->pfnGetIpcProperties = fake_driver_ipc_properties,
                   table->pfnGetExtensionProperties = fake_driver_extensions))
FAKE_TABLE_GETTER(zeGetDeviceProcAddrTable, ze_device_dditable_t,
                  (table->pfnGet = fake_device_get,
                   table->pfnGetProperties = fake_device_properties,
                   table->pfnGetMemoryAccessProperties = fake_device_memory_access,
                   table->pfnCanAccessPeer = fake_device_can_access_peer))
FAKE_TABLE_GETTER(zeGetContextProcAddrTable, ze_context_dditable_t,
                  (table->pfnCreate = fake_context_create,
                   table->pfnDestroy = fake_context_destroy))
FAKE_TABLE_GETTER(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetCommandListProcAddrTable, ze_command_list_dditable_t,
                  (table->pfnCreateImmediate = fake_list_create_immediate,
                   table->pfnDestroy = fake_list_destroy,
                   table->pfnAppendMemoryCopy = fake_list_copy,
                   table->pfnAppendSignalEvent = fake_list_signal,
                   table->pfnAppendWaitOnEvents = fake_list_wait))
FAKE_TABLE_GETTER(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t,
                  (table->pfnCreate = fake_pool_create, table->pfnDestroy = fake_pool_destroy))
FAKE_TABLE_GETTER(zeGetEventProcAddrTable, ze_event_dditable_t,
                  (table->pfnCreate = fake_event_create, table->pfnDestroy = fake_event_destroy,
                   table->pfnHostSynchronize = fake_event_host_synchronize,
                   table->pfnQueryStatus = fake_event_query,
                   table->pfnHostReset = fake_event_host_reset))
FAKE_TABLE_GETTER(zeGetMemProcAddrTable, ze_mem_dditable_t,
                  (table->pfnAllocShared = fake_mem_alloc_shared,
                   table->pfnAllocDevice = fake_mem_alloc_device,
                   table->pfnAllocHost = fake_mem_alloc_host, table->pfnFree = fake_mem_free,
                   table->pfnGetIpcHandle = fake_mem_get_ipc_handle,
                   table->pfnOpenIpcHandle = fake_mem_open_ipc_handle,
                   table->pfnCloseIpcHandle = fake_mem_close_ipc_handle))
FAKE_TABLE_GETTER(zeGetFenceProcAddrTable, ze_fence_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetImageProcAddrTable, ze_image_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetKernelProcAddrTable, ze_kernel_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetModuleProcAddrTable, ze_module_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t, (void)0)
FAKE_TABLE_GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t, (void)0)

/* The tools (zet) and sysman (zes) tables: the loader asks for them too;
 * this driver implements none of their entries. */
FAKE_TABLE_GETTER(zetGetDeviceProcAddrTable, zet_device_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetContextProcAddrTable, zet_context_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetCommandListProcAddrTable, zet_command_list_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetModuleProcAddrTable, zet_module_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetKernelProcAddrTable, zet_kernel_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricProcAddrTable, zet_metric_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t, (void)0)
FAKE_TABLE_GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetDeviceProcAddrTable, zes_device_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetLedProcAddrTable, zes_led_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t, (void)0)
FAKE_TABLE_GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t, (void)0)
