/*
 * libhurray device plugin: WebGPU (device tag 0x05 webgpu).
 *
 * Runtime: the webgpu.h C API, loaded at run time from "libwgpu_native.so"
 * (wgpu-native) or else "libwebgpu_dawn.so" (Dawn), or only from the file
 * named by HURRAY_WEBGPU_LIBRARY. The API generation used is the one with
 * WGPUStringView, WGPUFuture and callback-info structs (wgpu-native v24+,
 * Dawn since late 2024); its declarations are in webgpu_declarations.h,
 * written from the webgpu-headers documentation (Debian ships no webgpu.h).
 *
 * One device: the default adapter's device. Asynchronous calls use
 * WGPUCallbackMode_AllowProcessEvents and are driven by polling
 * wgpuInstanceProcessEvents against a deadline, so nothing waits forever
 * (adapter and device requests give up after 5 s, copies after 10 s).
 *
 * Memory classes (facts §5, specs BP-PAIR-1): standard only — a GPUBuffer
 * with STORAGE | COPY_SRC | COPY_DST usage. WebGPU has no pinned, unified
 * or peer memory. The buffer is an opaque object (its address is the
 * WGPUBuffer): the alignment reported is 256 bytes, the guarantee the WebGPU
 * specification gives buffer bindings (minStorageBufferOffsetAlignment),
 * with alignment_basis DEVICE_GUARANTEE; more cannot be asked for.
 * Host copies are map-based: a MAP_WRITE staging buffer mapped at creation
 * and copied on the queue, or a copy into a MAP_READ staging buffer that is
 * then mapped with wgpuBufferMapAsync. Sizes and offsets are widened to
 * WebGPU's 4-byte copy granularity (bytes around an unaligned write are read
 * first and written back unchanged).
 * Out of memory is caught with an OutOfMemory error scope around
 * wgpuDeviceCreateBuffer (WebGPU reports it there, not with NULL).
 *
 * Events: a WebGPU queue runs in order, so an event is a point in the
 * device's one queue: recording submits a 4-byte copy into the event's
 * MAP_READ buffer and maps it; the map completes when the queue reaches that
 * point. Streams: the queue is the only one, so `stream` must be NULL; a
 * stream wait is then already implied by queue order. No IPC (BP-XPORT-3).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */
#include "runtime_loader.h"
#include "plugin_allocation.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: webgpu_declarations.h (from the documentation)   */
/* ------------------------------------------------------------------------ */

#include "webgpu_declarations.h"

#define WEBGPU_LIBRARY_ENV "HURRAY_WEBGPU_LIBRARY"
/* The base-address guarantee reported for every buffer (see above). */
#define WEBGPU_ALIGNMENT 256u
#define WEBGPU_REQUEST_TIMEOUT_NS 5000000000u
#define WEBGPU_COPY_TIMEOUT_NS 10000000000u
#define WEBGPU_STANDARD_USAGE \
  (WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst)

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */

#define WEBGPU_SYMBOLS(X)                                                              \
  X(WGPUInstance, wgpuCreateInstance, (const WGPUInstanceDescriptor *))                \
  X(WGPUFuture, wgpuInstanceRequestAdapter,                                            \
    (WGPUInstance, const WGPURequestAdapterOptions *, WGPURequestAdapterCallbackInfo)) \
  X(void, wgpuInstanceProcessEvents, (WGPUInstance))                                   \
  X(void, wgpuInstanceRelease, (WGPUInstance))                                         \
  X(WGPUFuture, wgpuAdapterRequestDevice,                                              \
    (WGPUAdapter, const WGPUDeviceDescriptor *, WGPURequestDeviceCallbackInfo))        \
  X(void, wgpuAdapterRelease, (WGPUAdapter))                                           \
  X(WGPUQueue, wgpuDeviceGetQueue, (WGPUDevice))                                       \
  X(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice, const WGPUBufferDescriptor *))    \
  X(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder,                                \
    (WGPUDevice, const WGPUCommandEncoderDescriptor *))                                \
  X(void, wgpuDevicePushErrorScope, (WGPUDevice, WGPUErrorFilter))                     \
  X(WGPUFuture, wgpuDevicePopErrorScope, (WGPUDevice, WGPUPopErrorScopeCallbackInfo))  \
  X(void, wgpuDeviceRelease, (WGPUDevice))                                             \
  X(void, wgpuQueueSubmit, (WGPUQueue, size_t, const WGPUCommandBuffer *))             \
  X(void, wgpuQueueRelease, (WGPUQueue))                                               \
  X(void, wgpuCommandEncoderCopyBufferToBuffer,                                        \
    (WGPUCommandEncoder, WGPUBuffer, uint64_t, WGPUBuffer, uint64_t, uint64_t))        \
  X(WGPUCommandBuffer, wgpuCommandEncoderFinish,                                       \
    (WGPUCommandEncoder, const WGPUCommandBufferDescriptor *))                         \
  X(void, wgpuCommandEncoderRelease, (WGPUCommandEncoder))                             \
  X(void, wgpuCommandBufferRelease, (WGPUCommandBuffer))                               \
  X(WGPUFuture, wgpuBufferMapAsync,                                                    \
    (WGPUBuffer, WGPUMapMode, size_t, size_t, WGPUBufferMapCallbackInfo))              \
  X(void *, wgpuBufferGetMappedRange, (WGPUBuffer, size_t, size_t))                    \
  X(const void *, wgpuBufferGetConstMappedRange, (WGPUBuffer, size_t, size_t))         \
  X(void, wgpuBufferUnmap, (WGPUBuffer))                                               \
  X(void, wgpuBufferDestroy, (WGPUBuffer))                                             \
  X(void, wgpuBufferRelease, (WGPUBuffer))

typedef struct webgpu_symbols {
#define WEBGPU_SYMBOL_FIELD(ret, name, args) ret(*name) args;
  WEBGPU_SYMBOLS(WEBGPU_SYMBOL_FIELD)
#undef WEBGPU_SYMBOL_FIELD
} webgpu_symbols;

typedef struct webgpu_state {
  void *library;
  webgpu_symbols gpu;
  WGPUInstance instance;
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  /* webgpu.h objects may be shared between threads, but polling one
   * instance from several threads at once is not something every
   * implementation promises: one lock around every device operation. */
  pthread_mutex_t lock;
  uint32_t device_count; /* 0 or 1 */
  char library_name[64];
  char reason[HURRAY_SUPPORT_REASON_SIZE];
} webgpu_state;

/* The answer an asynchronous call delivers to its callback. */
typedef struct webgpu_answer {
  bool done;
  uint32_t status;
  uint32_t error_type;
  void *object;
  char message[96];
} webgpu_answer;

/* A point in the queue (see the header comment). `pending` while the map
 * that marks it has not completed. */
typedef struct webgpu_event {
  WGPUBuffer source;
  WGPUBuffer marker;
  webgpu_answer answer;
  bool pending;
  bool mapped;
} webgpu_event;

static void webgpu_keep_message(webgpu_answer *answer, WGPUStringView message) {
  size_t n = message.data == NULL            ? 0u
             : message.length == WGPU_STRLEN ? strlen(message.data)
                                             : message.length;
  n = n < sizeof answer->message - 1u ? n : sizeof answer->message - 1u;
  if (n > 0) {
    memcpy(answer->message, message.data, n);
  }
  answer->message[n] = '\0';
}

static void webgpu_adapter_answer(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                  WGPUStringView message, void *userdata1, void *userdata2) {
  (void)userdata2;
  webgpu_answer *answer = userdata1;
  answer->status = status;
  answer->object = adapter;
  webgpu_keep_message(answer, message);
  answer->done = true;
}

static void webgpu_device_answer(WGPURequestDeviceStatus status, WGPUDevice device,
                                 WGPUStringView message, void *userdata1, void *userdata2) {
  (void)userdata2;
  webgpu_answer *answer = userdata1;
  answer->status = status;
  answer->object = device;
  webgpu_keep_message(answer, message);
  answer->done = true;
}

static void webgpu_map_answer(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1,
                              void *userdata2) {
  (void)userdata2;
  webgpu_answer *answer = userdata1;
  answer->status = status;
  webgpu_keep_message(answer, message);
  answer->done = true;
}

static void webgpu_scope_answer(WGPUPopErrorScopeStatus status, WGPUErrorType type,
                                WGPUStringView message, void *userdata1, void *userdata2) {
  (void)userdata2;
  webgpu_answer *answer = userdata1;
  answer->status = status;
  answer->error_type = type;
  webgpu_keep_message(answer, message);
  answer->done = true;
}

static uint64_t webgpu_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Drives callbacks until the answer arrives or timeout_ns passes
 * (HURRAY_PLUGIN_WAIT_FOREVER: no deadline). */
static bool webgpu_poll(const webgpu_state *s, const webgpu_answer *answer, uint64_t timeout_ns) {
  uint64_t start = webgpu_now_ns();
  long pause_ns = 1000;
  while (!answer->done) {
    s->gpu.wgpuInstanceProcessEvents(s->instance);
    if (answer->done) {
      break;
    }
    if (timeout_ns != HURRAY_PLUGIN_WAIT_FOREVER && webgpu_now_ns() - start >= timeout_ns) {
      return false;
    }
    struct timespec pause = {0, pause_ns};
    nanosleep(&pause, NULL);
    pause_ns = pause_ns < 1000000 ? pause_ns * 2 : pause_ns;
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static void webgpu_release_device(webgpu_state *s) {
  if (s->queue != NULL) {
    s->gpu.wgpuQueueRelease(s->queue);
  }
  if (s->device != NULL) {
    s->gpu.wgpuDeviceRelease(s->device);
  }
  if (s->adapter != NULL) {
    s->gpu.wgpuAdapterRelease(s->adapter);
  }
  if (s->instance != NULL) {
    s->gpu.wgpuInstanceRelease(s->instance);
  }
  s->queue = NULL;
  s->device = NULL;
  s->adapter = NULL;
  s->instance = NULL;
  s->device_count = 0;
}

/* Instance, default adapter, its device and queue; false with the reason. */
static bool webgpu_open_device(webgpu_state *s) {
  s->instance = s->gpu.wgpuCreateInstance(NULL);
  if (s->instance == NULL) {
    snprintf(s->reason, sizeof s->reason, "%s: wgpuCreateInstance returned NULL", s->library_name);
    return false;
  }
  webgpu_answer answer;
  memset(&answer, 0, sizeof answer);
  WGPURequestAdapterCallbackInfo adapter_info = {NULL, WGPUCallbackMode_AllowProcessEvents,
                                                 webgpu_adapter_answer, &answer, NULL};
  (void)s->gpu.wgpuInstanceRequestAdapter(s->instance, NULL, adapter_info);
  if (!webgpu_poll(s, &answer, WEBGPU_REQUEST_TIMEOUT_NS) || answer.status != WGPU_STATUS_SUCCESS ||
      answer.object == NULL) {
    snprintf(s->reason, sizeof s->reason,
             "%.48s: wgpuInstanceRequestAdapter: %s (status %u): %.60s", s->library_name,
             answer.done ? "no adapter" : "no answer within 5 s", (unsigned)answer.status,
             answer.message);
    return false;
  }
  s->adapter = answer.object;
  memset(&answer, 0, sizeof answer);
  WGPURequestDeviceCallbackInfo device_info = {NULL, WGPUCallbackMode_AllowProcessEvents,
                                               webgpu_device_answer, &answer, NULL};
  (void)s->gpu.wgpuAdapterRequestDevice(s->adapter, NULL, device_info);
  if (!webgpu_poll(s, &answer, WEBGPU_REQUEST_TIMEOUT_NS) || answer.status != WGPU_STATUS_SUCCESS ||
      answer.object == NULL) {
    snprintf(s->reason, sizeof s->reason, "%.48s: wgpuAdapterRequestDevice: %s (status %u): %.60s",
             s->library_name, answer.done ? "no device" : "no answer within 5 s",
             (unsigned)answer.status, answer.message);
    return false;
  }
  s->device = answer.object;
  s->queue = s->gpu.wgpuDeviceGetQueue(s->device);
  if (s->queue == NULL) {
    snprintf(s->reason, sizeof s->reason, "%s: wgpuDeviceGetQueue returned NULL", s->library_name);
    return false;
  }
  s->device_count = 1;
  return true;
}

/* Opens the first runtime that loads (the override alone when set) and its
 * device; on any failure the state holds zero devices and the reason
 * (PL-AVAIL-1). */
static void webgpu_open(webgpu_state *s) {
  static const char *const defaults[] = {"libwgpu_native.so", "libwebgpu_dawn.so"};
  const char *library = NULL;
  /* The X-macro's second expansion: every symbol, required, into s->gpu. */
#define WEBGPU_SYMBOL_ENTRY(ret, name, args) {#name, &s->gpu.name, true},
  const hurray_support_symbol symbols[] = {WEBGPU_SYMBOLS(WEBGPU_SYMBOL_ENTRY)};
#undef WEBGPU_SYMBOL_ENTRY
  /* The reason names every file tried and why. */
  s->library = plugin_load_runtime(
      WEBGPU_LIBRARY_ENV, defaults, sizeof defaults / sizeof defaults[0], 0, symbols,
      sizeof symbols / sizeof symbols[0], &library, s->reason, sizeof s->reason);
  snprintf(s->library_name, sizeof s->library_name, "%s", library);
  if (s->library == NULL || webgpu_open_device(s)) {
    return;
  }
  webgpu_release_device(s);
  dlclose(s->library);
  s->library = NULL;
  memset(&s->gpu, 0, sizeof s->gpu);
}

static hurray_status webgpu_init(void **out_state, hurray_error *err) {
  webgpu_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "webgpu: no memory for the plugin state");
  }
  pthread_mutex_init(&s->lock, NULL);
  webgpu_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static void webgpu_shutdown(void *state) {
  webgpu_state *s = state;
  if (s->library != NULL) {
    webgpu_release_device(s);
    dlclose(s->library);
  }
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static hurray_status webgpu_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((webgpu_state *)state)->device_count;
  return HURRAY_OK;
}

static size_t webgpu_unavailable_reason(void *state, char *buf, size_t cap) {
  const webgpu_state *s = state;
  return hurray_support_copy_reason(buf, cap, s->device_count > 0 ? "" : s->reason);
}

static hurray_status webgpu_describe_device(void *state, uint32_t device_index,
                                            hurray_plugin_device_info *out, hurray_error *err) {
  const webgpu_state *s = state;
  hurray_status status = hurray_support_check_device("webgpu", device_index, s->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.ipc_capabilities = 0u;
  snprintf(info.name, sizeof info.name, "WebGPU default adapter (%.36s)", s->library_name);
  info.memory_bytes = 0u;
  /* Never host-accessible: copies are map-based. */
  hurray_support_add_memory_class(&info, HURRAY_MEMORY_STANDARD, 0u, WEBGPU_ALIGNMENT);
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

/* WebGPU copies move multiples of 4 bytes. */
static uint64_t webgpu_round_up4(uint64_t n) { return (n + 3u) & ~(uint64_t)3u; }

/* Creates a buffer inside an OutOfMemory error scope; *out_of_memory tells
 * whether the scope caught one. Called with the lock held. */
static WGPUBuffer webgpu_create_buffer(const webgpu_state *s, WGPUBufferUsage usage, uint64_t size,
                                       bool mapped_at_creation, bool *out_of_memory) {
  WGPUBufferDescriptor desc;
  memset(&desc, 0, sizeof desc);
  desc.label.data = NULL;
  desc.label.length = WGPU_STRLEN;
  desc.usage = usage;
  desc.size = size;
  desc.mappedAtCreation = mapped_at_creation ? 1u : 0u;
  s->gpu.wgpuDevicePushErrorScope(s->device, WGPUErrorFilter_OutOfMemory);
  WGPUBuffer buffer = s->gpu.wgpuDeviceCreateBuffer(s->device, &desc);
  webgpu_answer answer;
  memset(&answer, 0, sizeof answer);
  WGPUPopErrorScopeCallbackInfo scope = {NULL, WGPUCallbackMode_AllowProcessEvents,
                                         webgpu_scope_answer, &answer, NULL};
  (void)s->gpu.wgpuDevicePopErrorScope(s->device, scope);
  *out_of_memory = buffer == NULL;
  if (webgpu_poll(s, &answer, WEBGPU_REQUEST_TIMEOUT_NS) && answer.status == WGPU_STATUS_SUCCESS &&
      answer.error_type == WGPUErrorType_OutOfMemory) {
    *out_of_memory = true;
  }
  if (*out_of_memory && buffer != NULL) {
    s->gpu.wgpuBufferRelease(buffer);
    buffer = NULL;
  }
  return buffer;
}

static void webgpu_drop_buffer(const webgpu_state *s, WGPUBuffer buffer) {
  s->gpu.wgpuBufferDestroy(buffer);
  s->gpu.wgpuBufferRelease(buffer);
}

static hurray_status webgpu_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                     uint32_t alignment, hurray_memory_class memory_class,
                                     uint32_t flags, hurray_plugin_allocation *out,
                                     hurray_error *err) {
  webgpu_state *s = state;
  hurray_status status = hurray_support_check_device("webgpu", device_index, s->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_WEBGPU,
        "webgpu: memory class 0x%02X is not offered (WebGPU has standard memory only)",
        (unsigned)memory_class);
  }
  if (flags != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0,
                                     "webgpu: allocate flags must be 0 in ABI 1.x");
  }
  if (alignment > WEBGPU_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, WEBGPU_ALIGNMENT,
                                     "webgpu: alignment %u above the %u WebGPU guarantees",
                                     (unsigned)alignment, WEBGPU_ALIGNMENT);
  }
  bool out_of_memory = false;
  pthread_mutex_lock(&s->lock);
  WGPUBuffer buffer = webgpu_create_buffer(s, WEBGPU_STANDARD_USAGE, webgpu_round_up4(byte_size),
                                           false, &out_of_memory);
  pthread_mutex_unlock(&s->lock);
  if (buffer == NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0, "wgpuDeviceCreateBuffer(%llu bytes): %s",
        (unsigned long long)byte_size, out_of_memory ? "OutOfMemory error" : "returned NULL");
  }
  hurray_plugin_allocation a;
  plugin_allocation_init(&a, byte_size, device_index, memory_class);
  a.alignment = WEBGPU_ALIGNMENT;
  a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  a.address = buffer; /* the WGPUBuffer: an opaque GPU resource handle (BP-DEV-5) */
  hurray_plugin_copy_out(out, &a, sizeof a);
  return HURRAY_OK;
}

static void webgpu_free(void *state, const hurray_plugin_allocation *allocation) {
  webgpu_state *s = state;
  pthread_mutex_lock(&s->lock);
  webgpu_drop_buffer(s, allocation->address);
  pthread_mutex_unlock(&s->lock);
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device (map-based)                                      */
/* ------------------------------------------------------------------------ */

/* Encodes one buffer-to-buffer copy and submits it. */
static bool webgpu_submit_copy(const webgpu_state *s, WGPUBuffer from, uint64_t from_offset,
                               WGPUBuffer to, uint64_t to_offset, uint64_t size) {
  WGPUCommandEncoder encoder = s->gpu.wgpuDeviceCreateCommandEncoder(s->device, NULL);
  if (encoder == NULL) {
    return false;
  }
  s->gpu.wgpuCommandEncoderCopyBufferToBuffer(encoder, from, from_offset, to, to_offset, size);
  WGPUCommandBuffer commands = s->gpu.wgpuCommandEncoderFinish(encoder, NULL);
  s->gpu.wgpuCommandEncoderRelease(encoder);
  if (commands == NULL) {
    return false;
  }
  s->gpu.wgpuQueueSubmit(s->queue, 1, &commands);
  s->gpu.wgpuCommandBufferRelease(commands);
  return true;
}

/* Maps `buffer` and waits for the map (the queue work before it is then
 * done). Called with the lock held. */
static hurray_status webgpu_map_and_wait(const webgpu_state *s, WGPUBuffer buffer, WGPUMapMode mode,
                                         uint64_t size, hurray_error *err) {
  webgpu_answer answer;
  memset(&answer, 0, sizeof answer);
  WGPUBufferMapCallbackInfo info = {NULL, WGPUCallbackMode_AllowProcessEvents, webgpu_map_answer,
                                    &answer, NULL};
  (void)s->gpu.wgpuBufferMapAsync(buffer, mode, 0, (size_t)size, info);
  if (!webgpu_poll(s, &answer, WEBGPU_COPY_TIMEOUT_NS)) {
    return hurray_support_entry_fail(err, HURRAY_ERR_TIMEOUT, WEBGPU_COPY_TIMEOUT_NS, 0,
                                     "wgpuBufferMapAsync: no answer within %llu ns",
                                     (unsigned long long)WEBGPU_COPY_TIMEOUT_NS);
  }
  if (answer.status != WGPU_STATUS_SUCCESS) {
    return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, answer.status, 0,
                                     "wgpuBufferMapAsync: status %u: %s", (unsigned)answer.status,
                                     answer.message);
  }
  return HURRAY_OK;
}

/* Reads [offset, offset + bytes) of `source` into dst through a MAP_READ
 * staging buffer. Called with the lock held. */
static hurray_status webgpu_read(const webgpu_state *s, WGPUBuffer source, uint64_t offset,
                                 void *dst, uint64_t bytes, hurray_error *err) {
  uint64_t start = offset & ~(uint64_t)3u;
  uint64_t span = webgpu_round_up4(offset + bytes) - start;
  bool out_of_memory = false;
  WGPUBuffer staging = webgpu_create_buffer(s, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst,
                                            span, false, &out_of_memory);
  if (staging == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, span, 0,
                                     "wgpuDeviceCreateBuffer (read staging, %llu bytes) failed",
                                     (unsigned long long)span);
  }
  hurray_status status = HURRAY_OK;
  if (!webgpu_submit_copy(s, source, start, staging, 0, span)) {
    status =
        hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                  "wgpuCommandEncoderFinish: no command buffer for the read copy");
  }
  if (status == HURRAY_OK) {
    status = webgpu_map_and_wait(s, staging, WGPUMapMode_Read, span, err);
  }
  if (status == HURRAY_OK) {
    const unsigned char *mapped = s->gpu.wgpuBufferGetConstMappedRange(staging, 0, (size_t)span);
    if (mapped == NULL) {
      status = hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                         "wgpuBufferGetConstMappedRange returned NULL");
    } else {
      memcpy(dst, mapped + (offset - start), (size_t)bytes);
    }
    s->gpu.wgpuBufferUnmap(staging);
  }
  webgpu_drop_buffer(s, staging);
  return status;
}

static hurray_status webgpu_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                           uint64_t dst_offset, const void *src, uint64_t bytes,
                                           hurray_error *err) {
  webgpu_state *s = state;
  if (bytes == 0) {
    return HURRAY_OK;
  }
  uint64_t start = dst_offset & ~(uint64_t)3u;
  uint64_t span = webgpu_round_up4(dst_offset + bytes) - start;
  pthread_mutex_lock(&s->lock);
  bool out_of_memory = false;
  WGPUBuffer staging = webgpu_create_buffer(s, WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc,
                                            span, true, &out_of_memory);
  hurray_status status = HURRAY_OK;
  unsigned char *mapped = NULL;
  if (staging == NULL) {
    status = hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, span, 0,
                                       "wgpuDeviceCreateBuffer (write staging, %llu bytes) failed",
                                       (unsigned long long)span);
  } else {
    mapped = s->gpu.wgpuBufferGetMappedRange(staging, 0, (size_t)span);
    if (mapped == NULL) {
      status = hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                         "wgpuBufferGetMappedRange returned NULL");
    }
  }
  if (status == HURRAY_OK && (start != dst_offset || span != bytes)) {
    /* Keep the bytes the 4-byte widening covers but the caller did not give. */
    status = webgpu_read(s, dst->address, start, mapped, span, err);
  }
  if (status == HURRAY_OK) {
    memcpy(mapped + (dst_offset - start), src, (size_t)bytes);
  }
  if (staging != NULL) {
    s->gpu.wgpuBufferUnmap(staging);
  }
  if (status == HURRAY_OK && !webgpu_submit_copy(s, staging, 0, dst->address, start, span)) {
    status =
        hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                  "wgpuCommandEncoderFinish: no command buffer for the write copy");
  }
  if (status == HURRAY_OK) {
    /* Blocking (PL-COPY-1): the staging buffer maps again once the queue
     * has finished the copy that reads it. */
    status = webgpu_map_and_wait(s, staging, WGPUMapMode_Write, span, err);
    if (status == HURRAY_OK) {
      s->gpu.wgpuBufferUnmap(staging);
    }
  }
  if (staging != NULL) {
    webgpu_drop_buffer(s, staging);
  }
  pthread_mutex_unlock(&s->lock);
  return status;
}

static hurray_status webgpu_copy_to_host(void *state, void *dst,
                                         const hurray_plugin_allocation *src, uint64_t src_offset,
                                         uint64_t bytes, hurray_error *err) {
  webgpu_state *s = state;
  if (bytes == 0) {
    return HURRAY_OK;
  }
  pthread_mutex_lock(&s->lock);
  hurray_status status = webgpu_read(s, src->address, src_offset, dst, bytes, err);
  pthread_mutex_unlock(&s->lock);
  return status;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

static hurray_status webgpu_check_stream(const void *stream, hurray_error *err) {
  if (stream != NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0,
                                     "webgpu: a device has one queue; pass a NULL stream");
  }
  return HURRAY_OK;
}

static hurray_status webgpu_create_event(void *state, uint32_t device_index, void **out_event,
                                         hurray_error *err) {
  webgpu_state *s = state;
  hurray_status status = hurray_support_check_device("webgpu", device_index, s->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  webgpu_event *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *e, 0,
                                     "webgpu: no memory for an event");
  }
  bool out_of_memory = false;
  pthread_mutex_lock(&s->lock);
  e->source = webgpu_create_buffer(s, WGPUBufferUsage_CopySrc, 4, false, &out_of_memory);
  e->marker = webgpu_create_buffer(s, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 4, false,
                                   &out_of_memory);
  if (e->source == NULL || e->marker == NULL) {
    if (e->source != NULL) {
      webgpu_drop_buffer(s, e->source);
    }
    if (e->marker != NULL) {
      webgpu_drop_buffer(s, e->marker);
    }
    pthread_mutex_unlock(&s->lock);
    free(e);
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, 8, 0,
                                     "wgpuDeviceCreateBuffer: no 4-byte buffers for an event");
  }
  pthread_mutex_unlock(&s->lock);
  *out_event = e;
  return HURRAY_OK;
}

/* Lets a previous recording finish (its map callback must not outlive the
 * event) and unmaps it. Called with the lock held. */
static hurray_status webgpu_settle(const webgpu_state *s, webgpu_event *e, uint64_t timeout_ns,
                                   hurray_error *err) {
  if (e->pending) {
    if (!webgpu_poll(s, &e->answer, timeout_ns)) {
      return hurray_support_entry_fail(err, HURRAY_ERR_TIMEOUT, timeout_ns, 0,
                                       "wgpuBufferMapAsync (event): not complete after %llu ns",
                                       (unsigned long long)timeout_ns);
    }
    e->pending = false;
    e->mapped = e->answer.status == WGPU_STATUS_SUCCESS;
    if (!e->mapped) {
      return hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, e->answer.status, 0,
                                       "wgpuBufferMapAsync (event): status %u: %s",
                                       (unsigned)e->answer.status, e->answer.message);
    }
  }
  return HURRAY_OK;
}

static hurray_status webgpu_record_event(void *state, void *event, void *stream,
                                         hurray_error *err) {
  webgpu_state *s = state;
  webgpu_event *e = event;
  hurray_status status = webgpu_check_stream(stream, err);
  if (status != HURRAY_OK) {
    return status;
  }
  pthread_mutex_lock(&s->lock);
  status = webgpu_settle(s, e, WEBGPU_COPY_TIMEOUT_NS, err);
  if (status == HURRAY_OK && e->mapped) {
    s->gpu.wgpuBufferUnmap(e->marker);
    e->mapped = false;
  }
  if (status == HURRAY_OK && !webgpu_submit_copy(s, e->source, 0, e->marker, 0, 4)) {
    status = hurray_support_entry_fail(err, HURRAY_ERR_DEVICE_ERROR, 0, 0,
                                       "wgpuCommandEncoderFinish: no command buffer for the event");
  }
  if (status == HURRAY_OK) {
    memset(&e->answer, 0, sizeof e->answer);
    WGPUBufferMapCallbackInfo info = {NULL, WGPUCallbackMode_AllowProcessEvents, webgpu_map_answer,
                                      &e->answer, NULL};
    (void)s->gpu.wgpuBufferMapAsync(e->marker, WGPUMapMode_Read, 0, 4, info);
    e->pending = true;
  }
  pthread_mutex_unlock(&s->lock);
  return status;
}

static hurray_status webgpu_wait_event(void *state, void *event, uint64_t timeout_ns,
                                       hurray_error *err) {
  webgpu_state *s = state;
  pthread_mutex_lock(&s->lock);
  hurray_status status = webgpu_settle(s, event, timeout_ns, err);
  pthread_mutex_unlock(&s->lock);
  return status;
}

static void webgpu_release_event(void *state, void *event) {
  webgpu_state *s = state;
  webgpu_event *e = event;
  pthread_mutex_lock(&s->lock);
  /* Destroying a buffer with a pending map makes the map answer (aborted);
   * drive that answer out before the event's memory goes. */
  webgpu_drop_buffer(s, e->marker);
  if (e->pending) {
    (void)webgpu_poll(s, &e->answer, WEBGPU_REQUEST_TIMEOUT_NS);
  }
  webgpu_drop_buffer(s, e->source);
  pthread_mutex_unlock(&s->lock);
  free(e);
}

static hurray_status webgpu_wait_stream(void *state, uint32_t device_index, void *stream,
                                        uint64_t timeout_ns, hurray_error *err) {
  hurray_status status = webgpu_check_stream(stream, err);
  void *marker = NULL;
  if (status == HURRAY_OK) {
    status = webgpu_create_event(state, device_index, &marker, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  status = webgpu_record_event(state, marker, NULL, err);
  if (status == HURRAY_OK) {
    status = webgpu_wait_event(state, marker, timeout_ns, err);
  }
  webgpu_release_event(state, marker);
  return status;
}

static hurray_status webgpu_stream_wait_event(void *state, void *stream, void *event,
                                              hurray_error *err) {
  (void)state;
  (void)event;
  /* One in-order queue: work submitted later already runs after the event. */
  return webgpu_check_stream(stream, err);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

static const hurray_plugin_table webgpu_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "webgpu",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_WEBGPU,
    .init = webgpu_init,
    .shutdown = webgpu_shutdown,
    .count_devices = webgpu_count_devices,
    .describe_device = webgpu_describe_device,
    .allocate = webgpu_allocate,
    .free = webgpu_free,
    .copy_to_device = webgpu_copy_to_device,
    .copy_to_host = webgpu_copy_to_host,
    .unavailable_reason = webgpu_unavailable_reason,
    .create_event = webgpu_create_event,
    .record_event = webgpu_record_event,
    .wait_event = webgpu_wait_event,
    .release_event = webgpu_release_event,
    .wait_stream = webgpu_wait_stream,
    .stream_wait_event = webgpu_stream_wait_event,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &webgpu_table;
}
