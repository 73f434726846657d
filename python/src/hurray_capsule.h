/*
 * The `hurray_tensor` PyCapsule: how a Hurray tensor crosses between Python
 * extensions over libhurray's C ABI (include/hurray/handoff.h). Written for
 * producers in C that want `hurray.from_hurray()` to take their buffers, and
 * for consumers in C of `Tensor.__hurray__()`. Rules: specs/python.md
 * (PY-CAP-1..5); guide: docs/python.md.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CAPSULE_H
#define HURRAY_CAPSULE_H

#include <stdint.h>

#include "hurray/handoff.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Name of a capsule nobody has consumed yet (PY-CAP-1). */
#define HURRAY_CAPSULE_NAME "hurray_tensor"
/** Name a consumer gives the capsule once it owns the buffers (PY-CAP-3). */
#define HURRAY_CAPSULE_USED_NAME "used_hurray_tensor"
/** Version of hurray_capsule_tensor this header describes. */
#define HURRAY_CAPSULE_VERSION 1u
/** Most dimensions a capsule tensor may have. */
#define HURRAY_CAPSULE_MAX_DIMS 32u

/** Element types (hurray_capsule_tensor.dtype); values are stable. */
#define HURRAY_DTYPE_BOOL 0u
#define HURRAY_DTYPE_INT8 1u
#define HURRAY_DTYPE_INT16 2u
#define HURRAY_DTYPE_INT32 3u
#define HURRAY_DTYPE_INT64 4u
#define HURRAY_DTYPE_UINT8 5u
#define HURRAY_DTYPE_UINT16 6u
#define HURRAY_DTYPE_UINT32 7u
#define HURRAY_DTYPE_UINT64 8u
#define HURRAY_DTYPE_FLOAT16 9u
#define HURRAY_DTYPE_BFLOAT16 10u
#define HURRAY_DTYPE_FLOAT32 11u
#define HURRAY_DTYPE_FLOAT64 12u
#define HURRAY_DTYPE_COUNT 13u

/**
 * What the capsule points at. The producer fills it and offers one handoff
 * per buffer (hurray_handoff_offer); buffer 0 holds the elements, the others
 * (quantization parameters) are colocated with it (BP-COLOC-1).
 *
 * The consumer accepts every handoff (transport in-process), renames the
 * capsule HURRAY_CAPSULE_USED_NAME, and once it has released every buffer it
 * accepted (events first) calls destroy(self). A capsule that is never
 * consumed is destroyed by its capsule destructor, which calls destroy(self)
 * with the handoffs still OFFERED: destroy withdraws them and frees what the
 * producer still owns. destroy is called exactly once either way (PY-CAP-4).
 *
 * Fields are only ever appended; struct_size is sizeof as the producer
 * compiled it, and a consumer refuses one smaller than it needs.
 */
typedef struct hurray_capsule_tensor {
  uint32_t struct_size;
  uint32_t version;
  uint32_t dtype;
  uint32_t ndim;
  int64_t shape[HURRAY_CAPSULE_MAX_DIMS];
  uint32_t buffer_count;
  uint32_t reserved;
  /** buffer_count handoffs, each offered by the producer. */
  hurray_handoff *handoffs;
  /** Ends the capsule's life; see above. Called with the GIL held. */
  void (*destroy)(struct hurray_capsule_tensor *self);
  void *producer_ctx;
} hurray_capsule_tensor;

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_CAPSULE_H */
