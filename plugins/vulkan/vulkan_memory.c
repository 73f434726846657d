/*
 * Vulkan plugin: memory of each class, aligned by over-allocation, and its
 * export and import as an OPAQUE_FD (PL-IPC-1..6). See vulkan_plugin.c for
 * the plugin as a whole.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vulkan_plugin.h"
#include "plugin_allocation.h"

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

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

VkResult create_buffer(const vulkan_api *vk, const vulkan_device *d, VkDeviceSize size,
                       VkBuffer *out) {
  return create_buffer_for(vk, d, size, false, out);
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

/* Memory for buffer_usage's buffers needs a device address where the device
 * enabled bufferDeviceAddress: `flags` set up to ask for it, to chain into
 * an allocation; NULL where the device has no device addresses. */
static const void *device_address_flags(const vulkan_device *d, VkMemoryAllocateFlagsInfo *flags) {
  *flags = (VkMemoryAllocateFlagsInfo){.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
  return d->device_address ? flags : NULL;
}

/* Allocates `size` bytes of memory type `type`, over-allocated by
 * `alignment`, and a buffer bound where its address (device address when
 * known, else the mapped pointer) is aligned. */
hurray_status allocate_aligned(const vulkan_api *vk, const vulkan_device *d, uint32_t type,
                               bool map, bool exportable, VkDeviceSize size, uint32_t alignment,
                               vulkan_memory *out, hurray_error *err) {
  VkBuffer probe = VK_NULL_HANDLE;
  VkResult r = create_buffer_for(vk, d, size, exportable, &probe);
  if (r != VK_SUCCESS) {
    return fail_vk(err, "vkCreateBuffer", r);
  }
  VkMemoryRequirements requirements;
  vk->vkGetBufferMemoryRequirements(d->device, probe, &requirements);
  if ((requirements.memoryTypeBits & (1u << type)) == 0u) {
    vk->vkDestroyBuffer(d->device, probe, NULL);
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, type, requirements.memoryTypeBits,
        "vulkan: memory type %u cannot back a buffer (allowed mask 0x%X)", (unsigned)type,
        (unsigned)requirements.memoryTypeBits);
  }
  VkMemoryAllocateFlagsInfo flags_info;
  const void *address_flags = device_address_flags(d, &flags_info);
  VkExportMemoryAllocateInfo export_info = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                            .pNext = address_flags,
                                            .handleTypes = VULKAN_IPC_HANDLE_TYPE};
  VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                        .pNext = exportable ? (const void *)&export_info
                                                            : address_flags,
                                        .allocationSize = requirements.size + alignment,
                                        .memoryTypeIndex = type};
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
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, alignment, requirements.alignment,
        "vulkan: no address to align to %u; the device guarantees %llu", (unsigned)alignment,
        (unsigned long long)requirements.alignment);
  }
  if (offset % requirements.alignment != 0u) {
    if (map) {
      vk->vkUnmapMemory(d->device, out->memory);
    }
    vk->vkFreeMemory(d->device, out->memory, NULL);
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, alignment, requirements.alignment,
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
  plugin_allocation_init(&result, byte_size, device_index, memory_class);
  result.plugin_data = memory;
  result.device_address = device_address_of(vk, d, memory->buffer);
  result.host_address = memory->mapped;
  result.address = memory->mapped != NULL ? memory->mapped : (void *)memory->buffer;
  uint32_t measured = HURRAY_PLUGIN_MAX_ALIGNMENT;
  result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  if (result.device_address != 0u) {
    measured = hurray_support_alignment_capped(result.device_address, HURRAY_PLUGIN_MAX_ALIGNMENT);
    result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE;
  }
  if (memory->mapped != NULL) {
    uint32_t host = hurray_support_alignment_capped((uint64_t)(uintptr_t)memory->mapped,
                                                    HURRAY_PLUGIN_MAX_ALIGNMENT);
    measured = host < measured ? host : measured;
    result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  }
  if (result.alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE) {
    measured = memory->bind_alignment; /* no address: what the device guarantees */
  }
  result.alignment = measured;
  if (measured < alignment) {
    release_memory(vk, d, memory);
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, measured,
                                     "vulkan: obtained alignment %u, %u requested",
                                     (unsigned)measured, (unsigned)alignment);
  }
  hurray_plugin_copy_out(out, &result, sizeof result);
  return HURRAY_OK;
}

hurray_status vulkan_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                              uint32_t alignment, hurray_memory_class memory_class, uint32_t flags,
                              hurray_plugin_allocation *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  if (device_index >= state->device_count || (flags & ~HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index,
                                     state->device_count, "vulkan: device %u / flags 0x%X",
                                     (unsigned)device_index, (unsigned)flags);
  }
  const vulkan_device *d = &state->devices[device_index];
  const bool exportable = (flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u;
  if (exportable && d->get_memory_fd == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, flags, HURRAY_DEVICE_VULKAN,
                                     "vulkan: %s does not export memory (no %s)", d->info.name,
                                     VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  }
  int c = class_index(memory_class);
  if (c < 0 || d->memory_type[c] == UINT32_MAX) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_VULKAN,
        "vulkan: %s has no memory type for class 0x%02X", d->info.name, (unsigned)memory_class);
  }
  if (alignment > VULKAN_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, VULKAN_MAX_ALIGNMENT,
                                     "vulkan: alignment %u above the %u guaranteed",
                                     (unsigned)alignment, VULKAN_MAX_ALIGNMENT);
  }
  vulkan_memory *memory = calloc(1, sizeof *memory);
  if (memory == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *memory, 0,
                                     "vulkan: allocation record");
  }
  bool map = c != CLASS_STANDARD;
  hurray_status status = allocate_aligned(vk, d, d->memory_type[c], map, exportable, byte_size,
                                          alignment, memory, err);
  if (status != HURRAY_OK) {
    free(memory);
    return status;
  }
  return describe_memory(vk, d, device_index, memory, byte_size, alignment, memory_class, out, err);
}

/* PL-IPC-2: an OPAQUE_FD of the allocation's VkDeviceMemory, the buffer's
 * offset in it, and the identities an importer must share. */
hurray_status vulkan_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                   hurray_plugin_ipc_memory *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_device *d = &state->devices[allocation->device_index];
  const vulkan_memory *memory = allocation->plugin_data;
  if (!memory->exportable) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_VULKAN,
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
hurray_status vulkan_import_memory(void *opaque, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *in,
                                   hurray_plugin_allocation *out, hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  const vulkan_device *d = NULL;
  hurray_status status = vulkan_find_device(state, device_index, &d, err);
  if (status != HURRAY_OK) {
    return status;
  }
  int c = class_index(in->memory_class);
  if (d->get_memory_fd == NULL || in->kind != HURRAY_PLUGIN_IPC_MEMORY_FD || c < 0 ||
      d->memory_type[c] == UINT32_MAX) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, in->kind, HURRAY_DEVICE_VULKAN,
                                     "vulkan: %s cannot import memory kind %u of class 0x%02X",
                                     d->info.name, (unsigned)in->kind, (unsigned)in->memory_class);
  }
  if (memcmp(in->device_uuid, d->device_uuid, sizeof d->device_uuid) != 0 ||
      memcmp(in->driver_uuid, d->driver_uuid, sizeof d->driver_uuid) != 0) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
        "vulkan: the memory was exported by another device or driver than %s "
        "(deviceUUID and driverUUID differ)",
        d->info.name);
  }
  vulkan_memory *memory = calloc(1, sizeof *memory);
  if (memory == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *memory, 0,
                                     "vulkan: import record");
  }
  /* Vulkan owns the descriptor it imports: it gets a duplicate, the caller
   * keeps its own (PL-IPC-3). */
  int fd = fcntl(in->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    free(memory);
    return hurray_support_entry_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, (uint64_t)(int64_t)in->fd, 0,
                                     "vulkan: descriptor %d cannot be duplicated", (int)in->fd);
  }
  VkMemoryAllocateFlagsInfo flags_info;
  VkImportMemoryFdInfoKHR import_info = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                         .pNext = device_address_flags(d, &flags_info),
                                         .handleType = VULKAN_IPC_HANDLE_TYPE,
                                         .fd = fd};
  VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                        .pNext = &import_info,
                                        .allocationSize = in->segment_size,
                                        .memoryTypeIndex = d->memory_type[c]};
  VkResult r = vk->vkAllocateMemory(d->device, &allocate_info, NULL, &memory->memory);
  if (r != VK_SUCCESS) {
    close(fd); /* not imported: still ours */
    free(memory);
    return hurray_support_entry_fail(
        err, HURRAY_ERR_IPC_BAD_SEGMENT, in->segment_size, 0,
        "vulkan: vkAllocateMemory importing descriptor %d (%llu bytes): %s (%d)", (int)in->fd,
        (unsigned long long)in->segment_size, vk_result_name(r), (int)r);
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

void vulkan_free(void *opaque, const hurray_plugin_allocation *allocation) {
  const vulkan_state *state = opaque;
  release_memory(&state->vk, &state->devices[allocation->device_index], allocation->plugin_data);
}
