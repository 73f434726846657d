/*
 * libhurray device plugin: OpenCL (device tag 0x08 opencl).
 *
 * Runtime: the Khronos ICD loader, loaded at run time from "libOpenCL.so.1"
 * (its usual soname), or from the file named by HURRAY_OPENCL_LIBRARY. Every
 * device of every platform the loader reports becomes one plugin device,
 * with its own context and in-order command queue. Verified on PoCL (Debian
 * pocl-opencl-icd).
 *
 * Memory classes (facts §5, specs BP-PAIR-1: opencl pairs with standard,
 * host_pinned and unified):
 *   standard    -> clCreateBuffer(CL_MEM_READ_WRITE). The address is the cl_mem
 *                  (an opaque device handle, BP-DEV-5); the alignment is the
 *                  device's CL_DEVICE_MEM_BASE_ADDR_ALIGN guarantee
 *                  (HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE), the most offered.
 *   host_pinned -> clCreateBuffer(CL_MEM_ALLOC_HOST_PTR), kept mapped: the
 *                  address is the mapped host pointer, alignment measured from
 *                  it; a request it does not meet is refused.
 *   unified     -> clSVMAlloc, only where CL_DEVICE_SVM_CAPABILITIES has
 *                  fine-grained buffer sharing (host-accessible, alignment
 *                  measured from the pointer, at most the largest data type,
 *                  CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, as clSVMAlloc allows).
 * IPC: no events or queues cross processes (OpenCL has none). Memory does,
 * for the standard class allocated exportable (PL-IPC-1..6): a memfd mapped
 * shared and wrapped with CL_MEM_USE_HOST_PTR, which PoCL uses in place, so
 * the importer's cl_mem wraps the same pages.
 * Events: markers (clEnqueueMarkerWithWaitList) on the device's queue or on
 * the cl_command_queue given as stream; waits are clWaitForEvents, or polling
 * CL_EVENT_COMMAND_EXECUTION_STATUS when a timeout is given.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_plugin.h"
#include "polled_wait.h"
#include "runtime_loader.h"
#include "vendor_call_error.h"

/* Names of the error codes this plugin can meet, for err->detail. */
static const char *cl_error_name(cl_int code) {
  switch (code) {
#define NAME(c) \
  case c: return #c;
    NAME(CL_SUCCESS)
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_MAP_FAILURE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE)
    NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef NAME
    case OPENCL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

/* A failed vendor call: DEVICE_ERROR, value the code, detail "call: NAME (code)". */
hurray_status fail_cl(hurray_error *err, const char *call, cl_int code) {
  return plugin_vendor_code_fail(err, "opencl", call, (int)code, cl_error_name(code),
                                 code == CL_OUT_OF_HOST_MEMORY || code == CL_OUT_OF_RESOURCES ||
                                     code == CL_MEM_OBJECT_ALLOCATION_FAILURE);
}

/* Opens the ICD loader and resolves the table; on failure the reason is kept
 * and the plugin reports no devices (PL-AVAIL-1). */
static bool opencl_open(opencl_state *state) {
  static const char *const default_libraries[] = {OPENCL_DEFAULT_LIBRARY};
  const char *library = NULL;
  /* The X-macro's second expansion: every symbol, required, into state->cl. */
#define OPENCL_SYMBOL_ENTRY(ret, name, params) {#name, &state->cl.name, true},
  const hurray_support_symbol symbols[] = {OPENCL_SYMBOLS(OPENCL_SYMBOL_ENTRY)};
#undef OPENCL_SYMBOL_ENTRY
  /* RTLD_NODELETE: ICD loaders (ocl-icd) build their vendor table once and
   * never free it; unmapping the loader would turn that table into a leak
   * and a second init would build another one. Kept resident, it is reused. */
  state->library = plugin_load_runtime(OPENCL_LIBRARY_ENV, default_libraries, 1u, RTLD_NODELETE,
                                       symbols, sizeof symbols / sizeof symbols[0], &library,
                                       state->unavailable_reason, sizeof state->unavailable_reason);
  return state->library != NULL;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

/* Sets up one device (context, queue, description); false with the reason
 * kept when the runtime refuses. */
static bool opencl_add_device(opencl_state *state, cl_device_id id) {
  const opencl_api *cl = &state->cl;
  opencl_device *d = &state->devices[state->device_count];
  memset(d, 0, sizeof *d);
  d->id = id;
  cl_int rc = CL_SUCCESS;
  d->context = cl->clCreateContext(NULL, 1, &id, NULL, NULL, &rc);
  if (d->context == NULL) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "clCreateContext: %s (%d)", cl_error_name(rc), (int)rc);
    return false;
  }
  d->queue = cl->clCreateCommandQueueWithProperties(d->context, id, NULL, &rc);
  if (d->queue == NULL) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "clCreateCommandQueueWithProperties: %s (%d)", cl_error_name(rc), (int)rc);
    cl->clReleaseContext(d->context);
    return false;
  }
  cl_uint base_bits = 0;
  cl_uint data_align = 0;
  cl_ulong memory = 0;
  cl_device_svm_capabilities svm = 0;
  cl->clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof base_bits, &base_bits, NULL);
  cl->clGetDeviceInfo(id, CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, sizeof data_align, &data_align, NULL);
  cl->clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, NULL);
  /* OpenCL 1.x devices do not know the query: no SVM. */
  if (cl->clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) != CL_SUCCESS) {
    svm = 0;
  }
  d->base_alignment = base_bits / 8u;
  d->svm_alignment = data_align;
  d->fine_grain_svm = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0u;

  hurray_plugin_device_info *info = &d->info;
  info->struct_size = sizeof *info;
  info->ipc_capabilities = 0u;
  if (cl->clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof info->name - 1u, info->name, NULL) !=
      CL_SUCCESS) {
    snprintf(info->name, sizeof info->name, "OpenCL device");
  }
  info->name[sizeof info->name - 1u] = '\0';
  info->memory_bytes = memory;
  /* A class is offered only with an alignment of at least 64 (BP-ALIGN-2). */
  if (d->base_alignment >= HURRAY_MIN_BUFFER_ALIGNMENT) {
    hurray_support_add_memory_class(info, HURRAY_MEMORY_STANDARD, 0u, d->base_alignment);
    hurray_support_add_memory_class(info, HURRAY_MEMORY_HOST_PINNED,
                                    HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE, d->base_alignment);
  }
  if (d->fine_grain_svm && d->svm_alignment >= HURRAY_MIN_BUFFER_ALIGNMENT &&
      (d->svm_alignment & (d->svm_alignment - 1u)) == 0u) {
    hurray_support_add_memory_class(info, HURRAY_MEMORY_UNIFIED,
                                    HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE, d->svm_alignment);
  }
  if (info->memory_class_count == 0u) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "%s: base address alignment %u bytes is below 64", info->name,
             (unsigned)d->base_alignment);
    cl->clReleaseCommandQueue(d->queue);
    cl->clReleaseContext(d->context);
    return false;
  }
  state->device_count++;
  return true;
}

static hurray_status opencl_init(void **out_state, hurray_error *err) {
  opencl_state *state = calloc(1, sizeof *state);
  if (state == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *state, 0,
                                     "opencl: plugin state");
  }
  *out_state = state;
  if (!opencl_open(state)) {
    return HURRAY_OK;
  }
  const opencl_api *cl = &state->cl;
  cl_platform_id platforms[8];
  cl_uint platform_count = 0;
  cl_int rc = cl->clGetPlatformIDs(8, platforms, &platform_count);
  if (rc != CL_SUCCESS || platform_count == 0u) {
    snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
             "clGetPlatformIDs: %s (%d), %u platforms: no OpenCL ICD installed", cl_error_name(rc),
             (int)rc, (unsigned)platform_count);
    return HURRAY_OK;
  }
  if (platform_count > 8u) {
    platform_count = 8u;
  }
  for (cl_uint p = 0; p < platform_count; p++) {
    cl_device_id ids[OPENCL_MAX_DEVICES];
    cl_uint count = 0;
    rc = cl->clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, OPENCL_MAX_DEVICES, ids, &count);
    if (rc != CL_SUCCESS) {
      snprintf(state->unavailable_reason, sizeof state->unavailable_reason,
               "clGetDeviceIDs: %s (%d)", cl_error_name(rc), (int)rc);
      continue;
    }
    for (cl_uint i = 0;
         i < count && i < OPENCL_MAX_DEVICES && state->device_count < OPENCL_MAX_DEVICES; i++) {
      opencl_add_device(state, ids[i]);
    }
  }
  if (state->device_count > 0u) {
    state->unavailable_reason[0] = '\0';
  }
  return HURRAY_OK;
}

static void opencl_shutdown(void *opaque) {
  opencl_state *state = opaque;
  for (uint32_t i = 0; i < state->device_count; i++) {
    state->cl.clReleaseCommandQueue(state->devices[i].queue);
    state->cl.clReleaseContext(state->devices[i].context);
  }
  if (state->library != NULL) {
    dlclose(state->library);
  }
  free(state);
}

static hurray_status opencl_count_devices(void *opaque, uint32_t *out_count, hurray_error *err) {
  (void)err;
  const opencl_state *state = opaque;
  *out_count = state->device_count;
  return HURRAY_OK;
}

static size_t opencl_unavailable_reason(void *opaque, char *buf, size_t cap) {
  const opencl_state *state = opaque;
  return hurray_support_copy_reason(buf, cap,
                                    state->device_count > 0u ? "" : state->unavailable_reason);
}

static hurray_status opencl_describe_device(void *opaque, uint32_t device_index,
                                            hurray_plugin_device_info *out, hurray_error *err) {
  const opencl_state *state = opaque;
  hurray_status status =
      hurray_support_check_device("opencl", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_copy_out(out, &state->devices[device_index].info,
                         sizeof state->devices[device_index].info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* An event is the marker of its last record; none until recorded. */
typedef struct opencl_event {
  uint32_t device_index;
  cl_event marker;
} opencl_event;

static hurray_status opencl_create_event(void *opaque, uint32_t device_index, void **out_event,
                                         hurray_error *err) {
  const opencl_state *state = opaque;
  hurray_status status =
      hurray_support_check_device("opencl", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  opencl_event *event = calloc(1, sizeof *event);
  if (event == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0,
                                     "opencl: event");
  }
  event->device_index = device_index;
  *out_event = event;
  return HURRAY_OK;
}

static cl_command_queue queue_of(const opencl_state *state, uint32_t device_index, void *stream) {
  return stream != NULL ? (cl_command_queue)stream : state->devices[device_index].queue;
}

/* A marker after all the queue holds, submitted now, so that a wait from
 * another thread does not wait on nothing. */
static hurray_status enqueue_marker(const opencl_state *state, cl_command_queue queue,
                                    cl_event *marker, hurray_error *err) {
  cl_int rc = state->cl.clEnqueueMarkerWithWaitList(queue, 0, NULL, marker);
  if (rc != CL_SUCCESS) {
    return fail_cl(err, "clEnqueueMarkerWithWaitList", rc);
  }
  state->cl.clFlush(queue);
  return HURRAY_OK;
}

static hurray_status opencl_record_event(void *opaque, void *opaque_event, void *stream,
                                         hurray_error *err) {
  const opencl_state *state = opaque;
  opencl_event *event = opaque_event;
  cl_event marker = NULL;
  hurray_status status =
      enqueue_marker(state, queue_of(state, event->device_index, stream), &marker, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (event->marker != NULL) {
    state->cl.clReleaseEvent(event->marker);
  }
  event->marker = marker;
  return HURRAY_OK;
}

/* Waits for a marker: clWaitForEvents without a timeout; otherwise polls the
 * execution status with a sleep growing from 10 us to 1 ms. */
static hurray_status wait_marker(const opencl_state *state, cl_event marker, uint64_t timeout_ns,
                                 hurray_error *err) {
  cl_int rc;
  if (timeout_ns == HURRAY_PLUGIN_WAIT_FOREVER) {
    rc = state->cl.clWaitForEvents(1, &marker);
    return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clWaitForEvents", rc);
  }
  plugin_polled_wait wait = plugin_polled_wait_start(timeout_ns, 10000u);
  for (;;) {
    cl_int status = CL_QUEUED;
    rc = state->cl.clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                  NULL);
    if (rc != CL_SUCCESS) {
      return fail_cl(err, "clGetEventInfo", rc);
    }
    if (status == CL_COMPLETE) {
      return HURRAY_OK;
    }
    if (status < 0) {
      return fail_cl(err, "marker execution status", status);
    }
    if (!plugin_polled_wait_again(&wait, err, "opencl: event not complete")) {
      return HURRAY_ERR_TIMEOUT;
    }
  }
}

static hurray_status opencl_wait_event(void *opaque, void *opaque_event, uint64_t timeout_ns,
                                       hurray_error *err) {
  const opencl_event *event = opaque_event;
  if (event->marker == NULL) {
    return HURRAY_OK; /* never recorded: complete (plugin.h) */
  }
  return wait_marker(opaque, event->marker, timeout_ns, err);
}

static void opencl_release_event(void *opaque, void *opaque_event) {
  const opencl_state *state = opaque;
  opencl_event *event = opaque_event;
  if (event->marker != NULL) {
    state->cl.clReleaseEvent(event->marker);
  }
  free(event);
}

static hurray_status opencl_wait_stream(void *opaque, uint32_t device_index, void *stream,
                                        uint64_t timeout_ns, hurray_error *err) {
  const opencl_state *state = opaque;
  cl_command_queue queue = queue_of(state, device_index, stream);
  if (timeout_ns == HURRAY_PLUGIN_WAIT_FOREVER) {
    cl_int rc = state->cl.clFinish(queue);
    return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clFinish", rc);
  }
  cl_event marker = NULL;
  hurray_status status = enqueue_marker(state, queue, &marker, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = wait_marker(state, marker, timeout_ns, err);
  state->cl.clReleaseEvent(marker);
  return status;
}

static hurray_status opencl_stream_wait_event(void *opaque, void *stream, void *opaque_event,
                                              hurray_error *err) {
  const opencl_state *state = opaque;
  const opencl_event *event = opaque_event;
  if (event->marker == NULL) {
    return HURRAY_OK;
  }
  cl_command_queue queue = queue_of(state, event->device_index, stream);
  cl_int rc = state->cl.clEnqueueBarrierWithWaitList(queue, 1, &event->marker, NULL);
  return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clEnqueueBarrierWithWaitList", rc);
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* PL-EVENT-5: the marker of the last record. Before the first record there
 * is no cl_event at all. */
static hurray_status opencl_native_event(void *opaque, void *opaque_event,
                                         hurray_plugin_native_event *out, hurray_error *err) {
  (void)opaque;
  const opencl_event *event = opaque_event;
  if (event->marker == NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1,
        "opencl: the event was never recorded; there is no cl_event yet");
  }
  out->native_type = HURRAY_NATIVE_EVENT_CL_EVENT;
  out->handle = (uint64_t)(uintptr_t)event->marker;
  return HURRAY_OK;
}

static const hurray_plugin_table opencl_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "opencl",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_OPENCL,
    .init = opencl_init,
    .shutdown = opencl_shutdown,
    .count_devices = opencl_count_devices,
    .describe_device = opencl_describe_device,
    .allocate = opencl_allocate,
    .free = opencl_free,
    .copy_to_device = opencl_copy_to_device,
    .copy_to_host = opencl_copy_to_host,
    .unavailable_reason = opencl_unavailable_reason,
    .create_event = opencl_create_event,
    .record_event = opencl_record_event,
    .wait_event = opencl_wait_event,
    .release_event = opencl_release_event,
    .wait_stream = opencl_wait_stream,
    .stream_wait_event = opencl_stream_wait_event,
    .native_event = opencl_native_event,
    .export_memory = opencl_export_memory,
    .import_memory = opencl_import_memory,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &opencl_table;
}
