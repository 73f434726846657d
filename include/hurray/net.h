/*
 * libhurray — the network transport: a tensor's buffers copied to
 * another process or machine over UCX (libucp).
 *
 * A receiver listens on an IP address and port (UCX's ucp_listener) and
 * accepts connections; a sender connects. The sender hands over an encoded
 * buffer table and one pointer per buffer; the table is decoded with the
 * proven decoder and every handle checked against the network transport rule
 * (producer_synced only, BP-XPORT-4) before a byte leaves. The receiver
 * checks the table the same way, enforces the byte limits it set before it
 * allocates anything, receives every buffer into memory of its own and only
 * then hands the buffers out as ordinary accepted handoffs
 * (hurray/handoff.h), each released exactly once. Nothing is shared: each
 * side owns its copy (BP-OWN-4).
 *
 * Rules: specs/network.md (IDs NET-...). Guide: docs/network.md. The
 * control messages, their writers and their proven decoder are in
 * hurray/net_wire.h, part of libhurray itself (no UCX needed).
 *
 * Scope of this version: the sender's bytes are host memory; a handle's
 * device tag names where the receiver places the buffer: host memory, or
 * a device through a plugin of the registry the receiver gave the
 * connection (hurray_net_connection_set_plugins), else DEVICE_UNAVAILABLE
 * (NET-DEV-1, NET-DEV-2). Sends and receives block the calling thread until
 * they are complete, failed or timed out.
 *
 * Threads: a context and everything made from it (listeners, connections)
 * are driven by one thread at a time. Use one context per thread. Releases
 * of received buffers may come from any thread.
 *
 * Built into the separate library libhurray-net (pkg-config hurray-net) when
 * UCX is found at configure time (meson option `net`).
 *
 * Not part of ABI 1.0 (specs/handoff.md HO-ABI-9): the structs below may
 * still change layout before the transport is complete.
 *
 * A send that returns OK means UCX has finished with the bytes, not that
 * the receiver accepted them: a receiver's refusal that arrives later is
 * the answer of the next send on the connection (NET-SEND-4).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_NET_H
#define HURRAY_NET_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/handoff.h"
#include "hurray/net_wire.h"
#include "hurray/plugin_host.h"
#include "hurray/received.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Context, listener, connections (NET-CONN-*)                              */
/* ------------------------------------------------------------------------ */

typedef struct hurray_net_context hurray_net_context;
typedef struct hurray_net_listener hurray_net_listener;
typedef struct hurray_net_connection hurray_net_connection;
/**
 * One received tensor: its buffers as accepted handoffs. It is the
 * transport-neutral received tensor of hurray/received.h under its network
 * name (RX-OBJ-1): hurray_net_received_tensor gives it, and every
 * hurray_net_received_* call below is the hurray_received_* call of the
 * same name. The caller of the receive owns it and frees it with
 * hurray_net_received_free (or hurray_received_free); each buffer is
 * released exactly once, by its release or by the free (RX-REL-1, RX-REL-4).
 */
typedef struct hurray_net_received hurray_net_received;

/**
 * Creates a UCX context (ucp_init with tag matching); which transports it
 * uses is UCX's configuration (UCX_TLS, UCX_NET_DEVICES). IO (value: the
 * negated ucs_status_t, detail: UCX's message) on failure.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_context_create(hurray_net_context **out,
                                                                    hurray_error *err);

/**
 * Frees the context and writes NULL. Every listener and connection made
 * from it must be destroyed or closed first; received tensors may outlive it.
 */
HURRAY_API void hurray_net_context_destroy(hurray_net_context **ctx);

/** Default of hurray_net_options.max_tensor_bytes: 1 GiB. */
#define HURRAY_NET_DEFAULT_MAX_TENSOR_BYTES (1ull << 30)

/**
 * Allow UCX's shared-memory transports (posix, sysv, cma) on this connection
 * (NET-CONN-5). UCX 1.13 selects none of them for an endpoint that detects
 * peer failure (UCP_ERR_HANDLING_MODE_PEER, the default here), so with this
 * flag the endpoint does not: a peer that dies is seen only as a TIMEOUT,
 * and a close waits for the peer's acknowledgement (at most two seconds).
 * Both sides of a connection must set it alike.
 */
#define HURRAY_NET_OPTION_SHARED_MEMORY 0x1u

/**
 * One side's options for a connection: the limits on what it receives
 * (NET-LIM-1) and flags; zero-initialise, set struct_size, then what you
 * need. Read, never written: only the first struct_size bytes are read.
 */
typedef struct hurray_net_options {
  /** sizeof(hurray_net_options) as the caller knows it; at least 8. */
  uint32_t struct_size;
  /** HURRAY_NET_OPTION_* bits; others are INVALID_ARGUMENT. */
  uint32_t flags;
  /** Most bytes (all buffers together) one tensor may declare; 0: the default. */
  uint64_t max_tensor_bytes;
  /** Most bytes all tensors received on the connection may declare together; 0: no limit. */
  uint64_t max_connection_bytes;
} hurray_net_options;

/**
 * Listens on `address` (an IPv4 or IPv6 literal such as "127.0.0.1") and
 * `port` (0: the system picks one; hurray_net_listener_port says which).
 * INVALID_ARGUMENT (detail: the address) for an address that is not a
 * literal; IO (value: the negated ucs_status_t) when UCX cannot listen.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_listen(hurray_net_context *ctx,
                                                            const char *address, uint16_t port,
                                                            hurray_net_listener **out,
                                                            hurray_error *err);

/** The port the listener is bound to (NET-CONN-1). */
HURRAY_API uint16_t hurray_net_listener_port(const hurray_net_listener *listener);

/**
 * Waits at most timeout_ms (-1: no limit) for the next connection request
 * and accepts it with the limits in opts (NULL: the defaults). TIMEOUT
 * (value: the timeout in ns) when none came; IO when UCX fails.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_accept(hurray_net_listener *listener,
                                                            const hurray_net_options *opts,
                                                            int timeout_ms,
                                                            hurray_net_connection **out,
                                                            hurray_error *err);

/**
 * Stops listening, refuses the requests not accepted, frees the listener
 * and writes NULL. Accepted connections stay open.
 */
HURRAY_API void hurray_net_listener_destroy(hurray_net_listener **listener);

/**
 * Connects to a listener at `address` and `port` (opts: the limits for
 * what this side receives; NULL: defaults). UCX establishes the connection
 * in the background: a listener that is not there shows as PEER_GONE on
 * the first send or receive.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_connect(hurray_net_context *ctx,
                                                             const char *address, uint16_t port,
                                                             const hurray_net_options *opts,
                                                             hurray_net_connection **out,
                                                             hurray_error *err);

/** HURRAY_TRUE once the peer hung up, failed, or the connection ended after a fault. */
HURRAY_API hurray_bool32 hurray_net_connection_broken(const hurray_net_connection *conn);

/** Declared bytes of every tensor received on this connection (NET-LIM-1). */
HURRAY_API uint64_t hurray_net_connection_bytes_received(const hurray_net_connection *conn);

/**
 * Writes UCX's description of the connection's endpoint (ucp_ep_print_info:
 * the transports and devices of each lane) into buf[0 .. cap), always
 * NUL-terminated when cap > 0, and returns the length written. Says which
 * transport actually carries the bytes (NET-CONN-4); 0 when the connection
 * has ended.
 */
HURRAY_API size_t hurray_net_connection_describe(const hurray_net_connection *conn, char *buf,
                                                 size_t cap);

/**
 * Closes the connection (NET-CONN-3): flushes what this side sent and
 * disconnects (forcibly when the peer is gone or the flush takes more than
 * a second), frees it and writes NULL. The peer sees PEER_GONE.
 * Received tensors stay valid.
 */
HURRAY_API void hurray_net_close(hurray_net_connection **conn);

/* ------------------------------------------------------------------------ */
/* Sending (NET-SEND-*)                                                     */
/* ------------------------------------------------------------------------ */

/** One source buffer of a send. */
typedef struct hurray_net_source {
  /** sizeof(hurray_net_source): sources are an array, so it must be this size exactly. */
  uint32_t struct_size;
  uint32_t reserved;
  /** The bytes, in host memory (byte_size of the matching handle); NULL only for an empty
   * buffer. The handle's device tag names where the receiver places them (NET-DEV-1). */
  const void *data;
  /** Called exactly once, when UCX has finished with the bytes (may be NULL). */
  hurray_buffer_release_fn release;
  void *release_ctx;
} hurray_net_source;

/**
 * Sends one tensor: the encoded buffer table table[0 .. table_len) and the
 * bytes of each buffer, sources[i] for handle i. Validated before a byte
 * leaves (NET-SEND-1): the table with hurray_buffer_table_decode_exact
 * (its errors); source_count equal to the handles (INVALID_ARGUMENT, value:
 * source_count, expected: handles); each source's struct_size
 * (INVALID_ARGUMENT, value: it, expected: sizeof, index: the source) and
 * data (NULL_ARGUMENT, index: the source, for a non-empty buffer); every
 * handle producer_synced (SYNC_MODE_NOT_ALLOWED, value: the mode, expected:
 * HURRAY_TRANSPORT_NETWORK, index: the handle). A handle's device tag is
 * the destination, not checked here (NET-DEV-1). Then the
 * message and every buffer go out and the call waits until UCX has
 * finished with them, at most timeout_ms (-1: no limit; TIMEOUT, value: ns,
 * and the connection is ended). A REFUSE from the receiver is returned as
 * its status and values (detail says the receiver refused). PEER_GONE
 * when the peer hung up. *tensor_id (may be NULL) is the tensor's id.
 *
 * Ownership (NET-SEND-3): once conn, table and sources are not NULL, every
 * source's release runs exactly once before this returns, on success and on
 * every failure, after UCX has finished with the bytes.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_send(hurray_net_connection *conn,
                                                          const uint8_t *table, size_t table_len,
                                                          const hurray_net_source *sources,
                                                          size_t source_count, int timeout_ms,
                                                          uint64_t *tensor_id, hurray_error *err);

/**
 * Sends one tensor whose bytes are in plugin buffers (NET-SEND-5): as
 * hurray_net_send, with buffers[i] the source of handle i (NULL only for an
 * empty buffer; the handle's device tag still names the destination,
 * NET-DEV-1). UCX here has no memory type for the plugins' runtimes, so
 * each buffer's first byte_size bytes are copied into host memory of the
 * library's (hurray_plugin_buffer_read) before anything is sent, and those
 * copies are freed when UCX is done with them. The plugin buffers stay the
 * caller's: only read, never freed, free to change once the call returned.
 * Checked before a byte leaves and before anything is copied, with
 * hurray_net_send's errors: the table, buffer_count equal to its handles
 * (INVALID_ARGUMENT, value: buffer_count, expected: handles), every handle
 * producer_synced; then NULL_ARGUMENT (index: the buffer) for a missing
 * buffer of a non-empty handle, and the read's error (INVALID_ARGUMENT,
 * value: the bytes asked, expected: the buffer's size, for a buffer
 * smaller than its handle; index: the buffer) or OUT_OF_MEMORY for the copy.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_net_send_plugin_buffers(hurray_net_connection *conn, const uint8_t *table, size_t table_len,
                               hurray_plugin_buffer *const *buffers, size_t buffer_count,
                               int timeout_ms, uint64_t *tensor_id, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Receiving (NET-RECV-*)                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Waits at most timeout_ms (-1: no limit) for the next tensor and receives
 * all of it (NET-RECV-1..8): the message decoded (NET-MSG-4), its tensor_id
 * above the previous one's (INVALID_ARGUMENT, value: the id, index 16), every handle
 * producer_synced (SYNC_MODE_NOT_ALLOWED), its device placeable: host
 * memory, or a device a plugin of hurray_net_connection_set_plugins serves
 * (DEVICE_UNAVAILABLE, value: the device tag, index: the handle; NET-DEV-2),
 * the limits (CAPACITY, value:
 * bytes declared, expected: the limit; index 0 per tensor, 1 per
 * connection) checked before anything is allocated; then every buffer is
 * allocated (aligned as declared; a device buffer through its plugin,
 * whose refusal is the error) and received, and must be exactly its
 * declared size (TRUNCATED or TRAILING_BYTES, value: bytes, expected: the
 * size, index: the buffer). Only when every byte arrived are the buffers
 * handed out, accepted (READABLE, HURRAY_TRANSPORT_NETWORK, owned by the
 * receiver). On any failure everything allocated is freed, a REFUSE with
 * the error is sent when the connection still works, and the connection is
 * ended. TIMEOUT when no tensor began within timeout_ms (the connection
 * stays); PEER_GONE when the peer hung up, also mid-transfer.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_receive(hurray_net_connection *conn,
                                                             int timeout_ms,
                                                             hurray_net_received **out,
                                                             hurray_error *err);

/**
 * The tensor as the transport-neutral received tensor (the same object, not
 * a copy; RX-OBJ-1): owned as the tensor is, freed by either free, once.
 * NULL for NULL.
 */
HURRAY_API hurray_received *hurray_net_received_tensor(hurray_net_received *received);

/** The tensor's id (as the sender numbered it) and number of buffers (0 for NULL). */
HURRAY_API uint64_t hurray_net_received_tensor_id(const hurray_net_received *received);
HURRAY_API size_t hurray_net_received_count(const hurray_net_received *received);

/**
 * Buffer `index`: its accepted view (handle, data pointer into memory the
 * receiver owns) and its handoff, in state READABLE. Releasing the handoff
 * (hurray_handoff_release, any thread) frees the memory, or keeps it for the
 * connection's next receives (NET-RECV-9); a second release is
 * ALREADY_RELEASED. NULL past the end.
 */
HURRAY_API const hurray_accepted_buffer *hurray_net_received_buffer(
    const hurray_net_received *received, size_t index);
HURRAY_API hurray_handoff *hurray_net_received_handoff(hurray_net_received *received, size_t index);

/**
 * Releases buffer `index` exactly once (as hurray_handoff_release on its
 * handoff; RX-REL-1, RX-REL-2). ALREADY_RELEASED the second time; INVALID_ARGUMENT (value:
 * index, expected: count) past the end.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_received_release(hurray_net_received *received,
                                                                      size_t index,
                                                                      hurray_error *err);

/**
 * Releases every buffer still held, exactly once, whatever state it
 * reached (RX-REL-4: its memory back to the connection, or freed after the
 * close; a device buffer freed), frees the tensor and writes NULL. May
 * come after the connection was closed.
 */
HURRAY_API void hurray_net_received_free(hurray_net_received **received);

/**
 * Where this connection, as a receiver, places buffers the sender declared
 * on a device (NET-DEV-2): through the plugin of `plugins` serving the
 * declared tag, device 0. Until it is called (or with NULL) only host
 * memory (cpu) is placed and a device tag is DEVICE_UNAVAILABLE. The
 * registry must outlive every tensor received after the call (its buffers
 * are the plugins'). NULL_ARGUMENT (index 0) without a connection.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_connection_set_plugins(
    hurray_net_connection *conn, hurray_plugin_registry *plugins, hurray_error *err);

/** Default of hurray_net_connection_set_reuse_bytes: 256 MiB. */
#define HURRAY_NET_DEFAULT_REUSE_BYTES (256ull << 20)

/**
 * The most bytes of released host memory this connection keeps for its
 * next receives (NET-RECV-9; default HURRAY_NET_DEFAULT_REUSE_BYTES, 0:
 * keep none). A received host buffer's release returns its memory to the
 * connection, and a later tensor with a buffer of exactly that size (at an
 * address that meets its alignment) lands there instead of in new memory,
 * which spares the allocation and the page faults of every tensor. Nothing
 * of a previous tensor is ever handed out: a buffer is handed out only when
 * every declared byte arrived into it (NET-RECV-4). Lowering the budget
 * frees what is kept above it, oldest first; the close frees all of it, and
 * a buffer released after the close is freed at once. NULL_ARGUMENT
 * (index 0) without a connection.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_net_connection_set_reuse_bytes(
    hurray_net_connection *conn, uint64_t bytes, hurray_error *err);

/** Bytes of released host memory the connection keeps now (NET-RECV-9). */
HURRAY_API uint64_t hurray_net_connection_kept_bytes(const hurray_net_connection *conn);

/** How many received buffers landed in kept memory instead of new memory (NET-RECV-9). */
HURRAY_API uint64_t hurray_net_connection_buffers_reused(const hurray_net_connection *conn);

/**
 * Buffer `index`'s plugin buffer when it was placed on a device
 * (NET-DEV-2): read or use it through the plugin (hurray_plugin_buffer_read)
 * or its runtime. NULL for host memory, past the end, or once released
 * (the release frees it).
 */
HURRAY_API hurray_plugin_buffer *hurray_net_received_plugin_buffer(
    const hurray_net_received *received, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_NET_H */
