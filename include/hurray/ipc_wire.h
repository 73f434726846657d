/*
 * libhurray — the messages of the IPC transport (specs/ipc.md, IPC-MSG-*).
 *
 * The byte format of what travels on an IPC channel and its decoder, which
 * is pure (no allocation, no I/O: IPC-MSG-12) and contracted in ACSL to
 * accept exactly the messages specs/ipc.md accepts (core/proven/ipc_message.c
 * and ipc_offer.c;
 * Frama-C WP proves that contract for LP64 and ILP32, and
 * hurray/contracts.h exports it; tests and a fuzz target check the compiled
 * code). Everything here works on bytes; sockets and descriptors are in
 * hurray/ipc.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_WIRE_H
#define HURRAY_IPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** First four bytes of every message, "HRI1" (IPC-MSG-1). */
#define HURRAY_IPC_MAGIC 0x31495248u
/** The message format version this header describes (IPC-MSG-1). */
#define HURRAY_IPC_VERSION 1u
/** Bytes of the message header (IPC-MSG-1). */
#define HURRAY_IPC_HEADER_SIZE 16u
/** Most descriptors (and so buffers) one message carries (IPC-MSG-4). */
#define HURRAY_IPC_MAX_FDS 253u
/** Bytes of one segment record of an OFFER (IPC-MSG-11). */
#define HURRAY_IPC_SEGMENT_RECORD_SIZE 16u
/** Largest message: an OFFER of 253 buffers, 16 + 9 + 32 * 253 (IPC-MSG-3). */
#define HURRAY_IPC_MAX_MESSAGE_SIZE (16u + 9u + 32u * 253u)

/** Message types (IPC-MSG-6). */
#define HURRAY_IPC_MSG_HELLO 1u
#define HURRAY_IPC_MSG_REFUSE 2u
#define HURRAY_IPC_MSG_OFFER 3u
#define HURRAY_IPC_MSG_RELEASE 4u
#define HURRAY_IPC_MSG_REJECT 5u
#define HURRAY_IPC_MSG_DEVICE 6u
#define HURRAY_IPC_MSG_EVENT 7u

/** Body sizes of the fixed-size messages (IPC-MSG-7, -8, -10). */
#define HURRAY_IPC_HELLO_BODY_SIZE 16u
#define HURRAY_IPC_REFUSE_BODY_SIZE 16u
#define HURRAY_IPC_RELEASE_BODY_SIZE 16u
#define HURRAY_IPC_REJECT_BODY_SIZE 32u
/** Body size of DEVICE (IPC-MSG-13). */
#define HURRAY_IPC_DEVICE_BODY_SIZE 128u
/** Body size of EVENT (IPC-MSG-14). */
#define HURRAY_IPC_EVENT_BODY_SIZE 128u

/** REFUSE reasons (IPC-MSG-8). A reader keeps unknown reasons as numbers. */
#define HURRAY_IPC_REFUSE_UID_NOT_ALLOWED 1u
#define HURRAY_IPC_REFUSE_PROTOCOL_ERROR 2u
#define HURRAY_IPC_REFUSE_CONSUMER_LIMIT 3u
#define HURRAY_IPC_REFUSE_SHUTDOWN 4u

/**
 * Memory kinds of a segment record (IPC-MSG-11): a host memfd, whose
 * descriptor the OFFER carries, or device memory exported by a plugin and
 * described by a DEVICE message (IPC-MSG-13). Other values are refused.
 */
#define HURRAY_IPC_MEMORY_HOST_MEMFD 1u
#define HURRAY_IPC_MEMORY_DEVICE 2u

/**
 * DEVICE message (IPC-MSG-13): the kinds of exported memory, equal to
 * HURRAY_PLUGIN_IPC_MEMORY_FD and _HANDLE (plugin_vendor.h), and where the
 * opaque bytes sit, counted from the start of the message (header
 * included). The decoder checks the other fields; these bytes only the
 * importing plugin reads.
 */
#define HURRAY_IPC_DEVICE_FD 1u
#define HURRAY_IPC_DEVICE_HANDLE 2u
#define HURRAY_IPC_DEVICE_HANDLE_SIZE 64u
#define HURRAY_IPC_DEVICE_UUID_OFFSET (16u + 32u)
#define HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET (16u + 48u)
#define HURRAY_IPC_DEVICE_HANDLE_OFFSET (16u + 64u)

/**
 * EVENT message (IPC-MSG-14): the one kind of exported event, equal to
 * HURRAY_PLUGIN_IPC_EVENT_HANDLE (plugin_vendor.h). Its UUIDs and handle sit
 * at the DEVICE offsets above, as many handle bytes as handle_size.
 */
#define HURRAY_IPC_EVENT_HANDLE 2u

/**
 * A decoded message. Which fields mean something depends on `type`; the
 * others are 0.
 *   HELLO:   code = producer pid, value = producer uid, expected = most
 *            buffers per offer.
 *   REFUSE:  code = reason, value = the reason's value.
 *   OFFER:   offer_id, buffer_count (= fd_count); handles and segments go to
 *            the caller's arrays.
 *   RELEASE: offer_id, buffer_index.
 *   REJECT:  offer_id, code = hurray_status, buffer_index, value, expected.
 *   DEVICE:  offer_id, buffer_index, code = kind (HURRAY_IPC_DEVICE_*),
 *            value = segment_size, expected = handle_size; the UUIDs and
 *            the handle are read from the message at the offsets above.
 *   EVENT:   offer_id, buffer_index, code = kind (HURRAY_IPC_EVENT_HANDLE),
 *            expected = handle_size; UUIDs and handle as for DEVICE.
 */
typedef struct hurray_ipc_message {
  uint32_t type;
  uint32_t fd_count;
  uint32_t body_size;
  uint32_t code;
  uint64_t offer_id;
  uint64_t value;
  uint64_t expected;
  uint32_t buffer_index;
  uint32_t buffer_count;
} hurray_ipc_message;

/** One segment record of an OFFER (IPC-MSG-11). */
typedef struct hurray_ipc_segment {
  /** Offset of the buffer's first byte in its segment. */
  uint64_t offset;
  /** HURRAY_IPC_MEMORY_*: a host memfd the OFFER carries, or device memory (DEVICE message). */
  uint32_t memory_kind;
  /** Always 0 (the reserved field, checked by the decoder). */
  uint32_t reserved;
} hurray_ipc_segment;

/**
 * Decodes and checks one message of `len` bytes that arrived with
 * `received_fds` descriptors, in the order of IPC-MSG-5, reporting the first
 * rule broken with the values specs/ipc.md names. An OFFER's handles go to
 * handles[0 .. n) and its segment records to segments[0 .. n), both of
 * capacity `cap` (CAPACITY when n > cap). On success *out is filled
 * (unused fields 0); on failure *out is untouched, and handles[] or
 * segments[] may hold entries decoded before the failing one.
 * NULL_ARGUMENT (index: 0 in, 3 out, 4 handles, 5 segments) for a missing
 * argument; handles and segments may be NULL when cap is 0.
 * Pure: reads in[0 .. len) only, allocates nothing (IPC-MSG-12).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_message_decode(
    const uint8_t *in, size_t len, size_t received_fds, hurray_ipc_message *out,
    hurray_buffer_handle *handles, hurray_ipc_segment *segments, size_t cap, hurray_error *err);

/**
 * Writers (ipc/ipc_encode.c). Each writes one complete message into
 * out[0 .. cap) and returns its size, or 0 when cap is too small. They
 * check nothing: the channel validates offers before it encodes them
 * (IPC-OFF-1), and tests use them to build broken messages on purpose.
 */
HURRAY_API size_t hurray_ipc_encode_header(uint8_t *out, size_t cap, uint32_t type,
                                           uint32_t body_size, uint32_t fd_count);
HURRAY_API size_t hurray_ipc_encode_hello(uint8_t *out, size_t cap, uint32_t pid, uint32_t uid,
                                          uint32_t max_buffers);
HURRAY_API size_t hurray_ipc_encode_refuse(uint8_t *out, size_t cap, uint32_t reason,
                                           uint64_t value);
HURRAY_API size_t hurray_ipc_encode_release(uint8_t *out, size_t cap, uint64_t offer_id,
                                            uint32_t buffer_index);
HURRAY_API size_t hurray_ipc_encode_reject(uint8_t *out, size_t cap, uint64_t offer_id,
                                           uint32_t status, uint32_t buffer_index, uint64_t value,
                                           uint64_t expected);
/**
 * An OFFER of `count` buffers: the handles' table (BP-TABLE-1, written with
 * hurray_buffer_table_encode, so an invalid table yields 0) and the segment
 * records; fd_count is the number of HOST_MEMFD records.
 */
HURRAY_API size_t hurray_ipc_encode_offer(uint8_t *out, size_t cap, uint64_t offer_id,
                                          const hurray_buffer_handle *handles,
                                          const hurray_ipc_segment *segments, size_t count);

/**
 * A DEVICE message (IPC-MSG-13): fd_count is 1 for kind FD, 0 otherwise;
 * handle[0 .. handle_size) is copied (at most 64 bytes), the rest is zero.
 * device_uuid and driver_uuid are 16 bytes each, or NULL for zeros.
 */
HURRAY_API size_t hurray_ipc_encode_device(uint8_t *out, size_t cap, uint64_t offer_id,
                                           uint32_t buffer_index, uint32_t kind,
                                           uint64_t segment_size, const uint8_t *device_uuid,
                                           const uint8_t *driver_uuid, const uint8_t *handle,
                                           uint32_t handle_size);

/**
 * An EVENT message (IPC-MSG-14), no descriptor: handle[0 .. handle_size) is
 * copied (at most 64 bytes), the rest is zero; device_uuid and driver_uuid
 * are 16 bytes each, or NULL for zeros.
 */
HURRAY_API size_t hurray_ipc_encode_event(uint8_t *out, size_t cap, uint64_t offer_id,
                                          uint32_t buffer_index, uint32_t kind,
                                          const uint8_t *device_uuid, const uint8_t *driver_uuid,
                                          const uint8_t *handle, uint32_t handle_size);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_IPC_WIRE_H */
