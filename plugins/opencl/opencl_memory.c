/*
 * OpenCL plugin: memory of each class (standard cl_mem, mapped host_pinned,
 * fine-grained SVM), a standard buffer shared with another process through
 * a memfd (PL-IPC-1..6), and the copies between host and device. See
 * opencl_plugin.c for the plugin as a whole.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_plugin.h"
#include "plugin_allocation.h"

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

/* PL-IPC-1..4: a standard buffer shared with another process: the memfd
 * segment behind its CL_MEM_USE_HOST_PTR cl_mem (plugins/common). */
typedef struct opencl_shared {
  hurray_support_shared_memory memory;
} opencl_shared;

/* A cl_mem over a shared segment (ours or imported): the standard class's
 * record, with the segment in plugin_data. Read-only segments get a
 * read-only cl_mem. */
static hurray_status wrap_shared(const opencl_state *state, uint32_t device_index,
                                 opencl_shared *shared, uint64_t byte_size,
                                 hurray_plugin_allocation *result, hurray_error *err) {
  const opencl_device *d = &state->devices[device_index];
  cl_int rc = CL_SUCCESS;
  cl_mem_flags access = shared->memory.read_only == HURRAY_TRUE ? CL_MEM_READ_ONLY
                                                                : CL_MEM_READ_WRITE;
  cl_mem mem = state->cl.clCreateBuffer(d->context, access | CL_MEM_USE_HOST_PTR, (size_t)byte_size,
                                        shared->memory.address, &rc);
  if (mem == NULL) {
    return fail_cl(err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)", rc);
  }
  result->address = mem;
  result->plugin_data = shared;
  result->alignment = d->base_alignment;
  result->alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  return HURRAY_OK;
}

hurray_status opencl_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                              uint32_t alignment, hurray_memory_class memory_class, uint32_t flags,
                              hurray_plugin_allocation *out, hurray_error *err) {
  const opencl_state *state = opaque;
  const opencl_api *cl = &state->cl;
  if (device_index >= state->device_count || (flags & ~HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index,
                                     state->device_count, "opencl: device %u / flags 0x%X",
                                     (unsigned)device_index, (unsigned)flags);
  }
  const bool exportable = (flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u;
  if (exportable && memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_OPENCL,
        "opencl: only the standard class is exported (PL-IPC-6), not class 0x%02X",
        (unsigned)memory_class);
  }
  const opencl_device *d = &state->devices[device_index];
  if (byte_size > SIZE_MAX) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0, "opencl: size");
  }
  size_t size = (size_t)byte_size;
  hurray_plugin_allocation result;
  plugin_allocation_init(&result, byte_size, device_index, memory_class);
  cl_int rc = CL_SUCCESS;
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: {
      if (alignment > d->base_alignment) {
        return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, d->base_alignment,
                                         "opencl: %s guarantees base alignment %u, %u requested",
                                         d->info.name, (unsigned)d->base_alignment,
                                         (unsigned)alignment);
      }
      if (exportable) {
        opencl_shared *shared = calloc(1, sizeof *shared);
        if (shared == NULL) {
          return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *shared, 0,
                                           "opencl: shared");
        }
        /* PoCL uses a host pointer in place from 128-byte alignment on; a page
         * is more. */
        hurray_status status =
            hurray_support_shared_create("opencl", byte_size, alignment, &shared->memory, err);
        if (status == HURRAY_OK) {
          status = wrap_shared(state, device_index, shared, byte_size, &result, err);
          if (status != HURRAY_OK) {
            hurray_support_shared_release(&shared->memory);
          }
        }
        if (status != HURRAY_OK) {
          free(shared);
          return status;
        }
        break;
      }
      cl_mem mem = cl->clCreateBuffer(d->context, CL_MEM_READ_WRITE, size, NULL, &rc);
      if (mem == NULL) {
        return fail_cl(err, "clCreateBuffer", rc);
      }
      result.address = mem;
      result.alignment = d->base_alignment;
      result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
      break;
    }
    case HURRAY_MEMORY_HOST_PINNED: {
      cl_mem mem = cl->clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size,
                                      NULL, &rc);
      if (mem == NULL) {
        return fail_cl(err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", rc);
      }
      void *host = cl->clEnqueueMapBuffer(d->queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                          size, 0, NULL, NULL, &rc);
      if (host == NULL) {
        cl->clReleaseMemObject(mem);
        return fail_cl(err, "clEnqueueMapBuffer", rc);
      }
      uint32_t measured =
          hurray_support_alignment_capped((uintptr_t)host, HURRAY_PLUGIN_MAX_ALIGNMENT);
      if (measured < alignment) {
        cl->clEnqueueUnmapMemObject(d->queue, mem, host, 0, NULL, NULL);
        cl->clFinish(d->queue);
        cl->clReleaseMemObject(mem);
        return hurray_support_entry_fail(
            err, HURRAY_ERR_UNSUPPORTED, alignment, measured,
            "opencl: mapped host pointer %p is aligned to %u, %u requested", host,
            (unsigned)measured, (unsigned)alignment);
      }
      result.address = host;
      result.host_address = host;
      result.plugin_data = mem;
      result.alignment = measured;
      result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
      break;
    }
    case HURRAY_MEMORY_UNIFIED: {
      if (!d->fine_grain_svm) {
        return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class,
                                         HURRAY_DEVICE_OPENCL,
                                         "opencl: %s has no fine-grained buffer SVM", d->info.name);
      }
      if (alignment > d->svm_alignment) {
        return hurray_support_entry_fail(
            err, HURRAY_ERR_UNSUPPORTED, alignment, d->svm_alignment,
            "opencl: clSVMAlloc aligns to at most %u on %s, %u requested",
            (unsigned)d->svm_alignment, d->info.name, (unsigned)alignment);
      }
      void *svm = cl->clSVMAlloc(d->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size,
                                 alignment);
      if (svm == NULL) {
        return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                         "opencl: clSVMAlloc(%zu, %u) returned NULL", size,
                                         (unsigned)alignment);
      }
      result.address = svm;
      result.host_address = svm;
      result.device_address = (uint64_t)(uintptr_t)svm;
      result.alignment =
          hurray_support_alignment_capped((uintptr_t)svm, HURRAY_PLUGIN_MAX_ALIGNMENT);
      result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
      break;
    }
    default:
      return hurray_support_entry_fail(
          err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_OPENCL,
          "opencl: memory class 0x%02X is not offered", (unsigned)memory_class);
  }
  hurray_plugin_copy_out(out, &result, sizeof result);
  return HURRAY_OK;
}

void opencl_free(void *opaque, const hurray_plugin_allocation *allocation) {
  const opencl_state *state = opaque;
  const opencl_api *cl = &state->cl;
  const opencl_device *d = &state->devices[allocation->device_index];
  switch (allocation->memory_class) {
    case HURRAY_MEMORY_HOST_PINNED:
      cl->clEnqueueUnmapMemObject(d->queue, allocation->plugin_data, allocation->address, 0, NULL,
                                  NULL);
      cl->clFinish(d->queue);
      cl->clReleaseMemObject(allocation->plugin_data);
      break;
    case HURRAY_MEMORY_UNIFIED:
      /* clSVMFree does not wait for commands using the memory: finish first. */
      cl->clFinish(d->queue);
      cl->clSVMFree(d->context, allocation->address);
      break;
    default:
      if (allocation->plugin_data != NULL) { /* PL-IPC-4: our cl_mem and mapping only */
        opencl_shared *shared = allocation->plugin_data;
        cl->clFinish(d->queue); /* nothing may still use the host pointer */
        cl->clReleaseMemObject(allocation->address);
        hurray_support_shared_release(&shared->memory);
        free(shared);
        break;
      }
      cl->clReleaseMemObject(allocation->address);
      break;
  }
}

/* PL-IPC-2: the segment's descriptor, for a buffer allocated exportable. */
hurray_status opencl_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                   hurray_plugin_ipc_memory *out, hurray_error *err) {
  (void)opaque;
  if (allocation->memory_class != HURRAY_MEMORY_STANDARD || allocation->plugin_data == NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, allocation->memory_class, HURRAY_DEVICE_OPENCL,
        "opencl: allocate the buffer with HURRAY_PLUGIN_ALLOCATE_EXPORTABLE in "
        "the standard class to share it (PL-IPC-1)");
  }
  const opencl_shared *shared = allocation->plugin_data;
  return hurray_support_shared_export("opencl", &shared->memory, out, err);
}

/* PL-IPC-3: maps the segment and wraps it in a cl_mem of this process. */
hurray_status opencl_import_memory(void *opaque, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *in,
                                   hurray_plugin_allocation *out, hurray_error *err) {
  const opencl_state *state = opaque;
  hurray_status status =
      hurray_support_check_device("opencl", device_index, state->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (in->memory_class != HURRAY_MEMORY_STANDARD) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, in->memory_class,
                                     HURRAY_DEVICE_OPENCL,
                                     "opencl: only standard buffers are imported (PL-IPC-6)");
  }
  opencl_shared *shared = calloc(1, sizeof *shared);
  if (shared == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *shared, 0,
                                     "opencl: shared");
  }
  status = hurray_support_shared_import("opencl", in, &shared->memory, err);
  if (status != HURRAY_OK) {
    free(shared);
    return status;
  }
  hurray_plugin_allocation result;
  plugin_allocation_init(&result, in->byte_size, device_index, HURRAY_MEMORY_STANDARD);
  status = wrap_shared(state, device_index, shared, in->byte_size, &result, err);
  if (status != HURRAY_OK) {
    hurray_support_shared_release(&shared->memory);
    free(shared);
    return status;
  }
  hurray_plugin_copy_out(out, &result, sizeof result);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */
/* Blocking (CL_TRUE): the bytes are in place when the call returns. Mapped
 * host_pinned memory is host memory while mapped: a plain memcpy. */

hurray_status opencl_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
                                    uint64_t dst_offset, const void *src, uint64_t bytes,
                                    hurray_error *err) {
  const opencl_state *state = opaque;
  const opencl_device *d = &state->devices[dst->device_index];
  cl_int rc;
  switch (dst->memory_class) {
    case HURRAY_MEMORY_HOST_PINNED:
      memcpy((unsigned char *)dst->host_address + dst_offset, src, (size_t)bytes);
      return HURRAY_OK;
    case HURRAY_MEMORY_UNIFIED:
      rc = state->cl.clEnqueueSVMMemcpy(d->queue, CL_TRUE,
                                        (unsigned char *)dst->address + dst_offset, src,
                                        (size_t)bytes, 0, NULL, NULL);
      return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clEnqueueSVMMemcpy", rc);
    default:
      if (dst->plugin_data != NULL &&
          ((const opencl_shared *)dst->plugin_data)->memory.read_only == HURRAY_TRUE) {
        return hurray_support_entry_fail(
            err, HURRAY_ERR_INVALID_ARGUMENT, bytes, 0,
            "opencl: read-only import: its writer sealed the segment against "
            "writes (PL-IPC-4)");
      }
      rc = state->cl.clEnqueueWriteBuffer(d->queue, dst->address, CL_TRUE, (size_t)dst_offset,
                                          (size_t)bytes, src, 0, NULL, NULL);
      return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clEnqueueWriteBuffer", rc);
  }
}

hurray_status opencl_copy_to_host(void *opaque, void *dst, const hurray_plugin_allocation *src,
                                  uint64_t src_offset, uint64_t bytes, hurray_error *err) {
  const opencl_state *state = opaque;
  const opencl_device *d = &state->devices[src->device_index];
  cl_int rc;
  switch (src->memory_class) {
    case HURRAY_MEMORY_HOST_PINNED:
      memcpy(dst, (const unsigned char *)src->host_address + src_offset, (size_t)bytes);
      return HURRAY_OK;
    case HURRAY_MEMORY_UNIFIED:
      rc = state->cl.clEnqueueSVMMemcpy(d->queue, CL_TRUE, dst,
                                        (const unsigned char *)src->address + src_offset,
                                        (size_t)bytes, 0, NULL, NULL);
      return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clEnqueueSVMMemcpy", rc);
    default:
      rc = state->cl.clEnqueueReadBuffer(d->queue, src->address, CL_TRUE, (size_t)src_offset,
                                         (size_t)bytes, dst, 0, NULL, NULL);
      return rc == CL_SUCCESS ? HURRAY_OK : fail_cl(err, "clEnqueueReadBuffer", rc);
  }
}
