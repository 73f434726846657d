/*
 * Vulkan plugin: work on the device's queue: copies through a staging
 * buffer, and events and streams (timeline semaphores or fences). See
 * vulkan_plugin.c for the plugin as a whole.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_plugin.h"

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */

/* An unsignalled fence of the device. */
static VkResult create_fence(const vulkan_api *vk, const vulkan_device *d, VkFence *out) {
  VkFenceCreateInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  return vk->vkCreateFence(d->device, &info, NULL, out);
}

static VkResult create_timeline_semaphore(const vulkan_api *vk, const vulkan_device *d,
                                          VkSemaphore *out) {
  VkSemaphoreTypeCreateInfo type;
  memset(&type, 0, sizeof type);
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  return vk->vkCreateSemaphore(d->device, &info, NULL, out);
}

/* Runs one vkCmdCopyBuffer on the device's queue and waits for it. */
static hurray_status submit_copy(const vulkan_api *vk, vulkan_device *d, VkBuffer from,
                                 VkDeviceSize from_offset, VkBuffer to, VkDeviceSize to_offset,
                                 VkDeviceSize bytes, hurray_error *err) {
  VkFence fence = VK_NULL_HANDLE;
  VkResult r = create_fence(vk, d, &fence);
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
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, 0,
                                     "vulkan: %s has no host-visible memory to stage a copy",
                                     d->info.name);
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

hurray_status vulkan_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
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

hurray_status vulkan_copy_to_host(void *opaque, void *dst, const hurray_plugin_allocation *src,
                                  uint64_t src_offset, uint64_t bytes, hurray_error *err) {
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

/* On a timeline device: until the semaphore reaches what the event's last
 * record signals, or `timeout_ns`. */
static VkResult wait_last_record(const vulkan_api *vk, const vulkan_device *d,
                                 const vulkan_event *event, uint64_t timeout_ns) {
  VkSemaphoreWaitInfo info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &event->semaphore;
  info.pValues = &event->value;
  return vk->vkWaitSemaphores(d->device, &info, timeout_ns);
}

hurray_status vulkan_create_event(void *opaque, uint32_t device_index, void **out_event,
                                  hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_device *d = NULL;
  hurray_status status = vulkan_find_device(state, device_index, &d, err);
  if (status != HURRAY_OK) {
    return status;
  }
  vulkan_event *event = calloc(1, sizeof *event);
  if (event == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0,
                                     "vulkan: event");
  }
  event->device_index = device_index;
  VkResult r = d->timeline ? create_timeline_semaphore(&state->vk, d, &event->semaphore)
                           : create_fence(&state->vk, d, &event->fence);
  if (r != VK_SUCCESS) {
    free(event);
    return fail_vk(err, d->timeline ? "vkCreateSemaphore" : "vkCreateFence", r);
  }
  *out_event = event;
  return HURRAY_OK;
}

hurray_status vulkan_record_event(void *opaque, void *opaque_event, void *stream,
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

hurray_status vulkan_wait_event(void *opaque, void *opaque_event, uint64_t timeout_ns,
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
    r = wait_last_record(vk, d, event, timeout_ns);
  } else {
    if (!event->submitted) {
      return HURRAY_OK;
    }
    r = vk->vkWaitForFences(d->device, 1, &event->fence, VK_TRUE, timeout_ns);
  }
  if (r == VK_TIMEOUT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
                                     "vulkan: event not reached after %llu ns",
                                     (unsigned long long)timeout_ns);
  }
  return r == VK_SUCCESS ? HURRAY_OK
                         : fail_vk(err, d->timeline ? "vkWaitSemaphores" : "vkWaitForFences", r);
}

void vulkan_release_event(void *opaque, void *opaque_event) {
  const vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  vulkan_event *event = opaque_event;
  const vulkan_device *d = &state->devices[event->device_index];
  /* Destroying a semaphore or fence a pending submission uses is invalid:
   * wait for the last record first. */
  if (d->timeline) {
    if (event->value > 0u) {
      wait_last_record(vk, d, event, UINT64_MAX);
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

hurray_status vulkan_wait_stream(void *opaque, uint32_t device_index, void *stream,
                                 uint64_t timeout_ns, hurray_error *err) {
  vulkan_state *state = opaque;
  hurray_status status =
      hurray_support_check_device("vulkan", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const vulkan_api *vk = &state->vk;
  vulkan_device *d = &state->devices[device_index];
  VkQueue queue = stream != NULL ? (VkQueue)stream : d->queue;
  /* A fence submitted after everything on the queue, waited with the timeout. */
  VkFence fence = VK_NULL_HANDLE;
  VkResult r = create_fence(vk, d, &fence);
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
    return hurray_support_entry_fail(err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
                                     "vulkan: queue not idle after %llu ns",
                                     (unsigned long long)timeout_ns);
  }
  vk->vkDestroyFence(d->device, fence, NULL);
  return r == VK_SUCCESS ? HURRAY_OK : fail_vk(err, "vkQueueSubmit/vkWaitForFences", r);
}

hurray_status vulkan_stream_wait_event(void *opaque, void *stream, void *opaque_event,
                                       hurray_error *err) {
  vulkan_state *state = opaque;
  const vulkan_api *vk = &state->vk;
  const vulkan_event *event = opaque_event;
  vulkan_device *d = &state->devices[event->device_index];
  if (!d->timeline) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_VULKAN,
        "vulkan: %s has no timeline semaphores: device-side waits need them", d->info.name);
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

/* PL-EVENT-5: the timeline semaphore and the value its last record signals
 * (0 before the first: already reached), or the fence once submitted (an
 * unsubmitted fence never signals, so a vkWaitForFences would hang). */
hurray_status vulkan_native_event(void *opaque, void *opaque_event, hurray_plugin_native_event *out,
                                  hurray_error *err) {
  const vulkan_state *state = opaque;
  const vulkan_event *event = opaque_event;
  const vulkan_device *d = &state->devices[event->device_index];
  if (event->semaphore != VK_NULL_HANDLE) {
    out->native_type = HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE;
    out->handle = (uint64_t)event->semaphore;
    out->wait_value = event->value;
  } else {
    if (!event->submitted) {
      return hurray_support_entry_fail(
          err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1,
          "vulkan: the event was never recorded; its VkFence would never signal");
    }
    out->native_type = HURRAY_NATIVE_EVENT_VK_FENCE;
    out->handle = (uint64_t)event->fence;
  }
  out->device = (uint64_t)(uintptr_t)d->device;
  return HURRAY_OK;
}
