/*
 * The CUDA plugin on a real NVIDIA GPU (run by tests/gpu/cuda-check.sh).
 * Prints each thing it verified, one line each, and exits non-zero at the
 * first failure:
 *   1. the plugin loads with the system's libcuda.so.1 and finds devices
 *      (HURRAY_CUDA_LIBRARY names another driver library, for both);
 *   2. on device 0, every memory class the device offers allocates, the
 *      declared alignment divides the address, and 1 MiB round-trips;
 *   3. an event handoff between two streams: the producer copies on stream A
 *      and records an event there; the consumer accepts the offer, makes
 *      stream B wait on the event, releases the event, then reads;
 *   4. the IPC capability the plugin reports matches the device attribute
 *      CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED read directly from the driver.
 * Usage: cuda_gpu_check <hurray-plugin-cuda.so>
 *
 * The two streams are created here with the driver API, in the device's
 * primary context (the one the plugin uses), as an application would.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "hurray/plugin.h"

#define CHECK(cond, ...)            \
  do {                              \
    if (!(cond)) {                  \
      printf("FAIL: " __VA_ARGS__); \
      printf("\n");                 \
      exit(1);                      \
    }                               \
  } while (0)

typedef struct driver {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice);
  CUresult (*cuCtxPushCurrent_v2)(CUcontext);
  CUresult (*cuCtxPopCurrent_v2)(CUcontext *);
  CUresult (*cuStreamCreate)(CUstream *, unsigned int);
  CUresult (*cuStreamDestroy_v2)(CUstream);
} driver;

static void resolve(void *library, const char *name, void *slot) {
  void *symbol = dlsym(library, name);
  CHECK(symbol != NULL, "dlsym %s: %s", name, dlerror());
  memcpy(slot, &symbol, sizeof symbol);
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: %s <hurray-plugin-cuda.so>", argv[0]);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_registry *registry = NULL;
  CHECK(hurray_plugin_registry_create(&registry, &err) == HURRAY_OK, "registry: %s", err.detail);
  hurray_plugin *plugin = NULL;
  CHECK(hurray_plugin_load(registry, argv[1], 0, &plugin, &err) == HURRAY_OK, "load: %s",
        err.detail);
  char reason[256];
  hurray_plugin_unavailable_reason(plugin, reason, sizeof reason);
  uint32_t count = hurray_plugin_device_count(plugin);
  CHECK(count > 0, "the plugin found no device: %s", reason);
  printf("ok: plugin %s %s loaded the driver, %u device(s)\n", hurray_plugin_name(plugin),
         hurray_plugin_version(plugin), (unsigned)count);

  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK(hurray_plugin_describe_device(plugin, 0, &info, &err) == HURRAY_OK, "describe: %s",
        err.detail);
  printf("ok: device 0 \"%s\", %llu bytes, %u memory classes\n", info.name,
         (unsigned long long)info.memory_bytes, (unsigned)info.memory_class_count);

  /* 2. Every class: allocate, check the alignment, round-trip 1 MiB. */
  size_t size = (size_t)1 << 20;
  unsigned char *in = malloc(size);
  unsigned char *out = malloc(size);
  CHECK(in != NULL && out != NULL, "host memory");
  for (size_t i = 0; i < size; i++) {
    in[i] = (unsigned char)(i * 31u + 7u);
  }
  for (uint32_t c = 0; c < info.memory_class_count; c++) {
    hurray_memory_class memory_class = info.memory_classes[c].memory_class;
    char class_name[32];
    hurray_memory_class_display(memory_class, class_name, sizeof class_name);
    hurray_plugin_buffer *buffer = NULL;
    CHECK(hurray_plugin_allocate(plugin, 0, size, HURRAY_PAGE_ALIGNMENT, memory_class, &buffer,
                                 &err) == HURRAY_OK,
          "allocate %s: %s", class_name, err.detail);
    const hurray_plugin_allocation *a = hurray_plugin_buffer_allocation(buffer);
    uint32_t alignment = hurray_plugin_buffer_handle(buffer)->alignment;
    CHECK(alignment >= HURRAY_PAGE_ALIGNMENT && (uintptr_t)a->address % alignment == 0,
          "%s: declared alignment %u does not hold for %p", class_name, (unsigned)alignment,
          a->address);
    CHECK(hurray_plugin_buffer_write(buffer, 0, in, size, &err) == HURRAY_OK, "write %s: %s",
          class_name, err.detail);
    memset(out, 0, size);
    CHECK(hurray_plugin_buffer_read(buffer, 0, out, size, &err) == HURRAY_OK, "read %s: %s",
          class_name, err.detail);
    CHECK(memcmp(in, out, size) == 0, "%s: bytes read back differ", class_name);
    printf("ok: %s: 1 MiB allocated at %p, alignment %u (measured), round trip equal\n", class_name,
           a->address, (unsigned)alignment);
    hurray_plugin_buffer_free(buffer);
  }

  /* 3. Event handoff between two streams of the primary context. */
  /* The library the plugin used (HURRAY_CUDA_LIBRARY, as for the plugin). */
  const char *library_name = getenv("HURRAY_CUDA_LIBRARY");
  if (library_name == NULL || *library_name == '\0') {
    library_name = "libcuda.so.1";
  }
  void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
  CHECK(library != NULL, "dlopen %s: %s", library_name, dlerror());
  driver cu;
  resolve(library, "cuInit", &cu.cuInit);
  resolve(library, "cuDeviceGet", &cu.cuDeviceGet);
  resolve(library, "cuDeviceGetAttribute", &cu.cuDeviceGetAttribute);
  resolve(library, "cuDevicePrimaryCtxRetain", &cu.cuDevicePrimaryCtxRetain);
  resolve(library, "cuDevicePrimaryCtxRelease_v2", &cu.cuDevicePrimaryCtxRelease_v2);
  resolve(library, "cuCtxPushCurrent_v2", &cu.cuCtxPushCurrent_v2);
  resolve(library, "cuCtxPopCurrent_v2", &cu.cuCtxPopCurrent_v2);
  resolve(library, "cuStreamCreate", &cu.cuStreamCreate);
  resolve(library, "cuStreamDestroy_v2", &cu.cuStreamDestroy_v2);
  CUdevice device = 0;
  CUcontext context = NULL;
  CUstream producer_stream = NULL;
  CUstream consumer_stream = NULL;
  CHECK(cu.cuInit(0) == CUDA_SUCCESS && cu.cuDeviceGet(&device, 0) == CUDA_SUCCESS &&
            cu.cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS &&
            cu.cuCtxPushCurrent_v2(context) == CUDA_SUCCESS,
        "driver set-up for the streams");
  CHECK(cu.cuStreamCreate(&producer_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
            cu.cuStreamCreate(&consumer_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS,
        "cuStreamCreate");

  hurray_plugin_buffer *buffer = NULL;
  CHECK(hurray_plugin_allocate(plugin, 0, size, HURRAY_PAGE_ALIGNMENT, HURRAY_MEMORY_STANDARD,
                               &buffer, &err) == HURRAY_OK,
        "allocate: %s", err.detail);
  CHECK(hurray_plugin_buffer_write(buffer, 0, in, size, &err) == HURRAY_OK, "write: %s",
        err.detail);
  hurray_plugin_event *event = NULL;
  CHECK(hurray_plugin_event_create(plugin, 0, &event, &err) == HURRAY_OK, "event: %s", err.detail);
  CHECK(hurray_plugin_event_record(event, producer_stream, &err) == HURRAY_OK, "record: %s",
        err.detail);
  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  handle.sync_mode = HURRAY_SYNC_EVENT;
  const hurray_buffer_offer offer = hurray_buffer_offer_make(
      hurray_plugin_buffer_allocation(buffer)->address, hurray_plugin_buffer_release_callback,
      buffer,
      hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN, HURRAY_DEVICE_CUDA,
                                        hurray_plugin_event_release_callback, NULL));
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  CHECK(hurray_handoff_offer(&handoff, &handle, &offer, &err) == HURRAY_OK, "offer: %s",
        err.detail);
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  CHECK(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err) ==
            HURRAY_OK,
        "accept: %s", err.detail);
  CHECK(hurray_plugin_event_stream_wait(accepted.event, consumer_stream, &err) == HURRAY_OK,
        "stream wait: %s", err.detail);
  CHECK(hurray_handoff_record_event_wait(&handoff, &err) == HURRAY_OK, "record wait: %s",
        err.detail);
  CHECK(hurray_handoff_release_event(&handoff, &err) == HURRAY_OK, "release event: %s", err.detail);
  CHECK(hurray_plugin_stream_wait(plugin, 0, consumer_stream, 10000000000u, &err) == HURRAY_OK,
        "consumer stream: %s", err.detail);
  memset(out, 0, size);
  CHECK(hurray_plugin_buffer_read(buffer, 0, out, size, &err) == HURRAY_OK, "read: %s", err.detail);
  CHECK(memcmp(in, out, size) == 0, "handoff: bytes differ");
  CHECK(hurray_handoff_release(&handoff, &err) == HURRAY_OK, "release: %s", err.detail);
  CHECK(hurray_handoff_destroy(&handoff, &err) == HURRAY_OK, "destroy: %s", err.detail);
  printf(
      "ok: event handoff: recorded on stream A, waited on stream B, event released once, "
      "1 MiB read back equal, buffer released through the handoff\n");

  /* 4. IPC capability. */
  int ipc_events = 0;
  if (cu.cuDeviceGetAttribute(&ipc_events, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, device) !=
      CUDA_SUCCESS) {
    ipc_events = 0;
  }
  bool reported = (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0;
  CHECK(reported == (ipc_events != 0), "IPC events: plugin says %d, driver says %d", (int)reported,
        ipc_events);
  CHECK((info.ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS) == 0, "streams never cross processes");
  printf("ok: IPC capability: events %s (driver attribute %d), streams no\n",
         reported ? "yes" : "no", ipc_events);

  (void)cu.cuStreamDestroy_v2(producer_stream);
  (void)cu.cuStreamDestroy_v2(consumer_stream);
  (void)cu.cuCtxPopCurrent_v2(NULL);
  (void)cu.cuDevicePrimaryCtxRelease_v2(device);
  hurray_plugin_registry_destroy(registry);
  dlclose(library);
  free(in);
  free(out);
  printf("ok: all CUDA checks passed with %s%s\n", library_name,
         strcmp(library_name, "libcuda.so.1") == 0 ? " (the system driver)"
                                                   : " (not the system driver)");
  return 0;
}
