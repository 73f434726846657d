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
#include <stdbool.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: the Khronos header (Debian libvulkan-dev)        */
/* ------------------------------------------------------------------------ */
/* Prototypes are not wanted: every function is a pointer resolved below. */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */

#define VULKAN_DEFAULT_LIBRARY "libvulkan.so.1"
#define VULKAN_LIBRARY_ENV "HURRAY_VULKAN_LIBRARY"
/* "minimal": use neither timeline semaphores nor buffer device addresses even
 * where the device has them, as on an older driver (fences for events, the
 * device's bind alignment for standard memory). For diagnosis and tests. */
#define VULKAN_FEATURES_ENV "HURRAY_VULKAN_FEATURES"
#define VULKAN_MAX_DEVICES 8u
/* The most allocate() aligns to by over-allocating; a bound it guarantees. */
#define VULKAN_MAX_ALIGNMENT 65536u

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* The loader exports every core 1.0-1.2 command, so each is resolved with
 * dlsym like any other vendor function. */
#define VULKAN_SYMBOLS(X)                                                                         \
  X(VkResult, vkCreateInstance,                                                                   \
    (const VkInstanceCreateInfo *, const VkAllocationCallbacks *, VkInstance *))                  \
  X(void, vkDestroyInstance, (VkInstance, const VkAllocationCallbacks *))                         \
  X(VkResult, vkEnumeratePhysicalDevices, (VkInstance, uint32_t *, VkPhysicalDevice *))           \
  X(void, vkGetPhysicalDeviceProperties, (VkPhysicalDevice, VkPhysicalDeviceProperties *))        \
  X(void, vkGetPhysicalDeviceFeatures2, (VkPhysicalDevice, VkPhysicalDeviceFeatures2 *))          \
  X(void, vkGetPhysicalDeviceMemoryProperties,                                                    \
    (VkPhysicalDevice, VkPhysicalDeviceMemoryProperties *))                                       \
  X(void, vkGetPhysicalDeviceQueueFamilyProperties,                                               \
    (VkPhysicalDevice, uint32_t *, VkQueueFamilyProperties *))                                    \
  X(VkResult, vkCreateDevice,                                                                     \
    (VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *))    \
  X(void, vkDestroyDevice, (VkDevice, const VkAllocationCallbacks *))                             \
  X(void, vkGetDeviceQueue, (VkDevice, uint32_t, uint32_t, VkQueue *))                            \
  X(VkResult, vkCreateBuffer,                                                                     \
    (VkDevice, const VkBufferCreateInfo *, const VkAllocationCallbacks *, VkBuffer *))            \
  X(void, vkDestroyBuffer, (VkDevice, VkBuffer, const VkAllocationCallbacks *))                   \
  X(void, vkGetBufferMemoryRequirements, (VkDevice, VkBuffer, VkMemoryRequirements *))            \
  X(VkResult, vkAllocateMemory,                                                                   \
    (VkDevice, const VkMemoryAllocateInfo *, const VkAllocationCallbacks *, VkDeviceMemory *))    \
  X(void, vkFreeMemory, (VkDevice, VkDeviceMemory, const VkAllocationCallbacks *))                \
  X(VkResult, vkBindBufferMemory, (VkDevice, VkBuffer, VkDeviceMemory, VkDeviceSize))             \
  X(VkResult, vkMapMemory,                                                                        \
    (VkDevice, VkDeviceMemory, VkDeviceSize, VkDeviceSize, VkMemoryMapFlags, void **))            \
  X(void, vkUnmapMemory, (VkDevice, VkDeviceMemory))                                              \
  X(VkDeviceAddress, vkGetBufferDeviceAddress, (VkDevice, const VkBufferDeviceAddressInfo *))     \
  X(VkResult, vkCreateCommandPool,                                                                \
    (VkDevice, const VkCommandPoolCreateInfo *, const VkAllocationCallbacks *, VkCommandPool *))  \
  X(void, vkDestroyCommandPool, (VkDevice, VkCommandPool, const VkAllocationCallbacks *))         \
  X(VkResult, vkAllocateCommandBuffers,                                                           \
    (VkDevice, const VkCommandBufferAllocateInfo *, VkCommandBuffer *))                           \
  X(void, vkFreeCommandBuffers, (VkDevice, VkCommandPool, uint32_t, const VkCommandBuffer *))     \
  X(VkResult, vkBeginCommandBuffer, (VkCommandBuffer, const VkCommandBufferBeginInfo *))          \
  X(VkResult, vkEndCommandBuffer, (VkCommandBuffer))                                              \
  X(void, vkCmdCopyBuffer, (VkCommandBuffer, VkBuffer, VkBuffer, uint32_t, const VkBufferCopy *)) \
  X(VkResult, vkQueueSubmit, (VkQueue, uint32_t, const VkSubmitInfo *, VkFence))                  \
  X(VkResult, vkQueueWaitIdle, (VkQueue))                                                         \
  X(VkResult, vkCreateFence,                                                                      \
    (VkDevice, const VkFenceCreateInfo *, const VkAllocationCallbacks *, VkFence *))              \
  X(void, vkDestroyFence, (VkDevice, VkFence, const VkAllocationCallbacks *))                     \
  X(VkResult, vkResetFences, (VkDevice, uint32_t, const VkFence *))                               \
  X(VkResult, vkWaitForFences, (VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t))         \
  X(VkResult, vkCreateSemaphore,                                                                  \
    (VkDevice, const VkSemaphoreCreateInfo *, const VkAllocationCallbacks *, VkSemaphore *))      \
  X(void, vkDestroySemaphore, (VkDevice, VkSemaphore, const VkAllocationCallbacks *))             \
  X(VkResult, vkWaitSemaphores, (VkDevice, const VkSemaphoreWaitInfo *, uint64_t))             \
  X(VkResult, vkEnumerateDeviceExtensionProperties,                                               \
    (VkPhysicalDevice, const char *, uint32_t *, VkExtensionProperties *))                        \
  X(void, vkGetPhysicalDeviceProperties2, (VkPhysicalDevice, VkPhysicalDeviceProperties2 *))      \
  X(PFN_vkVoidFunction, vkGetDeviceProcAddr, (VkDevice, const char *))

typedef struct vulkan_api {
#define VULKAN_DECLARE_POINTER(ret, name, params) ret(VKAPI_PTR *name) params;
  VULKAN_SYMBOLS(VULKAN_DECLARE_POINTER)
#undef VULKAN_DECLARE_POINTER
} vulkan_api;

/* Memory type index per class; UINT32_MAX when the device has none. */
enum { CLASS_STANDARD, CLASS_HOST_PINNED, CLASS_UNIFIED, CLASS_COUNT };

typedef struct vulkan_device {
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
  pthread_mutex_t lock; /* queue submissions and the command pool */
  uint32_t memory_type[CLASS_COUNT];
  VkPhysicalDeviceMemoryProperties memory;
  bool timeline;       /* timelineSemaphore enabled */
  bool device_address; /* bufferDeviceAddress enabled */
  /* PL-IPC-6: VK_KHR_external_memory_fd enabled, its entry, and the
   * identities an importer must share (deviceUUID, driverUUID). */
  PFN_vkGetMemoryFdKHR get_memory_fd;
  uint8_t device_uuid[VK_UUID_SIZE];
  uint8_t driver_uuid[VK_UUID_SIZE];
  hurray_plugin_device_info info;
} vulkan_device;

typedef struct vulkan_state {
  void *library;
  vulkan_api vk;
  VkInstance instance;
  uint32_t device_count;
  vulkan_device devices[VULKAN_MAX_DEVICES];
  char unavailable_reason[PLUGIN_REASON_SIZE];
} vulkan_state;

static const char *vk_result_name(VkResult r) {
  switch (r) {
#define NAME(c) \
  case c:       \
    return #c;
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
    default:
      return "unknown VkResult";
  }
}

static hurray_status fail_vk(hurray_error *err, const char *call, VkResult r) {
  hurray_status status = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                             ? HURRAY_ERR_OUT_OF_MEMORY
                             : HURRAY_ERR_DEVICE_ERROR;
  return plugin_fail(err, status, (uint64_t)(int64_t)r, 0, "vulkan: %s: %s (%d)", call,
                     vk_result_name(r), (int)r);
}

static bool vulkan_open(vulkan_state *state) {
  static const char *const default_libraries[] = {VULKAN_DEFAULT_LIBRARY};
  const char *library = NULL;
  void *handle = plugin_open_runtime(VULKAN_LIBRARY_ENV, default_libraries, 1u, 0, &library,
                                     state->unavailable_reason, sizeof state->unavailable_reason);
  if (handle == NULL) {
    return false;
  }
  /* The X-macro's second expansion: every symbol, required, into state->vk. */
#define VULKAN_SYMBOL_ENTRY(ret, name, params) {#name, &state->vk.name, true},
  const plugin_symbol symbols[] = {VULKAN_SYMBOLS(VULKAN_SYMBOL_ENTRY)};
#undef VULKAN_SYMBOL_ENTRY
  if (!plugin_resolve_symbols(handle, library, symbols, sizeof symbols / sizeof symbols[0],
                              state->unavailable_reason, sizeof state->unavailable_reason)) {
    dlclose(handle);
    return false;
  }
  state->library = handle;
  return true;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

/* The memory type for a class: all `required` flags, preferring types
 * without `avoid`; UINT32_MAX when none has them. */
static uint32_t pick_memory_type(const VkPhysicalDeviceMemoryProperties *memory,
                                 VkMemoryPropertyFlags required, VkMemoryPropertyFlags avoid) {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memory->memoryTypeCount; i++) {
    VkMemoryPropertyFlags flags = memory->memoryTypes[i].propertyFlags;
    if ((flags & required) != required) {
      continue;
    }
    if ((flags & avoid) == 0u) {
      return i;
    }
    if (fallback == UINT32_MAX) {
      fallback = i;
    }
  }
  return fallback;
}

static VkResult create_buffer(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                              VkBuffer *out);
static VkResult create_buffer_for(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                                  bool external, VkBuffer *out);

/* The alignment VkMemoryRequirements promises for a buffer of this plugin's
 * usage, capped at VULKAN_MAX_ALIGNMENT and rounded down to a power of two;
 * 0 when no buffer can be made. */
static uint32_t standard_bind_alignment(const vulkan_api *vk, const vulkan_device *d) {
  VkBuffer probe = VK_NULL_HANDLE;
  if (create_buffer(vk, d, 4096, &probe) != VK_SUCCESS) {
    return 0u;
  }
  VkMemoryRequirements requirements;
  vk->vkGetBufferMemoryRequirements(d->device, probe, &requirements);
  vk->vkDestroyBuffer(d->device, probe, NULL);
  uint32_t alignment = 1u;
  while (alignment < VULKAN_MAX_ALIGNMENT &&
         (VkDeviceSize)alignment * 2u <= requirements.alignment) {
    alignment *= 2u;
  }
  return alignment;
}

static bool vulkan_add_device(vulkan_state *state, VkPhysicalDevice physical) {
  const vulkan_api *vk = &state->vk;
  vulkan_device *d = &state->devices[state->device_count];
  memset(d, 0, sizeof *d);
  d->physical = physical;
  VkPhysicalDeviceProperties properties;
  vk->vkGetPhysicalDeviceProperties(physical, &properties);
  if (properties.apiVersion < VK_API_VERSION_1_2) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%.63s: Vulkan %u.%u, 1.2 needed", properties.deviceName,
             VK_API_VERSION_MAJOR(properties.apiVersion),
             VK_API_VERSION_MINOR(properties.apiVersion));
    return false;
  }
  VkPhysicalDeviceVulkan12Features features12;
  memset(&features12, 0, sizeof features12);
  features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 features;
  memset(&features, 0, sizeof features);
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &features12;
  vk->vkGetPhysicalDeviceFeatures2(physical, &features);
  const char *features_choice = getenv(VULKAN_FEATURES_ENV);
  bool minimal = features_choice != NULL && strcmp(features_choice, "minimal") == 0;
  d->timeline = !minimal && features12.timelineSemaphore == VK_TRUE;
  d->device_address = !minimal && features12.bufferDeviceAddress == VK_TRUE;

  /* Any family with graphics, compute or transfer can copy buffers. */
  uint32_t family_count = 0;
  vk->vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, NULL);
  VkQueueFamilyProperties families[16];
  if (family_count > 16u) {
    family_count = 16u;
  }
  vk->vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families);
  uint32_t family = UINT32_MAX;
  VkQueueFlags copy_capable = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  for (uint32_t i = 0; i < family_count && family == UINT32_MAX; i++) {
    if ((families[i].queueFlags & copy_capable) != 0u && families[i].queueCount > 0u) {
      family = i;
    }
  }
  if (family == UINT32_MAX) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%.63s: no queue family can copy buffers", properties.deviceName);
    return false;
  }
  /* PL-IPC-6: memory other processes import, where the driver exports it. */
  bool external_fd = false;
  uint32_t extension_count = 0;
  if (!minimal &&
      vk->vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, NULL) ==
          VK_SUCCESS &&
      extension_count > 0u) {
    VkExtensionProperties *extensions = calloc(extension_count, sizeof *extensions);
    if (extensions != NULL &&
        vk->vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, extensions) ==
            VK_SUCCESS) {
      for (uint32_t i = 0; i < extension_count; i++) {
        external_fd = external_fd || strcmp(extensions[i].extensionName,
                                            VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) == 0;
      }
    }
    free(extensions);
  }
  VkPhysicalDeviceIDProperties ids;
  memset(&ids, 0, sizeof ids);
  ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  VkPhysicalDeviceProperties2 properties2;
  memset(&properties2, 0, sizeof properties2);
  properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties2.pNext = &ids;
  vk->vkGetPhysicalDeviceProperties2(physical, &properties2);
  memcpy(d->device_uuid, ids.deviceUUID, sizeof d->device_uuid);
  memcpy(d->driver_uuid, ids.driverUUID, sizeof d->driver_uuid);
  const char *const enabled_extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info;
  memset(&queue_info, 0, sizeof queue_info);
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features enable12;
  memset(&enable12, 0, sizeof enable12);
  enable12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  enable12.timelineSemaphore = d->timeline ? VK_TRUE : VK_FALSE;
  enable12.bufferDeviceAddress = d->device_address ? VK_TRUE : VK_FALSE;
  VkDeviceCreateInfo device_info;
  memset(&device_info, 0, sizeof device_info);
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &enable12;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = external_fd ? 1u : 0u;
  device_info.ppEnabledExtensionNames = external_fd ? enabled_extensions : NULL;
  VkResult r = vk->vkCreateDevice(physical, &device_info, NULL, &d->device);
  if (r != VK_SUCCESS) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%.63s: vkCreateDevice: %s (%d)", properties.deviceName, vk_result_name(r), (int)r);
    return false;
  }
  vk->vkGetDeviceQueue(d->device, family, 0, &d->queue);
  if (external_fd) {
    PFN_vkVoidFunction entry = vk->vkGetDeviceProcAddr(d->device, "vkGetMemoryFdKHR");
    memcpy(&d->get_memory_fd, &entry, sizeof entry);
  }
  VkCommandPoolCreateInfo pool_info;
  memset(&pool_info, 0, sizeof pool_info);
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = family;
  r = vk->vkCreateCommandPool(d->device, &pool_info, NULL, &d->pool);
  if (r != VK_SUCCESS || pthread_mutex_init(&d->lock, NULL) != 0) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%.63s: vkCreateCommandPool: %s (%d)", properties.deviceName, vk_result_name(r),
             (int)r);
    if (r == VK_SUCCESS) {
      vk->vkDestroyCommandPool(d->device, d->pool, NULL);
    }
    vk->vkDestroyDevice(d->device, NULL);
    return false;
  }

  vk->vkGetPhysicalDeviceMemoryProperties(physical, &d->memory);
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkMemoryPropertyFlags visible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  d->memory_type[CLASS_STANDARD] = pick_memory_type(&d->memory, local, visible);
  d->memory_type[CLASS_HOST_PINNED] = pick_memory_type(&d->memory, visible, local);
  d->memory_type[CLASS_UNIFIED] = pick_memory_type(&d->memory, local | visible, 0);

  hurray_plugin_device_info *info = &d->info;
  info->struct_size = sizeof *info;
  snprintf(info->name, sizeof info->name, "%.63s", properties.deviceName);
  for (uint32_t i = 0; i < d->memory.memoryHeapCount; i++) {
    if ((d->memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0u) {
      info->memory_bytes += d->memory.memoryHeaps[i].size;
    }
  }
  const hurray_memory_class classes[CLASS_COUNT] = {
      HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED, HURRAY_MEMORY_UNIFIED};
  for (uint32_t c = 0; c < CLASS_COUNT; c++) {
    if (d->memory_type[c] == UINT32_MAX) {
      continue;
    }
    uint32_t max_alignment = VULKAN_MAX_ALIGNMENT;
    if (c == CLASS_STANDARD && !d->device_address) {
      /* Unmapped and without a device address there is nothing to align to:
       * only the bind alignment the device guarantees. */
      max_alignment = standard_bind_alignment(vk, d);
      if (max_alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
        continue;
      }
    }
    plugin_add_memory_class(info, classes[c],
                            c == CLASS_STANDARD ? 0u : HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE,
                            max_alignment);
  }
  if (info->memory_class_count == 0u) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%.63s: no memory type fits any class", properties.deviceName);
    vk->vkDestroyCommandPool(d->device, d->pool, NULL);
    vk->vkDestroyDevice(d->device, NULL);
    pthread_mutex_destroy(&d->lock);
    return false;
  }
  state->device_count++;
  return true;
}

static hurray_status vulkan_init(void **out_state, hurray_error *err) {
  vulkan_state *state = calloc(1, sizeof *state);
  if (state == NULL) {
    return plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *state, 0, "vulkan: plugin state");
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
  return plugin_copy_reason(buf, cap, state->device_count > 0u ? "" : state->unavailable_reason);
}

static hurray_status vulkan_describe_device(void *opaque, uint32_t device_index,
                                            hurray_plugin_device_info *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  hurray_status status = plugin_check_device("vulkan", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_copy_out(out, &state->devices[device_index].info,
                         sizeof state->devices[device_index].info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

/* What free() needs beyond the allocation record. */
typedef struct vulkan_memory {
  VkDeviceMemory memory;
  VkBuffer buffer;
  void *mapped;            /* the buffer's host pointer, NULL for standard */
  uint32_t bind_alignment; /* VkMemoryRequirements.alignment: the device's guarantee */
  bool exportable;         /* allocated with VkExportMemoryAllocateInfo (PL-IPC-1) */
  VkDeviceSize size;       /* of the VkDeviceMemory */
  VkDeviceSize offset;     /* of the buffer in it */
} vulkan_memory;

/* The one handle type this plugin shares memory with (PL-IPC-6). */
#define VULKAN_IPC_HANDLE_TYPE VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT

static VkBufferUsageFlags buffer_usage(const vulkan_device *d) {
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (d->device_address) {
    usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  }
  return usage;
}

static VkResult create_buffer(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                              VkBuffer *out) {
  return create_buffer_for(vk, d, size, false, out);
}

/* A buffer of this plugin's usage; `external`: one bindable to memory that
 * is exported or imported (PL-IPC-6). */
static VkResult create_buffer_for(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                                  bool external, VkBuffer *out) {
  VkExternalMemoryBufferCreateInfo external_info;
  memset(&external_info, 0, sizeof external_info);
  external_info.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external_info.handleTypes = VULKAN_IPC_HANDLE_TYPE;
  VkBufferCreateInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = external ? &external_info : NULL;
  info.size = size;
  info.usage = buffer_usage(d);
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  return vk->vkCreateBuffer(d->device, &info, NULL, out);
}

static uint64_t device_address_of(const vulkan_api *vk, const vulkan_device *d, VkBuffer buffer) {
  if (!d->device_address) {
    return 0u;
  }
  VkBufferDeviceAddressInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
  info.buffer = buffer;
  return vk->vkGetBufferDeviceAddress(d->device, &info);
}

/* Allocates `size` bytes of memory type `type`, over-allocated by
 * `alignment`, and a buffer bound where its address (device address when
 * known, else the mapped pointer) is aligned. */
static hurray_status allocate_aligned(const vulkan_api *vk, const vulkan_device *d, uint32_t type,
                                      bool map, bool exportable, VkDeviceSize size,
                                      uint32_t alignment, vulkan_memory *out, hurray_error *err) {
  VkBuffer probe = VK_NULL_HANDLE;
  VkResult r = create_buffer_for(vk, d, size, exportable, &probe);
  if (r != VK_SUCCESS) {
    return fail_vk(err, "vkCreateBuffer", r);
  }
  VkMemoryRequirements requirements;
  vk->vkGetBufferMemoryRequirements(d->device, probe, &requirements);
  if ((requirements.memoryTypeBits & (1u << type)) == 0u) {
    vk->vkDestroyBuffer(d->device, probe, NULL);
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, type, requirements.memoryTypeBits,
                       "vulkan: memory type %u cannot back a buffer (allowed mask 0x%X)",
                       (unsigned)type, (unsigned)requirements.memoryTypeBits);
  }
  VkMemoryAllocateFlagsInfo flags_info;
  memset(&flags_info, 0, sizeof flags_info);
  flags_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkExportMemoryAllocateInfo export_info;
  memset(&export_info, 0, sizeof export_info);
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
  export_info.handleTypes = VULKAN_IPC_HANDLE_TYPE;
  export_info.pNext = d->device_address ? &flags_info : NULL;
  VkMemoryAllocateInfo allocate_info;
  memset(&allocate_info, 0, sizeof allocate_info);
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.pNext = exportable ? (const void *)&export_info
                                   : (d->device_address ? (const void *)&flags_info : NULL);
  allocate_info.allocationSize = requirements.size + alignment;
  allocate_info.memoryTypeIndex = type;
  r = vk->vkAllocateMemory(d->device, &allocate_info, NULL, &out->memory);
  if (r != VK_SUCCESS) {
    vk->vkDestroyBuffer(d->device, probe, NULL);
    return fail_vk(err, "vkAllocateMemory", r);
  }
  void *base_pointer = NULL;
  if (map) {
    r = vk->vkMapMemory(d->device, out->memory, 0, VK_WHOLE_SIZE, 0, &base_pointer);
    if (r != VK_SUCCESS) {
      vk->vkDestroyBuffer(d->device, probe, NULL);
      vk->vkFreeMemory(d->device, out->memory, NULL);
      return fail_vk(err, "vkMapMemory", r);
    }
  }
  /* The probe at offset 0 tells where the memory starts on the device. */
  uint64_t base = 0u;
  r = vk->vkBindBufferMemory(d->device, probe, out->memory, 0);
  if (r == VK_SUCCESS) {
    base = device_address_of(vk, d, probe);
  }
  vk->vkDestroyBuffer(d->device, probe, NULL);
  if (base == 0u) {
    base = (uint64_t)(uintptr_t)base_pointer;
  }
  VkDeviceSize offset = 0u;
  if (base != 0u) {
    offset = ((base + alignment - 1u) & ~(uint64_t)(alignment - 1u)) - base;
  } else if (alignment > requirements.alignment) {
    vk->vkFreeMemory(d->device, out->memory, NULL);
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, requirements.alignment,
                       "vulkan: no address to align to %u; the device guarantees %llu",
                       (unsigned)alignment, (unsigned long long)requirements.alignment);
  }
  if (offset % requirements.alignment != 0u) {
    if (map) {
      vk->vkUnmapMemory(d->device, out->memory);
    }
    vk->vkFreeMemory(d->device, out->memory, NULL);
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, requirements.alignment,
                       "vulkan: offset %llu for alignment %u breaks the bind alignment %llu",
                       (unsigned long long)offset, (unsigned)alignment,
                       (unsigned long long)requirements.alignment);
  }
  r = create_buffer_for(vk, d, size, exportable, &out->buffer);
  if (r == VK_SUCCESS) {
    r = vk->vkBindBufferMemory(d->device, out->buffer, out->memory, offset);
    if (r != VK_SUCCESS) {
      vk->vkDestroyBuffer(d->device, out->buffer, NULL);
    }
  }
  if (r != VK_SUCCESS) {
    if (map) {
      vk->vkUnmapMemory(d->device, out->memory);
    }
    vk->vkFreeMemory(d->device, out->memory, NULL);
    return fail_vk(err, "vkCreateBuffer/vkBindBufferMemory", r);
  }
  out->mapped = map ? (unsigned char *)base_pointer + offset : NULL;
  out->exportable = exportable;
  out->size = allocate_info.allocationSize;
  out->offset = offset;
  out->bind_alignment = requirements.alignment < HURRAY_PLUGIN_MAX_ALIGNMENT
                            ? (uint32_t)requirements.alignment
                            : HURRAY_PLUGIN_MAX_ALIGNMENT;
  return HURRAY_OK;
}

/* The memory type index of a class on a device, or -1 when the class is not
 * offered there. */
static int class_index(hurray_memory_class memory_class) {
  return memory_class == HURRAY_MEMORY_STANDARD      ? CLASS_STANDARD
         : memory_class == HURRAY_MEMORY_HOST_PINNED ? CLASS_HOST_PINNED
         : memory_class == HURRAY_MEMORY_UNIFIED     ? CLASS_UNIFIED
                                                     : -1;
}

/* Releases what allocate_aligned or import_aligned made. */
static void release_memory(const vulkan_api *vk, const vulkan_device *d, vulkan_memory *memory) {
  if (memory->mapped != NULL) {
    vk->vkUnmapMemory(d->device, memory->memory);
  }
  vk->vkDestroyBuffer(d->device, memory->buffer, NULL);
  vk->vkFreeMemory(d->device, memory->memory, NULL);
  free(memory);
}

/* The allocation record of `memory`, its alignment measured: the smaller of
 * what the device address and the pointer show, or the bind alignment when
 * neither exists. Refuses (and releases) memory below `alignment`. */
static hurray_status describe_memory(const vulkan_api *vk, const vulkan_device *d,
                                     uint32_t device_index, vulkan_memory *memory,
                                     uint64_t byte_size, uint32_t alignment,
                                     hurray_memory_class memory_class,
                                     hurray_plugin_allocation *out, hurray_error *err) {
  hurray_plugin_allocation result;
  memset(&result, 0, sizeof result);
  result.struct_size = sizeof result;
  result.byte_size = byte_size;
  result.device_index = device_index;
  result.memory_class = memory_class;
  result.plugin_data = memory;
  result.device_address = device_address_of(vk, d, memory->buffer);
  result.host_address = memory->mapped;
  result.address = memory->mapped != NULL ? memory->mapped : (void *)memory->buffer;
  uint32_t measured = HURRAY_PLUGIN_MAX_ALIGNMENT;
  result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  if (result.device_address != 0u) {
    measured = plugin_alignment_capped(result.device_address, HURRAY_PLUGIN_MAX_ALIGNMENT);
    result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  }
  if (memory->mapped != NULL) {
    uint32_t host =
        plugin_alignment_capped((uint64_t)(uintptr_t)memory->mapped, HURRAY_PLUGIN_MAX_ALIGNMENT);
    measured = host < measured ? host : measured;
    result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  }
  if (result.alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE) {
    measured = memory->bind_alignment; /* no address: what the device guarantees */
  }
  result.alignment = measured;
  if (measured < alignment) {
    release_memory(vk, d, memory);
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, measured,
                       "vulkan: obtained alignment %u, %u requested", (unsigned)measured,
                       (unsigned)alignment);
  }
  hurray_plugin_copy_out(out, &result, sizeof result);
  return HURRAY_OK;
}

static hurray_status vulkan_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                                     uint32_t alignment, hurray_memory_class memory_class,
                                     uint32_t flags, hurray_plugin_allocation *out,
                                     hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  if (device_index >= state->device_count ||
      (flags & ~HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u) {
    return plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, state->device_count,
                       "vulkan: device %u / flags 0x%X", (unsigned)device_index, (unsigned)flags);
  }
  const vulkan_device *d = &state->devices[device_index];
  const bool exportable = (flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u;
  if (exportable && d->get_memory_fd == NULL) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, HURRAY_DEVICE_VULKAN,
                       "vulkan: %s does not export memory (no %s)", d->info.name,
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  }
  int c = class_index(memory_class);
  if (c < 0 || d->memory_type[c] == UINT32_MAX) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_VULKAN,
                       "vulkan: %s has no memory type for class 0x%02X", d->info.name,
                       (unsigned)memory_class);
  }
  if (alignment > VULKAN_MAX_ALIGNMENT) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, VULKAN_MAX_ALIGNMENT,
                       "vulkan: alignment %u above the %u guaranteed", (unsigned)alignment,
                       VULKAN_MAX_ALIGNMENT);
  }
  vulkan_memory *memory = calloc(1, sizeof *memory);
  if (memory == NULL) {
    return plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *memory, 0,
                       "vulkan: allocation record");
  }
  bool map = c != CLASS_STANDARD;
  hurray_status status = allocate_aligned(vk, d, d->memory_type[c], map, exportable, byte_size,
                                          alignment, memory, err);
  if (status != HURRAY_OK) {
    free(memory);
    return status;
  }
  return describe_memory(vk, d, device_index, memory, byte_size, alignment, memory_class, out,
                         err);
}

/* PL-IPC-2: an OPAQUE_FD of the allocation's VkDeviceMemory, the buffer's
 * offset in it, and the identities an importer must share. */
static hurray_status vulkan_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                          hurray_plugin_ipc_memory *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_device *d = &state->devices[allocation->device_index];
  const vulkan_memory *memory = allocation->plugin_data;
  if (!memory->exportable) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_VULKAN,
                       "vulkan: allocate the buffer with HURRAY_PLUGIN_ALLOCATE_EXPORTABLE to "
                       "share it (PL-IPC-1)");
  }
  VkMemoryGetFdInfoKHR info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
  info.memory = memory->memory;
  info.handleType = VULKAN_IPC_HANDLE_TYPE;
  int fd = -1;
  VkResult r = d->get_memory_fd(d->device, &info, &fd);
  if (r != VK_SUCCESS || fd < 0) {
    return fail_vk(err, "vkGetMemoryFdKHR", r != VK_SUCCESS ? r : VK_ERROR_UNKNOWN);
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC); /* PL-IPC-2: close-on-exec, as every export */
  out->kind = HURRAY_PLUGIN_IPC_MEMORY_FD;
  out->fd = fd;
  out->segment_size = memory->size;
  out->offset = memory->offset;
  memcpy(out->device_uuid, d->device_uuid, sizeof out->device_uuid);
  memcpy(out->driver_uuid, d->driver_uuid, sizeof out->driver_uuid);
  return HURRAY_OK;
}

/* PL-IPC-3: imports the OPAQUE_FD into a VkDeviceMemory of this device (the
 * memory type the class has here, as in the exporter: same device, same
 * driver, same choice) and binds a buffer at the exporter's offset. */
static hurray_status vulkan_import_memory(void *opaque, uint32_t device_index,
                                          const hurray_plugin_ipc_memory *in,
                                          hurray_plugin_allocation *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  hurray_status status = plugin_check_device("vulkan", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const vulkan_device *d = &state->devices[device_index];
  int c = class_index(in->memory_class);
  if (d->get_memory_fd == NULL || in->kind != HURRAY_PLUGIN_IPC_MEMORY_FD || c < 0 ||
      d->memory_type[c] == UINT32_MAX) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, in->kind, HURRAY_DEVICE_VULKAN,
                       "vulkan: %s cannot import memory kind %u of class 0x%02X", d->info.name,
                       (unsigned)in->kind, (unsigned)in->memory_class);
  }
  if (memcmp(in->device_uuid, d->device_uuid, sizeof d->device_uuid) != 0 ||
      memcmp(in->driver_uuid, d->driver_uuid, sizeof d->driver_uuid) != 0) {
    return plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                       "vulkan: the memory was exported by another device or driver than %s "
                       "(deviceUUID and driverUUID differ)",
                       d->info.name);
  }
  vulkan_memory *memory = calloc(1, sizeof *memory);
  if (memory == NULL) {
    return plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *memory, 0, "vulkan: import record");
  }
  /* Vulkan owns the descriptor it imports: it gets a duplicate, the caller
   * keeps its own (PL-IPC-3). */
  int fd = fcntl(in->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    free(memory);
    return plugin_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, (uint64_t)(int64_t)in->fd, 0,
                       "vulkan: descriptor %d cannot be duplicated", (int)in->fd);
  }
  VkImportMemoryFdInfoKHR import_info;
  memset(&import_info, 0, sizeof import_info);
  import_info.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
  import_info.handleType = VULKAN_IPC_HANDLE_TYPE;
  import_info.fd = fd;
  VkMemoryAllocateFlagsInfo flags_info;
  memset(&flags_info, 0, sizeof flags_info);
  flags_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  import_info.pNext = d->device_address ? &flags_info : NULL;
  VkMemoryAllocateInfo allocate_info;
  memset(&allocate_info, 0, sizeof allocate_info);
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.pNext = &import_info;
  allocate_info.allocationSize = in->segment_size;
  allocate_info.memoryTypeIndex = d->memory_type[c];
  VkResult r = vk->vkAllocateMemory(d->device, &allocate_info, NULL, &memory->memory);
  if (r != VK_SUCCESS) {
    close(fd); /* not imported: still ours */
    free(memory);
    return plugin_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, in->segment_size, 0,
                       "vulkan: vkAllocateMemory importing descriptor %d (%llu bytes): %s (%d)",
                       (int)in->fd, (unsigned long long)in->segment_size, vk_result_name(r),
                       (int)r);
  }
  memory->size = in->segment_size;
  memory->offset = in->offset;
  memory->exportable = true; /* the same memory: it can be passed on */
  r = create_buffer_for(vk, d, in->byte_size, true, &memory->buffer);
  if (r == VK_SUCCESS) {
    VkMemoryRequirements requirements;
    vk->vkGetBufferMemoryRequirements(d->device, memory->buffer, &requirements);
    memory->bind_alignment = requirements.alignment < HURRAY_PLUGIN_MAX_ALIGNMENT
                                 ? (uint32_t)requirements.alignment
                                 : HURRAY_PLUGIN_MAX_ALIGNMENT;
    r = vk->vkBindBufferMemory(d->device, memory->buffer, memory->memory, in->offset);
    if (r != VK_SUCCESS) {
      vk->vkDestroyBuffer(d->device, memory->buffer, NULL);
    }
  }
  void *base_pointer = NULL;
  if (r == VK_SUCCESS && c != CLASS_STANDARD) {
    r = vk->vkMapMemory(d->device, memory->memory, 0, VK_WHOLE_SIZE, 0, &base_pointer);
    if (r != VK_SUCCESS) {
      vk->vkDestroyBuffer(d->device, memory->buffer, NULL);
    }
  }
  if (r != VK_SUCCESS) {
    vk->vkFreeMemory(d->device, memory->memory, NULL);
    free(memory);
    return fail_vk(err, "vkCreateBuffer/vkBindBufferMemory/vkMapMemory of an import", r);
  }
  memory->mapped = base_pointer != NULL ? (unsigned char *)base_pointer + in->offset : NULL;
  return describe_memory(vk, d, device_index, memory, in->byte_size, in->alignment,
                         in->memory_class, out, err);
}

static void vulkan_free(void *opaque, const hurray_plugin_allocation *allocation) {
  const vulkan_state *state = opaque;
  release_memory(&state->vk, &state->devices[allocation->device_index], allocation->plugin_data);
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */

/* Runs one vkCmdCopyBuffer on the device's queue and waits for it. */
static hurray_status submit_copy(const vulkan_api *vk, vulkan_device *d, VkBuffer from,
                                 VkDeviceSize from_offset, VkBuffer to, VkDeviceSize to_offset,
                                 VkDeviceSize bytes, hurray_error *err) {
  VkFenceCreateInfo fence_info;
  memset(&fence_info, 0, sizeof fence_info);
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence fence = VK_NULL_HANDLE;
  VkResult r = vk->vkCreateFence(d->device, &fence_info, NULL, &fence);
  if (r != VK_SUCCESS) {
    return fail_vk(err, "vkCreateFence", r);
  }
  pthread_mutex_lock(&d->lock);
  VkCommandBufferAllocateInfo allocate_info;
  memset(&allocate_info, 0, sizeof allocate_info);
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = d->pool;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  r = vk->vkAllocateCommandBuffers(d->device, &allocate_info, &commands);
  const char *call = "vkAllocateCommandBuffers";
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo begin;
    memset(&begin, 0, sizeof begin);
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r = vk->vkBeginCommandBuffer(commands, &begin);
    call = "vkBeginCommandBuffer";
    if (r == VK_SUCCESS) {
      VkBufferCopy region = {from_offset, to_offset, bytes};
      vk->vkCmdCopyBuffer(commands, from, to, 1, &region);
      r = vk->vkEndCommandBuffer(commands);
      call = "vkEndCommandBuffer";
    }
    if (r == VK_SUCCESS) {
      VkSubmitInfo submit;
      memset(&submit, 0, sizeof submit);
      submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &commands;
      r = vk->vkQueueSubmit(d->queue, 1, &submit, fence);
      call = "vkQueueSubmit";
    }
  }
  pthread_mutex_unlock(&d->lock);
  if (r == VK_SUCCESS) {
    r = vk->vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
    call = "vkWaitForFences";
  }
  if (commands != VK_NULL_HANDLE) {
    pthread_mutex_lock(&d->lock);
    vk->vkFreeCommandBuffers(d->device, d->pool, 1, &commands);
    pthread_mutex_unlock(&d->lock);
  }
  vk->vkDestroyFence(d->device, fence, NULL);
  return r == VK_SUCCESS ? HURRAY_OK : fail_vk(err, call, r);
}

/* Copies between host memory and a standard-class buffer through a
 * host-visible staging buffer. */
static hurray_status staged_copy(vulkan_state *state, const hurray_plugin_allocation *a,
                                 uint64_t offset, void *host, uint64_t bytes, bool to_device,
                                 hurray_error *err) {
  const vulkan_api *vk = &state->vk;
  vulkan_device *d = &state->devices[a->device_index];
  uint32_t type = d->memory_type[CLASS_HOST_PINNED] != UINT32_MAX
                      ? d->memory_type[CLASS_HOST_PINNED]
                      : d->memory_type[CLASS_UNIFIED];
  if (type == UINT32_MAX) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, 0,
                       "vulkan: %s has no host-visible memory to stage a copy", d->info.name);
  }
  vulkan_memory staging;
  memset(&staging, 0, sizeof staging);
  hurray_status status = allocate_aligned(vk, d, type, true, false, bytes, 64, &staging, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const vulkan_memory *target = a->plugin_data;
  if (to_device) {
    memcpy(staging.mapped, host, (size_t)bytes);
    status = submit_copy(vk, d, staging.buffer, 0, target->buffer, offset, bytes, err);
  } else {
    status = submit_copy(vk, d, target->buffer, offset, staging.buffer, 0, bytes, err);
    if (status == HURRAY_OK) {
      memcpy(host, staging.mapped, (size_t)bytes);
    }
  }
  vk->vkUnmapMemory(d->device, staging.memory);
  vk->vkDestroyBuffer(d->device, staging.buffer, NULL);
  vk->vkFreeMemory(d->device, staging.memory, NULL);
  return status;
}

static hurray_status vulkan_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
                                           uint64_t dst_offset, const void *src, uint64_t bytes,
                                           hurray_error *err) {
  if (dst->host_address != NULL) {
    /* Host-coherent mapped memory: the write is visible to the device. */
    memcpy((unsigned char *)dst->host_address + dst_offset, src, (size_t)bytes);
    return HURRAY_OK;
  }
  /* The staging copy reads `src`; the cast is safe because to_device never writes it. */
  void *source;
  memcpy(&source, &src, sizeof source);
  return staged_copy(opaque, dst, dst_offset, source, bytes, true, err);
}

static hurray_status vulkan_copy_to_host(void *opaque, void *dst,
                                         const hurray_plugin_allocation *src, uint64_t src_offset,
                                         uint64_t bytes, hurray_error *err) {
  if (src->host_address != NULL) {
    memcpy(dst, (const unsigned char *)src->host_address + src_offset, (size_t)bytes);
    return HURRAY_OK;
  }
  return staged_copy(opaque, src, src_offset, dst, bytes, false, err);
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* A timeline semaphore and the value its last record signals; or, on a
 * device without timelines, a fence and whether it was submitted. */
typedef struct vulkan_event {
  uint32_t device_index;
  VkSemaphore semaphore;
  uint64_t value;
  VkFence fence;
  bool submitted;
} vulkan_event;

static hurray_status vulkan_create_event(void *opaque, uint32_t device_index, void **out_event,
                                         hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  hurray_status status = plugin_check_device("vulkan", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const vulkan_device *d = &state->devices[device_index];
  vulkan_event *event = calloc(1, sizeof *event);
  if (event == NULL) {
    return plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, "vulkan: event");
  }
  event->device_index = device_index;
  VkResult r;
  if (d->timeline) {
    VkSemaphoreTypeCreateInfo type;
    memset(&type, 0, sizeof type);
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkSemaphoreCreateInfo info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    info.pNext = &type;
    r = vk->vkCreateSemaphore(d->device, &info, NULL, &event->semaphore);
  } else {
    VkFenceCreateInfo info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    r = vk->vkCreateFence(d->device, &info, NULL, &event->fence);
  }
  if (r != VK_SUCCESS) {
    free(event);
    return fail_vk(err, d->timeline ? "vkCreateSemaphore" : "vkCreateFence", r);
  }
  *out_event = event;
  return HURRAY_OK;
}

static hurray_status vulkan_record_event(void *opaque, void *opaque_event, void *stream,
                                         hurray_error *err) {
  vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  vulkan_event *event = opaque_event;
  vulkan_device *d = &state->devices[event->device_index];
  VkQueue queue = stream != NULL ? (VkQueue)stream : d->queue;
  VkSubmitInfo submit;
  memset(&submit, 0, sizeof submit);
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  VkResult r;
  if (d->timeline) {
    /* A submission with no commands whose signal follows everything
     * submitted to the queue before it. */
    uint64_t next = event->value + 1u;
    VkTimelineSemaphoreSubmitInfo timeline;
    memset(&timeline, 0, sizeof timeline);
    timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &next;
    submit.pNext = &timeline;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &event->semaphore;
    pthread_mutex_lock(&d->lock);
    r = vk->vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
    pthread_mutex_unlock(&d->lock);
    if (r == VK_SUCCESS) {
      event->value = next;
    }
  } else {
    if (event->submitted) {
      /* Re-recording: the previous point must be reached before the fence is reused. */
      r = vk->vkWaitForFences(d->device, 1, &event->fence, VK_TRUE, UINT64_MAX);
      if (r == VK_SUCCESS) {
        r = vk->vkResetFences(d->device, 1, &event->fence);
      }
      if (r != VK_SUCCESS) {
        return fail_vk(err, "vkWaitForFences/vkResetFences", r);
      }
    }
    pthread_mutex_lock(&d->lock);
    r = vk->vkQueueSubmit(queue, 0, NULL, event->fence);
    pthread_mutex_unlock(&d->lock);
    event->submitted = r == VK_SUCCESS;
  }
  return r == VK_SUCCESS ? HURRAY_OK : fail_vk(err, "vkQueueSubmit", r);
}

static hurray_status vulkan_wait_event(void *opaque, void *opaque_event, uint64_t timeout_ns,
                                       hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  const vulkan_event *event = opaque_event;
  const vulkan_device *d = &state->devices[event->device_index];
  VkResult r;
  if (d->timeline) {
    if (event->value == 0u) {
      return HURRAY_OK; /* never recorded: complete */
    }
    VkSemaphoreWaitInfo info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &event->semaphore;
    info.pValues = &event->value;
    r = vk->vkWaitSemaphores(d->device, &info, timeout_ns);
  } else {
    if (!event->submitted) {
      return HURRAY_OK;
    }
    r = vk->vkWaitForFences(d->device, 1, &event->fence, VK_TRUE, timeout_ns);
  }
  if (r == VK_TIMEOUT) {
    return plugin_fail(err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
                       "vulkan: event not reached after %llu ns", (unsigned long long)timeout_ns);
  }
  return r == VK_SUCCESS ? HURRAY_OK
                         : fail_vk(err, d->timeline ? "vkWaitSemaphores" : "vkWaitForFences", r);
}

static void vulkan_release_event(void *opaque, void *opaque_event) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  vulkan_event *event = opaque_event;
  const vulkan_device *d = &state->devices[event->device_index];
  /* Destroying a semaphore or fence a pending submission uses is invalid:
   * wait for the last record first. */
  if (d->timeline) {
    if (event->value > 0u) {
      VkSemaphoreWaitInfo info;
      memset(&info, 0, sizeof info);
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
      info.semaphoreCount = 1;
      info.pSemaphores = &event->semaphore;
      info.pValues = &event->value;
      vk->vkWaitSemaphores(d->device, &info, UINT64_MAX);
    }
    vk->vkDestroySemaphore(d->device, event->semaphore, NULL);
  } else {
    if (event->submitted) {
      vk->vkWaitForFences(d->device, 1, &event->fence, VK_TRUE, UINT64_MAX);
    }
    vk->vkDestroyFence(d->device, event->fence, NULL);
  }
  free(event);
}

static hurray_status vulkan_wait_stream(void *opaque, uint32_t device_index, void *stream,
                                        uint64_t timeout_ns, hurray_error *err) {
  vulkan_state *state = opaque;
  hurray_status status = plugin_check_device("vulkan", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const vulkan_api *vk = &state->vk;
  vulkan_device *d = &state->devices[device_index];
  VkQueue queue = stream != NULL ? (VkQueue)stream : d->queue;
  /* A fence submitted after everything on the queue, waited with the timeout. */
  VkFenceCreateInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence fence = VK_NULL_HANDLE;
  VkResult r = vk->vkCreateFence(d->device, &info, NULL, &fence);
  if (r != VK_SUCCESS) {
    return fail_vk(err, "vkCreateFence", r);
  }
  pthread_mutex_lock(&d->lock);
  r = vk->vkQueueSubmit(queue, 0, NULL, fence);
  pthread_mutex_unlock(&d->lock);
  if (r == VK_SUCCESS) {
    r = vk->vkWaitForFences(d->device, 1, &fence, VK_TRUE, timeout_ns);
  }
  if (r == VK_TIMEOUT) {
    /* The fence is still pending: wait it out before destroying it. */
    vk->vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
    vk->vkDestroyFence(d->device, fence, NULL);
    return plugin_fail(err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
                       "vulkan: queue not idle after %llu ns", (unsigned long long)timeout_ns);
  }
  vk->vkDestroyFence(d->device, fence, NULL);
  return r == VK_SUCCESS ? HURRAY_OK : fail_vk(err, "vkQueueSubmit/vkWaitForFences", r);
}

static hurray_status vulkan_stream_wait_event(void *opaque, void *stream, void *opaque_event,
                                              hurray_error *err) {
  vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  const vulkan_event *event = opaque_event;
  vulkan_device *d = &state->devices[event->device_index];
  if (!d->timeline) {
    return plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_VULKAN,
                       "vulkan: %s has no timeline semaphores: device-side waits need them",
                       d->info.name);
  }
  if (event->value == 0u) {
    return HURRAY_OK;
  }
  VkQueue queue = stream != NULL ? (VkQueue)stream : d->queue;
  VkTimelineSemaphoreSubmitInfo timeline;
  memset(&timeline, 0, sizeof timeline);
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.waitSemaphoreValueCount = 1;
  timeline.pWaitSemaphoreValues = &event->value;
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submit;
  memset(&submit, 0, sizeof submit);
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &event->semaphore;
  submit.pWaitDstStageMask = &stage;
  pthread_mutex_lock(&d->lock);
  VkResult r = vk->vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
  pthread_mutex_unlock(&d->lock);
  return r == VK_SUCCESS ? HURRAY_OK : fail_vk(err, "vkQueueSubmit", r);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the timeline semaphore and the value its last record signals
 * (0 before the first: already reached), or the fence once submitted (an
 * unsubmitted fence never signals, so a vkWaitForFences would hang). */
static hurray_status vulkan_native_event(void *opaque, void *opaque_event,
                                         hurray_plugin_native_event *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_event *event = opaque_event;
  const vulkan_device *d = &state->devices[event->device_index];
  if (event->semaphore != VK_NULL_HANDLE) {
    out->native_type = HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE;
    out->handle = (uint64_t)event->semaphore;
    out->wait_value = event->value;
  } else {
    if (!event->submitted) {
      return plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1,
                         "vulkan: the event was never recorded; its VkFence would never signal");
    }
    out->native_type = HURRAY_NATIVE_EVENT_VK_FENCE;
    out->handle = (uint64_t)event->fence;
  }
  out->device = (uint64_t)(uintptr_t)d->device;
  return HURRAY_OK;
}

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
