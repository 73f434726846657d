/*
 * The OpenCL plugin's own declarations, shared by its files: the vendor
 * symbol table, the device and state records, and what one file calls in
 * the other. opencl_plugin.c loads the runtime and holds devices, events
 * and the entry table; opencl_memory.c allocates, shares and copies memory.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_OPENCL_H
#define HURRAY_PLUGIN_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <stdbool.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: the Khronos header (Debian opencl-c-headers)     */
/* ------------------------------------------------------------------------ */
#include <CL/cl.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */

#define OPENCL_DEFAULT_LIBRARY "libOpenCL.so.1"
#define OPENCL_LIBRARY_ENV "HURRAY_OPENCL_LIBRARY"
#define OPENCL_MAX_DEVICES 16u
/* Not in cl.h: the cl_khr_icd code for "no platform installed". */
#define OPENCL_PLATFORM_NOT_FOUND_KHR (-1001)

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */

#define OPENCL_SYMBOLS(X)                                                                         \
  X(cl_int, clGetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                             \
  X(cl_int, clGetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *)) \
  X(cl_int, clGetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *))            \
  X(cl_context, clCreateContext,                                                                  \
    (const cl_context_properties *, cl_uint, const cl_device_id *,                                \
     void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))          \
  X(cl_int, clReleaseContext, (cl_context))                                                       \
  X(cl_command_queue, clCreateCommandQueueWithProperties,                                         \
    (cl_context, cl_device_id, const cl_queue_properties *, cl_int *))                            \
  X(cl_int, clReleaseCommandQueue, (cl_command_queue))                                            \
  X(cl_mem, clCreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *))                 \
  X(cl_int, clReleaseMemObject, (cl_mem))                                                         \
  X(cl_int, clEnqueueWriteBuffer,                                                                 \
    (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *,  \
     cl_event *))                                                                                 \
  X(cl_int, clEnqueueReadBuffer,                                                                  \
    (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *,        \
     cl_event *))                                                                                 \
  X(void *, clEnqueueMapBuffer,                                                                   \
    (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *,  \
     cl_event *, cl_int *))                                                                       \
  X(cl_int, clEnqueueUnmapMemObject,                                                              \
    (cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *))                    \
  X(void *, clSVMAlloc, (cl_context, cl_svm_mem_flags, size_t, cl_uint))                          \
  X(void, clSVMFree, (cl_context, void *))                                                        \
  X(cl_int, clEnqueueSVMMemcpy,                                                                   \
    (cl_command_queue, cl_bool, void *, const void *, size_t, cl_uint, const cl_event *,          \
     cl_event *))                                                                                 \
  X(cl_int, clEnqueueMarkerWithWaitList,                                                          \
    (cl_command_queue, cl_uint, const cl_event *, cl_event *))                                    \
  X(cl_int, clEnqueueBarrierWithWaitList,                                                         \
    (cl_command_queue, cl_uint, const cl_event *, cl_event *))                                    \
  X(cl_int, clWaitForEvents, (cl_uint, const cl_event *))                                         \
  X(cl_int, clGetEventInfo, (cl_event, cl_event_info, size_t, void *, size_t *))                  \
  X(cl_int, clReleaseEvent, (cl_event))                                                           \
  X(cl_int, clFlush, (cl_command_queue))                                                          \
  X(cl_int, clFinish, (cl_command_queue))

typedef struct opencl_api {
#define OPENCL_DECLARE_POINTER(ret, name, params) ret(CL_API_CALL *name) params;
  OPENCL_SYMBOLS(OPENCL_DECLARE_POINTER)
#undef OPENCL_DECLARE_POINTER
} opencl_api;

typedef struct opencl_device {
  cl_device_id id;
  cl_context context;
  cl_command_queue queue;
  hurray_plugin_device_info info;
  uint32_t base_alignment; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes */
  uint32_t svm_alignment;  /* the most clSVMAlloc accepts, in bytes */
  bool fine_grain_svm;
} opencl_device;

typedef struct opencl_state {
  void *library;
  opencl_api cl;
  uint32_t device_count;
  opencl_device devices[OPENCL_MAX_DEVICES];
  char unavailable_reason[HURRAY_SUPPORT_REASON_SIZE];
} opencl_state;

/* opencl_plugin.c */
hurray_status fail_cl(hurray_error *err, const char *call, cl_int code);

/* opencl_memory.c */
hurray_status opencl_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                              uint32_t alignment, hurray_memory_class memory_class, uint32_t flags,
                              hurray_plugin_allocation *out, hurray_error *err);
void opencl_free(void *opaque, const hurray_plugin_allocation *allocation);
hurray_status opencl_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                   hurray_plugin_ipc_memory *out, hurray_error *err);
hurray_status opencl_import_memory(void *opaque, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *in,
                                   hurray_plugin_allocation *out, hurray_error *err);
hurray_status opencl_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
                                    uint64_t dst_offset, const void *src, uint64_t bytes,
                                    hurray_error *err);
hurray_status opencl_copy_to_host(void *opaque, void *dst, const hurray_plugin_allocation *src,
                                  uint64_t src_offset, uint64_t bytes, hurray_error *err);

#endif
