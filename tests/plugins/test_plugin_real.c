/*
 * Real allocation, copy and event wait through one plugin on every device it
 * reports (PL-ALLOC-1..5, PL-COPY-1..2, PL-EVENT-1..4), plus the handoff
 * tie-in: allocate -> record -> offer -> accept -> wait -> release.
 *
 * Usage: test_plugin_real PLUGIN_FILE [--require-devices]
 * With no device (runtime missing) it prints SKIP and the plugin's reason
 * and exits 77, unless --require-devices is given (then it fails).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* realpath */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/handoff.h"
#include "hurray/plugin.h"
#include "mapped_files.h"

static const char *plugin_file;
static hurray_plugin_registry *registry;
static hurray_plugin *plugin;

static void load(void) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_status s = hurray_plugin_load(registry, plugin_file, 0, &plugin, &err);
  ck_assert_msg(s == HURRAY_OK, "load %s: %s %s", plugin_file, hurray_status_name(s), err.detail);
}

static void unload(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  plugin = NULL;
}

/* Independent measure of an address's alignment: the lowest set bit. */
static uint64_t lowest_set_bit(uintptr_t address) { return address & (~address + 1u); }

/* Every class, several alignments: the handle declares what was obtained and
 * that is what the address shows. */
START_TEST(allocation_alignment_is_measured) {
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_plugin_device_info info;
    info.struct_size = sizeof info;
    hurray_error err;
    ck_assert_int_eq(hurray_plugin_describe_device(plugin, d, &info, &err), HURRAY_OK);
    for (uint32_t c = 0; c < info.memory_class_count; c++) {
      const hurray_plugin_memory_class_info *mc = &info.memory_classes[c];
      for (uint32_t alignment = 64; alignment <= mc->max_alignment && alignment <= 65536u;
           alignment *= 4u) {
        hurray_plugin_buffer *buffer = NULL;
        hurray_status s =
            hurray_plugin_allocate(plugin, d, 10000, alignment, mc->memory_class, &buffer, &err);
        if (s == HURRAY_ERR_UNSUPPORTED && mc->memory_class == HURRAY_MEMORY_HOST_PINNED) {
          /* A runtime-chosen mapping may have less than asked: refused, not downgraded. */
          ck_assert_uint_lt(err.expected, alignment);
          continue;
        }
        ck_assert_msg(s == HURRAY_OK, "device %u class 0x%02X alignment %u: %s %s", d,
                      mc->memory_class, alignment, hurray_status_name(s), err.detail);
        const hurray_plugin_allocation *a = hurray_plugin_buffer_allocation(buffer);
        const hurray_buffer_handle *h = hurray_plugin_buffer_handle(buffer);
        ck_assert_uint_ge(h->alignment, alignment);
        ck_assert_uint_eq(h->alignment, a->alignment);
        ck_assert_uint_eq(h->byte_size, 10000);
        ck_assert_uint_eq(h->memory_class, mc->memory_class);
        ck_assert_uint_eq(h->device_tag, hurray_plugin_device_tag(plugin));
        ck_assert_int_eq(hurray_buffer_handle_validate(h, &err), HURRAY_OK);
        if (a->host_address != NULL) {
          ck_assert_uint_ge(lowest_set_bit((uintptr_t)a->host_address), h->alignment);
        }
        if (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE) {
          ck_assert_uint_eq(a->host_address == NULL, 1);
        }
        if ((mc->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u) {
          ck_assert_ptr_nonnull(a->host_address);
          memset(a->host_address, 0x5A, 10000);
        }
        hurray_plugin_buffer_free(buffer);
      }
      /* Past the class's maximum: refused with the maximum named. */
      if (mc->max_alignment < HURRAY_PLUGIN_MAX_ALIGNMENT) {
        hurray_plugin_buffer *buffer = NULL;
        ck_assert_int_eq(hurray_plugin_allocate(plugin, d, 4096, mc->max_alignment * 2u,
                                                mc->memory_class, &buffer, &err),
                         HURRAY_ERR_UNSUPPORTED);
        ck_assert_uint_eq(err.value, mc->max_alignment * 2u);
        ck_assert_uint_eq(err.expected, mc->max_alignment);
        ck_assert_ptr_null(buffer);
      }
    }
    /* peer is never offered by these plugins; a private class only by private tags. */
    hurray_plugin_buffer *buffer = NULL;
    ck_assert_int_eq(hurray_plugin_allocate(plugin, d, 4096, 64, HURRAY_MEMORY_PEER, &buffer, &err),
                     HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.value, HURRAY_MEMORY_PEER);
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, d, 0, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, d, 64, 32, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
    /* buffer.h's payload: value the alignment, expected the minimum, index
     * the handle (the buffer's one handle: 0; it was 3, "handle 3"). */
    ck_assert_uint_eq(err.value, 32);
    ck_assert_uint_eq(err.expected, 64);
    ck_assert_uint_eq(err.index, 0);
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, d, 64, 96, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
    ck_assert_uint_eq(err.value, 96);
    ck_assert_uint_eq(err.index, 0);
    char message[256];
    (void)hurray_error_format(&err, message, sizeof message);
    ck_assert_msg(strstr(message, "handle 3") == NULL, "%s", message);
  }
  hurray_plugin_buffer *buffer = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_allocate(plugin, hurray_plugin_device_count(plugin), 64, 64,
                                          HURRAY_MEMORY_STANDARD, &buffer, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
}
END_TEST

/* Bytes written through the plugin come back unchanged, in every class,
 * at an offset; out-of-range copies are refused before the plugin runs. */
START_TEST(copy_round_trip) {
  enum { size = 1 << 16 };
  unsigned char *pattern = malloc(size);
  unsigned char *back = malloc(size);
  ck_assert_ptr_nonnull(pattern);
  ck_assert_ptr_nonnull(back);
  for (size_t i = 0; i < size; i++) {
    pattern[i] = (unsigned char)(i * 31u + 7u);
  }
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_plugin_device_info info;
    info.struct_size = sizeof info;
    hurray_error err;
    ck_assert_int_eq(hurray_plugin_describe_device(plugin, d, &info, &err), HURRAY_OK);
    for (uint32_t c = 0; c < info.memory_class_count; c++) {
      hurray_plugin_buffer *buffer = NULL;
      hurray_status s = hurray_plugin_allocate(plugin, d, size, 64,
                                               info.memory_classes[c].memory_class, &buffer, &err);
      ck_assert_msg(s == HURRAY_OK, "%s %s", hurray_status_name(s), err.detail);
      ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, pattern, size, &err), HURRAY_OK);
      ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 100, pattern, 1000, &err), HURRAY_OK);
      memset(back, 0, size);
      ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, back, size, &err), HURRAY_OK);
      ck_assert_mem_eq(back, pattern, 100);
      ck_assert_mem_eq(back + 100, pattern, 1000);
      ck_assert_mem_eq(back + 1100, pattern + 1100, size - 1100);
      ck_assert_int_eq(hurray_plugin_buffer_read(buffer, size - 10, back, 11, &err),
                       HURRAY_ERR_INVALID_ARGUMENT);
      ck_assert_uint_eq(err.value, size + 1u);
      ck_assert_uint_eq(err.expected, size);
      ck_assert_int_eq(hurray_plugin_buffer_write(buffer, UINT64_MAX, pattern, 2, &err),
                       HURRAY_ERR_INVALID_ARGUMENT);
      hurray_plugin_buffer_free(buffer);
    }
  }
  free(pattern);
  free(back);
}
END_TEST

/* Events: a fresh one is complete; after work and a record, a real wait
 * succeeds; stream waits work on the default queue. */
START_TEST(event_record_and_wait) {
  ck_assert(hurray_plugin_supports_events(plugin));
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_error err;
    hurray_plugin_event *event = NULL;
    ck_assert_int_eq(hurray_plugin_event_create(plugin, d, &event, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_event_wait(event, 0, &err), HURRAY_OK);
    hurray_plugin_buffer *buffer = NULL;
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, d, 1 << 20, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_OK);
    static unsigned char data[1 << 20];
    memset(data, 0xA5, sizeof data);
    ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, data, sizeof data, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
    hurray_status s = hurray_plugin_event_wait(event, 5000000000u, &err);
    ck_assert_msg(s == HURRAY_OK, "%s %s", hurray_status_name(s), err.detail);
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
    s = hurray_plugin_event_stream_wait(event, NULL, &err);
    ck_assert(s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED);
    s = hurray_plugin_stream_wait(plugin, d, NULL, HURRAY_PLUGIN_WAIT_FOREVER, &err);
    ck_assert(s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED);
    s = hurray_plugin_stream_wait(plugin, d, NULL, 5000000000u, &err);
    ck_assert(s == HURRAY_OK || s == HURRAY_ERR_UNSUPPORTED);
    hurray_plugin_event_release(event);
    hurray_plugin_buffer_free(buffer);
  }
}
END_TEST

/* PL-EVENT-5: the native handle of a recorded event is a live object of
 * the runtime, checked with that runtime's own query (clGetEventInfo,
 * vkGetSemaphoreCounterValue / vkGetFenceStatus, resolved from the system's
 * loader); cpu and the template have none and say UNSUPPORTED. */
typedef int32_t (*cl_get_event_info_fn)(void *event, uint32_t name, size_t size, void *value,
                                        size_t *size_ret);
typedef void (*vk_void_fn)(void);
typedef vk_void_fn (*vk_get_device_proc_addr_fn)(void *device, const char *name);
typedef int32_t (*vk_get_semaphore_counter_value_fn)(void *device, uint64_t semaphore,
                                                     uint64_t *value);
typedef int32_t (*vk_get_fence_status_fn)(void *device, uint64_t fence);

static void *runtime_symbol(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  ck_assert_msg(symbol != NULL, "%s: %s", name, dlerror());
  return symbol;
}

static void check_native_is_live(const hurray_plugin_native_event *native) {
  if (native->native_type == HURRAY_NATIVE_EVENT_CL_EVENT) {
    void *cl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(cl != NULL, "%s", dlerror());
    cl_get_event_info_fn get_info;
    void *symbol = runtime_symbol(cl, "clGetEventInfo");
    memcpy(&get_info, &symbol, sizeof symbol);
    int32_t execution_status = -1;
    /* CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3; CL_COMPLETE 0 */
    ck_assert_int_eq(get_info((void *)(uintptr_t)native->handle, 0x11D3u,
                              sizeof execution_status, &execution_status, NULL),
                     0);
    ck_assert_int_eq(execution_status, 0);
    dlclose(cl);
    return;
  }
  void *vk = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(vk != NULL, "%s", dlerror());
  vk_get_device_proc_addr_fn get_proc;
  void *symbol = runtime_symbol(vk, "vkGetDeviceProcAddr");
  memcpy(&get_proc, &symbol, sizeof symbol);
  void *device = (void *)(uintptr_t)native->device;
  ck_assert_ptr_nonnull(device);
  if (native->native_type == HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE) {
    vk_void_fn fn = get_proc(device, "vkGetSemaphoreCounterValue");
    if (fn == NULL) {
      fn = get_proc(device, "vkGetSemaphoreCounterValueKHR");
    }
    ck_assert(fn != NULL);
    vk_get_semaphore_counter_value_fn counter;
    memcpy(&counter, &fn, sizeof fn);
    uint64_t value = 0;
    ck_assert_int_eq(counter(device, native->handle, &value), 0);
    ck_assert_uint_ge(value, native->wait_value); /* waited for: reached */
    ck_assert_uint_gt(native->wait_value, 0u);
  } else {
    ck_assert_uint_eq(native->native_type, HURRAY_NATIVE_EVENT_VK_FENCE);
    vk_void_fn fn = get_proc(device, "vkGetFenceStatus");
    ck_assert(fn != NULL);
    vk_get_fence_status_fn fence_status;
    memcpy(&fence_status, &fn, sizeof fn);
    ck_assert_int_eq(fence_status(device, native->handle), 0); /* VK_SUCCESS: signalled */
  }
  dlclose(vk);
}

START_TEST(native_event_handle_is_live) {
  hurray_device_tag tag = hurray_plugin_device_tag(plugin);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_error err;
    hurray_plugin_event *event = NULL;
    ck_assert_int_eq(hurray_plugin_event_create(plugin, d, &event, &err), HURRAY_OK);
    hurray_plugin_native_event native;
    memset(&native, 0xEE, sizeof native);
    native.struct_size = sizeof native;
    if (tag != HURRAY_DEVICE_OPENCL && tag != HURRAY_DEVICE_VULKAN) {
      ck_assert_int_eq(hurray_plugin_event_native(event, &native, &err), HURRAY_ERR_UNSUPPORTED);
      ck_assert_uint_eq(err.expected, tag);
      ck_assert_uint_eq(native.native_type, 0xEEEEEEEEu);
      hurray_plugin_event_release(event);
      continue;
    }
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
    hurray_status s = hurray_plugin_event_native(event, &native, &err);
    ck_assert_msg(s == HURRAY_OK, "%s %s", hurray_status_name(s), err.detail);
    ck_assert_uint_ne(native.handle, 0u);
    ck_assert_uint_eq(native.device_index, d);
    check_native_is_live(&native);
    hurray_plugin_event_release(event);
  }
}
END_TEST

/* The handoff tie-in: producer allocates, writes, records an event and
 * offers; the consumer accepts, waits through the plugin, releases the event
 * and then the buffer, which frees the allocation. CPU buffers are
 * producer_synced (BP-SYNC-2): no event travels. */
START_TEST(handoff_offer_wait_release) {
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_error err;
    hurray_plugin_buffer *buffer = NULL;
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, d, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_OK);
    unsigned char data[4096];
    memset(data, 0x3C, sizeof data);
    ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, data, sizeof data, &err), HURRAY_OK);
    hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
    bool with_event = handle.device_tag != HURRAY_DEVICE_CPU;
    hurray_plugin_event *event = NULL;
    hurray_buffer_offer offer = hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none());
    offer.data = hurray_plugin_buffer_allocation(buffer)->address;
    offer.release = hurray_plugin_buffer_release_callback;
    offer.release_ctx = buffer;
    offer.sync = hurray_sync_payload_none();
    if (with_event) {
      ck_assert_int_eq(hurray_plugin_event_create(plugin, d, &event, &err), HURRAY_OK);
      ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
      handle.sync_mode = HURRAY_SYNC_EVENT;
      offer.sync = hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN, handle.device_tag,
                                             hurray_plugin_event_release_callback, NULL);
    }
    hurray_handoff handoff;
    hurray_handoff_init(&handoff);
    ck_assert_int_eq(hurray_handoff_offer(&handoff, &handle, &offer, &err), HURRAY_OK);
    hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
    hurray_status s =
        hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err);
    ck_assert_msg(s == HURRAY_OK, "accept: %s", hurray_status_name(s));
    ck_assert_ptr_eq(accepted.data, offer.data);
    if (with_event) {
      ck_assert_ptr_eq(accepted.event, event);
      /* The consumer's wait: a real wait through the plugin. */
      ck_assert_int_eq(hurray_plugin_event_wait(accepted.event, HURRAY_PLUGIN_WAIT_FOREVER, &err),
                       HURRAY_OK);
      ck_assert_int_eq(hurray_handoff_record_event_wait(&handoff, &err), HURRAY_OK);
      ck_assert_int_eq(hurray_handoff_release_event(&handoff, &err), HURRAY_OK);
    }
    unsigned char back[4096];
    ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, back, sizeof back, &err), HURRAY_OK);
    ck_assert_mem_eq(back, data, sizeof data);
    ck_assert_int_eq(hurray_handoff_release(&handoff, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_handoff_release(&handoff, &err), HURRAY_ERR_ALREADY_RELEASED);
    ck_assert_int_eq(hurray_handoff_destroy(&handoff, &err), HURRAY_OK);
  }
}
END_TEST

/* PL-CALL-2: allocate, write, read, events and free from several threads at
 * once; half the buffers are freed by a thread other than the one that
 * allocated them, as a handoff consumer would. */
enum { THREADS = 4, ROUNDS = 200 };
static hurray_plugin_buffer *handed_over[THREADS][ROUNDS];

static void *allocate_rounds(void *arg) {
  size_t t = (size_t)(uintptr_t)arg;
  hurray_error err;
  for (size_t r = 0; r < ROUNDS; r++) {
    hurray_plugin_buffer *buffer = NULL;
    if (hurray_plugin_allocate(plugin, 0, 4096 + r, 64, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
        HURRAY_OK) {
      return (void *)1;
    }
    unsigned char value = (unsigned char)(t * 31u + r);
    unsigned char back = 0;
    if (hurray_plugin_buffer_write(buffer, r, &value, 1, &err) != HURRAY_OK ||
        hurray_plugin_buffer_read(buffer, r, &back, 1, &err) != HURRAY_OK || back != value) {
      return (void *)2;
    }
    hurray_plugin_event *event = NULL;
    if (hurray_plugin_event_create(plugin, 0, &event, &err) != HURRAY_OK ||
        hurray_plugin_event_record(event, NULL, &err) != HURRAY_OK ||
        hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err) != HURRAY_OK) {
      return (void *)3;
    }
    hurray_plugin_event_release(event);
    if (r % 2u == 0u) {
      hurray_plugin_buffer_free(buffer);
      handed_over[t][r] = NULL;
    } else {
      handed_over[t][r] = buffer; /* freed later by the main thread */
    }
  }
  return NULL;
}

START_TEST(concurrent_calls) {
  pthread_t threads[THREADS];
  for (size_t t = 0; t < THREADS; t++) {
    ck_assert_int_eq(pthread_create(&threads[t], NULL, allocate_rounds, (void *)(uintptr_t)t), 0);
  }
  for (size_t t = 0; t < THREADS; t++) {
    void *result = NULL;
    ck_assert_int_eq(pthread_join(threads[t], &result), 0);
    ck_assert_ptr_null(result);
  }
  for (size_t t = 0; t < THREADS; t++) {
    for (size_t r = 0; r < ROUNDS; r++) {
      hurray_plugin_buffer_free(handed_over[(t + 1u) % THREADS][r]);
    }
  }
}
END_TEST


/* The sequence of issue 16: a producer hands a plugin buffer to a consumer,
 * unloads the plugin and destroys its registry; the consumer reads the
 * bytes and releases later. The plugin stays loaded until that release and
 * is closed by it (PL-LIFE-1, PL-LOAD-7); hurray_plugin_outstanding counts what
 * holds it (PL-LIFE-2). ASan and valgrind runs of this
 * test catch any use of freed code or memory. */
START_TEST(consumer_releases_after_producer_unloads) {
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 8192, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, "held", 5, &err), HURRAY_OK);
  hurray_plugin_event *event = NULL;
  bool events = hurray_plugin_supports_events(plugin);
  if (events) {
    ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  }
  size_t buffers = 0;
  size_t live_events = 0;
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, &buffers, &live_events), events ? 2u : 1u);
  ck_assert_uint_eq(buffers, 1);
  ck_assert_uint_eq(live_events, events ? 1u : 0u);

  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  hurray_buffer_offer offer = hurray_buffer_offer_make(hurray_plugin_buffer_allocation(buffer)->address,
                               hurray_plugin_buffer_release_callback, buffer,
                               hurray_sync_payload_none());
  ck_assert_int_eq(
      hurray_handoff_offer(&handoff, hurray_plugin_buffer_handle(buffer), &offer, &err),
      HURRAY_OK);
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err),
                   HURRAY_OK);

  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  hurray_plugin_unload(plugin); /* the producer is done with the plugin */
  plugin = NULL;
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  ck_assert_msg(file_is_mapped(path), "%s closed while a buffer is held", path);

  /* The consumer, later: the bytes are still there, the release works. */
  char bytes[5];
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  ck_assert_str_eq(bytes, "held");
  if (events) {
    hurray_plugin_event_release(event);
    ck_assert_msg(file_is_mapped(path), "%s closed while a buffer is held", path);
  }
  ck_assert_int_eq(hurray_handoff_release(&handoff, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_destroy(&handoff, &err), HURRAY_OK);
  ck_assert_msg(!file_is_mapped(path), "%s still mapped after the last release", path);
}
END_TEST

/* PL-LIFE-3: a second free is refused with USE_AFTER_DESTROY naming the
 * buffer, calls nothing and changes no count, even once the buffer's record
 * was given to a new buffer; copies and accessors on the freed buffer are
 * refused the same way. Before PL-LIFE-3 the second free ran the plugin's
 * free on freed memory (ASan: heap-use-after-free). */
START_TEST(double_free_is_reported) {
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 1);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);

  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_int_eq(err.status, HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(err.value, (uint64_t)(uintptr_t)buffer);
  ck_assert_uint_eq(err.index, 0);
  char named[32];
  snprintf(named, sizeof named, "%p", (void *)buffer);
  ck_assert_msg(strstr(err.detail, named) != NULL, "detail does not name %s: %s", named,
                err.detail);
  ck_assert_ptr_nonnull(strstr(err.detail, "already freed"));
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);
  hurray_plugin_buffer_free(buffer); /* the void form: refused, no effect */
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);

  /* The record is reused (this thread's cache gives it back first): the
   * stale pointer still names no live buffer, the new one is untouched. */
  hurray_plugin_buffer *next = NULL;
  ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &next, &err),
                   HURRAY_OK);
  ck_assert_ptr_ne(next, buffer);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 1);
  char bytes[4] = "abc";
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err),
                   HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(err.value, (uint64_t)(uintptr_t)buffer);
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err),
                   HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_ptr_null(hurray_plugin_buffer_handle(buffer));
  ck_assert_ptr_null(hurray_plugin_buffer_allocation(buffer));
  ck_assert_ptr_null(hurray_plugin_buffer_plugin(buffer));
  ck_assert_ptr_nonnull(hurray_plugin_buffer_handle(next));
  ck_assert_int_eq(hurray_plugin_buffer_write(next, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(next, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);

  /* Not a buffer at all: an index past the host's table. */
  hurray_plugin_buffer *foreign = (hurray_plugin_buffer *)(uintptr_t)0x7FFFFFF0u;
  ck_assert_int_eq(hurray_plugin_buffer_release(foreign, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0x7FFFFFF0u);
  ck_assert_int_eq(hurray_plugin_buffer_release(NULL, &err), HURRAY_OK);
}
END_TEST

/* PL-LIFE-3 after PL-LIFE-1: the legitimate release after the registry was
 * destroyed closes the plugin; a second release then, with the plugin's
 * code and state gone, is reported and touches neither. Likewise a buffer
 * freed before the unload and freed again after it. */
START_TEST(free_after_plugin_gone_is_reported) {
  hurray_error err;
  hurray_plugin_buffer *early = NULL;
  hurray_plugin_buffer *held = NULL;
  ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &early, &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &held, &err),
                   HURRAY_OK);
  hurray_plugin_buffer_free(early);
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  hurray_plugin_unload(plugin);
  plugin = NULL;
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  ck_assert_int_eq(hurray_plugin_buffer_release(early, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(err.value, (uint64_t)(uintptr_t)early);
  ck_assert_msg(file_is_mapped(path), "%s closed while a buffer is held", path);
  ck_assert_int_eq(hurray_plugin_buffer_release(held, &err), HURRAY_OK);
  ck_assert_msg(!file_is_mapped(path), "%s still mapped after the last release", path);
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_buffer_release(held, &err), HURRAY_ERR_USE_AFTER_DESTROY);
  ck_assert_uint_eq(err.value, (uint64_t)(uintptr_t)held);
  hurray_plugin_buffer_release_callback(NULL, held); /* the handoff's path: no effect */
}
END_TEST

typedef struct racing_free {
  hurray_plugin_buffer *buffer;
  pthread_barrier_t *start;
  hurray_status status;
} racing_free;

static void *free_racer(void *arg) {
  racing_free *r = arg;
  hurray_error err;
  pthread_barrier_wait(r->start);
  r->status = hurray_plugin_buffer_release(r->buffer, &err);
  return NULL;
}

/* PL-LIFE-3: two threads free the same buffer at once; exactly one frees
 * it, the other is told, the count ends at 0 (TSan runs this suite). */
START_TEST(racing_double_free_frees_once) {
  for (int round = 0; round < 200; round++) {
    hurray_error err;
    hurray_plugin_buffer *buffer = NULL;
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_OK);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    racing_free racers[2] = {{buffer, &start, HURRAY_OK}, {buffer, &start, HURRAY_OK}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
      ck_assert_int_eq(pthread_create(&threads[i], NULL, free_racer, &racers[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
      pthread_join(threads[i], NULL);
    }
    pthread_barrier_destroy(&start);
    int freed = (racers[0].status == HURRAY_OK) + (racers[1].status == HURRAY_OK);
    ck_assert_int_eq(freed, 1);
    ck_assert_int_eq(racers[0].status == HURRAY_OK ? racers[1].status : racers[0].status,
                     HURRAY_ERR_USE_AFTER_DESTROY);
    ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);
  }
}
END_TEST

/* PL-LIFE-1 under races: while two threads free a plugin's buffers, the
 * producer destroys the registry. Every free succeeds exactly once, the
 * plugin is closed exactly once, after the last free (it is mapped until
 * then and not after), whichever order the unload's scan and each free
 * take. ASan and TSan runs catch a close under a running free. */
enum { RACING_BUFFERS = 64, RACING_ROUNDS = 20 };
typedef struct unload_racer {
  hurray_plugin_buffer **buffers;
  size_t count;
  pthread_barrier_t *start;
  int failures;
} unload_racer;

static void *free_during_unload(void *arg) {
  unload_racer *racer = arg;
  pthread_barrier_wait(racer->start);
  for (size_t i = 0; i < racer->count; i++) {
    hurray_error err;
    if (hurray_plugin_buffer_release(racer->buffers[i], &err) != HURRAY_OK) {
      racer->failures++;
    }
  }
  return NULL;
}

START_TEST(frees_racing_the_unload_close_once) {
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  unload(); /* this test loads its own registry each round */
  for (int round = 0; round < RACING_ROUNDS; round++) {
    hurray_error err;
    hurray_plugin_registry *own = NULL;
    hurray_plugin *loaded = NULL;
    ck_assert_int_eq(hurray_plugin_registry_create(&own, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_load(own, plugin_file, 0, &loaded, &err), HURRAY_OK);
    hurray_plugin_buffer *buffers[RACING_BUFFERS];
    for (size_t i = 0; i < RACING_BUFFERS; i++) {
      ck_assert_int_eq(hurray_plugin_allocate(loaded, 0, 4096, 64, HURRAY_MEMORY_STANDARD,
                                              &buffers[i], &err),
                       HURRAY_OK);
    }
    ck_assert_uint_eq(hurray_plugin_outstanding(loaded, NULL, NULL), RACING_BUFFERS);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 3);
    unload_racer racers[2] = {{buffers, RACING_BUFFERS / 2, &start, 0},
                              {buffers + RACING_BUFFERS / 2, RACING_BUFFERS / 2, &start, 0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
      ck_assert_int_eq(pthread_create(&threads[i], NULL, free_during_unload, &racers[i]), 0);
    }
    pthread_barrier_wait(&start);
    hurray_plugin_registry_destroy(own); /* races the frees */
    for (int i = 0; i < 2; i++) {
      pthread_join(threads[i], NULL);
    }
    pthread_barrier_destroy(&start);
    ck_assert_int_eq(racers[0].failures + racers[1].failures, 0);
    ck_assert_msg(!file_is_mapped(path), "round %d: %s still mapped after the last free", round,
                  path);
    /* Every token is dead now: a late free is refused, nothing reopened. */
    ck_assert_int_eq(hurray_plugin_buffer_release(buffers[0], &err), HURRAY_ERR_USE_AFTER_DESTROY);
  }
}
END_TEST

/* Unload with nothing live closes the plugin at once (PL-LOAD-7). */
START_TEST(unload_with_nothing_live_closes_at_once) {
  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  ck_assert_uint_eq(hurray_plugin_outstanding(plugin, NULL, NULL), 0);
  hurray_plugin_unload(plugin);
  plugin = NULL;
  ck_assert_uint_eq(hurray_plugin_registry_count(registry), 0);
  ck_assert_msg(!file_is_mapped(path), "%s still mapped after unload", path);
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN_FILE [--require-devices]\n", argv[0]);
    return 2;
  }
  plugin_file = argv[1];
  bool require = argc > 2 && strcmp(argv[2], "--require-devices") == 0;
  /* Probe once outside Check: no devices means SKIP with the plugin's reason. */
  hurray_error err;
  hurray_plugin_registry *probe = NULL;
  hurray_plugin *p = NULL;
  if (hurray_plugin_registry_create(&probe, &err) != HURRAY_OK ||
      hurray_plugin_load(probe, plugin_file, 0, &p, &err) != HURRAY_OK) {
    fprintf(stderr, "FAIL: cannot load %s: %s\n", plugin_file, err.detail);
    hurray_plugin_registry_destroy(probe);
    return 1;
  }
  if (hurray_plugin_device_count(p) == 0u) {
    char reason[256];
    hurray_plugin_unavailable_reason(p, reason, sizeof reason);
    printf("%s: %s has no device here: %s\n", require ? "FAIL" : "SKIP", hurray_plugin_name(p),
           reason);
    hurray_plugin_registry_destroy(probe);
    return require ? 1 : 77;
  }
  printf("%s: %u device(s), first: ", hurray_plugin_name(p), hurray_plugin_device_count(p));
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  if (hurray_plugin_describe_device(p, 0, &info, &err) != HURRAY_OK) {
    printf("FAIL: describing device 0: %s\n", err.detail);
    hurray_plugin_registry_destroy(probe);
    return 1;
  }
  printf("%s\n", info.name);
  hurray_plugin_registry_destroy(probe);

  Suite *suite = suite_create("plugin_real");
  TCase *tc = tcase_create("device");
  tcase_add_checked_fixture(tc, load, unload);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, allocation_alignment_is_measured);
  tcase_add_test(tc, copy_round_trip);
  tcase_add_test(tc, event_record_and_wait);
  tcase_add_test(tc, native_event_handle_is_live);
  tcase_add_test(tc, handoff_offer_wait_release);
  tcase_add_test(tc, concurrent_calls);
  tcase_add_test(tc, consumer_releases_after_producer_unloads);
  tcase_add_test(tc, unload_with_nothing_live_closes_at_once);
  tcase_add_test(tc, double_free_is_reported);
  tcase_add_test(tc, free_after_plugin_gone_is_reported);
  tcase_add_test(tc, racing_double_free_frees_once);
  tcase_add_test(tc, frees_racing_the_unload_close_once);
  suite_add_tcase(suite, tc);
  SRunner *runner = srunner_create(suite);
  /* No fork: a vendor runtime's threads and global state do not survive one. */
  srunner_set_fork_status(runner, CK_NOFORK);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
