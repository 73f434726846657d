/*
 * The Vulkan plugin's own declarations, shared by its files: the vendor
 * symbol table, the device and state records, and what one file calls in
 * another. vulkan_plugin.c loads the runtime and holds the entry table;
 * vulkan_device.c sets up a physical device; vulkan_memory.c allocates,
 * exports and imports memory; vulkan_queue.c runs copies, events and
 * streams on the device's queue.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_VULKAN_H
#define HURRAY_PLUGIN_VULKAN_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>

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
  X(VkResult, vkWaitSemaphores, (VkDevice, const VkSemaphoreWaitInfo *, uint64_t))                \
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
  char unavailable_reason[HURRAY_SUPPORT_REASON_SIZE];
} vulkan_state;

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

/* vulkan_plugin.c */
const char *vk_result_name(VkResult r);
hurray_status fail_vk(hurray_error *err, const char *call, VkResult r);

/* vulkan_device.c */
bool vulkan_add_device(vulkan_state *state, VkPhysicalDevice physical);
/* The device an entry's `device_index` names: INVALID_ARGUMENT with `err`
 * set where the plugin has no such device. */
hurray_status vulkan_find_device(const vulkan_state *state, uint32_t device_index,
                                 const vulkan_device **out, hurray_error *err);

/* vulkan_memory.c */
VkResult create_buffer(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                       VkBuffer *out);
hurray_status allocate_aligned(const vulkan_api *vk, const vulkan_device *d, uint32_t type,
                               bool map, bool exportable, VkDeviceSize size, uint32_t alignment,
                               vulkan_memory *out, hurray_error *err);
hurray_status vulkan_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                              uint32_t alignment, hurray_memory_class memory_class, uint32_t flags,
                              hurray_plugin_allocation *out, hurray_error *err);
void vulkan_free(void *opaque, const hurray_plugin_allocation *allocation);
hurray_status vulkan_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                   hurray_plugin_ipc_memory *out, hurray_error *err);
hurray_status vulkan_import_memory(void *opaque, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *in,
                                   hurray_plugin_allocation *out, hurray_error *err);

/* vulkan_queue.c */
hurray_status vulkan_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
                                    uint64_t dst_offset, const void *src, uint64_t bytes,
                                    hurray_error *err);
hurray_status vulkan_copy_to_host(void *opaque, void *dst, const hurray_plugin_allocation *src,
                                  uint64_t src_offset, uint64_t bytes, hurray_error *err);
hurray_status vulkan_create_event(void *opaque, uint32_t device_index, void **out_event,
                                  hurray_error *err);
hurray_status vulkan_record_event(void *opaque, void *opaque_event, void *stream,
                                  hurray_error *err);
hurray_status vulkan_wait_event(void *opaque, void *opaque_event, uint64_t timeout_ns,
                                hurray_error *err);
void vulkan_release_event(void *opaque, void *opaque_event);
hurray_status vulkan_wait_stream(void *opaque, uint32_t device_index, void *stream,
                                 uint64_t timeout_ns, hurray_error *err);
hurray_status vulkan_stream_wait_event(void *opaque, void *stream, void *opaque_event,
                                       hurray_error *err);
hurray_status vulkan_native_event(void *opaque, void *opaque_event, hurray_plugin_native_event *out,
                                  hurray_error *err);

#endif
