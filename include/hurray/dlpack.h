/*
 * libhurray — DLPack interop: hand Hurray buffers to DLPack consumers
 * (NumPy, PyTorch, ...) and take DLPack tensors into a Hurray handoff.
 *
 * The rules are defined in specs/buffer-protocol.md, section 12 (BP-DLPACK-1
 * .. BP-DLPACK-14); comments here cite those IDs. The guide for C users, with
 * complete examples, is docs/dlpack.md.
 *
 * Why a header of our own (BP-DLPACK-3). The DLPack structs below are written
 * by us from the DLPack documentation (dlpack.h, versions 0.8 and 1.0/1.1).
 * We do not include a system <dlpack/dlpack.h>: Debian 12's libdlpack-dev is
 * DLPack 0.6, which lacks DLManagedTensorVersioned, DLPackVersion, the flags
 * and the device types kDLOneAPI, kDLWebGPU and kDLHexagon that the mapping
 * of BP-DLPACK-1 needs; and DLPack declares its enum-typed fields
 * (DLDevice.device_type) with C enum types, whose size depends on the
 * compiler (-fshort-enums), against this project's ABI rule.
 *
 * Names. Every name here is ours (hurray_dl_..., HURRAY_DL..., HURRAY_DLPACK_
 * ...), so this header can be included in the same translation unit as a
 * real dlpack.h without a clash. The layouts are DLPack's, field for field,
 * with fixed-width integers for the enum fields (int32_t device_type: DLPack's
 * enum is int-sized on every ABI it supports), so a pointer converts to the
 * DLPack type of the same name without copying:
 *     DLManagedTensor *t = (DLManagedTensor *)hurray_tensor;
 * The static assertions at the end of this header pin the standard DLPack
 * layout on LP64 (sizes and offsets, BP-DLPACK-3).
 *
 * Ownership in one paragraph (BP-DLPACK-5, BP-DLPACK-13). Export: a DLPack
 * consumer owns what an export function hands out and calls its deleter
 * exactly once; the deleter performs the Hurray buffer's release (the
 * producer's buffer-release function) and frees what the export allocated.
 * Import: the DLPack tensor passes to the handoff exactly when
 * hurray_dlpack_import[_versioned] returns HURRAY_OK; on any failure nothing
 * was taken and the caller still owns the tensor (and calls its deleter
 * itself). After a successful import, the consumer's hurray_handoff_release
 * calls the DLPack deleter exactly once; a producer that withdraws the offer
 * instead (hurray_handoff_withdraw) owns the tensor again.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_DLPACK_H
#define HURRAY_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/handoff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* DLPack constants                                                         */
/* ------------------------------------------------------------------------ */

/*
 * DLDeviceType values. Those the mapping uses (HURRAY_DLPACK_CPU, _CUDA,
 * _CUDA_HOST, _OPENCL, _VULKAN, _METAL, _ROCM, _ROCM_HOST, _CUDA_MANAGED,
 * _ONEAPI, _WEBGPU, _HEXAGON) are defined in hurray/buffer.h; these are the
 * other values of the DLPack enum, which have no Hurray equivalent.
 */
#define HURRAY_DLPACK_VPI 9
#define HURRAY_DLPACK_EXT_DEV 12

/* DLDataTypeCode values (DLDataType.code). */
#define HURRAY_DL_INT 0u
#define HURRAY_DL_UINT 1u
#define HURRAY_DL_FLOAT 2u
#define HURRAY_DL_OPAQUE_HANDLE 3u
#define HURRAY_DL_BFLOAT 4u
#define HURRAY_DL_COMPLEX 5u
#define HURRAY_DL_BOOL 6u

/* DLManagedTensorVersioned.flags bits. */
/** The consumer must not write the tensor's data. */
#define HURRAY_DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)
/** The data is a copy made by the producer, solely owned by the consumer. */
#define HURRAY_DLPACK_FLAG_IS_COPIED (UINT64_C(1) << 1)
/** A sub-byte dtype is padded rather than packed (DLPack 1.1). */
#define HURRAY_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

/** The DLPack version versioned exports declare (BP-DLPACK-8). */
#define HURRAY_DLPACK_VERSION_MAJOR 1u
#define HURRAY_DLPACK_VERSION_MINOR 0u

/** Most dimensions an export or import accepts (BP-DLPACK-7, BP-DLPACK-10). */
#define HURRAY_DLPACK_MAX_NDIM 64

/* ------------------------------------------------------------------------ */
/* DLPack structs (the DLPack ABI under our names, BP-DLPACK-3)             */
/* ------------------------------------------------------------------------ */

/** DLDevice: where the data lives. device_type is a DLDeviceType value. */
typedef struct hurray_dl_device {
  int32_t device_type;
  /** The device ordinal (0 for the CPU). */
  int32_t device_id;
} hurray_dl_device;

/** DLDataType: one element is `lanes` values of `bits` bits of kind `code`. */
typedef struct hurray_dl_data_type {
  /** A DLDataTypeCode value (HURRAY_DL_INT ...). */
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} hurray_dl_data_type;

/** DLTensor: a view of memory that it does not own. */
typedef struct hurray_dl_tensor {
  /** The base pointer: an address, or an object handle on some devices (cl_mem). */
  void *data;
  hurray_dl_device device;
  int32_t ndim;
  hurray_dl_data_type dtype;
  /** ndim extents. */
  int64_t *shape;
  /** ndim strides in elements; NULL means compact row-major. */
  int64_t *strides;
  /** Bytes from data to the first element. */
  uint64_t byte_offset;
} hurray_dl_tensor;

/** DLManagedTensor (DLPack 0.x, what NumPy 1.24 and PyTorch 1.13 speak). */
typedef struct hurray_dl_managed_tensor {
  hurray_dl_tensor dl_tensor;
  /** The producer's context. */
  void *manager_ctx;
  /** Frees everything, `self` included; called once by the consumer. May be NULL. */
  void (*deleter)(struct hurray_dl_managed_tensor *self);
} hurray_dl_managed_tensor;

/** DLPackVersion. */
typedef struct hurray_dl_pack_version {
  uint32_t major;
  uint32_t minor;
} hurray_dl_pack_version;

/**
 * DLManagedTensorVersioned (DLPack 1.x). Everything up to and including
 * `flags` keeps its place in every 1.x version; a consumer reads nothing
 * after `deleter` before checking version.major.
 */
typedef struct hurray_dl_managed_tensor_versioned {
  hurray_dl_pack_version version;
  void *manager_ctx;
  void (*deleter)(struct hurray_dl_managed_tensor_versioned *self);
  /** HURRAY_DLPACK_FLAG_* bits. */
  uint64_t flags;
  hurray_dl_tensor dl_tensor;
} hurray_dl_managed_tensor_versioned;

/* ------------------------------------------------------------------------ */
/* Export: an accepted buffer as a DLPack tensor                            */
/* ------------------------------------------------------------------------ */

/**
 * How an export presents the buffer's bytes (BP-DLPACK-6, BP-DLPACK-7).
 * Filled by the caller, read only during the call (shape and strides are
 * copied). struct_size is sizeof(hurray_dlpack_layout) as the caller
 * compiled it; fields appended later are read only when struct_size covers
 * them. Build it with hurray_dlpack_layout_of().
 */
typedef struct hurray_dlpack_layout {
  uint32_t struct_size;
  hurray_dl_data_type dtype;
  /** 0 .. HURRAY_DLPACK_MAX_NDIM. */
  int32_t ndim;
  /** The DLDevice.device_id to declare (the ordinal of a CUDA device, ...). */
  int32_t device_id;
  /** ndim extents, each >= 0 (may be NULL when ndim is 0). */
  const int64_t *shape;
  /** NULL: compact row-major; else ndim strides in elements, each >= 0. */
  const int64_t *strides;
} hurray_dlpack_layout;

/** A layout with struct_size set. */
static inline hurray_dlpack_layout hurray_dlpack_layout_of(hurray_dl_data_type dtype, int32_t ndim,
                                                           const int64_t *shape,
                                                           const int64_t *strides,
                                                           int32_t device_id) {
  hurray_dlpack_layout layout = {
      (uint32_t)sizeof(hurray_dlpack_layout), dtype, ndim, device_id, shape, strides};
  return layout;
}

/** A DLDataType value. */
static inline hurray_dl_data_type hurray_dl_data_type_of(uint8_t code, uint8_t bits,
                                                         uint16_t lanes) {
  hurray_dl_data_type dtype = {code, bits, lanes};
  return dtype;
}

/**
 * Checks a layout against a buffer of `byte_size` bytes without exporting
 * anything (BP-DLPACK-6, BP-DLPACK-7), the check every export performs.
 * NULL layout: 1-D uint8 of byte_size (refused only when byte_size exceeds
 * INT64_MAX). Refusals (all HURRAY_ERR_INVALID_ARGUMENT, index: the layout's
 * argument position, 0 here, 1 in hurray_dlpack_export[_versioned], 4 in
 * hurray_dlpack_export_buffer[_versioned]; detail naming the field and value):
 * struct_size too small; ndim outside 0..HURRAY_DLPACK_MAX_NDIM; NULL shape
 * with ndim > 0; a negative extent or stride (value: it); lanes 0 or bits 0,
 * or bits * lanes not a multiple of 8 (value: bits * lanes); an element
 * count or byte extent that overflows 64 bits; compact layouts whose bytes
 * differ from byte_size and strided ones that reach past it (value: the
 * bytes the layout needs, expected: byte_size).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_layout_check(
    const hurray_dlpack_layout *layout, uint64_t byte_size, hurray_error *err);

/**
 * Consumer: exports an accepted buffer as a DLManagedTensor (DLPack 0.x).
 *
 * `handoff` must hold an accepted buffer readable on any stream with no event
 * held: state READABLE, EVENT_RELEASED or STREAM_WAITED (BP-DLPACK-4). An
 * event buffer not yet waited on and released, or a consumer_stream buffer
 * without an inter-stream wait, is refused with the table's error for
 * HURRAY_HANDOFF_OP_TRANSFER (ILLEGAL_TRANSITION, value: the op, expected:
 * the state; the detail says what to do first): DLPack has no field for a
 * pending event or a stream, so the consumer's wait comes first.
 *
 * `layout` NULL exports 1-D uint8 of byte_size elements on device_id 0; else
 * as hurray_dlpack_layout_check. The device type comes from the handle's
 * (device_tag, memory_class) by BP-DLPACK-1 (UNSUPPORTED where DLPack has
 * none). data is the accepted data pointer, byte_offset 0; strides are
 * always filled, the compact ones when the layout has none (BP-DLPACK-6).
 *
 * On success *out is a new tensor the DLPack consumer owns and the handoff
 * is RELEASED without any callback having run (its release duty moved into
 * the tensor, as a buffer list takes it, HO-LIST-7): the caller may destroy
 * the handoff at once. The tensor's deleter calls the producer's
 * buffer-release function exactly once, on the thread that calls it, and
 * frees the tensor (BP-DLPACK-5). On failure *out is untouched, the handoff
 * unchanged and nothing called; OUT_OF_MEMORY (value: bytes) when the
 * allocation fails; NULL_ARGUMENT (index: 0 handoff, 2 out).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_export(hurray_handoff *handoff,
                                                               const hurray_dlpack_layout *layout,
                                                               hurray_dl_managed_tensor **out,
                                                               hurray_error *err);

/**
 * As hurray_dlpack_export, as a DLManagedTensorVersioned (DLPack 1.x): version
 * HURRAY_DLPACK_VERSION_MAJOR.MINOR, flags as given (BP-DLPACK-8).
 * `flags` may hold HURRAY_DLPACK_FLAG_READ_ONLY and
 * HURRAY_DLPACK_FLAG_IS_COPIED; any other bit is INVALID_ARGUMENT (value: the
 * flags, index 2). NULL_ARGUMENT index 3 for out.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_export_versioned(
    hurray_handoff *handoff, const hurray_dlpack_layout *layout, uint64_t flags,
    hurray_dl_managed_tensor_versioned **out, hurray_error *err);

/**
 * As hurray_dlpack_export for a buffer the caller owns outside a handoff
 * (a producer exporting its own memory, a binding exporting a buffer its
 * tensor object keeps alive): the handle, the data pointer and the release
 * function the deleter calls exactly once (required; typically it drops the
 * caller's reference). The handle must pass hurray_buffer_handle_validate
 * and be producer_synced: with no handoff to record a wait, nothing else is
 * readable (INVALID_SYNC_MODE, value: the sync_mode, expected: 0,
 * BP-DLPACK-4); data may be NULL only for an empty buffer (NULL_ARGUMENT
 * index 1). On failure nothing is called and the caller keeps ownership.
 * NULL_ARGUMENT index: 0 handle, 2 release, 5 out.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_export_buffer(
    const hurray_buffer_handle *handle, void *data, hurray_buffer_release_fn release,
    void *release_ctx, const hurray_dlpack_layout *layout, hurray_dl_managed_tensor **out,
    hurray_error *err);

/** As hurray_dlpack_export_buffer, versioned; flags as hurray_dlpack_export_versioned
 * (INVALID_ARGUMENT index 5). NULL_ARGUMENT index 6 for out. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_export_buffer_versioned(
    const hurray_buffer_handle *handle, void *data, hurray_buffer_release_fn release,
    void *release_ctx, const hurray_dlpack_layout *layout, uint64_t flags,
    hurray_dl_managed_tensor_versioned **out, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Import: a DLPack tensor into a handoff offer                             */
/* ------------------------------------------------------------------------ */

/**
 * Producer side: offers a DLManagedTensor (DLPack 0.x) into `handoff`, which
 * must be initialised and EMPTY (hurray_handoff_init). The handle it builds
 * (BP-DLPACK-9 .. BP-DLPACK-12):
 *   - device_tag and memory_class from dl_tensor.device.device_type by
 *     BP-DLPACK-2 (kDLCUDAHost: cuda + host_pinned, kDLCUDAManaged: cuda +
 *     unified, kDLROCMHost: rocm + host_pinned; UNSUPPORTED, value: the
 *     device type, otherwise). Device types whose data is an object handle
 *     rather than an address (kDLOpenCL, kDLVulkan, kDLMetal, kDLWebGPU) are
 *     refused (UNSUPPORTED, value: the device type, detail says why): their
 *     alignment cannot be measured (BP-DLPACK-9);
 *   - byte_size = product(shape) * bits * lanes / 8, with overflow checks
 *     (INVALID_ARGUMENT; bits * lanes must be a multiple of 8);
 *   - only compact row-major tensors: strides NULL, or equal to the compact
 *     strides in every dimension of extent > 1 (INVALID_ARGUMENT, value: the
 *     stride, expected: the compact stride; detail names the dimension);
 *   - alignment measured from data + byte_offset (hurray_alignment_of,
 *     BP-ALIGN-5, BP-DLPACK-11); a non-empty tensor below 64 is refused with
 *     ALIGNMENT_BELOW_MINIMUM (value: the measured alignment, expected: 64);
 *   - sync_mode producer_synced: a DLPack producer has synchronised before
 *     handing the tensor over (BP-DLPACK-12).
 * The offer's data pointer is data + byte_offset; device_id is not part of a
 * handle: read it from the tensor, which stays valid until the release.
 *
 * Ownership (BP-DLPACK-13): on HURRAY_OK the tensor belongs to the handoff
 * and the consumer's hurray_handoff_release calls tensor->deleter(tensor)
 * exactly once (nothing when deleter is NULL). On any failure nothing was
 * taken, the handoff is unchanged, no deleter was called: the caller still
 * owns the tensor. NULL_ARGUMENT index: 0 handoff, 1 tensor.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_dlpack_import(hurray_handoff *handoff,
                                                               hurray_dl_managed_tensor *tensor,
                                                               hurray_error *err);

/**
 * As hurray_dlpack_import for a DLManagedTensorVersioned (DLPack 1.x).
 * version.major must be 1 (UNSUPPORTED, value: the major, expected: 1,
 * BP-DLPACK-14; nothing after the deleter is read then). *out_flags (may be
 * NULL) receives the tensor's flags on success, so a caller can honour
 * HURRAY_DLPACK_FLAG_READ_ONLY: a Hurray handle has no read-only bit.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_dlpack_import_versioned(hurray_handoff *handoff, hurray_dl_managed_tensor_versioned *tensor,
                               uint64_t *out_flags, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Layout assertions (BP-DLPACK-3): the standard DLPack layout on LP64       */
/* ------------------------------------------------------------------------ */

#ifdef __cplusplus
#define HURRAY_DLPACK_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define HURRAY_DLPACK_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_device) == 8, "DLDevice is 8 bytes");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_device, device_id) == 4, "DLDevice.device_id at 4");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_data_type) == 4, "DLDataType is 4 bytes");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_data_type, bits) == 1, "DLDataType.bits at 1");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_data_type, lanes) == 2, "DLDataType.lanes at 2");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_pack_version) == 8, "DLPackVersion is 8 bytes");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dlpack_layout) == 16 + 2 * sizeof(void *),
                            "hurray_dlpack_layout has no padding");

#if UINTPTR_MAX == UINT64_MAX
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, device) == 8, "DLTensor.device at 8");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, ndim) == 16, "DLTensor.ndim at 16");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, dtype) == 20, "DLTensor.dtype at 20");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, shape) == 24, "DLTensor.shape at 24");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, strides) == 32, "DLTensor.strides at 32");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_tensor, byte_offset) == 40,
                            "DLTensor.byte_offset at 40");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_tensor) == 48, "DLTensor is 48 bytes");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor, manager_ctx) == 48,
                            "DLManagedTensor.manager_ctx at 48");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor, deleter) == 56,
                            "DLManagedTensor.deleter at 56");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_managed_tensor) == 64, "DLManagedTensor is 64 bytes");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor_versioned, manager_ctx) == 8,
                            "DLManagedTensorVersioned.manager_ctx at 8");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor_versioned, deleter) == 16,
                            "DLManagedTensorVersioned.deleter at 16");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor_versioned, flags) == 24,
                            "DLManagedTensorVersioned.flags at 24");
HURRAY_DLPACK_STATIC_ASSERT(offsetof(hurray_dl_managed_tensor_versioned, dl_tensor) == 32,
                            "DLManagedTensorVersioned.dl_tensor at 32");
HURRAY_DLPACK_STATIC_ASSERT(sizeof(hurray_dl_managed_tensor_versioned) == 80,
                            "DLManagedTensorVersioned is 80 bytes");
#endif

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_DLPACK_H */
