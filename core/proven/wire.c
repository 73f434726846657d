/*
 * The 16-byte wire form of one handle (BP-WIRE-1, BP-WIRE-2, BP-ORDER-1) and
 * the buffer table around it (BP-TABLE-1..6).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "handle_rules.h"
#include "hurray/buffer.h"

/* Little-endian loads written byte by byte: independent of the host's byte
 * order and alignment, and compiled to single loads on little-endian hosts. */
static inline uint64_t load_le64(const uint8_t *p) {
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) |
         ((uint64_t)p[3] << 24) | ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) |
         ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

static inline void store_le64(uint8_t *p, uint64_t v) {
  for (unsigned k = 0; k < 8u; k++) {
    p[k] = (uint8_t)(v >> (8u * k));
  }
}

static inline void store_le32(uint8_t *p, uint32_t v) {
  for (unsigned k = 0; k < 4u; k++) {
    p[k] = (uint8_t)(v >> (8u * k));
  }
}

void hurray_buffer_handle_encode(const hurray_buffer_handle *handle,
                                 uint8_t out[HURRAY_BUFFER_HANDLE_SIZE]) {
  store_le64(out, handle->byte_size);
  store_le32(out + 8, handle->alignment);
  out[12] = handle->device_tag;
  out[13] = handle->sync_mode;
  out[14] = handle->memory_class;
  out[15] = 0u;
}

/* BP-ORDER-1 for one handle at position `index`; writes *out only on success. */
static hurray_status decode_one(const uint8_t *in, hurray_buffer_handle *out, size_t index,
                                hurray_error *err) {
  if (in[15] != 0u) {
    return hurray_fail(err, HURRAY_ERR_RESERVED_BYTE_NONZERO, in[15], 0, index);
  }
  uint64_t byte_size = load_le64(in);
  uint32_t alignment = load_le32(in + 8);
  hurray_status status =
      hurray_handle_fields_check(byte_size, alignment, in[12], in[13], in[14], index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  out->byte_size = byte_size;
  out->alignment = alignment;
  out->device_tag = in[12];
  out->sync_mode = in[13];
  out->memory_class = in[14];
  return HURRAY_OK;
}

hurray_status hurray_buffer_handle_decode(const uint8_t in[HURRAY_BUFFER_HANDLE_SIZE],
                                          hurray_buffer_handle *out, hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  return decode_one(in, out, 0, err);
}

size_t hurray_buffer_table_encoded_size(size_t count) {
  return 1u + HURRAY_BUFFER_HANDLE_SIZE * count;
}

hurray_status hurray_buffer_table_decode(const uint8_t *in, size_t len, hurray_buffer_handle *out,
                                         size_t cap, size_t *count, hurray_error *err) {
  if (in == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  /* BP-TABLE-2: the length is known before any handle is read. */
  if (len < 1u) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, 1u, 0);
  }
  size_t n = in[0];
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * n;
  if (len < needed) {
    return hurray_fail(err, HURRAY_ERR_TRUNCATED, len, needed, 0);
  }
  /* BP-TABLE-3 */
  if (n == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  /* BP-TABLE-4 */
  if (cap < n) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, n, cap, 0);
  }
  /* BP-TABLE-5: every handle in order, then colocation (BP-COLOC-2). */
  hurray_status status = decode_one(in + 1, &out[0], 0, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const uint8_t tag0 = out[0].device_tag;
  const uint8_t class0 = out[0].memory_class;
  size_t mismatch = 0; /* 0: none yet (handle 0 cannot mismatch itself) */
  for (size_t i = 1; i < n; i++) {
    const uint8_t *p = in + 1 + HURRAY_BUFFER_HANDLE_SIZE * i;
    uint64_t byte_size = load_le64(p);
    uint32_t alignment = load_le32(p + 8);
    uint8_t tag = p[12];
    uint8_t sync = p[13];
    uint8_t memory_class = p[14];
    /* Fast path: a handle with the first handle's tag and class (already
     * valid, so the tag, class and pair rules hold) needs only the reserved
     * byte, sync and alignment rules. Anything else takes decode_one(),
     * which gives the exact error of BP-ORDER-1. */
    bool same_place = tag == tag0 && memory_class == class0 && p[15] == 0u;
    bool sync_ok = sync <= HURRAY_SYNC_CONSUMER_STREAM &&
                   (tag0 != HURRAY_DEVICE_CPU || sync == HURRAY_SYNC_PRODUCER_SYNCED);
    bool align_ok = alignment != 0u && (alignment & (alignment - 1u)) == 0u &&
                    (byte_size == 0u || alignment >= HURRAY_MIN_BUFFER_ALIGNMENT);
    if (same_place && sync_ok && align_ok) {
      out[i].byte_size = byte_size;
      out[i].alignment = alignment;
      out[i].device_tag = tag;
      out[i].sync_mode = sync;
      out[i].memory_class = memory_class;
      continue;
    }
    status = decode_one(p, &out[i], i, err);
    if (status != HURRAY_OK) {
      return status;
    }
    if (mismatch == 0u && (tag != tag0 || memory_class != class0)) {
      mismatch = i;
    }
  }
  if (mismatch != 0u) {
    if (out[mismatch].device_tag != tag0) {
      return hurray_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, out[mismatch].device_tag, tag0,
                         mismatch);
    }
    return hurray_fail(err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, out[mismatch].memory_class, class0,
                       mismatch);
  }
  *count = n;
  return HURRAY_OK;
}

hurray_status hurray_buffer_table_decode_exact(const uint8_t *in, size_t len,
                                               hurray_buffer_handle *out, size_t cap,
                                               size_t *count, hurray_error *err) {
  size_t decoded = 0;
  hurray_status status = hurray_buffer_table_decode(in, len, out, cap, &decoded, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* BP-TABLE-6 */
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * decoded;
  if (len != needed) {
    return hurray_fail(err, HURRAY_ERR_TRAILING_BYTES, len, needed, 0);
  }
  if (count == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  *count = decoded;
  return HURRAY_OK;
}

hurray_status hurray_buffer_table_encode(const hurray_buffer_handle *handles, size_t count,
                                         uint8_t *out, size_t cap, size_t *written,
                                         hurray_error *err) {
  if (handles == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (written == NULL) {
    return hurray_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (count == 0u) {
    return hurray_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1u, 0);
  }
  if (count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, count, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  for (size_t i = 0; i < count; i++) {
    const hurray_buffer_handle *h = &handles[i];
    hurray_status status = hurray_handle_fields_check(h->byte_size, h->alignment, h->device_tag,
                                                      h->sync_mode, h->memory_class, i, err);
    if (status != HURRAY_OK) {
      return status;
    }
  }
  hurray_status status = hurray_validate_colocation(handles, count, NULL, err);
  if (status != HURRAY_OK) {
    return status;
  }
  size_t needed = 1u + HURRAY_BUFFER_HANDLE_SIZE * count;
  if (cap < needed) {
    return hurray_fail(err, HURRAY_ERR_CAPACITY, needed, cap, 0);
  }
  out[0] = (uint8_t)count;
  for (size_t i = 0; i < count; i++) {
    hurray_buffer_handle_encode(&handles[i], out + 1 + HURRAY_BUFFER_HANDLE_SIZE * i);
  }
  *written = needed;
  return HURRAY_OK;
}
