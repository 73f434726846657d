/*
 * Writers of the IPC messages (specs/ipc.md IPC-MSG-1..11, -13, -14). The proven
 * decoder (core/proven/ipc_message.c) is their reader; tests check the
 * round trip.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "hurray/ipc_wire.h"

static void put_le16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v & 0xFFu);
  p[1] = (uint8_t)((v >> 8) & 0xFFu);
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (unsigned k = 0; k < 4u; k++) {
    p[k] = (uint8_t)((v >> (8u * k)) & 0xFFu);
  }
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (unsigned k = 0; k < 8u; k++) {
    p[k] = (uint8_t)((v >> (8u * k)) & 0xFFu);
  }
}

size_t hurray_ipc_encode_header(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size,
                                uint32_t fd_count) {
  if (out == NULL || cap < HURRAY_IPC_HEADER_SIZE) {
    return 0;
  }
  put_le32(out, HURRAY_IPC_MAGIC);
  put_le16(out + 4, HURRAY_IPC_VERSION);
  put_le16(out + 6, type);
  put_le32(out + 8, body_size);
  put_le16(out + 12, fd_count);
  put_le16(out + 14, 0);
  return HURRAY_IPC_HEADER_SIZE;
}

/* A fixed-size message: header plus a zeroed body the caller fills. */
static uint8_t *start_fixed(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size) {
  if (out == NULL || cap < HURRAY_IPC_HEADER_SIZE + (size_t)body_size) {
    return NULL;
  }
  hurray_ipc_encode_header(out, cap, type, body_size, 0);
  memset(out + HURRAY_IPC_HEADER_SIZE, 0, body_size);
  return out + HURRAY_IPC_HEADER_SIZE;
}

size_t hurray_ipc_encode_hello(uint8_t *out, size_t cap, uint32_t pid, uint32_t uid,
                               uint32_t max_buffers) {
  uint8_t *body = start_fixed(out, cap, HURRAY_IPC_MSG_HELLO, HURRAY_IPC_HELLO_BODY_SIZE);
  if (body == NULL) {
    return 0;
  }
  put_le32(body, pid);
  put_le32(body + 4, uid);
  put_le32(body + 8, max_buffers);
  return HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_HELLO_BODY_SIZE;
}

size_t hurray_ipc_encode_refuse(uint8_t *out, size_t cap, uint32_t reason, uint64_t value) {
  uint8_t *body = start_fixed(out, cap, HURRAY_IPC_MSG_REFUSE, HURRAY_IPC_REFUSE_BODY_SIZE);
  if (body == NULL) {
    return 0;
  }
  put_le32(body, reason);
  put_le64(body + 8, value);
  return HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_REFUSE_BODY_SIZE;
}

size_t hurray_ipc_encode_release(uint8_t *out, size_t cap, uint64_t offer_id,
                                 uint32_t buffer_index) {
  uint8_t *body = start_fixed(out, cap, HURRAY_IPC_MSG_RELEASE, HURRAY_IPC_RELEASE_BODY_SIZE);
  if (body == NULL) {
    return 0;
  }
  put_le64(body, offer_id);
  put_le32(body + 8, buffer_index);
  return HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_RELEASE_BODY_SIZE;
}

size_t hurray_ipc_encode_reject(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t status,
                                uint32_t buffer_index, uint64_t value, uint64_t expected) {
  uint8_t *body = start_fixed(out, cap, HURRAY_IPC_MSG_REJECT, HURRAY_IPC_REJECT_BODY_SIZE);
  if (body == NULL) {
    return 0;
  }
  put_le64(body, offer_id);
  put_le32(body + 8, status);
  put_le32(body + 12, buffer_index);
  put_le64(body + 16, value);
  put_le64(body + 24, expected);
  return HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_REJECT_BODY_SIZE;
}

size_t hurray_ipc_encode_offer(uint8_t *out, size_t cap, uint64_t offer_id,
                               const hurray_buffer_handle *handles,
                               const hurray_ipc_segment *segments, size_t count) {
  if (out == NULL || handles == NULL || segments == NULL || count == 0u ||
      count > HURRAY_IPC_MAX_FDS) {
    return 0;
  }
  const size_t body_size = 9u + 32u * count;
  if (cap < HURRAY_IPC_HEADER_SIZE + body_size) {
    return 0;
  }
  uint8_t *body = out + HURRAY_IPC_HEADER_SIZE;
  put_le64(body, offer_id);
  size_t written = 0;
  if (hurray_buffer_table_encode(handles, count, body + 8, 1u + 16u * count, &written, NULL) !=
      HURRAY_OK) {
    return 0;
  }
  uint8_t *record = body + 8 + written;
  uint32_t host = 0;
  for (size_t i = 0; i < count; i++) {
    host += segments[i].memory_kind == HURRAY_IPC_MEMORY_HOST_MEMFD ? 1u : 0u;
    put_le64(record, segments[i].offset);
    put_le32(record + 8, segments[i].memory_kind);
    put_le32(record + 12, segments[i].reserved);
    record += HURRAY_IPC_SEGMENT_RECORD_SIZE;
  }
  hurray_ipc_encode_header(out, cap, HURRAY_IPC_MSG_OFFER, (uint32_t)body_size, host);
  return HURRAY_IPC_HEADER_SIZE + body_size;
}

/* The opaque tail DEVICE and EVENT share (IPC-MSG-13, -14): the UUIDs and
 * handle_size bytes of handle, at the same offsets; the rest stays zero. */
static void put_opaque(uint8_t *out, const uint8_t *device_uuid, const uint8_t *driver_uuid,
                       const uint8_t *handle, uint32_t handle_size) {
  if (device_uuid != NULL) {
    memcpy(out + HURRAY_IPC_DEVICE_UUID_OFFSET, device_uuid, 16);
  }
  if (driver_uuid != NULL) {
    memcpy(out + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET, driver_uuid, 16);
  }
  if (handle_size > 0u) {
    memcpy(out + HURRAY_IPC_DEVICE_HANDLE_OFFSET, handle, handle_size);
  }
}

/* The body fields DEVICE and EVENT share (IPC-MSG-13, -14): offer_id,
 * buffer_index, kind, handle_size and the opaque tail; NULL when the handle
 * does not fit or out is too small. The caller writes what differs. */
static uint8_t *start_device_or_event(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size,
                                      uint64_t offer_id, uint32_t buffer_index, uint32_t kind,
                                      const uint8_t *device_uuid, const uint8_t *driver_uuid,
                                      const uint8_t *handle, uint32_t handle_size) {
  if (handle_size > HURRAY_IPC_DEVICE_HANDLE_SIZE || (handle_size > 0u && handle == NULL)) {
    return NULL;
  }
  uint8_t *body = start_fixed(out, cap, type, body_size);
  if (body == NULL) {
    return NULL;
  }
  put_le64(body, offer_id);
  put_le32(body + 8, buffer_index);
  put_le32(body + 12, kind);
  put_le32(body + 24, handle_size);
  put_opaque(out, device_uuid, driver_uuid, handle, handle_size);
  return body;
}

size_t hurray_ipc_encode_device(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t buffer_index,
                                uint32_t kind, uint64_t segment_size, const uint8_t *device_uuid,
                                const uint8_t *driver_uuid, const uint8_t *handle,
                                uint32_t handle_size) {
  uint8_t *body = start_device_or_event(out, cap, HURRAY_IPC_MSG_DEVICE,
                                        HURRAY_IPC_DEVICE_BODY_SIZE, offer_id, buffer_index, kind,
                                        device_uuid, driver_uuid, handle, handle_size);
  if (body == NULL) {
    return 0;
  }
  put_le64(body + 16, segment_size);
  /* The descriptor of kind FD travels with this message (IPC-MSG-13). */
  put_le16(out + 12, kind == HURRAY_IPC_DEVICE_FD ? 1u : 0u);
  return HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_DEVICE_BODY_SIZE;
}

size_t hurray_ipc_encode_event(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t buffer_index,
                               uint32_t kind, const uint8_t *device_uuid,
                               const uint8_t *driver_uuid, const uint8_t *handle,
                               uint32_t handle_size) {
  uint8_t *body = start_device_or_event(out, cap, HURRAY_IPC_MSG_EVENT, HURRAY_IPC_EVENT_BODY_SIZE,
                                        offer_id, buffer_index, kind, device_uuid, driver_uuid,
                                        handle, handle_size);
  return body == NULL ? 0 : HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_EVENT_BODY_SIZE;
}
