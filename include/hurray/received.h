/*
 * libhurray — the received tensor: what every transport's receive hands
 * out (specs/inbound.md, IDs RX-...).
 *
 * One object for the IPC transport (hurray/ipc.h) and the network
 * transport (hurray/net.h): the transport it came by, the sender's id for
 * it, and per buffer its accepted view, its handoff (hurray/handoff.h) and,
 * for device memory, its plugin buffer. hurray_ipc_received and
 * hurray_net_received are this object under their transports' names
 * (hurray_ipc_received_tensor, hurray_net_received_tensor give it).
 *
 * Ownership: the caller of a successful receive owns the received tensor
 * and frees it with hurray_received_free (RX-OBJ-1). Each buffer is the
 * caller's from the receive until it is released, exactly once (RX-REL-1):
 * by hurray_received_release or hurray_handoff_release on its handoff, from
 * any thread, or by the free, which releases every buffer still held in
 * whatever state it reached (RX-REL-4). A release frees the buffer's
 * plugin buffer, then lets the transport undo its part: the IPC transport
 * sends RELEASE to the producer and unmaps, the network transport gives
 * the memory back to the connection (RX-REL-2).
 *
 * The second half of this header is for transports: how one builds a
 * received tensor (RX-BUILD-1, RX-BUILD-2). An application never needs it.
 *
 * Threads: releases of distinct buffers may run on any threads at once;
 * the free must not race with anything else on the same tensor.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_RECEIVED_H
#define HURRAY_RECEIVED_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/handoff.h"
#include "hurray/plugin_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Using a received tensor (RX-OBJ-*, RX-REL-*)                             */
/* ------------------------------------------------------------------------ */

/** One received tensor: its buffers as accepted handoffs (RX-OBJ-1). */
typedef struct hurray_received hurray_received;

/** The transport it came by (a hurray_transport value); 0 for NULL. */
HURRAY_API uint32_t hurray_received_transport(const hurray_received *received);

/** The sender's id for it: the IPC offer id, the network tensor id; 0 for NULL. */
HURRAY_API uint64_t hurray_received_id(const hurray_received *received);

/** Its number of buffers; 0 for NULL. */
HURRAY_API size_t hurray_received_count(const hurray_received *received);

/**
 * Buffer `index`'s accepted view (handle, data pointer), owned by the
 * received tensor and valid until it is freed; the bytes behind data are
 * readable until the buffer is released. NULL past the end (RX-OBJ-2).
 */
HURRAY_API const hurray_accepted_buffer *hurray_received_buffer(const hurray_received *received,
                                                                size_t index);

/**
 * Buffer `index`'s handoff (state READABLE, or EVENT_PENDING for a buffer
 * with an event), owned by the received tensor: drive it with the
 * hurray_handoff_* calls, never destroy it. Releasing it releases the
 * buffer (RX-REL-1, RX-REL-2). A buffer moved into a buffer list
 * (hurray_buffer_list_push_handoff) is released by the list, which must be
 * destroyed before the tensor is freed; the free does not release it again.
 * NULL past the end.
 */
HURRAY_API hurray_handoff *hurray_received_handoff(hurray_received *received, size_t index);

/**
 * Buffer `index`'s plugin buffer when it is in device memory (an IPC import,
 * a network placement), owned by the received tensor: use it, never free
 * it. NULL for host memory, past the end, and once the buffer's release
 * began (the release frees it, RX-REL-2).
 */
HURRAY_API hurray_plugin_buffer *hurray_received_plugin_buffer(const hurray_received *received,
                                                               size_t index);

/**
 * Releases buffer `index` exactly once, as hurray_handoff_release on its
 * handoff, and returns what the transport reported of it (RX-REL-2): OK;
 * PEER_GONE (value: the producer's pid, index: the buffer) when the IPC
 * release signal could not be sent, the buffer released locally all the
 * same; ALREADY_RELEASED the second time; ILLEGAL_TRANSITION while its
 * event is held; INVALID_ARGUMENT (value: index, expected: count, index 1)
 * past the end; NULL_ARGUMENT (index 0) without a tensor.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_received_release(hurray_received *received,
                                                                  size_t index, hurray_error *err);

/**
 * Releases every buffer still held, exactly once, whatever state it
 * reached (an event still held first), frees the tensor and writes NULL
 * (RX-REL-4). May come after the consumer or connection it came from is
 * gone. Nothing for NULL.
 */
HURRAY_API void hurray_received_free(hurray_received **received);

/* ------------------------------------------------------------------------ */
/* Building one: for transports (RX-BUILD-*)                                */
/* ------------------------------------------------------------------------ */

/** How the transport's release function is called (RX-REL-2, RX-REL-3). */
#define HURRAY_RECEIVED_RELEASE_SIGNAL 1u  /* released after it was handed out: tell the sender */
#define HURRAY_RECEIVED_RELEASE_DISCARD 2u /* never handed out: undo locally, tell nobody */

/**
 * The transport's part of one buffer's release: called exactly once per
 * staged buffer, with the buffer's index, the memory and size the
 * transport staged it with, and `how`. Runs on the releasing thread. A
 * failure it reports (SIGNAL only) is filled into err and returned; the
 * buffer counts as released all the same.
 */
typedef hurray_status (*hurray_received_release_fn)(void *ctx, uint64_t id, uint32_t index,
                                                    void *memory, uint64_t memory_size,
                                                    uint32_t how, hurray_error *err);

/** Called once, after the last buffer's release, when the tensor is freed. */
typedef void (*hurray_received_close_fn)(void *ctx);

/** The transport a received tensor reports to; zero-initialise, set struct_size. */
typedef struct hurray_received_transport_desc {
  /** sizeof(hurray_received_transport_desc) as the caller knows it. */
  uint32_t struct_size;
  /** HURRAY_TRANSPORT_IPC, HURRAY_TRANSPORT_NETWORK, ... (accept's transport). */
  uint32_t transport;
  /** Passed to release and close. */
  void *ctx;
  /** Required. */
  hurray_received_release_fn release;
  /** May be NULL. */
  hurray_received_close_fn close;
} hurray_received_transport_desc;

/** A transport description with struct_size set: what a transport passes to create. */
static inline hurray_received_transport_desc hurray_received_transport_make(
    uint32_t transport, void *ctx, hurray_received_release_fn release,
    hurray_received_close_fn close) {
  hurray_received_transport_desc desc = {(uint32_t)sizeof(hurray_received_transport_desc),
                                         transport, ctx, release, close};
  return desc;
}

/**
 * Creates an empty received tensor of `count` buffers (1 to
 * HURRAY_BUFFER_TABLE_MAX_HANDLES; INVALID_ARGUMENT otherwise, value: count,
 * expected: the limit) for transport `t` (NULL_ARGUMENT index 0 without it
 * or its release, index 3 without out; INVALID_ARGUMENT, value: struct_size,
 * for a struct_size below this version's). On success the tensor owns one
 * use of t->ctx, ended by t->close when it is freed; on failure close is
 * not called. OUT_OF_MEMORY (value: bytes).
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_received_create(const hurray_received_transport_desc *t, uint64_t id, size_t count,
                       hurray_received **out, hurray_error *err);

/** One buffer a transport stages; zero-initialise, set struct_size. */
typedef struct hurray_received_buffer_desc {
  /** sizeof(hurray_received_buffer_desc) as the caller knows it. */
  uint32_t struct_size;
  /** The IPC capabilities accept checks the handle against (0 off IPC). */
  uint32_t ipc_capabilities;
  /** The handle as received and checked by the transport. */
  hurray_buffer_handle handle;
  /** The data pointer handed out (NULL only for an empty buffer). */
  void *data;
  /** Device memory: the plugin buffer; the tensor frees it (RX-REL-2). */
  hurray_plugin_buffer *plugin_buffer;
  /** An event buffer's imported event; the tensor releases it (RX-REL-1, RX-REL-3). */
  hurray_plugin_event *event;
  /** The transport's own memory of the buffer, passed back to its release. */
  void *memory;
  uint64_t memory_size;
} hurray_received_buffer_desc;

/**
 * Stages buffer `index` (RX-BUILD-1): on success the tensor owns
 * desc->plugin_buffer, desc->event and the transport's memory and undoes
 * them exactly once. Errors leave them the caller's: NULL_ARGUMENT (index
 * 0 tensor, 2 desc); INVALID_ARGUMENT (value: index, expected: count,
 * index 1) past the end, (value: struct_size, index 2) for a short desc;
 * ILLEGAL_TRANSITION (index: the buffer) for a buffer already staged or a
 * tensor already published.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_received_stage(hurray_received *received, size_t index,
                      const hurray_received_buffer_desc *desc, hurray_error *err);

/**
 * Hands out every buffer (RX-BUILD-2): each offered and accepted as an
 * ordinary handoff with the tensor's transport. All or none: on failure
 * (INVALID_ARGUMENT, value and index: a buffer not staged; the handoff's
 * error with index the buffer) every buffer accepted so far is undone in
 * discard mode (RX-REL-3) and the caller frees the tensor, which undoes
 * the rest. NULL_ARGUMENT (index 0) without a tensor; ILLEGAL_TRANSITION
 * the second time.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_received_publish(hurray_received *received,
                                                                  hurray_error *err);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_RECEIVED_H */
