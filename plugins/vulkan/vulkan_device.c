/*
 * Vulkan plugin: setting up one physical device (PL-AVAIL-1): its logical
 * device, transfer queue, command pool, features and the memory type of
 * each class. See vulkan_plugin.c for the plugin as a whole.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_plugin.h"

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

bool vulkan_add_device(vulkan_state *state, VkPhysicalDevice physical) {
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
  VkPhysicalDeviceVulkan12Features features12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                        .pNext = &features12};
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
    if (extensions != NULL && vk->vkEnumerateDeviceExtensionProperties(
                                  physical, NULL, &extension_count, extensions) == VK_SUCCESS) {
      for (uint32_t i = 0; i < extension_count; i++) {
        external_fd = external_fd || strcmp(extensions[i].extensionName,
                                            VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) == 0;
      }
    }
    free(extensions);
  }
  VkPhysicalDeviceIDProperties ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &ids};
  vk->vkGetPhysicalDeviceProperties2(physical, &properties2);
  memcpy(d->device_uuid, ids.deviceUUID, sizeof d->device_uuid);
  memcpy(d->driver_uuid, ids.driverUUID, sizeof d->driver_uuid);
  const char *const enabled_extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
  VkPhysicalDeviceVulkan12Features enable12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
      .timelineSemaphore = d->timeline ? VK_TRUE : VK_FALSE,
      .bufferDeviceAddress = d->device_address ? VK_TRUE : VK_FALSE};
  VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .pNext = &enable12,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &queue_info,
                                    .enabledExtensionCount = external_fd ? 1u : 0u,
                                    .ppEnabledExtensionNames = external_fd ? enabled_extensions
                                                                           : NULL};
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
  VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                       .queueFamilyIndex = family};
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
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
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
    hurray_support_add_memory_class(info, classes[c],
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

hurray_status vulkan_find_device(const vulkan_state *state, uint32_t device_index,
                                 const vulkan_device **out, hurray_error *err) {
  hurray_status status =
      hurray_support_check_device("vulkan", device_index, state->device_count, err);
  if (status == HURRAY_OK) {
    *out = &state->devices[device_index];
  }
  return status;
}
