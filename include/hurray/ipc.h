/*
 * libhurray — the IPC transport: a tensor's buffers handed to another
 * process on the same Linux machine without a copy.
 *
 * A producer listens on an AF_UNIX SOCK_SEQPACKET socket (a filesystem path,
 * an abstract name, or an inherited socketpair end) and consumers connect.
 * The producer shares host buffers as sealed memfds and offers them; a
 * consumer receives an offer as ordinary accepted handoffs
 * (hurray/handoff.h) whose release sends the release signal back and
 * unmaps the segment. The producer counts one reference per consumer and buffer and
 * calls a buffer's release callback only when every reference is gone. A
 * consumer that dies has its references reclaimed exactly once; a producer
 * that dies leaves the consumers' mappings valid until they are released.
 *
 * The rules are in specs/ipc.md (IDs IPC-...), the message format in
 * hurray/ipc_wire.h, the guide in docs/ipc.md.
 *
 * Memory: host buffers travel as sealed memfds (hurray_ipc_producer_share);
 * device buffers a plugin allocated exportable travel as the plugin's
 * export, a descriptor or a runtime IPC handle, in a DEVICE message
 * (hurray_ipc_producer_share_device; IPC-OFF-3), and the consumer imports
 * them through its own plugin registry (hurray_ipc_consumer_set_plugins;
 * IPC-SEG-5, IPC-SEG-6). Nothing is ever copied instead. A device buffer
 * may travel with the event its consumer waits on, where the runtime
 * exports events across processes (CUDA, ROCm):
 * hurray_ipc_producer_share_device_event, an EVENT message, and an
 * accepted event handoff on the consumer's side (IPC-OFF-4, IPC-SEG-7).
 * Other buffers are producer_synced; no stream crosses processes.
 *
 * Threads: a producer is not thread-safe (one thread drives it, including
 * every callback it calls). A consumer's receive must not race with its
 * destroy; releases of received buffers may come from any thread.
 *
 * Linux only (built with the `ipc` feature).
 *
 * Not yet part of ABI 1.0 (specs/handoff.md HO-ABI-9): the structs below may
 * still change layout before the transport is complete.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_H
#define HURRAY_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"
#include "hurray/handoff.h"
#include "hurray/ipc_wire.h"
#include "hurray/plugin_host.h"
#include "hurray/received.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Host segments (IPC-SEG-1)                                                */
/* ------------------------------------------------------------------------ */

/**
 * The seals a segment carries before it is offered (IPC-SEG-1):
 * F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL.
 */
HURRAY_API uint32_t hurray_ipc_required_seals(void);

/**
 * Creates a host segment of `size` bytes (a memfd with sealing allowed),
 * mapped read-write at *out_data for the producer to fill. *out_fd is the
 * memfd (close-on-exec). IO (value: errno, detail: the call) on failure;
 * INVALID_ARGUMENT (value: size) for 0. Nothing is left open on failure.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_segment_create(uint64_t size, int *out_fd,
                                                                    void **out_data,
                                                                    hurray_error *err);

/**
 * The producer has finished writing: when data is not NULL, replaces the
 * producer's own mapping of the segment (the `size` bytes at `data` that
 * hurray_ipc_segment_create gave) by a read-only one of the same bytes at
 * the same address, then adds the seals of IPC-SEG-1 to `fd` (BP-OWN-6: the
 * producer never mutates a buffer a consumer holds). IO on failure, value:
 * errno, detail: the call; EBUSY from fcntl(F_ADD_SEALS) when another
 * writable shared mapping of the segment still exists (unmap it first).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_segment_seal(int fd, void *data, uint64_t size,
                                                                  hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Producer                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct hurray_ipc_producer hurray_ipc_producer;
/** A buffer the producer shares: a sealed segment and its release. */
typedef struct hurray_ipc_shared hurray_ipc_shared;

/** What happened on a producer's channel (hurray_ipc_event.kind). */
#define HURRAY_IPC_EVENT_CONNECTED 1u /* consumer admitted: consumer_id, pid, uid */
#define HURRAY_IPC_EVENT_REFUSED 2u   /* connection refused: pid, uid, value = reason */
#define HURRAY_IPC_EVENT_RELEASED 3u  /* one hold dropped by RELEASE: offer_id, buffer_index */
#define HURRAY_IPC_EVENT_REJECTED 4u  /* the consumer rejected an offer: status, value, expected */
#define HURRAY_IPC_EVENT_GONE 5u      /* consumer hung up or died: value = holds reclaimed */
#define HURRAY_IPC_EVENT_PROTOCOL_ERROR 6u /* a bad message: status, value, expected, index */

/** One event, passed to the producer's event callback (valid during the call). */
typedef struct hurray_ipc_event {
  uint32_t struct_size;
  uint32_t kind;
  uint64_t consumer_id;
  int32_t pid;
  uint32_t uid;
  uint64_t offer_id;
  uint32_t buffer_index;
  /** A hurray_status for REJECTED and PROTOCOL_ERROR, else 0. */
  uint32_t status;
  uint64_t value;
  uint64_t expected;
  uint64_t index;
} hurray_ipc_event;

typedef void (*hurray_ipc_event_fn)(const hurray_ipc_event *event, void *ctx);

/** Options of a producer; zero-initialise, set struct_size, then what you need. */
typedef struct hurray_ipc_producer_options {
  /** sizeof(hurray_ipc_producer_options) as the caller knows it. */
  uint32_t struct_size;
  /** Number of entries of allowed_uids; 0 admits the producer's own uid only (IPC-CRED-1). */
  uint32_t allowed_uid_count;
  const uint32_t *allowed_uids;
  /** Called for every event (may be NULL); runs on the thread calling poll. */
  hurray_ipc_event_fn on_event;
  void *event_ctx;
  /** Most consumers connected at once; 0: 64. Others get REFUSE CONSUMER_LIMIT. */
  uint32_t max_consumers;
  uint32_t reserved;
} hurray_ipc_producer_options;

/**
 * Listens on `address`: "/a/path" (or any string without a leading '@') is a
 * filesystem path, created by this call (EADDRINUSE if it exists: IO);
 * "@name" is the abstract name "name". opts may be NULL (defaults).
 * INVALID_ARGUMENT (value: length) for an address longer than sun_path.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_ipc_producer_listen(const char *address, const hurray_ipc_producer_options *opts,
                           hurray_ipc_producer **out, hurray_error *err);

/**
 * A producer serving one consumer on an already connected SOCK_SEQPACKET
 * socket (an end of socketpair(2), inherited by or from a child). Takes
 * ownership of `fd`. The credentials check and HELLO happen here; a refused
 * peer is reported as IPC_REFUSED and *out is not written. *out_consumer_id
 * (may be NULL) receives the consumer's id.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_from_socket(
    int fd, const hurray_ipc_producer_options *opts, hurray_ipc_producer **out,
    uint64_t *out_consumer_id, hurray_error *err);

/**
 * Processes what arrived: new connections (credentials, HELLO or REFUSE),
 * RELEASE and REJECT messages, hang-ups (reclaiming that consumer's holds,
 * IPC-FLT-1), protocol errors (IPC-ERR-2). Waits at most timeout_ms for the
 * first event (0: do not wait, -1: wait until one), then handles everything
 * that is ready. Every event goes to the on_event callback; release
 * callbacks of buffers whose last reference went are called here. OK, or
 * IO on a failing poll.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_poll(hurray_ipc_producer *producer,
                                                                   int timeout_ms,
                                                                   hurray_error *err);

/**
 * Polls until a consumer is connected that was not returned before by this
 * function, and writes its id. TIMEOUT (value: the timeout in ns) when none
 * came within timeout_ms (-1: no limit).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_next_consumer(
    hurray_ipc_producer *producer, int timeout_ms, uint64_t *consumer_id, hurray_error *err);

/** What a producer shares: a host segment and the callback that frees it. */
typedef struct hurray_ipc_buffer_desc {
  /** sizeof(hurray_ipc_buffer_desc) as the caller knows it. */
  uint32_t struct_size;
  /** HURRAY_IPC_MEMORY_HOST_MEMFD; other values are reserved for device memory. */
  uint32_t memory_kind;
  /** The declaration: device_tag cpu, producer_synced (BP-SYNC-2). */
  hurray_buffer_handle handle;
  /** The sealed memfd (IPC-SEG-1); the producer takes ownership on success. */
  int32_t fd;
  uint32_t reserved;
  /** Offset of the buffer in the segment; offset + byte_size <= segment size. */
  uint64_t offset;
  /** Passed to release as its first argument (e.g. the producer's mapping). */
  void *data;
  /** Called exactly once, when the producer retired the buffer and no consumer holds it. */
  hurray_buffer_release_fn release;
  void *release_ctx;
} hurray_ipc_buffer_desc;

/**
 * Shares a buffer (IPC-OFF-1): checks the handle, that it is host memory
 * (UNSUPPORTED for another memory_kind, value: the kind, or device tag), the
 * fd's seals (IPC_BAD_SEGMENT, value: seals found, expected: required) and
 * size (IPC_BAD_SEGMENT, value: segment size, expected: offset + byte_size).
 * On success the producer owns desc->fd and holds one reference itself.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_ipc_producer_share(hurray_ipc_producer *producer, const hurray_ipc_buffer_desc *desc,
                          hurray_ipc_shared **out, hurray_error *err);

/**
 * Shares a device buffer (IPC-OFF-3): a live buffer of a plugin allocated
 * with HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, exported here once
 * (hurray_plugin_buffer_export: a descriptor or the runtime's IPC handle,
 * kept until the release). Its handle is the plugin buffer's, and must be
 * producer_synced (UNSUPPORTED otherwise, value: the mode, index 1). The
 * buffer must stay allocated until `release(data, release_ctx)` is called,
 * exactly once, when the producer retired it and no consumer holds it:
 * pass hurray_plugin_buffer_release_callback with the buffer as
 * release_ctx to free it then. Errors: NULL_ARGUMENT (index 0 producer,
 * 1 buffer, 3 release, 5 out); USE_AFTER_DESTROY for a freed buffer;
 * UNSUPPORTED for a plugin without export or a buffer not allocated
 * exportable (expected: the tag), and every error of the export. Nothing
 * is kept open on failure.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_ipc_producer_share_device(hurray_ipc_producer *producer, const hurray_plugin_buffer *buffer,
                                 void *data, hurray_buffer_release_fn release, void *release_ctx,
                                 hurray_ipc_shared **out, hurray_error *err);

/**
 * Shares a device buffer with the event a consumer must wait on before
 * reading it (IPC-OFF-4): as hurray_ipc_producer_share_device, plus
 * `event`, an event of the buffer's plugin created with
 * HURRAY_PLUGIN_EVENT_EXPORTABLE (hurray_plugin_event_create_flags) and
 * recorded after the work that writes the buffer. The shared handle
 * declares sync_mode event, so an offer of it needs
 * HURRAY_IPC_EXPORTS_EVENTS in its ipc_capabilities (BP-XPORT-3). On
 * success the producer owns the event: do not record it again (every
 * importer would see the new record); it is released right before
 * release(data, release_ctx), once no consumer holds the buffer. On
 * failure the event stays the caller's. Errors: NULL_ARGUMENT (index 0
 * producer, 1 buffer, 2 event, 4 release, 6 out); DEVICE_TAG_MISMATCH
 * (value: the event plugin's tag, expected: the buffer's, index 2) for an
 * event of another plugin; UNSUPPORTED for an event not created
 * exportable (hurray_plugin_event_export's errors, PL-IPC-8) and every
 * error of hurray_ipc_producer_share_device.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_share_device_event(
    hurray_ipc_producer *producer, const hurray_plugin_buffer *buffer, hurray_plugin_event *event,
    void *data, hurray_buffer_release_fn release, void *release_ctx, hurray_ipc_shared **out,
    hurray_error *err);

/**
 * The producer will not offer `shared` again: drops its own reference. The
 * release callback runs now if no consumer holds the buffer, else when the
 * last one releases (IPC-REL-2). The pointer must not be used afterwards.
 */
HURRAY_API void hurray_ipc_shared_retire(hurray_ipc_shared *shared);

/**
 * Offers buffers[0 .. count) to consumer `consumer_id` as one OFFER
 * (IPC-MSG-9): validated first (colocation BP-COLOC-1, the IPC transport
 * rule for `ipc_capabilities` BP-XPORT-3, at most 253 buffers: CAPACITY),
 * then sent: a DEVICE message per device buffer (with its descriptor, for
 * an export of kind FD) and, for a buffer shared with its event, an EVENT
 * message, then the OFFER with one descriptor per host buffer (IPC-OFF-3,
 * IPC-OFF-4). A failure after a DEVICE message went out ends the
 * connection (its holds reclaimed), since the consumer could no longer
 * tell the next offer from a broken one. On success the consumer holds a
 * reference to each buffer and *offer_id (may be NULL) is the offer's id.
 * INVALID_ARGUMENT (value: consumer_id) for a consumer not connected;
 * IPC_PEER_GONE when it hung up (its holds are reclaimed). Never waits for
 * the consumer: TIMEOUT (value 0, index 1) when its socket takes no more
 * messages now because it is not reading; then nothing of the offer was
 * sent or held and the consumer stays connected (IPC-FLOW-1).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_offer(
    hurray_ipc_producer *producer, uint64_t consumer_id, hurray_ipc_shared *const *buffers,
    size_t count, uint32_t ipc_capabilities, uint64_t *offer_id, hurray_error *err);

/** One outstanding hold: a consumer that has not released a buffer (IPC-REL-3). */
typedef struct hurray_ipc_hold {
  uint64_t consumer_id;
  uint64_t offer_id;
  int32_t pid;
  uint32_t buffer_index;
  const hurray_ipc_shared *buffer;
} hurray_ipc_hold;

/**
 * Lists the outstanding holds into out[0 .. cap); *count receives the total
 * number (which may exceed cap: call again with more room). Never reclaims.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_ipc_producer_holds(const hurray_ipc_producer *producer, hurray_ipc_hold *out, size_t cap,
                          size_t *count, hurray_error *err);

/**
 * Disconnects a consumer and reclaims its holds now (the producer's explicit
 * timeout policy, IPC-REL-3); a GONE event reports how many.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_producer_disconnect(
    hurray_ipc_producer *producer, uint64_t consumer_id, hurray_error *err);

/**
 * Disconnects every consumer (their holds reclaimed), retires every shared
 * buffer not yet retired (every release callback has run when this returns),
 * closes the socket, unlinks a filesystem address, frees the producer and
 * writes NULL to *producer. Consumers' mappings stay valid (IPC-FLT-2).
 */
HURRAY_API void hurray_ipc_producer_destroy(hurray_ipc_producer **producer);

/* ------------------------------------------------------------------------ */
/* Consumer                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct hurray_ipc_consumer hurray_ipc_consumer;
/**
 * One received offer: its buffers as accepted handoffs. It is the
 * transport-neutral received tensor of hurray/received.h under its IPC name
 * (RX-OBJ-1): hurray_ipc_received_tensor gives it, and every
 * hurray_ipc_received_* call below is the hurray_received_* call of the
 * same name. The caller of the receive owns it and frees it with
 * hurray_ipc_received_free (or hurray_received_free); each buffer is
 * released exactly once, by its release or by the free (RX-REL-1, RX-REL-4).
 */
typedef struct hurray_ipc_received hurray_ipc_received;

typedef struct hurray_ipc_consumer_options {
  /** sizeof(hurray_ipc_consumer_options) as the caller knows it. */
  uint32_t struct_size;
  /** Number of entries of allowed_uids; 0 accepts a producer of the own uid only (IPC-CRED-3). */
  uint32_t allowed_uid_count;
  const uint32_t *allowed_uids;
  /** How long connect waits for HELLO or REFUSE; 0: 5000 ms. */
  int32_t connect_timeout_ms;
  uint32_t reserved;
} hurray_ipc_consumer_options;

/**
 * Connects to a producer listening on `address` (as in
 * hurray_ipc_producer_listen) and waits for its HELLO. IPC_REFUSED (value:
 * the reason, expected: the uid it names) when the producer refused us or
 * we refused it; TIMEOUT when no answer came in time; IO otherwise.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_ipc_consumer_connect(const char *address, const hurray_ipc_consumer_options *opts,
                            hurray_ipc_consumer **out, hurray_error *err);

/** As connect, on an inherited connected socket (takes ownership of fd). */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_consumer_from_socket(
    int fd, const hurray_ipc_consumer_options *opts, hurray_ipc_consumer **out, hurray_error *err);

/**
 * Where this consumer imports device buffers (IPC-SEG-5): a plugin of
 * `plugins` serving each buffer's device tag. Until it is called (or with
 * NULL) an offer of device memory is rejected with DEVICE_UNAVAILABLE. The
 * registry must outlive every offer received after the call (the imports
 * are its plugins' buffers). Not thread-safe against receive.
 * NULL_ARGUMENT (index 0) without a consumer.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_consumer_set_plugins(
    hurray_ipc_consumer *consumer, hurray_plugin_registry *plugins, hurray_error *err);

/** The producer's pid, as its HELLO reported it (SO_PEERCRED of a socketpair names its creator). */
HURRAY_API int32_t hurray_ipc_consumer_producer_pid(const hurray_ipc_consumer *consumer);

/**
 * Waits at most timeout_ms (-1: no limit) for the next OFFER, checks it
 * (IPC-MSG-*, IPC-SEG-2, IPC-SEG-3), maps every host segment read-only,
 * imports every device buffer through its plugins (IPC-SEG-5; the DEVICE
 * messages before the OFFER are read on the way, each wait up to
 * timeout_ms), imports the event of every event buffer on the device that
 * imported its memory (IPC-SEG-7; the EVENT messages are read with the
 * DEVICE messages) and returns its buffers accepted (HURRAY_TRANSPORT_IPC;
 * state READABLE, or EVENT_PENDING for an event buffer, whose accepted
 * `event` is the imported hurray_plugin_event *, HURRAY_EVENT_KIND_PLUGIN).
 * Any failure maps and imports nothing, closes
 * every descriptor received, sends REJECT with the error and returns it
 * (IPC_BAD_SEGMENT, UNSUPPORTED, DEVICE_UNAVAILABLE, the plugin's refusal,
 * ... naming the value and the buffer's index). A malformed message, or
 * DEVICE or EVENT messages that do not match the OFFER (IPC-OFF-3,
 * IPC-OFF-4), also ends the
 * connection (IPC-ERR-2). TIMEOUT when nothing came; IPC_PEER_GONE when the
 * producer hung up.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_consumer_receive(hurray_ipc_consumer *consumer,
                                                                      int timeout_ms,
                                                                      hurray_ipc_received **out,
                                                                      hurray_error *err);

/**
 * Buffer `index`'s imported plugin buffer, for a buffer of device memory
 * (IPC-SEG-5): read or use it through the plugin (hurray_plugin_buffer_read)
 * or its runtime (hurray_plugin_buffer_allocation). NULL for host memory,
 * past the end, or once the buffer is released (the import is freed then,
 * IPC-SEG-6).
 */
HURRAY_API hurray_plugin_buffer *hurray_ipc_received_plugin_buffer(
    const hurray_ipc_received *received, size_t index);

/**
 * The offer as the transport-neutral received tensor (the same object, not
 * a copy; RX-OBJ-1): owned as the offer is, freed by either free, once.
 * NULL for NULL.
 */
HURRAY_API hurray_received *hurray_ipc_received_tensor(hurray_ipc_received *received);

/** The offer's id and number of buffers (0 for NULL). */
HURRAY_API uint64_t hurray_ipc_received_offer_id(const hurray_ipc_received *received);
HURRAY_API size_t hurray_ipc_received_count(const hurray_ipc_received *received);

/**
 * Buffer `index` of the offer: its accepted view (handle, data pointer into
 * the read-only mapping) and its handoff, in state READABLE (EVENT_PENDING
 * for an event buffer: wait on the event, record the wait with
 * hurray_handoff_record_event_wait, release it with
 * hurray_handoff_release_event, which closes the import, IPC-SEG-7).
 * Releasing the handoff (hurray_handoff_release, from any thread) frees a
 * device import and sends RELEASE, or sends RELEASE and unmaps a host
 * segment; both are done when it returns. A second release is
 * ALREADY_RELEASED (IPC-SEG-4). NULL past the end.
 */
HURRAY_API const hurray_accepted_buffer *hurray_ipc_received_buffer(
    const hurray_ipc_received *received, size_t index);
HURRAY_API hurray_handoff *hurray_ipc_received_handoff(hurray_ipc_received *received, size_t index);

/**
 * Releases buffer `index` exactly once, like hurray_handoff_release on its
 * handoff, and reports whether the release signal reached the producer
 * (RX-REL-2): PEER_GONE (value: its pid, index: the buffer) when it could not be sent (the buffer is
 * released locally all the same, IPC-FLT-2); ALREADY_RELEASED the second
 * time; ILLEGAL_TRANSITION for an event buffer whose event is still held
 * (HO-SM: the event's release comes first); INVALID_ARGUMENT (value:
 * index) past the end.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_ipc_received_release(hurray_ipc_received *received,
                                                                      size_t index,
                                                                      hurray_error *err);

/**
 * Releases every buffer of the offer still held, exactly once, whatever
 * state it reached (an event still held first, IPC-SEG-7; each release
 * sends RELEASE and unmaps, RX-REL-4), then frees it and writes NULL to
 * *received. May outlive the consumer object: the connection stays open
 * for these releases until the last offer is freed.
 */
HURRAY_API void hurray_ipc_received_free(hurray_ipc_received **received);

/**
 * Frees the consumer; writes NULL to *consumer. Received offers stay valid
 * and keep the connection open until the last of them is freed, so their
 * release signals still reach the producer.
 */
HURRAY_API void hurray_ipc_consumer_destroy(hurray_ipc_consumer **consumer);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_IPC_H */
