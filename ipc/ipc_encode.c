/*
 * Writers of the IPC messages (specs/ipc.md IPC-MSG-1..11, -13, -14). The proven
 * decoder (core/proven/ipc_message.c) is their reader; tests check the
 * round trip.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "hurray/ipc_wire.h"

/* One little-endian field of a message: width bytes (2, 4 or 8) at offset,
 * as specs/ipc.md lays each message out. */
typedef struct ipc_field {
  uint32_t offset;
  uint32_t width;
  uint64_t value;
} ipc_field;

#define FIELD_COUNT(fields) (sizeof(fields) / sizeof((fields)[0]))

static void put_fields(uint8_t *at, const ipc_field *fields, size_t count) {
  for (size_t i = 0; i < count; i++) {
    for (unsigned k = 0; k < fields[i].width; k++) {
      at[fields[i].offset + k] = (uint8_t)((fields[i].value >> (8u * k)) & 0xFFu);
    }
  }
}

size_t hurray_ipc_encode_header(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size,
                                uint32_t fd_count) {
  if (out == NULL || cap < HURRAY_IPC_HEADER_SIZE) {
    return 0;
  }
  const ipc_field header[] = {{0, 4, HURRAY_IPC_MAGIC}, {4, 2, HURRAY_IPC_VERSION}, {6, 2, type},
                              {8, 4, body_size},        {12, 2, fd_count},          {14, 2, 0}};
  put_fields(out, header, FIELD_COUNT(header));
  return HURRAY_IPC_HEADER_SIZE;
}

/* A fixed-size message: header plus a body of body_size bytes, zero but for
 * the fields given; 0 when out is too small. */
static size_t encode_fixed(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size,
                           const ipc_field *fields, size_t count) {
  if (out == NULL || cap < HURRAY_IPC_HEADER_SIZE + (size_t)body_size) {
    return 0;
  }
  hurray_ipc_encode_header(out, cap, type, body_size, 0);
  memset(out + HURRAY_IPC_HEADER_SIZE, 0, body_size);
  put_fields(out + HURRAY_IPC_HEADER_SIZE, fields, count);
  return HURRAY_IPC_HEADER_SIZE + body_size;
}

size_t hurray_ipc_encode_hello(uint8_t *out, size_t cap, uint32_t pid, uint32_t uid,
                               uint32_t max_buffers) {
  const ipc_field body[] = {{0, 4, pid}, {4, 4, uid}, {8, 4, max_buffers}};
  return encode_fixed(out, cap, HURRAY_IPC_MSG_HELLO, HURRAY_IPC_HELLO_BODY_SIZE, body,
                      FIELD_COUNT(body));
}

size_t hurray_ipc_encode_refuse(uint8_t *out, size_t cap, uint32_t reason, uint64_t value) {
  const ipc_field body[] = {{0, 4, reason}, {8, 8, value}};
  return encode_fixed(out, cap, HURRAY_IPC_MSG_REFUSE, HURRAY_IPC_REFUSE_BODY_SIZE, body,
                      FIELD_COUNT(body));
}

size_t hurray_ipc_encode_release(uint8_t *out, size_t cap, uint64_t offer_id,
                                 uint32_t buffer_index) {
  const ipc_field body[] = {{0, 8, offer_id}, {8, 4, buffer_index}};
  return encode_fixed(out, cap, HURRAY_IPC_MSG_RELEASE, HURRAY_IPC_RELEASE_BODY_SIZE, body,
                      FIELD_COUNT(body));
}

size_t hurray_ipc_encode_reject(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t status,
                                uint32_t buffer_index, uint64_t value, uint64_t expected) {
  const ipc_field body[] = {
      {0, 8, offer_id}, {8, 4, status}, {12, 4, buffer_index}, {16, 8, value}, {24, 8, expected}};
  return encode_fixed(out, cap, HURRAY_IPC_MSG_REJECT, HURRAY_IPC_REJECT_BODY_SIZE, body,
                      FIELD_COUNT(body));
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
  const ipc_field id[] = {{0, 8, offer_id}};
  put_fields(body, id, FIELD_COUNT(id));
  size_t written = 0;
  if (hurray_buffer_table_encode(handles, count, body + 8, 1u + 16u * count, &written, NULL) !=
      HURRAY_OK) {
    return 0;
  }
  uint8_t *record = body + 8 + written;
  uint32_t host = 0;
  for (size_t i = 0; i < count; i++) {
    host += segments[i].memory_kind == HURRAY_IPC_MEMORY_HOST_MEMFD ? 1u : 0u;
    const ipc_field segment[] = {
        {0, 8, segments[i].offset}, {8, 4, segments[i].memory_kind}, {12, 4, segments[i].reserved}};
    put_fields(record, segment, FIELD_COUNT(segment));
    record += HURRAY_IPC_SEGMENT_RECORD_SIZE;
  }
  hurray_ipc_encode_header(out, cap, HURRAY_IPC_MSG_OFFER, (uint32_t)body_size, host);
  return HURRAY_IPC_HEADER_SIZE + body_size;
}

/* DEVICE and EVENT (IPC-MSG-13, -14): the fixed fields given, then the
 * opaque tail they share at the same offsets, the UUIDs and handle_size
 * bytes of handle; the rest stays zero. 0 when the handle does not fit or
 * out is too small. */
static size_t encode_device_or_event(uint8_t *out, size_t cap, uint32_t type, uint32_t body_size,
                                     const ipc_field *fields, size_t count,
                                     const uint8_t *device_uuid, const uint8_t *driver_uuid,
                                     const uint8_t *handle, uint32_t handle_size) {
  if (handle_size > HURRAY_IPC_DEVICE_HANDLE_SIZE || (handle_size > 0u && handle == NULL)) {
    return 0;
  }
  size_t n = encode_fixed(out, cap, type, body_size, fields, count);
  if (n == 0u) {
    return 0;
  }
  if (device_uuid != NULL) {
    memcpy(out + HURRAY_IPC_DEVICE_UUID_OFFSET, device_uuid, 16);
  }
  if (driver_uuid != NULL) {
    memcpy(out + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET, driver_uuid, 16);
  }
  if (handle_size > 0u) {
    memcpy(out + HURRAY_IPC_DEVICE_HANDLE_OFFSET, handle, handle_size);
  }
  return n;
}

size_t hurray_ipc_encode_device(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t buffer_index,
                                uint32_t kind, uint64_t segment_size, const uint8_t *device_uuid,
                                const uint8_t *driver_uuid, const uint8_t *handle,
                                uint32_t handle_size) {
  const ipc_field body[] = {{0, 8, offer_id},
                            {8, 4, buffer_index},
                            {12, 4, kind},
                            {16, 8, segment_size},
                            {24, 4, handle_size}};
  size_t n = encode_device_or_event(out, cap, HURRAY_IPC_MSG_DEVICE, HURRAY_IPC_DEVICE_BODY_SIZE,
                                    body, FIELD_COUNT(body), device_uuid, driver_uuid, handle,
                                    handle_size);
  if (n != 0u) {
    /* The descriptor of kind FD travels with this message (IPC-MSG-13). */
    const ipc_field fd_count[] = {{12, 2, kind == HURRAY_IPC_DEVICE_FD ? 1u : 0u}};
    put_fields(out, fd_count, FIELD_COUNT(fd_count));
  }
  return n;
}

size_t hurray_ipc_encode_event(uint8_t *out, size_t cap, uint64_t offer_id, uint32_t buffer_index,
                               uint32_t kind, const uint8_t *device_uuid,
                               const uint8_t *driver_uuid, const uint8_t *handle,
                               uint32_t handle_size) {
  const ipc_field body[] = {
      {0, 8, offer_id}, {8, 4, buffer_index}, {12, 4, kind}, {24, 4, handle_size}};
  return encode_device_or_event(out, cap, HURRAY_IPC_MSG_EVENT, HURRAY_IPC_EVENT_BODY_SIZE, body,
                                FIELD_COUNT(body), device_uuid, driver_uuid, handle, handle_size);
}
