/*
 * `events` (PL-EVENT-1..4) and `native-event` (PL-EVENT-5) (specs/cli.md
 * CLI-CHK-2). A plugin without event entries is skipped: its buffers are
 * handed over producer_synced (PL-TABLE-6).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"

/* A new event on device d, or the check fails. */
static hurray_plugin_event *new_event(conformance_run *run, uint32_t d) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_event *event = NULL;
  conformance_expect_status(run,
                            hurray_plugin_event_create(conformance_plugin(run), d, &event, &err),
                            HURRAY_OK, &err, "event_create(device %u)", (unsigned)d);
  return event;
}

static void require_events(conformance_run *run) {
  if (!hurray_plugin_supports_events(conformance_plugin(run))) {
    conformance_skip(run,
                     "the plugin has no event entries: its buffers are offered "
                     "producer_synced (PL-TABLE-6)");
  }
}

/* PL-EVENT-1..4: a fresh event is complete; after work and a record, a real
 * wait succeeds, with a timeout and without; stream waits on the default
 * queue work or say UNSUPPORTED. */
void conformance_check_events(conformance_run *run) {
  require_events(run);
  hurray_plugin *plugin = conformance_plugin(run);
  static unsigned char data[1 << 20];
  memset(data, 0xA5, sizeof data);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_error err;
    memset(&err, 0, sizeof err);
    hurray_plugin_event *event = new_event(run, d);
    conformance_expect_status(run, hurray_plugin_event_wait(event, 0, &err), HURRAY_OK, &err,
                              "wait on an event never recorded (complete, PL-EVENT-2)");
    hurray_plugin_buffer *buffer = NULL;
    conformance_expect_status(
        run,
        hurray_plugin_allocate(plugin, d, sizeof data, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_OK, &err, "allocate(device %u, 1 MiB, standard)", (unsigned)d);
    conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, data, sizeof data, &err),
                              HURRAY_OK, &err, "copy_to_device of 1 MiB");
    conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                              "record_event on the default queue");
    conformance_expect_status(run, hurray_plugin_event_wait(event, 5000000000u, &err), HURRAY_OK,
                              &err, "wait_event with a 5 s timeout after the record");
    conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                              "record_event again");
    conformance_expect_status(run,
                              hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err),
                              HURRAY_OK, &err, "wait_event without a timeout");
    hurray_status s = hurray_plugin_event_stream_wait(event, NULL, &err);
    CONFORM(run, s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED,
            "stream_wait_event on the default queue: returned %s (%s), expected OK or UNSUPPORTED",
            hurray_status_name(s), err.detail);
    s = hurray_plugin_stream_wait(plugin, d, NULL, HURRAY_PLUGIN_WAIT_FOREVER, &err);
    CONFORM(run, s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED,
            "wait_stream without a timeout: returned %s (%s), expected OK or UNSUPPORTED",
            hurray_status_name(s), err.detail);
    s = hurray_plugin_stream_wait(plugin, d, NULL, 5000000000u, &err);
    CONFORM(run, s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED,
            "wait_stream with a 5 s timeout: returned %s (%s), expected OK or UNSUPPORTED",
            hurray_status_name(s), err.detail);
    hurray_plugin_event_release(event);
    hurray_plugin_buffer_free(buffer);
  }
}

/* The runtime's own query on the handle, for the runtimes whose loader this
 * machine has by name (OpenCL, Vulkan): the handle is a live object of it. */
typedef int32_t (*cl_get_event_info_fn)(void *event, uint32_t name, size_t size, void *value,
                                        size_t *size_ret);
typedef void (*vk_void_fn)(void);
typedef vk_void_fn (*vk_get_device_proc_addr_fn)(void *device, const char *name);
typedef int32_t (*vk_get_semaphore_counter_value_fn)(void *device, uint64_t semaphore,
                                                     uint64_t *value);
typedef int32_t (*vk_get_fence_status_fn)(void *device, uint64_t fence);

static void *runtime_symbol(conformance_run *run, void *library, const char *name) {
  void *symbol = dlsym(library, name);
  CONFORM(run, symbol != NULL, "%s: %s", name, dlerror());
  return symbol;
}

static void check_cl_event(conformance_run *run, const hurray_plugin_native_event *native) {
  void *cl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  CONFORM(run, cl != NULL, "dlopen libOpenCL.so.1 to query the cl_event: %s", dlerror());
  cl_get_event_info_fn get_info;
  void *symbol = runtime_symbol(run, cl, "clGetEventInfo");
  memcpy(&get_info, &symbol, sizeof symbol);
  int32_t execution_status = -1;
  /* CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3; CL_COMPLETE 0 */
  int32_t rc = get_info((void *)(uintptr_t)native->handle, 0x11D3u, sizeof execution_status,
                        &execution_status, NULL);
  dlclose(cl);
  conformance_expect_eq(run, (uint64_t)(int64_t)rc, 0, "clGetEventInfo on the native handle");
  conformance_expect_eq(run, (uint64_t)(int64_t)execution_status, 0,
                        "the cl_event's execution status after the wait (CL_COMPLETE)");
}

static void check_vk_object(conformance_run *run, const hurray_plugin_native_event *native) {
  void *vk = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  CONFORM(run, vk != NULL, "dlopen libvulkan.so.1 to query the handle: %s", dlerror());
  vk_get_device_proc_addr_fn get_proc;
  void *symbol = runtime_symbol(run, vk, "vkGetDeviceProcAddr");
  memcpy(&get_proc, &symbol, sizeof symbol);
  void *device = (void *)(uintptr_t)native->device;
  CONFORM(run, device != NULL, "a Vulkan native event without its VkDevice");
  int32_t rc = -1;
  if (native->native_type == HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE) {
    vk_void_fn fn = get_proc(device, "vkGetSemaphoreCounterValue");
    if (fn == NULL) {
      fn = get_proc(device, "vkGetSemaphoreCounterValueKHR");
    }
    CONFORM(run, fn != NULL, "no vkGetSemaphoreCounterValue on the event's device");
    vk_get_semaphore_counter_value_fn counter;
    memcpy(&counter, &fn, sizeof fn);
    uint64_t value = 0;
    rc = counter(device, native->handle, &value);
    CONFORM(run, rc == 0 && native->wait_value > 0u && value >= native->wait_value,
            "vkGetSemaphoreCounterValue: %d, counter %llu, wait value %llu (waited for: reached)",
            (int)rc, (unsigned long long)value, (unsigned long long)native->wait_value);
  } else {
    vk_void_fn fn = get_proc(device, "vkGetFenceStatus");
    CONFORM(run, fn != NULL, "no vkGetFenceStatus on the event's device");
    vk_get_fence_status_fn fence_status;
    memcpy(&fence_status, &fn, sizeof fn);
    rc = fence_status(device, native->handle);
    conformance_expect_eq(run, (uint64_t)(int64_t)rc, 0,
                          "vkGetFenceStatus of the waited fence (VK_SUCCESS: signalled)");
  }
  dlclose(vk);
}

/* PL-EVENT-5: without the native_event entry the host says UNSUPPORTED and
 * writes nothing; with it, a recorded and waited event has a non-zero
 * handle of its device, a live object of the runtime where this machine can
 * query it (cl_event, VkSemaphore, VkFence). */
void conformance_check_native_event(conformance_run *run) {
  require_events(run);
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_plugin_table table;
  conformance_table_of(run, &table);
  hurray_device_tag tag = hurray_plugin_device_tag(plugin);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_error err;
    memset(&err, 0, sizeof err);
    hurray_plugin_event *event = new_event(run, d);
    hurray_plugin_native_event native;
    memset(&native, 0xEE, sizeof native);
    native.struct_size = sizeof native;
    if (table.native_event == NULL) {
      conformance_expect_status(run, hurray_plugin_event_native(event, &native, &err),
                                HURRAY_ERR_UNSUPPORTED, &err,
                                "event_native on a plugin without native_event");
      conformance_expect_eq(run, err.expected, tag, "its error's expected (the tag)");
      conformance_expect_eq(run, native.native_type, 0xEEEEEEEEu,
                            "native_type after a refusal (nothing written)");
      hurray_plugin_event_release(event);
      continue;
    }
    conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                              "record_event");
    conformance_expect_status(run,
                              hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err),
                              HURRAY_OK, &err, "wait_event");
    conformance_expect_status(run, hurray_plugin_event_native(event, &native, &err), HURRAY_OK,
                              &err, "event_native of a recorded event (device %u)", (unsigned)d);
    CONFORM(run, native.handle != 0u, "event_native gave a zero handle");
    conformance_expect_eq(run, native.device_index, d, "the native event's device_index");
    if (native.native_type == HURRAY_NATIVE_EVENT_CL_EVENT) {
      check_cl_event(run, &native);
    } else if (native.native_type == HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE ||
               native.native_type == HURRAY_NATIVE_EVENT_VK_FENCE) {
      check_vk_object(run, &native);
    } else {
      static const char *const types[] = {
          "none",        "CUevent", "hipEvent_t",        "id<MTLSharedEvent>",
          "VkSemaphore", "VkFence", "ze_event_handle_t", "cl_event"};
      conformance_note(run,
                       "device %u: native %s handle, not queried (no query of that runtime "
                       "here)",
                       (unsigned)d,
                       native.native_type < sizeof types / sizeof types[0]
                           ? types[native.native_type]
                           : "private");
    }
    hurray_plugin_event_release(event);
  }
}
