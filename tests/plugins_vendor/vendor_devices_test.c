/*
 * The vendor plugins' devices on their stand-in runtimes: the missing
 * runtime and the runtime without devices (PL-AVAIL-1), the memory classes
 * a device offers (facts §5, BP-PAIR-1), allocation, copies and measured
 * alignment (BP-ALIGN-5, PL-ALLOC-3), vendor errors, events and their
 * native handles, and IPC handles opened in the exporting process.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "vendor_test.h"

START_TEST(missing_runtime_reports_zero_devices_and_the_library) {
  /* PL-AVAIL-1: a runtime that cannot be loaded is "not supported". */
  const char *missing = "/nonexistent/hurray-test/libvendor-runtime.so.1";
  setenv(the_case->library_env, missing, 1);
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  hurray_status status = hurray_plugin_load(registry, plugin_path, 0, &plugin, &err);
  ck_assert_msg(status == HURRAY_OK, "load: %s", err.detail);
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), 0);
  /* Nothing can be allocated on a plugin without devices. */
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_ne(hurray_plugin_allocate(plugin, 0, 64, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
                   HURRAY_OK);
  ck_assert_ptr_null(buffer);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  ck_assert_msg(strstr(reason, missing) != NULL, "reason names the library: %s", reason);
  ck_assert_msg(strstr(reason, "dlopen") != NULL, "reason says what failed: %s", reason);
}
END_TEST

START_TEST(runtime_without_devices_reports_the_vendor_error) {
  setenv("HURRAY_FAKE_DEVICES", "0", 1);
  hurray_plugin *plugin = load_with_stand_in();
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), 0);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  ck_assert_msg(strstr(reason, the_case->no_device_words) != NULL, "reason: %s", reason);
}
END_TEST

START_TEST(one_device_offers_the_mapped_classes) {
  hurray_plugin *plugin = load_with_stand_in();
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), 1);
  ck_assert_int_eq(hurray_plugin_device_tag(plugin), the_case->tag);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  ck_assert_str_eq(reason, "");
  hurray_plugin_device_info info = describe(plugin, 0);
  ck_assert_uint_eq(info.memory_class_count, the_case->class_count);
  for (size_t i = 0; i < the_case->class_count; i++) {
    uint32_t flags = 0;
    ck_assert_msg(offers(&info, the_case->classes[i], &flags), "class %u offered",
                  (unsigned)the_case->classes[i]);
    ck_assert(hurray_pair_is_valid(the_case->tag, the_case->classes[i]));
  }
  uint32_t flags = 0;
  /* One device has no peer to share memory with. */
  ck_assert(!offers(&info, HURRAY_MEMORY_PEER, &flags));
  ck_assert_uint_eq(info.ipc_capabilities, the_case->ipc_capabilities);
  if (the_case->named_by_runtime) {
    ck_assert_ptr_nonnull(strstr(info.name, "Stand-in"));
  } else {
    ck_assert_uint_gt(strlen(info.name), 0);
  }
}
END_TEST

START_TEST(two_devices_add_peer_where_the_runtime_allows) {
  setenv("HURRAY_FAKE_DEVICES", "2", 1);
  hurray_plugin *plugin = load_with_stand_in();
  uint32_t expected = the_case->max_devices < 2 ? the_case->max_devices : 2;
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), expected);
  for (uint32_t d = 0; d < expected; d++) {
    hurray_plugin_device_info info = describe(plugin, d);
    uint32_t flags = 0;
    ck_assert_int_eq(offers(&info, HURRAY_MEMORY_PEER, &flags),
                     the_case->peer_with_two_devices && expected == 2);
  }
}
END_TEST

START_TEST(no_unified_memory_means_the_class_is_refused) {
  setenv("HURRAY_FAKE_NO_UNIFIED", "1", 1);
  hurray_plugin *plugin = load_with_stand_in();
  hurray_plugin_device_info info = describe(plugin, 0);
  uint32_t flags = 0;
  ck_assert(!offers(&info, HURRAY_MEMORY_UNIFIED, &flags));
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  /* PL-ALLOC-2: refused, never downgraded to another class. */
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 4096, 64, HURRAY_MEMORY_UNIFIED, &buffer, &err),
      HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.value, HURRAY_MEMORY_UNIFIED);
  /* What the device still offers works (Metal: managed storage on a
   * discrete GPU takes the unified class's place as host_pinned). */
  for (uint32_t c = 0; c < info.memory_class_count; c++) {
    unsigned char in[100];
    unsigned char out[100];
    memset(in, (int)(0x40u + c), sizeof in);
    ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, sizeof in, 64,
                                            info.memory_classes[c].memory_class, &buffer, &err),
                     HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, in, sizeof in, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, out, sizeof out, &err), HURRAY_OK);
    ck_assert_mem_eq(in, out, sizeof in);
    hurray_plugin_buffer_free(buffer);
  }
}
END_TEST

START_TEST(every_class_allocates_copies_and_reports_its_alignment) {
  hurray_plugin *plugin = load_with_stand_in();
  hurray_plugin_device_info info = describe(plugin, 0);
  unsigned char in[3000];
  unsigned char out[3000];
  for (size_t i = 0; i < sizeof in; i++) {
    in[i] = (unsigned char)(i * 7u + 1u);
  }
  for (uint32_t c = 0; c < info.memory_class_count; c++) {
    hurray_memory_class memory_class = info.memory_classes[c].memory_class;
    uint32_t wanted =
        info.memory_classes[c].max_alignment < 4096u ? info.memory_classes[c].max_alignment : 4096u;
    hurray_error err;
    hurray_plugin_buffer *buffer = NULL;
    hurray_status status =
        hurray_plugin_allocate(plugin, 0, sizeof in, wanted, memory_class, &buffer, &err);
    ck_assert_msg(status == HURRAY_OK, "class %u: %s", (unsigned)memory_class, err.detail);
    const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(buffer);
    const hurray_plugin_allocation *a = hurray_plugin_buffer_allocation(buffer);
    ck_assert_int_eq(handle->device_tag, the_case->tag);
    ck_assert_int_eq(handle->memory_class, memory_class);
    ck_assert_uint_eq(handle->byte_size, sizeof in);
    ck_assert_int_eq(hurray_buffer_handle_validate(handle, &err), HURRAY_OK);
    /* Declared alignment: at least the request, and really there. */
    ck_assert_uint_ge(handle->alignment, wanted);
    if (a->host_address != NULL) {
      ck_assert_uint_eq((uintptr_t)a->host_address % handle->alignment, 0);
    }
    if (a->device_address != 0) {
      ck_assert_uint_eq(a->device_address % handle->alignment, 0);
    }
    bool host_visible = (info.memory_classes[c].flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0;
    ck_assert_int_eq(host_visible, a->host_address != NULL);
    ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, in, sizeof in, &err), HURRAY_OK);
    memset(out, 0, sizeof out);
    ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, out, sizeof out, &err), HURRAY_OK);
    ck_assert_mem_eq(in, out, sizeof in);
    /* A partial copy at an offset lands where it should. */
    ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 1000, in, 10, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 995, out, 20, &err), HURRAY_OK);
    ck_assert_mem_eq(out, in + 995, 5);
    ck_assert_mem_eq(out + 5, in, 10);
    hurray_plugin_buffer_free(buffer);
  }
}
END_TEST

START_TEST(alignment_is_measured_not_the_request) {
  /* The stand-in returns addresses aligned to exactly 256 bytes. */
  setenv("HURRAY_FAKE_ALIGNMENT", "256", 1);
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 100, 64, HURRAY_MEMORY_STANDARD, &buffer, &err), HURRAY_OK);
  uint32_t expected = the_case->minimum_alignment > 256 ? the_case->minimum_alignment : 256;
  ck_assert_uint_eq(hurray_plugin_buffer_handle(buffer)->alignment, expected);
  hurray_plugin_buffer_free(buffer);
  hurray_plugin_device_info info = describe(plugin, 0);
  if (info.memory_classes[0].max_alignment < 8192u) {
    /* A device that cannot give more says so: refused, never downgraded. */
    buffer = NULL;
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, 0, 100, 8192, HURRAY_MEMORY_STANDARD, &buffer, &err),
        HURRAY_ERR_UNSUPPORTED);
    ck_assert_ptr_null(buffer);
    return;
  }
  /* More than the runtime gives by itself: obtained, and measured again. */
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 100, 8192, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK);
  const hurray_plugin_allocation *a = hurray_plugin_buffer_allocation(buffer);
  uintptr_t address = (uintptr_t)a->address;
  ck_assert_uint_ge(hurray_plugin_buffer_handle(buffer)->alignment, 8192);
  ck_assert_uint_eq(address % 8192u, 0);
  hurray_plugin_buffer_free(buffer);
}
END_TEST

/* PL-CALL-1: a vendor out-of-memory is OUT_OF_MEMORY with the bytes as value
 * and a detail naming the vendor call and error. */
START_TEST(vendor_out_of_memory_maps_to_out_of_memory) {
  hurray_plugin *plugin = load_with_stand_in();
  /* After initialisation, which may probe with an allocation of its own. */
  setenv("HURRAY_FAKE_OOM", "1", 1);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 123456, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_OUT_OF_MEMORY);
  ck_assert_ptr_null(buffer);
  ck_assert_uint_eq(err.value, 123456);
  ck_assert_msg(strstr(err.detail, the_case->out_of_memory_words) != NULL, "detail: %s",
                err.detail);
}
END_TEST

START_TEST(events_complete_and_time_out) {
  if (!the_case->has_events) {
    /* The runtime has no events: the plugin leaves the entries NULL. */
    hurray_plugin *plugin = load_with_stand_in();
    ck_assert(!hurray_plugin_supports_events(plugin));
    return;
  }
  hurray_plugin *plugin = load_with_stand_in();
  ck_assert(hurray_plugin_supports_events(plugin));
  hurray_error err;
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  /* A fresh event counts as complete. */
  ck_assert_int_eq(hurray_plugin_event_wait(event, 1000000u, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_stream_wait(event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_stream_wait(plugin, 0, NULL, 1000000000u, &err), HURRAY_OK);
  /* From now on the device never finishes: waits must end at the timeout. */
  setenv("HURRAY_FAKE_EVENT_HANG", "1", 1);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_event_wait(event, 20000000u, &err), HURRAY_ERR_TIMEOUT);
  ck_assert_uint_eq(err.value, 20000000u);
  ck_assert_msg(strstr(err.detail, "NOT_READY") != NULL || strstr(err.detail, "NotReady") != NULL ||
                    strstr(err.detail, "not complete") != NULL,
                "detail names the vendor answer: %s", err.detail);
  /* A device-side wait does not block the host; the stream then stalls. */
  ck_assert_int_eq(hurray_plugin_event_stream_wait(event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_stream_wait(plugin, 0, NULL, 20000000u, &err), HURRAY_ERR_TIMEOUT);
  hurray_plugin_event_release(event);
}
END_TEST

/* The stand-in's "is this event complete" call (cuEventQuery,
 * hipEventQuery: 0 when complete), NULL where the runtime's query is not a
 * plain exported function of the stand-in. */
static const char *native_query_symbol(hurray_device_tag tag) {
  return tag == HURRAY_DEVICE_CUDA   ? "cuEventQuery"
         : tag == HURRAY_DEVICE_ROCM ? "hipEventQuery"
                                     : NULL;
}

/* PL-EVENT-5: the native handle is the runtime's own object (queried
 * through the stand-in's own entry point where it has one), of the type
 * the device's runtime has; a runtime without event objects says
 * UNSUPPORTED; the caller's struct_size is honoured (the type:
 * expected_native_type, vendor_harness.c). */
START_TEST(native_event_is_the_runtimes) {
  if (!the_case->has_events) {
    return; /* no events at all: events_complete_and_time_out checks it */
  }
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_native_event native;
  memset(&native, 0xEE, sizeof native);
  native.struct_size = sizeof native;
  uint32_t expected = expected_native_type(the_case->tag);
  if (expected == HURRAY_NATIVE_EVENT_NONE) {
    ck_assert_int_eq(hurray_plugin_event_native(event, &native, &err), HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, the_case->tag);
    ck_assert_uint_eq(native.native_type, 0xEEEEEEEEu); /* nothing written */
    hurray_plugin_event_release(event);
    return;
  }
  if (the_case->tag == HURRAY_DEVICE_LEVEL_ZERO) {
    /* Never recorded, a ze event never signals: no handle to wait on yet. */
    ck_assert_int_eq(hurray_plugin_event_native(event, &native, &err), HURRAY_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.detail, "never recorded") != NULL, "detail: %s", err.detail);
    ck_assert_uint_eq(native.native_type, 0xEEEEEEEEu);
  }
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  hurray_status status = hurray_plugin_event_native(event, &native, &err);
  ck_assert_msg(status == HURRAY_OK, "%s: %s", hurray_status_name(status), err.detail);
  ck_assert_uint_eq(native.struct_size, sizeof native);
  ck_assert_uint_eq(native.native_type, expected);
  ck_assert_uint_ne(native.handle, 0u);
  ck_assert_uint_eq(native.device_index, 0u);
  ck_assert_uint_eq(native.reserved, 0u);
  if (the_case->tag == HURRAY_DEVICE_METAL) {
    ck_assert_uint_gt(native.wait_value, 0u); /* the value the record signals */
  }
  const char *query_name = native_query_symbol(the_case->tag);
  if (query_name != NULL) {
    void *stand_in = hold_stand_in();
    int (*query)(void *);
    void *symbol = dlsym(stand_in, query_name);
    ck_assert_msg(symbol != NULL, "%s: %s", query_name, dlerror());
    memcpy(&query, &symbol, sizeof symbol);
    ck_assert_int_eq(query((void *)(uintptr_t)native.handle), 0); /* complete, and a live event */
    dlclose(stand_in);
  }
  /* A caller built with only the 8-byte header gets nothing past it. */
  hurray_plugin_native_event small;
  memset(&small, 0xEE, sizeof small);
  small.struct_size = 8u;
  ck_assert_int_eq(hurray_plugin_event_native(event, &small, &err), HURRAY_OK);
  ck_assert_uint_eq(small.struct_size, 8u);
  ck_assert_uint_eq(small.handle, 0xEEEEEEEEEEEEEEEEu);
  small.struct_size = 16u;
  ck_assert_int_eq(hurray_plugin_event_native(event, &small, &err), HURRAY_OK);
  ck_assert_uint_eq(small.handle, native.handle);
  ck_assert_uint_eq(small.wait_value, 0xEEEEEEEEEEEEEEEEu);
  small.struct_size = 4u;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_event_native(event, &small, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 4u);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_int_eq(hurray_plugin_event_native(NULL, &native, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_int_eq(hurray_plugin_event_native(event, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1u);
  hurray_plugin_event_release(event);
}
END_TEST

/* PL-IPC-1..6 with the runtimes' IPC handles (cuIpcGetMemHandle,
 * hipIpcGetMemHandle, zeMemGetIpcHandle): an exportable device buffer exports a 64-byte handle
 * and no descriptor; the import opens it (here in the exporting process,
 * which the stand-ins allow; ipc_handle_opens_in_another_process covers
 * another) onto the same bytes; freeing the import closes it, once; the exporter's buffer is
 * untouched. A runtime without IPC handles here is never asked. */
START_TEST(ipc_handles_open_the_same_memory) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  bool handles = the_case->tag == HURRAY_DEVICE_CUDA || the_case->tag == HURRAY_DEVICE_ROCM ||
                 the_case->tag == HURRAY_DEVICE_LEVEL_ZERO;
  hurray_status s = hurray_plugin_allocate_flags(plugin, 0, 8192, 256, HURRAY_MEMORY_STANDARD,
                                                 HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err);
  if (!handles) {
    ck_assert_int_eq(s, HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, the_case->tag);
    dlclose(stand_in);
    return;
  }
  ck_assert_msg(s == HURRAY_OK, "%s", err.detail);
  long live_before = live_objects(stand_in);
  unsigned char bytes[8192];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = (unsigned char)(i * 13u + 1u);
  }
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &memory, &err), HURRAY_OK);
  ck_assert_uint_eq(memory.kind, HURRAY_PLUGIN_IPC_MEMORY_HANDLE);
  ck_assert_uint_eq(memory.handle_size, 64u);
  ck_assert_int_eq(memory.fd, -1);
  ck_assert_uint_eq(memory.byte_size, 8192u);
  ck_assert_uint_ge(memory.segment_size, memory.offset + 8192u);

  hurray_plugin_buffer *imported = NULL;
  hurray_plugin_ipc_memory bad = memory;
  bad.handle_size = 16;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  bad = memory;
  bad.handle[0] ^= 0xFFu; /* not a handle the runtime made */
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &bad, &imported, &err), HURRAY_ERR_DEVICE_ERROR);
  ck_assert_ptr_null(imported);
  ck_assert_int_eq(live_objects(stand_in), live_before);

  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &memory, &imported, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1); /* one open handle */
  const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(imported);
  ck_assert_uint_eq(handle->byte_size, 8192u);
  ck_assert_uint_eq(handle->alignment, memory.alignment);
  ck_assert_uint_eq(handle->device_tag, the_case->tag);
  unsigned char back[8192];
  ck_assert_int_eq(hurray_plugin_buffer_read(imported, 0, back, sizeof back, &err), HURRAY_OK);
  ck_assert_mem_eq(back, bytes, sizeof bytes);
  ck_assert_int_eq(hurray_plugin_buffer_write(imported, 0, "imported", 9, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, back, 9, &err), HURRAY_OK);
  ck_assert_str_eq((const char *)back, "imported"); /* one memory */
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before); /* closed, once */
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 9, back, 1, &err), HURRAY_OK);
  ck_assert_uint_eq(back[0], bytes[9]); /* the exporter's buffer is still there */

  /* Only device memory has IPC handles. */
  hurray_plugin_buffer *pinned = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 64, HURRAY_MEMORY_HOST_PINNED,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &pinned, &err),
                   HURRAY_ERR_UNSUPPORTED);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  dlclose(stand_in);
}
END_TEST

void vendor_add_device_tests(TCase *tc) {
  tcase_add_test(tc, missing_runtime_reports_zero_devices_and_the_library);
  tcase_add_test(tc, runtime_without_devices_reports_the_vendor_error);
  tcase_add_test(tc, one_device_offers_the_mapped_classes);
  tcase_add_test(tc, two_devices_add_peer_where_the_runtime_allows);
  if (the_case->unified_is_optional) {
    tcase_add_test(tc, no_unified_memory_means_the_class_is_refused);
  }
  tcase_add_test(tc, every_class_allocates_copies_and_reports_its_alignment);
  tcase_add_test(tc, alignment_is_measured_not_the_request);
  tcase_add_test(tc, vendor_out_of_memory_maps_to_out_of_memory);
  tcase_add_test(tc, events_complete_and_time_out);
  tcase_add_test(tc, native_event_is_the_runtimes);
  tcase_add_test(tc, ipc_handles_open_the_same_memory);
}
