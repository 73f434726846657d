/*
 * DLPack interop (include/hurray/dlpack.h): accepted buffers exported as
 * DLPack tensors, DLPack tensors imported into handoff offers. The rules are
 * BP-DLPACK-3..14 of specs/buffer-protocol.md; the device mapping is the
 * proven core's (core/proven/dlpack.c, BP-DLPACK-1..2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/dlpack.h"

#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_internal.h"
#include "hurray/plugin_support.h"

/* Fills err with a detail saying which field is wrong and why; returns status. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
static hurray_status
fail_detail(hurray_error *err, hurray_status status, uint64_t value, uint64_t expected,
            size_t index, const char *format, ...) {
  va_list args;
  va_start(args, format);
  hurray_status result = hurray_support_vfail(err, status, value, expected, index, format, args);
  va_end(args);
  return result;
}

/* Adds a detail to an error another function filled, unless it has one. */
static void add_detail(hurray_error *err, const char *text) {
  if (err != NULL && err->detail[0] == '\0') {
    snprintf(err->detail, sizeof err->detail, "%s", text); /* PL-ERR-1: not a fill */
  }
}

/* A negative int64 in a u64 error field, as the two's complement value. */
static uint64_t as_u64(int64_t v) { return (uint64_t)v; }

/* ------------------------------------------------------------------------ */
/* Shapes, dtypes and sizes (BP-DLPACK-7, BP-DLPACK-10)                     */
/* ------------------------------------------------------------------------ */

/* The element size in bytes of a dtype; refuses 0 bits, 0 lanes and
 * elements that are not whole bytes. `what` names the caller's field. */
static hurray_status element_bytes(hurray_dl_data_type dtype, size_t index, const char *what,
                                   uint64_t *out, hurray_error *err) {
  const uint64_t bits = (uint64_t)dtype.bits * dtype.lanes;
  if (dtype.bits == 0u || dtype.lanes == 0u || bits % 8u != 0u) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, bits, 0, index,
                       "%s dtype (code %u, bits %u, lanes %u): bits x lanes = %" PRIu64
                       " is not a positive multiple of 8",
                       what, (unsigned)dtype.code, (unsigned)dtype.bits, (unsigned)dtype.lanes,
                       bits);
  }
  *out = bits / 8u;
  return HURRAY_OK;
}

static hurray_status check_ndim(int32_t ndim, const int64_t *shape, size_t index, const char *what,
                                hurray_error *err) {
  if (ndim < 0 || ndim > HURRAY_DLPACK_MAX_NDIM) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, as_u64(ndim),
                       (uint64_t)HURRAY_DLPACK_MAX_NDIM, index,
                       "%s ndim is %" PRId32 ", must be 0..%d", what, ndim, HURRAY_DLPACK_MAX_NDIM);
  }
  if (ndim > 0 && shape == NULL) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0, index,
                       "%s shape is NULL with ndim %" PRId32, what, ndim);
  }
  return HURRAY_OK;
}

/* Element count of a shape (extents checked >= 0; any extent 0 makes it 0),
 * refusing a product that overflows 64 bits. */
static hurray_status element_count(int32_t ndim, const int64_t *shape, size_t index,
                                   const char *what, uint64_t *out, hurray_error *err) {
  bool empty = false;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, as_u64(shape[i]), 0, index,
                         "%s shape[%" PRId32 "] is %" PRId64 ", extents must be >= 0", what, i,
                         shape[i]);
    }
    empty = empty || shape[i] == 0;
  }
  if (empty) {
    *out = 0u;
    return HURRAY_OK;
  }
  uint64_t count = 1u;
  for (int32_t i = 0; i < ndim; i++) {
    const uint64_t extent = (uint64_t)shape[i];
    if (count > UINT64_MAX / extent) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, extent, 0, index,
                         "%s shape[%" PRId32 "] = %" PRId64 ": the element count overflows 64 bits",
                         what, i, shape[i]);
    }
    count *= extent;
  }
  *out = count;
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* Export (BP-DLPACK-4..8)                                                  */
/* ------------------------------------------------------------------------ */

/* What an export allocates: the DLPack tensor at the start (the deleter's
 * argument), what its deleter releases, then shape and strides. */
typedef struct export_block {
  union {
    hurray_dl_managed_tensor legacy;
    hurray_dl_managed_tensor_versioned versioned;
  } tensor;
  hurray_buffer_release_fn release;
  void *release_ctx;
  void *data;
  int64_t dims[]; /* shape[ndim], then strides[ndim] */
} export_block;

/* The DLPack tensor's deleter: the buffer's one release, then the block
 * (BP-DLPACK-5). */
static void release_export_block(export_block *block) {
  block->release(block->data, block->release_ctx);
  free(block);
}

static void delete_legacy_export(hurray_dl_managed_tensor *self) {
  if (self != NULL) {
    release_export_block((export_block *)self->manager_ctx);
  }
}

static void delete_versioned_export(hurray_dl_managed_tensor_versioned *self) {
  if (self != NULL) {
    release_export_block((export_block *)self->manager_ctx);
  }
}

/* A layout resolved for one buffer: dtype, ndim, shape and strides as the
 * DLPack tensor will carry them. */
typedef struct resolved_layout {
  hurray_dl_data_type dtype;
  int32_t ndim;
  int32_t device_id;
  int64_t shape[HURRAY_DLPACK_MAX_NDIM];
  int64_t strides[HURRAY_DLPACK_MAX_NDIM];
} resolved_layout;

/* BP-DLPACK-6, BP-DLPACK-7: checks the caller's layout against byte_size and
 * resolves it (the default one when layout is NULL). */
static hurray_status resolve_layout(const hurray_dlpack_layout *layout, uint64_t byte_size,
                                    size_t index, resolved_layout *out, hurray_error *err) {
  static const char what[] = "dlpack layout:";
  if (layout == NULL) {
    if (byte_size > (uint64_t)INT64_MAX) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, byte_size, (uint64_t)INT64_MAX, index,
                         "%s byte_size %" PRIu64 " does not fit a DLPack extent (int64)", what,
                         byte_size);
    }
    out->dtype = hurray_dl_data_type_of(HURRAY_DL_UINT, 8u, 1u);
    out->ndim = 1;
    out->device_id = 0;
    out->shape[0] = (int64_t)byte_size;
    out->strides[0] = 1;
    return HURRAY_OK;
  }
  if (layout->struct_size < sizeof(hurray_dlpack_layout)) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, layout->struct_size,
                       sizeof(hurray_dlpack_layout), index,
                       "%s struct_size %" PRIu32 " is smaller than this version's %zu bytes", what,
                       layout->struct_size, sizeof(hurray_dlpack_layout));
  }
  uint64_t elem = 0u;
  hurray_status status = element_bytes(layout->dtype, index, what, &elem, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = check_ndim(layout->ndim, layout->shape, index, what, err);
  if (status != HURRAY_OK) {
    return status;
  }
  uint64_t count = 0u;
  status = element_count(layout->ndim, layout->shape, index, what, &count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const int32_t ndim = layout->ndim;
  uint64_t needed = 0u;
  if (layout->strides == NULL) {
    if (count > UINT64_MAX / elem) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, count, byte_size, index,
                         "%s %" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits", what,
                         count, elem);
    }
    needed = count * elem;
    if (needed != byte_size) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, needed, byte_size, index,
                         "%s %" PRIu64 " elements of %" PRIu64 " bytes cover %" PRIu64
                         " bytes, the buffer has %" PRIu64,
                         what, count, elem, needed, byte_size);
    }
    /* The compact strides, filled: current DLPack forbids NULL strides for ndim > 0. */
    uint64_t running = 1u;
    for (int32_t i = ndim - 1; i >= 0; i--) {
      if (running > (uint64_t)INT64_MAX) {
        return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, running, (uint64_t)INT64_MAX, index,
                           "%s the compact stride of dimension %" PRId32 " overflows int64", what,
                           i);
      }
      out->strides[i] = (int64_t)running;
      const uint64_t extent = (uint64_t)layout->shape[i];
      if (extent != 0u && running > UINT64_MAX / extent) {
        running = UINT64_MAX; /* reported only if an earlier dimension needs it */
      } else {
        running = extent == 0u ? running : running * extent;
      }
    }
  } else {
    uint64_t last = 0u; /* index of the furthest element, in elements */
    for (int32_t i = 0; i < ndim; i++) {
      const int64_t stride = layout->strides[i];
      if (stride < 0) {
        return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, as_u64(stride), 0, index,
                           "%s strides[%" PRId32 "] is %" PRId64 ", strides must be >= 0", what, i,
                           stride);
      }
      out->strides[i] = stride;
      if (count == 0u) {
        continue;
      }
      const uint64_t span = (uint64_t)layout->shape[i] - 1u;
      if (stride != 0 && span > (UINT64_MAX - last) / (uint64_t)stride) {
        return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, as_u64(stride), byte_size, index,
                           "%s strides[%" PRId32 "] = %" PRId64
                           ": the extent of the layout overflows 64 bits",
                           what, i, stride);
      }
      last += span * (uint64_t)stride;
    }
    if (count != 0u) {
      if (last >= UINT64_MAX / elem) {
        return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, last, byte_size, index,
                           "%s the furthest element (%" PRIu64 ") times %" PRIu64
                           " bytes overflows 64 bits",
                           what, last, elem);
      }
      needed = (last + 1u) * elem;
    }
    if (needed > byte_size) {
      return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, needed, byte_size, index,
                         "%s the strided layout reaches %" PRIu64 " bytes, the buffer has %" PRIu64,
                         what, needed, byte_size);
    }
  }
  out->dtype = layout->dtype;
  out->ndim = ndim;
  out->device_id = layout->device_id;
  if (ndim > 0) {
    memcpy(out->shape, layout->shape, (size_t)ndim * sizeof out->shape[0]);
  }
  return HURRAY_OK;
}

hurray_status hurray_dlpack_layout_check(const hurray_dlpack_layout *layout, uint64_t byte_size,
                                         hurray_error *err) {
  resolved_layout resolved;
  return resolve_layout(layout, byte_size, 0, &resolved, err);
}

#define EXPORT_FLAGS_ALLOWED (HURRAY_DLPACK_FLAG_READ_ONLY | HURRAY_DLPACK_FLAG_IS_COPIED)

static hurray_status check_export_flags(uint64_t flags, size_t index, hurray_error *err) {
  if ((flags & ~EXPORT_FLAGS_ALLOWED) != 0u) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, EXPORT_FLAGS_ALLOWED, index,
                       "dlpack export: flags 0x%" PRIx64
                       " hold bits other than read-only (0x1) and is-copied (0x2)",
                       flags);
  }
  return HURRAY_OK;
}

/* Everything an export does before it takes the buffer's release duty:
 * device mapping, layout, allocation and the tensor's fields. On success the
 * caller either publishes the block or frees it; no release has run. */
static hurray_status build_export(const handoff_owned_buffer *owned,
                                  const hurray_dlpack_layout *layout, size_t layout_index,
                                  bool versioned, uint64_t flags, export_block **out,
                                  hurray_error *err) {
  int32_t device_type = 0;
  hurray_status status = hurray_dlpack_device_type_from_pair(
      owned->handle.device_tag, owned->handle.memory_class, &device_type, err);
  if (status != HURRAY_OK) { /* BP-DLPACK-1: never a guess */
    char tag[32];
    char memory_class[32];
    hurray_device_tag_display(owned->handle.device_tag, tag, sizeof tag);
    hurray_memory_class_display(owned->handle.memory_class, memory_class, sizeof memory_class);
    return fail_detail(err, status, owned->handle.memory_class, owned->handle.device_tag, 0,
                       "dlpack export: DLPack has no device type for %s memory on %s", memory_class,
                       tag);
  }
  resolved_layout resolved;
  status = resolve_layout(layout, owned->handle.byte_size, layout_index, &resolved, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const size_t dims = 2u * (size_t)resolved.ndim;
  const size_t bytes = sizeof(export_block) + dims * sizeof(int64_t);
  export_block *block = malloc(bytes);
  if (block == NULL) {
    return fail_detail(err, HURRAY_ERR_OUT_OF_MEMORY, bytes, 0, 0,
                       "dlpack export: the DLPack tensor");
  }
  memset(block, 0, bytes);
  block->release = owned->release;
  block->release_ctx = owned->release_ctx;
  block->data = owned->data;
  int64_t *shape = block->dims;
  int64_t *strides = block->dims + resolved.ndim;
  if (resolved.ndim > 0) {
    memcpy(shape, resolved.shape, (size_t)resolved.ndim * sizeof *shape);
    memcpy(strides, resolved.strides, (size_t)resolved.ndim * sizeof *strides);
  }
  hurray_dl_tensor *t = versioned ? &block->tensor.versioned.dl_tensor
                                  : &block->tensor.legacy.dl_tensor;
  t->data = owned->data;
  t->device.device_type = device_type;
  t->device.device_id = resolved.device_id;
  t->ndim = resolved.ndim;
  t->dtype = resolved.dtype;
  t->shape = shape;
  t->strides = strides;
  t->byte_offset = 0u;
  if (versioned) {
    block->tensor.versioned.version.major = HURRAY_DLPACK_VERSION_MAJOR;
    block->tensor.versioned.version.minor = HURRAY_DLPACK_VERSION_MINOR;
    block->tensor.versioned.manager_ctx = block;
    block->tensor.versioned.deleter = delete_versioned_export;
    block->tensor.versioned.flags = flags;
  } else {
    block->tensor.legacy.manager_ctx = block;
    block->tensor.legacy.deleter = delete_legacy_export;
  }
  *out = block;
  return HURRAY_OK;
}

/* What to do first when a handoff cannot be exported in `state` (BP-DLPACK-4). */
static const char *export_advice(uint32_t state) {
  switch (state) {
    case HURRAY_HANDOFF_EMPTY:
    case HURRAY_HANDOFF_OFFERED:
      return "dlpack export: only an accepted buffer can be exported (hurray_handoff_accept)";
    case HURRAY_HANDOFF_EVENT_PENDING:
      return "dlpack export: an event buffer is not readable yet: wait on its event "
             "(hurray_handoff_record_event_wait) and release the event first";
    case HURRAY_HANDOFF_EVENT_WAITED:
      return "dlpack export: release the event first (hurray_handoff_release_event): a DLPack "
             "tensor cannot carry it";
    case HURRAY_HANDOFF_EVENT_DROPPED:
      return "dlpack export: the event was released without a wait: the buffer is never "
             "readable";
    case HURRAY_HANDOFF_STREAM_BOUND:
      return "dlpack export: a consumer_stream buffer is readable on its stream only until an "
             "inter-stream wait is recorded (hurray_handoff_record_stream_wait)";
    default: return "dlpack export: the handoff holds no buffer to export";
  }
}

static hurray_status export_from_handoff(hurray_handoff *handoff,
                                         const hurray_dlpack_layout *layout, bool versioned,
                                         uint64_t flags, export_block **out, hurray_error *err) {
  handoff_owned_buffer owned;
  hurray_status status = hurray_internal_handoff_transfer_peek(handoff, &owned, err);
  if (status != HURRAY_OK) {
    if (status == HURRAY_ERR_ILLEGAL_TRANSITION || status == HURRAY_ERR_ALREADY_RELEASED) {
      add_detail(err, export_advice(hurray_handoff_state_of(handoff)));
    }
    return status;
  }
  export_block *block = NULL;
  status = build_export(&owned, layout, 1, versioned, flags, &block, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* The one step that cannot be undone comes last (BP-DLPACK-5). */
  status = hurray_internal_handoff_transfer_commit(handoff, err);
  if (status != HURRAY_OK) {
    free(block); /* another thread released it first; nothing was ours */
    return status;
  }
  *out = block;
  return HURRAY_OK;
}

hurray_status hurray_dlpack_export(hurray_handoff *handoff, const hurray_dlpack_layout *layout,
                                   hurray_dl_managed_tensor **out, hurray_error *err) {
  if (handoff == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "dlpack export: handoff");
  }
  if (out == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2, "dlpack export: out");
  }
  export_block *block = NULL;
  hurray_status status = export_from_handoff(handoff, layout, false, 0u, &block, err);
  if (status == HURRAY_OK) {
    *out = &block->tensor.legacy;
  }
  return status;
}

hurray_status hurray_dlpack_export_versioned(hurray_handoff *handoff,
                                             const hurray_dlpack_layout *layout, uint64_t flags,
                                             hurray_dl_managed_tensor_versioned **out,
                                             hurray_error *err) {
  if (handoff == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "dlpack export: handoff");
  }
  if (out == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3, "dlpack export: out");
  }
  hurray_status status = check_export_flags(flags, 2, err);
  if (status != HURRAY_OK) {
    return status;
  }
  export_block *block = NULL;
  status = export_from_handoff(handoff, layout, true, flags, &block, err);
  if (status == HURRAY_OK) {
    *out = &block->tensor.versioned;
  }
  return status;
}

/* BP-DLPACK-4: a buffer outside a handoff is exported only when
 * producer_synced, since nothing records a wait for it. */
static hurray_status check_owned_buffer(const hurray_buffer_handle *handle, void *data,
                                        hurray_buffer_release_fn release, void *release_ctx,
                                        handoff_owned_buffer *out, hurray_error *err) {
  if (handle == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "dlpack export: handle");
  }
  if (release == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2, "dlpack export: release");
  }
  hurray_status status = hurray_buffer_handle_validate(handle, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (handle->sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
    return fail_detail(err, HURRAY_ERR_INVALID_SYNC_MODE, handle->sync_mode,
                       HURRAY_SYNC_PRODUCER_SYNCED, 0,
                       "dlpack export: a %s buffer outside a handoff cannot record a wait; "
                       "export it through its handoff once readable",
                       hurray_sync_mode_name(handle->sync_mode));
  }
  if (data == NULL && handle->byte_size != 0u) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1,
                       "dlpack export: data is NULL for a buffer of %" PRIu64 " bytes",
                       handle->byte_size);
  }
  out->handle = *handle;
  out->data = data;
  out->release = release;
  out->release_ctx = release_ctx;
  return HURRAY_OK;
}

hurray_status hurray_dlpack_export_buffer(const hurray_buffer_handle *handle, void *data,
                                          hurray_buffer_release_fn release, void *release_ctx,
                                          const hurray_dlpack_layout *layout,
                                          hurray_dl_managed_tensor **out, hurray_error *err) {
  handoff_owned_buffer owned;
  hurray_status status = check_owned_buffer(handle, data, release, release_ctx, &owned, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (out == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 5, "dlpack export: out");
  }
  export_block *block = NULL;
  status = build_export(&owned, layout, 4, false, 0u, &block, err);
  if (status == HURRAY_OK) {
    *out = &block->tensor.legacy;
  }
  return status;
}

hurray_status hurray_dlpack_export_buffer_versioned(
    const hurray_buffer_handle *handle, void *data, hurray_buffer_release_fn release,
    void *release_ctx, const hurray_dlpack_layout *layout, uint64_t flags,
    hurray_dl_managed_tensor_versioned **out, hurray_error *err) {
  handoff_owned_buffer owned;
  hurray_status status = check_owned_buffer(handle, data, release, release_ctx, &owned, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (out == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 6, "dlpack export: out");
  }
  status = check_export_flags(flags, 5, err);
  if (status != HURRAY_OK) {
    return status;
  }
  export_block *block = NULL;
  status = build_export(&owned, layout, 4, true, flags, &block, err);
  if (status == HURRAY_OK) {
    *out = &block->tensor.versioned;
  }
  return status;
}

/* ------------------------------------------------------------------------ */
/* Import (BP-DLPACK-9..14)                                                 */
/* ------------------------------------------------------------------------ */

/* The offer's buffer-release functions: the DLPack producer's deleter, once
 * (the handoff calls a release function at most once, HO-SM-5). */
static void release_legacy_import(void *buffer, void *ctx) {
  (void)buffer;
  hurray_dl_managed_tensor *tensor = ctx;
  if (tensor->deleter != NULL) {
    tensor->deleter(tensor);
  }
}

static void release_versioned_import(void *buffer, void *ctx) {
  (void)buffer;
  hurray_dl_managed_tensor_versioned *tensor = ctx;
  if (tensor->deleter != NULL) {
    tensor->deleter(tensor);
  }
}

/* BP-DLPACK-9: data is an object handle, not an address, on these. */
static bool data_is_object_handle(int32_t device_type) {
  return device_type == HURRAY_DLPACK_OPENCL || device_type == HURRAY_DLPACK_VULKAN ||
         device_type == HURRAY_DLPACK_METAL || device_type == HURRAY_DLPACK_WEBGPU;
}

/* Builds the handle and the data pointer for a DLTensor (BP-DLPACK-9..12). */
static hurray_status handle_of_tensor(const hurray_dl_tensor *t, hurray_buffer_handle *out_handle,
                                      void **out_data, hurray_error *err) {
  static const char what[] = "dlpack import:";
  const int32_t device_type = t->device.device_type;
  hurray_device_tag tag = HURRAY_DEVICE_INVALID;
  hurray_memory_class memory_class = HURRAY_MEMORY_INVALID;
  hurray_status status = hurray_dlpack_device_type_to_pair(device_type, &tag, &memory_class, err);
  if (status != HURRAY_OK) {
    return fail_detail(err, status, as_u64(device_type), 0, 0,
                       "%s DLPack device type %" PRId32 " has no Hurray device", what, device_type);
  }
  if (data_is_object_handle(device_type)) {
    return fail_detail(err, HURRAY_ERR_UNSUPPORTED, as_u64(device_type), 0, 0,
                       "%s DLPack device type %" PRId32
                       " (%s) carries an object handle, not an "
                       "address: its alignment cannot be measured",
                       what, device_type, hurray_device_tag_name(tag));
  }
  uint64_t elem = 0u;
  status = element_bytes(t->dtype, 1, what, &elem, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = check_ndim(t->ndim, t->shape, 1, what, err);
  if (status != HURRAY_OK) {
    return status;
  }
  uint64_t count = 0u;
  status = element_count(t->ndim, t->shape, 1, what, &count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (count > UINT64_MAX / elem) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, count, 0, 1,
                       "%s %" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits", what, count,
                       elem);
  }
  const uint64_t byte_size = count * elem;
  if (t->strides != NULL && count != 0u) {
    uint64_t compact = 1u; /* stays below 2^63 where compared: see BP-DLPACK-10 */
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
      const uint64_t extent = (uint64_t)t->shape[i];
      if (extent > 1u && (t->strides[i] < 0 || (uint64_t)t->strides[i] != compact)) {
        return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, as_u64(t->strides[i]), compact, 1,
                           "%s strides[%" PRId32 "] is %" PRId64
                           ", a compact row-major tensor "
                           "has %" PRIu64 " there: dimension %" PRId32
                           " is not contiguous (copy the tensor first)",
                           what, i, t->strides[i], compact, i);
      }
      compact *= extent; /* no overflow: the product of all extents fits (count) */
    }
  }
  const uintptr_t base = (uintptr_t)t->data;
  if (t->byte_offset > (uint64_t)(UINTPTR_MAX - base)) {
    return fail_detail(err, HURRAY_ERR_INVALID_ARGUMENT, t->byte_offset, 0, 1,
                       "%s data + byte_offset (%" PRIu64 ") is beyond the address space", what,
                       t->byte_offset);
  }
  if (t->data == NULL && byte_size != 0u) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1,
                       "%s data is NULL for a tensor of %" PRIu64 " bytes", what, byte_size);
  }
  void *first = (void *)(base + (uintptr_t)t->byte_offset);
  const uint32_t alignment = hurray_alignment_of(first); /* BP-ALIGN-5, BP-DLPACK-11 */
  if (byte_size != 0u && alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    return fail_detail(err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment,
                       HURRAY_MIN_BUFFER_ALIGNMENT, 0,
                       "%s data + byte_offset = %p is %" PRIu32
                       "-byte aligned; copy it to 64-byte aligned memory first",
                       what, first, alignment);
  }
  status = hurray_buffer_handle_with_memory_class(
      byte_size, alignment, tag, HURRAY_SYNC_PRODUCER_SYNCED, memory_class, out_handle, err);
  if (status != HURRAY_OK) {
    return status;
  }
  *out_data = first;
  return HURRAY_OK;
}

static hurray_status offer_tensor(hurray_handoff *handoff, const hurray_dl_tensor *t,
                                  hurray_buffer_release_fn release, void *tensor,
                                  hurray_error *err) {
  hurray_buffer_handle handle;
  void *data = NULL;
  hurray_status status = handle_of_tensor(t, &handle, &data, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(data, release, tensor, hurray_sync_payload_none());
  /* The last step and the only one that takes the tensor (BP-DLPACK-13). */
  status = hurray_handoff_offer(handoff, &handle, &offer, err);
  if (status != HURRAY_OK) {
    add_detail(err, "dlpack import: the handoff must be initialised and empty");
  }
  return status;
}

hurray_status hurray_dlpack_import(hurray_handoff *handoff, hurray_dl_managed_tensor *tensor,
                                   hurray_error *err) {
  if (handoff == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "dlpack import: handoff");
  }
  if (tensor == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, "dlpack import: tensor");
  }
  return offer_tensor(handoff, &tensor->dl_tensor, release_legacy_import, tensor, err);
}

hurray_status hurray_dlpack_import_versioned(hurray_handoff *handoff,
                                             hurray_dl_managed_tensor_versioned *tensor,
                                             uint64_t *out_flags, hurray_error *err) {
  if (handoff == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "dlpack import: handoff");
  }
  if (tensor == NULL) {
    return fail_detail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, "dlpack import: tensor");
  }
  /* BP-DLPACK-14: nothing after the deleter is read before the major is known. */
  if (tensor->version.major != HURRAY_DLPACK_VERSION_MAJOR) {
    return fail_detail(err, HURRAY_ERR_UNSUPPORTED, tensor->version.major,
                       HURRAY_DLPACK_VERSION_MAJOR, 0,
                       "dlpack import: DLPack version %" PRIu32 ".%" PRIu32
                       ", this library reads major version %u",
                       tensor->version.major, tensor->version.minor, HURRAY_DLPACK_VERSION_MAJOR);
  }
  const uint64_t flags = tensor->flags;
  hurray_status status =
      offer_tensor(handoff, &tensor->dl_tensor, release_versioned_import, tensor, err);
  if (status == HURRAY_OK && out_flags != NULL) {
    *out_flags = flags;
  }
  return status;
}
