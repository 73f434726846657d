/*
 * Tests of the vendor plugins (issue 7) against their stand-in runtimes in
 * tests/fakes/, through the path users take: the library's loader
 * (hurray_plugin_load) dlopens the plugin, and the plugin dlopens the
 * "vendor runtime" named by its HURRAY_<NAME>_LIBRARY variable (Level Zero:
 * the real Debian loader, which loads the stand-in driver named by
 * ZE_ENABLE_ALT_DRIVERS). One program, run once per plugin:
 *   vendor_plugin_test <plugin> <plugin.so> <stand-in.so>
 *
 * Covered per plugin: the missing-runtime path (PL-AVAIL-1), the no-device
 * path, memory-class mapping (facts §5, BP-PAIR-1), alignment measured from
 * the address (BP-ALIGN-5, PL-ALLOC-3), error mapping (vendor out-of-memory,
 * vendor error codes), event lifetimes and timeouts, and cleanup: after the
 * registry is destroyed the stand-in holds no object of the plugin's.
 *
 * Each Check test runs in its own process (fork mode), so a test sets the
 * stand-in's switches (fake_common.h) with setenv before loading.
 *
 * The cross-process IPC test starts this program again as the importer:
 *   vendor_plugin_test <plugin> <plugin.so> <stand-in.so> importer <socket fd>
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray/plugin.h"

/* What differs between plugins. */
typedef struct vendor_case {
  const char *name;
  hurray_device_tag tag;
  /* The plugin's override variable (HURRAY_<NAME>_LIBRARY). */
  const char *library_env;
  /* Where the stand-in goes: the override itself, or (Level Zero) the real
   * loader's driver variable, with the override left unset. */
  const char *stand_in_env;
  /* Words the no-device reason and the out-of-memory detail must contain. */
  const char *no_device_words;
  const char *out_of_memory_words;
  /* Classes one stand-in device offers, and whether a second device adds peer. */
  hurray_memory_class classes[4];
  size_t class_count;
  bool peer_with_two_devices;
  bool has_events;
  /* Whether unified memory depends on what the device reports. */
  bool unified_is_optional;
  uint32_t ipc_capabilities;
  /* Devices the plugin can see at most (the DSP is one), and whether their
   * names come from the runtime. */
  uint32_t max_devices;
  bool named_by_runtime;
  /* Alignment the plugin guarantees beyond what the runtime gives. */
  uint32_t minimum_alignment;
  /* With the runtime this machine has (no stand-in): the library the
   * no-device reason must name, and the call that must have failed; NULL
   * where no such runtime is installed here. */
  const char *system_library;
  const char *system_call;
} vendor_case;

static const vendor_case cases[] = {
    {"cuda",
     HURRAY_DEVICE_CUDA,
     "HURRAY_CUDA_LIBRARY",
     "HURRAY_CUDA_LIBRARY",
     "cuInit: CUDA_ERROR_NO_DEVICE",
     "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY",
     {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED, HURRAY_MEMORY_UNIFIED},
     3,
     true,
     true,
     true,
     HURRAY_IPC_EXPORTS_EVENTS,
     8,
     true,
     64,
     NULL,
     NULL},
    {"rocm",
     HURRAY_DEVICE_ROCM,
     "HURRAY_ROCM_LIBRARY",
     "HURRAY_ROCM_LIBRARY",
     "hipInit: hipErrorNoDevice",
     "hipMalloc: hipErrorOutOfMemory",
     {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED, HURRAY_MEMORY_UNIFIED},
     3,
     true,
     true,
     true,
     HURRAY_IPC_EXPORTS_EVENTS,
     8,
     true,
     64,
     "libamdhip64",
     "hipInit"},
    {"level_zero",
     HURRAY_DEVICE_LEVEL_ZERO,
     "HURRAY_LEVEL_ZERO_LIBRARY",
     "ZE_ENABLE_ALT_DRIVERS",
     "zeDeviceGet: 0 devices",
     "zeMemAllocDevice: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
     {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED, HURRAY_MEMORY_UNIFIED},
     3,
     true,
     true,
     true,
     0,
     8,
     true,
     64,
     "libze_loader",
     "zeInit"},
    {"hexagon",
     HURRAY_DEVICE_HEXAGON,
     "HURRAY_HEXAGON_LIBRARY",
     "HURRAY_HEXAGON_LIBRARY",
     "rpcmem_alloc probe",
     "rpcmem_alloc2",
     {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED, HURRAY_MEMORY_UNIFIED},
     3,
     false,
     false,
     false,
     0,
     1,
     false,
     128,
     NULL,
     NULL},
    {"webgpu",
     HURRAY_DEVICE_WEBGPU,
     "HURRAY_WEBGPU_LIBRARY",
     "HURRAY_WEBGPU_LIBRARY",
     "wgpuInstanceRequestAdapter: no adapter",
     "wgpuDeviceCreateBuffer(123456 bytes): OutOfMemory",
     {HURRAY_MEMORY_STANDARD},
     1,
     false,
     true,
     false,
     0,
     1,
     false,
     256,
     NULL,
     NULL},
    /* The logic of the metal plugin with the fake operations table. */
    {"metal",
     HURRAY_DEVICE_METAL,
     "HURRAY_METAL_LIBRARY",
     "HURRAY_METAL_LIBRARY",
     "MTLCreateSystemDefaultDevice returned nil",
     "newBufferWithLength:123456",
     {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_UNIFIED},
     2,
     false,
     true,
     true,
     0,
     1,
     true,
     64,
     NULL,
     NULL},
    /* The real metal plugin on this Linux machine: only the system test. */
    {"metal-system",
     HURRAY_DEVICE_METAL,
     "HURRAY_METAL_LIBRARY",
     "HURRAY_METAL_LIBRARY",
     "",
     "",
     {HURRAY_MEMORY_STANDARD},
     1,
     false,
     true,
     true,
     0,
     1,
     true,
     64,
     "libobjc.A.dylib",
     "dlopen"},
};

static const vendor_case *the_case;
static const char *plugin_path;
static const char *stand_in_path;
static hurray_plugin_registry *registry;

/* Loads the plugin with the stand-in in place; the test's switches were set
 * with setenv before. */
static hurray_plugin *load_with_stand_in(void) {
  setenv(the_case->stand_in_env, stand_in_path, 1);
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  hurray_status status = hurray_plugin_load(registry, plugin_path, 0, &plugin, &err);
  ck_assert_msg(status == HURRAY_OK, "load %s: %s", plugin_path, err.detail);
  ck_assert_ptr_nonnull(plugin);
  return plugin;
}

static void reason_of(const hurray_plugin *plugin, char *buf, size_t cap) {
  size_t n = hurray_plugin_unavailable_reason(plugin, buf, cap);
  ck_assert_uint_lt(n, cap);
}

/* The stand-in's count of objects still held (fake_common.h). The stand-in
 * stays loaded while this process holds its own reference. */
static void *hold_stand_in(void) {
  void *handle = dlopen(stand_in_path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(handle != NULL, "%s", dlerror());
  return handle;
}

static long live_objects(void *stand_in) {
  long (*count)(void);
  void *symbol = dlsym(stand_in, "hurray_fake_live_objects");
  ck_assert_ptr_nonnull(symbol);
  memcpy(&count, &symbol, sizeof symbol);
  return count();
}

static bool offers(const hurray_plugin_device_info *info, hurray_memory_class memory_class,
                   uint32_t *flags) {
  for (uint32_t i = 0; i < info->memory_class_count; i++) {
    if (info->memory_classes[i].memory_class == memory_class) {
      *flags = info->memory_classes[i].flags;
      return true;
    }
  }
  return false;
}

static hurray_plugin_device_info describe(const hurray_plugin *plugin, uint32_t index) {
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  hurray_error err;
  hurray_status status = hurray_plugin_describe_device(plugin, index, &info, &err);
  ck_assert_msg(status == HURRAY_OK, "describe: %s", err.detail);
  return info;
}

/* ---------------------------------------------------------------------- */

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
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  ck_assert_msg(strstr(reason, missing) != NULL, "reason names the library: %s", reason);
  ck_assert_msg(strstr(reason, "dlopen") != NULL, "reason says what failed: %s", reason);
  /* Nothing can be allocated on a plugin without devices. */
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_ne(hurray_plugin_allocate(plugin, 0, 64, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
                   HURRAY_OK);
  ck_assert_ptr_null(buffer);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

START_TEST(runtime_without_devices_reports_the_vendor_error) {
  setenv("HURRAY_FAKE_DEVICES", "0", 1);
  hurray_plugin *plugin = load_with_stand_in();
  ck_assert_uint_eq(hurray_plugin_device_count(plugin), 0);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  ck_assert_msg(strstr(reason, the_case->no_device_words) != NULL, "reason: %s", reason);
  hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
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
    hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
}
END_TEST

START_TEST(events_complete_and_time_out) {
  if (!the_case->has_events) {
    /* The runtime has no events: the plugin leaves the entries NULL. */
    hurray_plugin *plugin = load_with_stand_in();
    ck_assert(!hurray_plugin_supports_events(plugin));
    hurray_plugin_registry_destroy(registry);
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
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* PL-EVENT-5: the native handle is the runtime's own object (queried
 * through the stand-in's own entry point where it has one), of the type
 * the device's runtime has; a runtime without event objects says
 * UNSUPPORTED; the caller's struct_size is honoured. */
static uint32_t expected_native_type(hurray_device_tag tag) {
  switch (tag) {
    case HURRAY_DEVICE_CUDA:
      return HURRAY_NATIVE_EVENT_CU_EVENT;
    case HURRAY_DEVICE_ROCM:
      return HURRAY_NATIVE_EVENT_HIP_EVENT;
    case HURRAY_DEVICE_LEVEL_ZERO:
      return HURRAY_NATIVE_EVENT_ZE_EVENT;
    case HURRAY_DEVICE_METAL:
      return HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
    default:
      return HURRAY_NATIVE_EVENT_NONE;
  }
}

/* The stand-in's "is this event complete" call (cuEventQuery,
 * hipEventQuery: 0 when complete), NULL where the runtime's query is not a
 * plain exported function of the stand-in. */
static const char *native_query_symbol(hurray_device_tag tag) {
  return tag == HURRAY_DEVICE_CUDA ? "cuEventQuery"
         : tag == HURRAY_DEVICE_ROCM ? "hipEventQuery"
                                     : NULL;
}

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
    hurray_plugin_registry_destroy(registry);
    return;
  }
  if (the_case->tag == HURRAY_DEVICE_LEVEL_ZERO) {
    /* Never recorded, a ze event never signals: no handle to wait on yet. */
    ck_assert_int_eq(hurray_plugin_event_native(event, &native, &err),
                     HURRAY_ERR_INVALID_ARGUMENT);
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
  hurray_plugin_registry_destroy(registry);
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
    hurray_plugin_registry_destroy(registry);
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
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_DEVICE_ERROR);
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
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* The runtimes' IPC handles across two processes                         */
/* ---------------------------------------------------------------------- */

extern char **environ;

/* Not a multiple of the page: the import's last bytes are the buffer's. */
enum { CROSS_BYTES = (1 << 16) + 123 };

static unsigned char cross_pattern(size_t i, unsigned seed) {
  return (unsigned char)(i * 11u + seed);
}

/* What the importer failed at (its exit status and the byte it sends). */
static const char *const importer_steps[] = {"nothing",
                                             "receive the memory record",
                                             "inherit a memfd of the stand-in",
                                             "load the plugin with the stand-in",
                                             "import",
                                             "read the import",
                                             "find the exporter's bytes",
                                             "declare what the exporter declared",
                                             "write the import",
                                             "release the import",
                                             "leave the stand-in holding nothing of the import"};

enum { IMPORTER_STEPS = sizeof importer_steps / sizeof importer_steps[0] };

/* True when this process holds a descriptor of one of the stand-ins' memfds
 * (fake_common.h names them hurray-fake-...): the exporter's are
 * close-on-exec, so the importer reaches the memory through the handle
 * alone, as with a real runtime. */
static bool holds_a_stand_in_memfd(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) {
    return true; /* cannot tell: count it as the failure */
  }
  bool found = false;
  for (struct dirent *e = readdir(dir); e != NULL && !found; e = readdir(dir)) {
    char path[300];
    char target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1u);
    if (n > 0) {
      target[n] = '\0';
      found = strncmp(target, "/memfd:hurray-fake-", 19) == 0;
    }
  }
  closedir(dir);
  return found;
}

/* The importer (a second process, no Check): receives the exporter's
 * hurray_plugin_ipc_memory, loads the same plugin with the same stand-in,
 * imports (PL-IPC-3), checks the exporter's bytes and what the import
 * declares (PL-IPC-4), writes its own bytes and releases the import, which
 * closes the handle. Returns 0, or the index of the step that failed in
 * importer_steps. */
static unsigned char import_in_this_process(int socket_fd) {
  hurray_plugin_ipc_memory memory;
  if (read(socket_fd, &memory, sizeof memory) != (ssize_t)sizeof memory) {
    return 1;
  }
  if (holds_a_stand_in_memfd()) {
    return 2;
  }
  setenv(the_case->stand_in_env, stand_in_path, 1);
  hurray_error err;
  hurray_plugin_registry *own = NULL;
  hurray_plugin *plugin = NULL;
  void *stand_in = NULL;
  long (*live)(void) = NULL;
  if (hurray_plugin_registry_create(&own, &err) != HURRAY_OK ||
      hurray_plugin_load(own, plugin_path, 0, &plugin, &err) != HURRAY_OK ||
      hurray_plugin_device_count(plugin) == 0 ||
      (stand_in = dlopen(stand_in_path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    hurray_plugin_registry_destroy(own);
    return 3;
  }
  void *symbol = dlsym(stand_in, "hurray_fake_live_objects");
  if (symbol != NULL) {
    memcpy(&live, &symbol, sizeof symbol);
  }
  long live_before = live != NULL ? live() : -1;
  static unsigned char bytes[CROSS_BYTES];
  unsigned char step = 0;
  hurray_plugin_buffer *imported = NULL;
  if (hurray_plugin_import(plugin, 0, &memory, &imported, &err) != HURRAY_OK) {
    fprintf(stderr, "importer: %s\n", err.detail);
    step = 4;
  } else if (hurray_plugin_buffer_read(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
    step = 5;
  } else {
    for (size_t i = 0; i < sizeof bytes && step == 0; i++) {
      step = bytes[i] == cross_pattern(i, 1u) ? 0 : 6;
    }
    const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(imported);
    if (step == 0 && (handle->byte_size != CROSS_BYTES || handle->alignment != memory.alignment ||
                      handle->device_tag != the_case->tag ||
                      handle->memory_class != HURRAY_MEMORY_STANDARD)) {
      step = 7;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
      bytes[i] = cross_pattern(i, 2u);
    }
    if (step == 0 &&
        hurray_plugin_buffer_write(imported, 0, bytes, sizeof bytes, &err) != HURRAY_OK) {
      step = 8;
    }
  }
  if (imported != NULL && hurray_plugin_buffer_release(imported, &err) != HURRAY_OK &&
      step == 0) {
    step = 9;
  }
  if (step == 0 && (live == NULL || live() != live_before)) {
    step = 10;
  }
  hurray_plugin_registry_destroy(own);
  dlclose(stand_in);
  return step;
}

static int run_importer(int socket_fd) {
  unsigned char step = import_in_this_process(socket_fd);
  (void)!write(socket_fd, &step, 1);
  close(socket_fd);
  return step;
}

/* PL-IPC-2..4 across two processes with the runtimes' IPC handles: an
 * exportable device buffer with the exporter's pattern is exported
 * (PL-IPC-2: kind HANDLE, 64 bytes, no descriptor), the record alone goes
 * over a socket to a second process started from this program, which loads
 * the same plugin with the same stand-in and imports it (PL-IPC-3), finds
 * the exporter's bytes, declares what the exporter declared, writes its own
 * bytes and frees its import, which closes the handle only (PL-IPC-4); the
 * exporter then reads the importer's bytes from its own buffer: one
 * memory, no copy. Nothing of the importer's is counted in the exporter's
 * stand-in. */
START_TEST(ipc_handle_opens_in_another_process) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  hurray_status s = hurray_plugin_allocate_flags(plugin, 0, CROSS_BYTES, 256, HURRAY_MEMORY_STANDARD,
                                                 HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err);
  ck_assert_msg(s == HURRAY_OK, "%s", err.detail);
  static unsigned char bytes[CROSS_BYTES];
  for (size_t i = 0; i < sizeof bytes; i++) {
    bytes[i] = cross_pattern(i, 1u);
  }
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &memory, &err), HURRAY_OK);
  ck_assert_uint_eq(memory.kind, HURRAY_PLUGIN_IPC_MEMORY_HANDLE);
  ck_assert_uint_eq(memory.handle_size, 64u);
  ck_assert_int_eq(memory.fd, -1);
  ck_assert_uint_eq(memory.byte_size, CROSS_BYTES);
  ck_assert_uint_eq(memory.alignment, hurray_plugin_buffer_handle(buffer)->alignment);
  ck_assert_uint_eq(memory.device_tag, the_case->tag);
  ck_assert_uint_eq(memory.memory_class, HURRAY_MEMORY_STANDARD);
  long live_before = live_objects(stand_in);

  int pair[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  posix_spawn_file_actions_t actions;
  ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
  /* The importer's end survives exec as descriptor 100 (dup2 clears
   * close-on-exec; 100 is never pair[1] here, where dup2 would do nothing). */
  ck_assert_int_ne(pair[1], 100);
  ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, pair[1], 100), 0);
  char program[] = "/proc/self/exe";
  char importer[] = "importer";
  char descriptor[] = "100";
  char *name = strdup(the_case->name);
  char *plugin_file = strdup(plugin_path);
  char *stand_in_file = strdup(stand_in_path);
  ck_assert(name != NULL && plugin_file != NULL && stand_in_file != NULL);
  char *argv[] = {program, name, plugin_file, stand_in_file, importer, descriptor, NULL};
  pid_t child;
  ck_assert_int_eq(posix_spawn(&child, program, &actions, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  free(name);
  free(plugin_file);
  free(stand_in_file);
  close(pair[1]);
  ck_assert_int_eq(write(pair[0], &memory, sizeof memory), (ssize_t)sizeof memory);
  unsigned char step = 0xFF;
  ck_assert_int_eq(read(pair[0], &step, 1), 1);
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  close(pair[0]);
  ck_assert_msg(step == 0, "the importer failed to %s",
                step < IMPORTER_STEPS ? importer_steps[step] : "answer");
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_int_eq(live_objects(stand_in), live_before);

  /* The importer's bytes, read through the exporter's own buffer. */
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err), HURRAY_OK);
  for (size_t i = 0; i < sizeof bytes; i++) {
    ck_assert_uint_eq(bytes[i], cross_pattern(i, 2u));
  }
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before - 1);
  dlclose(stand_in);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* PL-IPC-3: the handle of memory that has been freed opens nothing, even
 * when a later allocation takes the place the handle named (the stand-ins
 * reuse descriptor numbers, as the kernel does); the refusal is the
 * runtime's error and leaves nothing open, and the later buffer's own
 * handle still opens. */
START_TEST(ipc_handle_of_freed_memory_does_not_open) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 256, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  hurray_plugin_ipc_memory stale;
  memset(&stale, 0, sizeof stale);
  stale.struct_size = sizeof stale;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &stale, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_allocate_flags(plugin, 0, 4096, 256, HURRAY_MEMORY_STANDARD,
                                                HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &buffer, &err),
                   HURRAY_OK);
  long live = live_objects(stand_in);
  hurray_plugin_buffer *imported = NULL;
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &stale, &imported, &err),
                   HURRAY_ERR_DEVICE_ERROR);
  ck_assert_ptr_null(imported);
  ck_assert_int_eq(live_objects(stand_in), live);
  hurray_plugin_ipc_memory current;
  memset(&current, 0, sizeof current);
  current.struct_size = sizeof current;
  ck_assert_int_eq(hurray_plugin_buffer_export(buffer, &current, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_import(plugin, 0, &current, &imported, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(imported, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_buffer_release(buffer, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live - 1);
  dlclose(stand_in);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

START_TEST(registry_destroy_leaves_live_objects_to_their_holders) {
  setenv("HURRAY_FAKE_DEVICES", "2", 1);
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffers[4] = {NULL, NULL, NULL, NULL};
  for (size_t i = 0; i < the_case->class_count; i++) {
    uint32_t device = (uint32_t)i % hurray_plugin_device_count(plugin);
    ck_assert_int_eq(
        hurray_plugin_allocate(plugin, device, 512, 64, the_case->classes[i], &buffers[i], &err),
        HURRAY_OK);
  }
  hurray_plugin_event *event = NULL;
  if (the_case->has_events) {
    uint32_t last_device = hurray_plugin_device_count(plugin) - 1u;
    ck_assert_int_eq(hurray_plugin_event_create(plugin, last_device, &event, &err), HURRAY_OK);
    (void)event; /* left for the registry to release */
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  }
  long live = live_objects(stand_in);
  ck_assert_int_gt(live, 0);
  /* PL-LIFE-1: destroying the registry leaves live buffers and events to
   * their holders; the plugin stays loaded until the last is released. */
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  ck_assert_int_eq(live_objects(stand_in), live);
  for (size_t i = 0; i < the_case->class_count; i++) {
    hurray_plugin_buffer_free(buffers[i]);
  }
  if (event != NULL) {
    hurray_plugin_event_release(event);
  }
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

START_TEST(free_and_release_return_every_object) {
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  long baseline = live_objects(stand_in);
  hurray_error err;
  for (int round = 0; round < 3; round++) {
    hurray_plugin_buffer *buffer = NULL;
    hurray_memory_class last = the_case->classes[the_case->class_count - 1];
    ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, last, &buffer, &err), HURRAY_OK);
    hurray_plugin_buffer_free(buffer);
    if (the_case->has_events) {
      hurray_plugin_event *event = NULL;
      ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
      hurray_plugin_event_release(event);
    }
    ck_assert_int_eq(live_objects(stand_in), baseline);
  }
  hurray_plugin_registry_destroy(registry);
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

START_TEST(event_handoff_from_producer_to_consumer) {
  /* The handoff of specs/handoff.md with a plugin event (facts §7): the
   * producer writes, records an event and offers; the consumer accepts,
   * waits on its stream through the plugin, releases the event, reads and
   * releases the buffer. Both release callbacks are the library's. */
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_buffer *buffer = NULL;
  ck_assert_int_eq(
      hurray_plugin_allocate(plugin, 0, 256, 256, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK);
  unsigned char payload[256];
  for (size_t i = 0; i < sizeof payload; i++) {
    payload[i] = (unsigned char)(255u - i);
  }
  ck_assert_int_eq(hurray_plugin_buffer_write(buffer, 0, payload, sizeof payload, &err), HURRAY_OK);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);

  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  handle.sync_mode = HURRAY_SYNC_EVENT;
  hurray_buffer_offer offer = hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none());
  offer.data = hurray_plugin_buffer_allocation(buffer)->address;
  offer.release = hurray_plugin_buffer_release_callback;
  offer.release_ctx = buffer; /* the record the callback frees */
  offer.sync =
      hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN, the_case->tag, hurray_plugin_event_release_callback, NULL);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  ck_assert_int_eq(hurray_handoff_offer(&handoff, &handle, &offer, &err), HURRAY_OK);

  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  ck_assert_int_eq(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err),
                   HURRAY_OK);
  ck_assert_ptr_eq(accepted.event, event);
  ck_assert_int_eq(accepted.handle.device_tag, the_case->tag);
  /* Not readable before the wait (BP-SYNC-3). */
  ck_assert_int_ne(hurray_handoff_access(&handoff, NULL, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_stream_wait(accepted.event, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&handoff, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_release_event(&handoff, &err), HURRAY_OK);
  void *data = NULL;
  ck_assert_int_eq(hurray_handoff_access(&handoff, NULL, &data, &err), HURRAY_OK);
  ck_assert_ptr_eq(data, offer.data);
  ck_assert_int_eq(hurray_plugin_stream_wait(plugin, 0, NULL, 1000000000u, &err), HURRAY_OK);
  unsigned char seen[256];
  ck_assert_int_eq(hurray_plugin_buffer_read(buffer, 0, seen, sizeof seen, &err), HURRAY_OK);
  ck_assert_mem_eq(seen, payload, sizeof seen);
  long before_release = live_objects(stand_in);
  ck_assert_int_eq(hurray_handoff_release(&handoff, &err), HURRAY_OK);
  /* The buffer went back to the runtime through the release callback. */
  ck_assert_int_lt(live_objects(stand_in), before_release);
  ck_assert_int_eq(hurray_handoff_destroy(&handoff, &err), HURRAY_OK);
  hurray_plugin_registry_destroy(registry);
  ck_assert_int_eq(live_objects(stand_in), 0);
  dlclose(stand_in);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Events shared with another process (PL-IPC-7..11)                       */
/* ---------------------------------------------------------------------- */

static bool exports_events(hurray_device_tag tag) {
  return tag == HURRAY_DEVICE_CUDA || tag == HURRAY_DEVICE_ROCM; /* PL-IPC-11 */
}

/* PL-IPC-7..9, PL-IPC-11 in one process (the stand-ins open a handle in
 * the exporting process; ipc_event_opens_in_another_process covers
 * another): only an event created exportable is exported, as the
 * runtime's 64-byte handle with the plugin's tag, up to the caller's
 * struct_size; bad records are refused by the host or the runtime with
 * nothing opened; the import reports the exporter's state (a pending
 * record times out, a new one completes), is not exported again, and its
 * release closes the import only. A plugin without event export says
 * UNSUPPORTED and its devices do not declare HURRAY_IPC_EXPORTS_EVENTS. */
START_TEST(ipc_events_open_the_same_event) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_device_info info = describe(plugin, 0);
  hurray_plugin_event *event = NULL;
  if (!exports_events(the_case->tag)) {
    ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, 0u);
    ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE,
                                                      &event, &err),
                     HURRAY_ERR_UNSUPPORTED);
    ck_assert_uint_eq(err.expected, the_case->tag);
    ck_assert_ptr_null(event);
    dlclose(stand_in);
    hurray_plugin_registry_destroy(registry);
    return;
  }
  ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, HURRAY_IPC_EXPORTS_EVENTS);
  long live_before = live_objects(stand_in);

  /* An ordinary event is not exported, whatever the runtime would do. */
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_ipc_event record;
  memset(&record, 0xEE, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(event, &record, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.expected, the_case->tag);
  ck_assert_msg(strstr(err.detail, "HURRAY_PLUGIN_EVENT_EXPORTABLE") != NULL, "detail: %s",
                err.detail);
  ck_assert_uint_eq(record.kind, 0xEEEEEEEEu); /* nothing written */
  hurray_plugin_event_release(event);

  hurray_plugin_event *exported = NULL;
  ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE,
                                                    &exported, &err),
                   HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1);
  /* PL-VER-5: a caller that knows only the first 16 bytes gets 16. */
  memset(&record, 0xEE, sizeof record);
  record.struct_size = 16;
  ck_assert_int_eq(hurray_plugin_event_export(exported, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.struct_size, 16u);
  ck_assert_uint_eq(record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  ck_assert_uint_eq(record.handle_size, 64u);
  ck_assert_uint_eq(record.device_tag, the_case->tag);
  ck_assert_uint_eq(record.handle[0], 0xEEu);
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(exported, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.reserved[0] | record.reserved[1] | record.reserved[2], 0u);

  /* Refused records: the host's checks, then the plugin's and the
   * runtime's; nothing is opened. */
  hurray_plugin_event *imported = NULL;
  hurray_plugin_ipc_event bad = record;
  bad.struct_size = 8;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  bad = record;
  bad.device_tag = HURRAY_DEVICE_CPU;
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_DEVICE_TAG_MISMATCH);
  bad = record;
  bad.handle_size = 16; /* within 1..64, not the runtime's size */
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 16u);
  bad = record;
  bad.handle[0] ^= 0xFFu; /* not a handle the runtime made */
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &bad, &imported, &err),
                   HURRAY_ERR_DEVICE_ERROR);
  ck_assert_int_eq(hurray_plugin_event_import(plugin, 1, &record, &imported, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_ptr_null(imported);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1);

  ck_assert_int_eq(hurray_plugin_event_import(plugin, 0, &record, &imported, &err), HURRAY_OK);
  ck_assert_int_eq(live_objects(stand_in), live_before + 2); /* one opened event */
  ck_assert_ptr_eq(hurray_plugin_event_plugin(imported), plugin);
  /* The import's state is the exporter's. */
  setenv("HURRAY_FAKE_EVENT_HANG", "1", 1);
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(imported, 1000000u, &err), HURRAY_ERR_TIMEOUT);
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(imported, HURRAY_PLUGIN_WAIT_FOREVER, &err),
                   HURRAY_OK);
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  ck_assert_int_eq(hurray_plugin_event_native(imported, &native, &err), HURRAY_OK);
  ck_assert_uint_eq(native.native_type, expected_native_type(the_case->tag));
  /* An import is the exporter's event: not exported again (PL-IPC-8). */
  memset(&bad, 0xEE, sizeof bad);
  bad.struct_size = sizeof bad;
  ck_assert_int_eq(hurray_plugin_event_export(imported, &bad, &err), HURRAY_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(err.detail, "imported") != NULL, "detail: %s", err.detail);
  ck_assert_uint_eq(bad.kind, 0xEEEEEEEEu);
  hurray_plugin_event_release(imported);
  ck_assert_int_eq(live_objects(stand_in), live_before + 1); /* closed, once */
  /* The exporter's event is still there. */
  ck_assert_int_eq(hurray_plugin_event_record(exported, NULL, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_plugin_event_wait(exported, HURRAY_PLUGIN_WAIT_FOREVER, &err),
                   HURRAY_OK);
  hurray_plugin_event_release(exported);
  ck_assert_int_eq(live_objects(stand_in), live_before);
  dlclose(stand_in);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* PL-IPC-11, PL-DEV-3, PL-IPC-7: a device whose runtime cannot share events
 * (CUDA without CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, HIP 5 refusing
 * hipEventInterprocess) does not declare HURRAY_IPC_EXPORTS_EVENTS, and the
 * host refuses an exportable event on it (UNSUPPORTED, index 1) before the
 * plugin is asked; ordinary events are unaffected. */
START_TEST(device_without_ipc_events_refuses_exportable_events) {
  setenv("HURRAY_FAKE_NO_IPC_EVENTS", "1", 1);
  hurray_plugin *plugin = load_with_stand_in();
  hurray_error err;
  hurray_plugin_device_info info = describe(plugin, 0);
  ck_assert_uint_eq(info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS, 0u);
  hurray_plugin_event *event = NULL;
  ck_assert_int_eq(hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE,
                                                    &event, &err),
                   HURRAY_ERR_UNSUPPORTED);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_uint_eq(err.expected, the_case->tag);
  ck_assert_msg(strstr(err.detail, "HURRAY_IPC_EXPORTS_EVENTS") != NULL, "detail: %s",
                err.detail);
  ck_assert_ptr_null(event);
  ck_assert_int_eq(hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK);
  hurray_plugin_event_release(event);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* What the event importer failed at (its exit status and the byte it sends). */
static const char *const event_importer_steps[] = {
    "nothing",
    "receive the event record",
    "load the plugin with the stand-in",
    "import the event",
    "see the exporter's pending record (a wait that times out)",
    "receive the exporter's go",
    "see the exporter's completed record",
    "leave the stand-in holding nothing of the import"};

enum {
  EVENT_IMPORTER_STEPS = sizeof event_importer_steps / sizeof event_importer_steps[0],
  EVENT_PENDING_SEEN = 0xA5 /* the importer saw the pending record; its go, please */
};

/* The event importer (a second process, no Check): receives the exporter's
 * hurray_plugin_ipc_event, loads the same plugin with the same stand-in,
 * imports it (PL-IPC-9), finds the exporter's pending record (a short wait
 * times out), says so and waits for the exporter's go, then waits until the
 * exporter's new record completes, and releases the import (PL-IPC-9: the
 * import is closed, the stand-in holds nothing of it). Returns 0 or the
 * failed step's index in event_importer_steps. */
static unsigned char import_event_in_this_process(int socket_fd) {
  hurray_plugin_ipc_event record;
  if (read(socket_fd, &record, sizeof record) != (ssize_t)sizeof record) {
    return 1;
  }
  setenv(the_case->stand_in_env, stand_in_path, 1);
  hurray_error err;
  hurray_plugin_registry *own = NULL;
  hurray_plugin *plugin = NULL;
  void *stand_in = NULL;
  long (*live)(void) = NULL;
  if (hurray_plugin_registry_create(&own, &err) != HURRAY_OK ||
      hurray_plugin_load(own, plugin_path, 0, &plugin, &err) != HURRAY_OK ||
      hurray_plugin_device_count(plugin) == 0 ||
      (stand_in = dlopen(stand_in_path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    hurray_plugin_registry_destroy(own);
    return 2;
  }
  void *symbol = dlsym(stand_in, "hurray_fake_live_objects");
  if (symbol != NULL) {
    memcpy(&live, &symbol, sizeof symbol);
  }
  long live_before = live != NULL ? live() : -1;
  unsigned char step = 0;
  unsigned char go = 0;
  hurray_plugin_event *event = NULL;
  if (hurray_plugin_event_import(plugin, 0, &record, &event, &err) != HURRAY_OK) {
    fprintf(stderr, "event importer: %s\n", err.detail);
    step = 3;
  } else if (hurray_plugin_event_wait(event, 1000000u, &err) != HURRAY_ERR_TIMEOUT) {
    step = 4;
  } else {
    unsigned char seen = EVENT_PENDING_SEEN;
    if (write(socket_fd, &seen, 1) != 1 || read(socket_fd, &go, 1) != 1) {
      step = 5;
    } else if (hurray_plugin_event_wait(event, 10000000000u, &err) != HURRAY_OK) {
      fprintf(stderr, "event importer: %s\n", err.detail);
      step = 6;
    }
  }
  hurray_plugin_event_release(event);
  if (step == 0 && (live == NULL || live() != live_before)) {
    step = 7;
  }
  hurray_plugin_registry_destroy(own);
  dlclose(stand_in);
  return step;
}

static int run_event_importer(int socket_fd) {
  unsigned char step = import_event_in_this_process(socket_fd);
  (void)!write(socket_fd, &step, 1);
  close(socket_fd);
  return step;
}

/* PL-IPC-7..9 across two processes with the runtimes' IPC event handles:
 * an exportable event is recorded while the device does not finish, and
 * its record alone goes over a socket to a second process started from
 * this program, which imports it with the same plugin and stand-in and
 * finds it pending; the exporter then records it again on a device that
 * finishes, and the importer's hurray_plugin_event_wait completes; the
 * importer releases its import and exits 0, and the exporter's event is
 * untouched (it waits and releases as before). */
START_TEST(ipc_event_opens_in_another_process) {
  hurray_plugin *plugin = load_with_stand_in();
  void *stand_in = hold_stand_in();
  hurray_error err;
  hurray_plugin_event *event = NULL;
  hurray_status s = hurray_plugin_event_create_flags(plugin, 0, HURRAY_PLUGIN_EVENT_EXPORTABLE,
                                                     &event, &err);
  ck_assert_msg(s == HURRAY_OK, "%s", err.detail);
  setenv("HURRAY_FAKE_EVENT_HANG", "1", 1);
  ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  ck_assert_int_eq(hurray_plugin_event_export(event, &record, &err), HURRAY_OK);
  ck_assert_uint_eq(record.kind, HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  ck_assert_uint_eq(record.handle_size, 64u);
  ck_assert_uint_eq(record.device_tag, the_case->tag);
  long live_before = live_objects(stand_in);

  int pair[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  posix_spawn_file_actions_t actions;
  ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
  ck_assert_int_ne(pair[1], 100); /* dup2 onto itself would keep close-on-exec */
  ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, pair[1], 100), 0);
  char program[] = "/proc/self/exe";
  char importer[] = "event-importer";
  char descriptor[] = "100";
  char *name = strdup(the_case->name);
  char *plugin_file = strdup(plugin_path);
  char *stand_in_file = strdup(stand_in_path);
  ck_assert(name != NULL && plugin_file != NULL && stand_in_file != NULL);
  char *argv[] = {program, name, plugin_file, stand_in_file, importer, descriptor, NULL};
  pid_t child;
  ck_assert_int_eq(posix_spawn(&child, program, &actions, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  free(name);
  free(plugin_file);
  free(stand_in_file);
  close(pair[1]);
  ck_assert_int_eq(write(pair[0], &record, sizeof record), (ssize_t)sizeof record);
  unsigned char step = 0xFF;
  ck_assert_int_eq(read(pair[0], &step, 1), 1);
  if (step == EVENT_PENDING_SEEN) {
    /* The importer saw the pending record: now a record that completes. */
    ck_assert_int_eq(hurray_plugin_event_record(event, NULL, &err), HURRAY_OK);
    unsigned char go = 1;
    ck_assert_int_eq(write(pair[0], &go, 1), 1);
    step = 0xFF;
    ck_assert_int_eq(read(pair[0], &step, 1), 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  close(pair[0]);
  ck_assert_msg(step == 0, "the event importer failed to %s",
                step < EVENT_IMPORTER_STEPS ? event_importer_steps[step] : "answer");
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_int_eq(live_objects(stand_in), live_before);
  /* The exporter's event is untouched by the importer's release. */
  ck_assert_int_eq(hurray_plugin_event_wait(event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK);
  hurray_plugin_event_release(event);
  ck_assert_int_eq(live_objects(stand_in), live_before - 1);
  dlclose(stand_in);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* What a worker of the concurrency test failed at (0: nothing). */
static const char *const worker_failures[] = {"nothing", "allocate", "copy or bytes read back",
                                              "event"};

/* One worker of the concurrency test: allocate, copy, record and wait,
 * free, on its own buffers and events (PL-CALL-2: any entry from any
 * thread). Returns the index of its first failure in worker_failures. */
static void *concurrent_worker(void *opaque) {
  hurray_plugin *plugin = opaque;
  hurray_memory_class memory_class = the_case->classes[0];
  for (int round = 0; round < 50; round++) {
    hurray_error err;
    hurray_plugin_buffer *buffer = NULL;
    if (hurray_plugin_allocate(plugin, 0, 512, 64, memory_class, &buffer, &err) != HURRAY_OK) {
      return (void *)(uintptr_t)1;
    }
    unsigned char in[512];
    unsigned char out[512];
    memset(in, round, sizeof in);
    if (hurray_plugin_buffer_write(buffer, 0, in, sizeof in, &err) != HURRAY_OK ||
        hurray_plugin_buffer_read(buffer, 0, out, sizeof out, &err) != HURRAY_OK ||
        memcmp(in, out, sizeof in) != 0) {
      hurray_plugin_buffer_free(buffer);
      return (void *)(uintptr_t)2;
    }
    if (the_case->has_events) {
      hurray_plugin_event *event = NULL;
      if (hurray_plugin_event_create(plugin, 0, &event, &err) != HURRAY_OK ||
          hurray_plugin_event_record(event, NULL, &err) != HURRAY_OK ||
          hurray_plugin_event_wait(event, 5000000000u, &err) != HURRAY_OK) {
        hurray_plugin_event_release(event);
        hurray_plugin_buffer_free(buffer);
        return (void *)(uintptr_t)3;
      }
      hurray_plugin_event_release(event);
    }
    hurray_plugin_buffer_free(buffer);
  }
  return NULL;
}

START_TEST(concurrent_use_from_four_threads) {
  void *stand_in = hold_stand_in();
  hurray_plugin *plugin = load_with_stand_in();
  long baseline = live_objects(stand_in);
  pthread_t threads[4];
  for (size_t i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_create(&threads[i], NULL, concurrent_worker, plugin), 0);
  }
  for (size_t i = 0; i < 4; i++) {
    void *failure = NULL;
    ck_assert_int_eq(pthread_join(threads[i], &failure), 0);
    ck_assert_msg(failure == NULL, "thread %zu failed at: %s", i,
                  worker_failures[(uintptr_t)failure & 3u]);
  }
  ck_assert_int_eq(live_objects(stand_in), baseline);
  hurray_plugin_registry_destroy(registry);
  dlclose(stand_in);
}
END_TEST

START_TEST(system_runtime_without_device_reports_why) {
  /* The runtime Debian installs here, with no device behind it: Debian's
   * libamdhip64 without an AMD GPU (hipInit fails at once, no /dev/kfd), or
   * the Level Zero loader without a driver (zeInit finds none). The plugin
   * must say so, not hang or crash. Without the package, the reason names
   * the library it tried instead. */
  unsetenv(the_case->stand_in_env);
  hurray_error err;
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  ck_assert_int_eq(hurray_plugin_load(registry, plugin_path, 0, &plugin, &err), HURRAY_OK);
  char reason[256];
  reason_of(plugin, reason, sizeof reason);
  if (hurray_plugin_device_count(plugin) == 0) {
    ck_assert_msg(strstr(reason, the_case->system_library) != NULL, "reason: %s", reason);
    ck_assert_msg(strstr(reason, the_case->system_call) != NULL || strstr(reason, "dlopen") != NULL,
                  "reason: %s", reason);
  } else {
    ck_assert_str_eq(reason, "");
  }
  printf("%s with the system runtime: %u devices; %s\n", the_case->name,
         (unsigned)hurray_plugin_device_count(plugin), reason);
  hurray_plugin_registry_destroy(registry);
}
END_TEST

/* Before every test: no switch set, no override, whether Check forks or
 * not (CK_FORK=no runs every test in this one process). */
static void clear_switches(void) {
  unsetenv("HURRAY_FAKE_DEVICES");
  unsetenv("HURRAY_FAKE_OOM");
  unsetenv("HURRAY_FAKE_EVENT_HANG");
  unsetenv("HURRAY_FAKE_ALIGNMENT");
  unsetenv("HURRAY_FAKE_NO_UNIFIED");
  unsetenv("HURRAY_FAKE_NO_PEER");
  unsetenv("HURRAY_FAKE_NO_IPC_EVENTS");
  unsetenv(the_case->library_env);
  unsetenv(the_case->stand_in_env);
}

int main(int argc, char **argv) {
  bool importer = argc == 6 && strcmp(argv[4], "importer") == 0;
  bool event_importer = argc == 6 && strcmp(argv[4], "event-importer") == 0;
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "concurrency") == 0) && !importer &&
      !event_importer) {
    fprintf(stderr, "usage: %s <plugin> <plugin.so> <stand-in.so> [concurrency]\n", argv[0]);
    return 2;
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(cases[i].name, argv[1]) == 0) {
      the_case = &cases[i];
    }
  }
  if (the_case == NULL) {
    fprintf(stderr, "unknown plugin %s\n", argv[1]);
    return 2;
  }
  plugin_path = argv[2];
  stand_in_path = argv[3];
  if (importer) {
    return run_importer(atoi(argv[5]));
  }
  if (event_importer) {
    return run_event_importer(atoi(argv[5]));
  }

  Suite *suite = suite_create(the_case->name);
  TCase *tc = tcase_create("stand-in");
  tcase_set_timeout(tc, 20);
  tcase_add_checked_fixture(tc, clear_switches, NULL);
  if (argc == 5) {
    /* The concurrency test alone (meson suite plugins-concurrency, which
     * tools/test runs under ThreadSanitizer). */
    tcase_add_test(tc, concurrent_use_from_four_threads);
    goto run;
  }
  if (strstr(the_case->name, "-system") != NULL) {
    /* A plugin whose runtime this machine cannot have: only its no-runtime path. */
    tcase_add_test(tc, system_runtime_without_device_reports_why);
    goto run;
  }
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
  if (the_case->tag == HURRAY_DEVICE_CUDA || the_case->tag == HURRAY_DEVICE_ROCM ||
      the_case->tag == HURRAY_DEVICE_LEVEL_ZERO) {
    /* The plugins that export with the runtime's IPC handles (PL-IPC-6). */
    tcase_add_test(tc, ipc_handle_opens_in_another_process);
    tcase_add_test(tc, ipc_handle_of_freed_memory_does_not_open);
  }
  tcase_add_test(tc, ipc_events_open_the_same_event);
  if (exports_events(the_case->tag)) {
    /* The plugins that export events (PL-IPC-11). */
    tcase_add_test(tc, ipc_event_opens_in_another_process);
    tcase_add_test(tc, device_without_ipc_events_refuses_exportable_events);
  }
  tcase_add_test(tc, registry_destroy_leaves_live_objects_to_their_holders);
  tcase_add_test(tc, free_and_release_return_every_object);
  if (the_case->has_events) {
    tcase_add_test(tc, event_handoff_from_producer_to_consumer);
  }
  tcase_add_test(tc, concurrent_use_from_four_threads);
  if (the_case->system_library != NULL) {
    tcase_add_test(tc, system_runtime_without_device_reports_why);
  }
run:
  suite_add_tcase(suite, tc);
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
