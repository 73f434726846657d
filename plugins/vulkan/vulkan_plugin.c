/*
 * libhurray device plugin: Vulkan (device tag 0x04 vulkan).
 *
 * Runtime: the Vulkan loader, loaded at run time from "libvulkan.so.1" (its
 * usual soname), or from the file named by HURRAY_VULKAN_LIBRARY. Every
 * physical device of Vulkan 1.2 or later becomes one plugin device, with a
 * logical device, the first queue of a family that supports transfers, a
 * command pool and a lock that serialises queue submissions (Vulkan queues
 * and pools are externally synchronised). Verified on Mesa lavapipe (Debian
 * mesa-vulkan-drivers).
 *
 * Memory classes (facts §5, specs BP-PAIR-1: vulkan pairs with standard,
 * host_pinned, unified and peer; peer is not offered):
 *   standard    -> a memory type with DEVICE_LOCAL (preferring one that is not
 *                  host-visible). The address is the VkBuffer (an opaque device
 *                  handle, BP-DEV-5); copies go through a host-visible staging
 *                  buffer and vkCmdCopyBuffer on the queue.
 *   host_pinned -> HOST_VISIBLE | HOST_COHERENT (preferring one that is not
 *                  DEVICE_LOCAL: host memory the device reads). The address is
 *                  the vkMapMemory pointer.
 *   unified     -> DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT. The address is
 *                  the vkMapMemory pointer.
 * Alignment: the memory is over-allocated by the alignment asked for and the
 * buffer bound at the offset where its address is aligned; the alignment
 * reported is measured from the buffer's device address
 * (vkGetBufferDeviceAddress, where bufferDeviceAddress is supported) and from
 * the mapped pointer (host-visible classes).
 * Events: timeline semaphores where the device supports them (a record is a
 * queue submission signalling the next value; a wait is vkWaitSemaphores),
 * otherwise fences (a record is an empty submission with the fence; a wait is
 * vkWaitForFences). Streams: the stream handle is a VkQueue of the device;
 * NULL is the plugin's queue. HURRAY_VULKAN_FEATURES=minimal turns timeline
 * semaphores, device addresses and external memory off (the older-driver
 * paths).
 * IPC: memory, where the device has VK_KHR_external_memory_fd: an exportable
 * allocation is exported as an OPAQUE_FD and imported by a device with the
 * same deviceUUID and driverUUID (PL-IPC-1..6). Semaphores are not exported
 * (lavapipe cannot), so events do not cross processes.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_loader.h"
#include "vendor_call_error.h"
#include "vulkan_plugin.h"

const char *vk_result_name(VkResult r) {
  switch (r) {
#define NAME(c) \
  case c: return #c;
    NAME(VK_SUCCESS)
    NAME(VK_NOT_READY)
    NAME(VK_TIMEOUT)
    NAME(VK_INCOMPLETE)
    NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    NAME(VK_ERROR_INITIALIZATION_FAILED)
    NAME(VK_ERROR_DEVICE_LOST)
    NAME(VK_ERROR_MEMORY_MAP_FAILED)
    NAME(VK_ERROR_LAYER_NOT_PRESENT)
    NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    NAME(VK_ERROR_TOO_MANY_OBJECTS)
#undef NAME
    default: return "unknown VkResult";
  }
}

hurray_status fail_vk(hurray_error *err, const char *call, VkResult r) {
  return plugin_vendor_code_fail(err, "vulkan", call, (int)r, vk_result_name(r),
                                 r == VK_ERROR_OUT_OF_HOST_MEMORY ||
                                     r == VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

static bool vulkan_open(vulkan_state *state) {
  static const char *const default_libraries[] = {VULKAN_DEFAULT_LIBRARY};
  const char *library = NULL;
  /* The X-macro's second expansion: every symbol, required, into state->vk. */
#define VULKAN_SYMBOL_ENTRY(ret, name, params) {#name, &state->vk.name, true},
  const hurray_support_symbol symbols[] = {VULKAN_SYMBOLS(VULKAN_SYMBOL_ENTRY)};
#undef VULKAN_SYMBOL_ENTRY
  state->library = plugin_load_runtime(VULKAN_LIBRARY_ENV, default_libraries, 1u, 0, symbols,
                                       sizeof symbols / sizeof symbols[0], &library,
                                       state->unavailable_reason, sizeof state->unavailable_reason);
  return state->library != NULL;
}

/* ------------------------------------------------------------------------ */
/* 4. Plugin state: instance and devices                                    */
/* ------------------------------------------------------------------------ */

static hurray_status vulkan_init(void **out_state, hurray_error *err) {
  vulkan_state *state = calloc(1, sizeof *state);
  if (state == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *state, 0,
                                     "vulkan: plugin state");
  }
  *out_state = state;
  if (!vulkan_open(state)) {
    return HURRAY_OK;
  }
  const vulkan_api *vk = &state->vk;
  VkApplicationInfo app;
  memset(&app, 0, sizeof app);
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "libhurray";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo instance_info;
  memset(&instance_info, 0, sizeof instance_info);
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &app;
  VkResult r = vk->vkCreateInstance(&instance_info, NULL, &state->instance);
  if (r != VK_SUCCESS) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "vkCreateInstance: %s (%d): no Vulkan driver (ICD) installed", vk_result_name(r),
             (int)r);
    state->instance = VK_NULL_HANDLE;
    return HURRAY_OK;
  }
  VkPhysicalDevice physical[VULKAN_MAX_DEVICES];
  uint32_t count = VULKAN_MAX_DEVICES;
  r = vk->vkEnumeratePhysicalDevices(state->instance, &count, physical);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0u) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "vkEnumeratePhysicalDevices: %s (%d), %u devices", vk_result_name(r), (int)r,
             (unsigned)count);
    return HURRAY_OK;
  }
  for (uint32_t i = 0; i < count; i++) {
    vulkan_add_device(state, physical[i]);
  }
  if (state->device_count > 0u) {
    state->unavailable_reason[0] = '\0';
  }
  return HURRAY_OK;
}

static void vulkan_shutdown(void *opaque) {
  vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  for (uint32_t i = 0; i < state->device_count; i++) {
    vulkan_device *d = &state->devices[i];
    vk->vkDestroyCommandPool(d->device, d->pool, NULL);
    vk->vkDestroyDevice(d->device, NULL);
    pthread_mutex_destroy(&d->lock);
  }
  if (state->instance != VK_NULL_HANDLE) {
    vk->vkDestroyInstance(state->instance, NULL);
  }
  if (state->library != NULL) {
    dlclose(state->library);
  }
  free(state);
}

static hurray_status vulkan_count_devices(void *opaque, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((const vulkan_state *)opaque)->device_count;
  return HURRAY_OK;
}

static size_t vulkan_unavailable_reason(void *opaque, char *buf, size_t cap) {
  const vulkan_state *state = opaque;
  return hurray_support_copy_reason(buf, cap,
                                    state->device_count > 0u ? "" : state->unavailable_reason);
}

static hurray_status vulkan_describe_device(void *opaque, uint32_t device_index,
                                            hurray_plugin_device_info *out, hurray_error *err) {
  const vulkan_device *d = NULL;
  hurray_status status = vulkan_find_device(opaque, device_index, &d, err);
  if (status == HURRAY_OK) {
    hurray_plugin_copy_out(out, &d->info, sizeof d->info);
  }
  return status;
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

static const hurray_plugin_table vulkan_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "vulkan",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_VULKAN,
    .init = vulkan_init,
    .shutdown = vulkan_shutdown,
    .count_devices = vulkan_count_devices,
    .describe_device = vulkan_describe_device,
    .allocate = vulkan_allocate,
    .free = vulkan_free,
    .copy_to_device = vulkan_copy_to_device,
    .copy_to_host = vulkan_copy_to_host,
    .unavailable_reason = vulkan_unavailable_reason,
    .create_event = vulkan_create_event,
    .record_event = vulkan_record_event,
    .wait_event = vulkan_wait_event,
    .release_event = vulkan_release_event,
    .wait_stream = vulkan_wait_stream,
    .stream_wait_event = vulkan_stream_wait_event,
    .native_event = vulkan_native_event,
    .export_memory = vulkan_export_memory,
    .import_memory = vulkan_import_memory,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &vulkan_table;
}
