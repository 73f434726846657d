/*
 * libhurray — the C ABI handoff: how a buffer changes hands.
 *
 * A buffer handle (hurray/buffer.h) only declares a buffer. The bytes change
 * hands here: a producer offers (handle, data pointer, buffer-release
 * function, and the payload of the handle's sync mode); a consumer accepts
 * and receives the handle and pointer only after the payload has been
 * cross-checked against the declared sync mode, the handle validated and the
 * transport rule applied. From then on an explicit state machine enforces
 * the consumer's duties: wait on the producer's event before touching an
 * event buffer, release that event exactly once, touch a consumer_stream
 * buffer only on the declared stream until an inter-stream wait is recorded,
 * release the buffer exactly once and touch nothing afterwards.
 *
 * The rules are defined in specs/handoff.md (requirement IDs HO-...), which
 * also holds the state table; comments here cite those IDs. The user guide
 * is docs/handoff-guide.md.
 *
 * What a consumer checks first (HO-ABI-2): hurray_c_abi_version() of the
 * library actually loaded must be >= the HURRAY_C_ABI_VERSION the consumer
 * was compiled against. A larger value is compatible (versions only add);
 * a smaller one means a function or a contract the consumer relies on may be
 * missing, and the consumer must not call the handoff functions.
 *
 * Threads (HO-THR-1..5): hurray_handoff_init and the offer functions build
 * the object and must not race with each other on it; init must not race
 * with any call. Every other handoff function may be called from any
 * thread, concurrently, the offer included (a consumer polling accept or
 * access sees EMPTY or a complete offer): each one is one atomic
 * transition, so two threads releasing the same buffer produce exactly one
 * release callback and one HURRAY_ERR_ALREADY_RELEASED. No call reads the
 * object after its atomic step, so the thread that got
 * HURRAY_ERR_ALREADY_RELEASED may destroy and reuse the storage at once.
 * Buffer lists are not thread-safe; their release callbacks run on the
 * thread that destroys the list.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_HANDOFF_H
#define HURRAY_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"
#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* C ABI version (HO-ABI-1, HO-ABI-2)                                       */
/* ------------------------------------------------------------------------ */

/** The C ABI version this header describes. Only ever increases. */
#define HURRAY_C_ABI_VERSION 1u

/**
 * The C ABI version of the library actually loaded. A consumer calls this
 * before any other handoff function and proceeds only when the result is at
 * least the HURRAY_C_ABI_VERSION it was compiled with (HO-ABI-2).
 */
HURRAY_API uint32_t hurray_c_abi_version(void);

/* ------------------------------------------------------------------------ */
/* Callbacks and per-mode payloads (HO-PAY-1..4)                            */
/* ------------------------------------------------------------------------ */

/**
 * Releases a buffer. Called exactly once per accepted buffer, by whichever
 * thread releases it, so it must be callable from any thread (BP-OWN-2).
 * `buffer` is the data pointer that was offered; `ctx` the producer's context.
 */
typedef void (*hurray_buffer_release_fn)(void *buffer, void *ctx);

/**
 * Releases the producer's event (sync_mode event). Called exactly once per
 * accepted event buffer, separately from the buffer release (BP-SYNC-3).
 */
typedef void (*hurray_event_release_fn)(void *event, void *ctx);

/**
 * The out-of-band synchronisation payload that must match the handle's
 * sync_mode (HO-PAY-1..4). NULL means "absent". Build it with one of the
 * three helpers below rather than by hand.
 *   producer_synced: everything absent.
 *   event:           event, event_release present; event_device_tag equal to
 *                    the buffer's device_tag; no stream.
 *   consumer_stream: stream present (the stream the consumer supplied);
 *                    stream_device_tag equal to the buffer's; no event, no
 *                    event_release.
 * Growable (HO-ABI-10): struct_size is sizeof(hurray_sync_payload) as the
 * producer compiled it (the helpers set it), flags is 0.
 */
/**
 * What the payload's `event` is (HO-PAY-6). A consumer reads it from
 * hurray_accepted_buffer.event_kind to know what its own stream wait needs.
 */
typedef uint32_t hurray_event_kind;
/** No event (producer_synced, consumer_stream). */
#define HURRAY_EVENT_KIND_NONE 0u
/**
 * The vendor runtime's own handle, as its API types it: CUevent (CUDA),
 * hipEvent_t (ROCm), cl_event (OpenCL), VkSemaphore or VkFence (Vulkan),
 * ze_event_handle_t (Level Zero), MTLSharedEvent (Metal); the list per
 * plugin is in docs/plugin-abi.md. The consumer waits on it with that API.
 */
#define HURRAY_EVENT_KIND_NATIVE 1u
/**
 * A hurray_plugin_event * made by hurray_plugin_event_create(): the
 * consumer waits through hurray_plugin_event_stream_wait() or
 * hurray_plugin_event_wait(), on the plugin that made it.
 */
#define HURRAY_EVENT_KIND_PLUGIN 2u

typedef struct hurray_sync_payload {
  /** sizeof(hurray_sync_payload) as the caller compiled it; at least HURRAY_SYNC_PAYLOAD_MIN_SIZE. */
  uint32_t struct_size;
  /** 0: no flag is defined in this version. */
  uint32_t flags;
  void *event;
  hurray_device_tag event_device_tag;
  /** Zero; named so that the struct has no implicit padding (HO-ABI-3). */
  uint8_t reserved0[3];
  /** HURRAY_EVENT_KIND_*: NONE without an event, NATIVE or PLUGIN with one (HO-PAY-6). */
  hurray_event_kind event_kind;
  hurray_event_release_fn event_release;
  void *event_release_ctx;
  void *stream;
  hurray_device_tag stream_device_tag;
  /** Zero (HO-ABI-3). */
  uint8_t reserved1[7];
  /* Later versions append here (HO-ABI-10). */
} hurray_sync_payload;

/** The first published size of hurray_sync_payload (HO-ABI-10). Never changes. */
#define HURRAY_SYNC_PAYLOAD_MIN_SIZE 56u

/** The payload of a producer_synced buffer: nothing. */
/*@ assigns \nothing; */
static inline hurray_sync_payload hurray_sync_payload_none(void) {
  hurray_sync_payload payload = {(uint32_t)sizeof(hurray_sync_payload),
                                 0u,
                                 NULL,
                                 HURRAY_DEVICE_INVALID,
                                 {0},
                                 HURRAY_EVENT_KIND_NONE,
                                 NULL,
                                 NULL,
                                 NULL,
                                 HURRAY_DEVICE_INVALID,
                                 {0}};
  return payload;
}

/**
 * The payload of an event buffer: the event, what kind of event it is
 * (HURRAY_EVENT_KIND_NATIVE or _PLUGIN, HO-PAY-6), its driver's device tag,
 * and its release.
 */
/*@ assigns \nothing; */
static inline hurray_sync_payload hurray_sync_payload_event_of_kind(
    void *event, hurray_event_kind event_kind, hurray_device_tag event_device_tag,
    hurray_event_release_fn release, void *release_ctx) {
  hurray_sync_payload payload = {(uint32_t)sizeof(hurray_sync_payload),
                                 0u,
                                 event,
                                 event_device_tag,
                                 {0},
                                 event_kind,
                                 release,
                                 release_ctx,
                                 NULL,
                                 HURRAY_DEVICE_INVALID,
                                 {0}};
  return payload;
}

/**
 * The payload of an event buffer whose event is the vendor runtime's own
 * handle (HURRAY_EVENT_KIND_NATIVE): the event, its driver's device tag,
 * and its release. For a hurray_plugin_event use
 * hurray_sync_payload_event_of_kind(..., HURRAY_EVENT_KIND_PLUGIN, ...).
 */
/*@ assigns \nothing; */
static inline hurray_sync_payload hurray_sync_payload_event(void *event,
                                                            hurray_device_tag event_device_tag,
                                                            hurray_event_release_fn release,
                                                            void *release_ctx) {
  return hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_NATIVE, event_device_tag,
                                           release, release_ctx);
}

/** The payload of a consumer_stream buffer: the consumer's stream and its device tag. */
/*@ assigns \nothing; */
static inline hurray_sync_payload hurray_sync_payload_stream(void *stream,
                                                             hurray_device_tag stream_device_tag) {
  hurray_sync_payload payload = {(uint32_t)sizeof(hurray_sync_payload),
                                 0u,
                                 NULL,
                                 HURRAY_DEVICE_INVALID,
                                 {0},
                                 HURRAY_EVENT_KIND_NONE,
                                 NULL,
                                 NULL,
                                 stream,
                                 stream_device_tag,
                                 {0}};
  return payload;
}

/**
 * Why a payload does not match its declared sync_mode. Carried in
 * hurray_error.expected with HURRAY_ERR_SYNC_MODE_MISMATCH (value: the
 * declared sync_mode; index: for the two *_DEVICE_TAG reasons, the payload's
 * device tag, else 0). See HO-PAY-2..4.
 */
typedef uint32_t hurray_sync_mismatch;
/* The values of hurray_sync_mismatch: constants only, never a type (HO-ABI-4). */
enum {
  /** An event (or event release) on a buffer that is not sync_mode event. */
  HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT = 1,
  /** A stream on a buffer that is not sync_mode consumer_stream. */
  HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM = 2,
  /** sync_mode event without an event handle. */
  HURRAY_SYNC_MISMATCH_MISSING_EVENT = 3,
  /** sync_mode event without an event-release function. */
  HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE = 4,
  /** sync_mode consumer_stream without a stream. */
  HURRAY_SYNC_MISMATCH_MISSING_STREAM = 5,
  /** The event's device tag differs from the buffer's. */
  HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG = 6,
  /** The stream's device tag differs from the buffer's. */
  HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG = 7,
  /** event_kind is not NATIVE or PLUGIN with an event, or not NONE without
   * one (HO-PAY-6); index: the event_kind. */
  HURRAY_SYNC_MISMATCH_EVENT_KIND = 8
};

/** "unexpected event", "missing stream", …; "unknown" for other values. */
HURRAY_API const char *hurray_sync_mismatch_name(uint32_t reason);

/**
 * What a producer hands over besides the handle: the data pointer (may be
 * NULL only for an empty buffer, BP-ALIGN-3), the buffer-release function
 * (required) with its context, and the sync payload. Growable (HO-ABI-10):
 * build it with hurray_buffer_offer_make(), which sets struct_size.
 */
typedef struct hurray_buffer_offer {
  /** sizeof(hurray_buffer_offer) as the caller compiled it; at least HURRAY_BUFFER_OFFER_MIN_SIZE. */
  uint32_t struct_size;
  /** 0: no flag is defined in this version. */
  uint32_t flags;
  void *data;
  hurray_buffer_release_fn release;
  void *release_ctx;
  /** Its own struct_size says where it ends; later offer fields follow it (HO-ABI-10). */
  hurray_sync_payload sync;
} hurray_buffer_offer;

/** The first published size of hurray_buffer_offer (HO-ABI-10). Never changes. */
#define HURRAY_BUFFER_OFFER_MIN_SIZE 88u

/** An offer of `data` with its release function, context and sync payload. */
/*@ assigns \nothing; */
static inline hurray_buffer_offer hurray_buffer_offer_make(void *data,
                                                           hurray_buffer_release_fn release,
                                                           void *release_ctx,
                                                           hurray_sync_payload sync) {
  hurray_buffer_offer offer = {
      (uint32_t)sizeof(hurray_buffer_offer), 0u, data, release, release_ctx, sync};
  return offer;
}

/**
 * The cross-check accept performs (HO-CHECK-1..5), available to producers
 * that want to know before offering. In order: the offer's sizes and flags
 * (INVALID_ARGUMENT as hurray_handoff_offer reports them, HO-ABI-10), the handle (BP-ORDER-1,
 * steps 2-8; INVALID_SYNC_MODE for a sync byte that is not defined or a CPU
 * buffer that is not producer_synced), the data pointer (HO-CHECK-3), the
 * payload against the sync mode (SYNC_MODE_MISMATCH, see
 * hurray_sync_mismatch), then the transport rule
 * (hurray_transport_check_sync_mode; ipc_capabilities is used for IPC only).
 * Calls no callback.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_check(const hurray_buffer_handle *handle,
                                                               const hurray_buffer_offer *offer,
                                                               hurray_transport transport,
                                                               uint32_t ipc_capabilities,
                                                               hurray_error *err);

/* ------------------------------------------------------------------------ */
/* The state machine (HO-SM-1..6; the table is in specs/handoff.md)         */
/* ------------------------------------------------------------------------ */

/** Lifecycle states of one handoff. Values are stable (HO-ABI-4). */
typedef uint32_t hurray_handoff_state;
/* The values of hurray_handoff_state: constants only, never a type. */
enum {
  /** Initialised, nothing offered yet. */
  HURRAY_HANDOFF_EMPTY = 0,
  /** Offered; the producer still owns the buffer. */
  HURRAY_HANDOFF_OFFERED = 1,
  /** The producer took its offer back; it owns the buffer; no callback was called. */
  HURRAY_HANDOFF_WITHDRAWN = 2,
  /** Accepted producer_synced buffer: readable on any stream. */
  HURRAY_HANDOFF_READABLE = 3,
  /** Accepted event buffer: not readable until a wait on the event is recorded. */
  HURRAY_HANDOFF_EVENT_PENDING = 4,
  /** Event wait recorded: readable; the event is still held. */
  HURRAY_HANDOFF_EVENT_WAITED = 5,
  /** Event waited on and released: readable; only the buffer remains to release. */
  HURRAY_HANDOFF_EVENT_RELEASED = 6,
  /** Event released without a wait: the buffer may only be released, never read. */
  HURRAY_HANDOFF_EVENT_DROPPED = 7,
  /** Accepted consumer_stream buffer: readable on the declared stream only. */
  HURRAY_HANDOFF_STREAM_BOUND = 8,
  /** Inter-stream wait recorded: readable on any stream. */
  HURRAY_HANDOFF_STREAM_WAITED = 9,
  /** Buffer released: nothing is readable, only destroy is allowed. */
  HURRAY_HANDOFF_RELEASED = 10,
  /** Destroyed (poisoned): every operation reports USE_AFTER_DESTROY. */
  HURRAY_HANDOFF_DESTROYED = 11
};

/**
 * Number of states of this version: its states are 0 .. COUNT - 1. A later
 * version appends states above them (HO-ABI-7), so this is not a sentinel.
 */
#define HURRAY_HANDOFF_STATE_COUNT 12
/**
 * What hurray_handoff_state_of() returns for NULL or storage that is not an
 * initialised handoff: far above every state any version adds (HO-ABI-7).
 */
#define HURRAY_HANDOFF_STATE_INVALID 0xFFFFFFFFu

/** Operations on a handoff, each one a row of the table. Values are stable (HO-ABI-4). */
typedef uint32_t hurray_handoff_op;
/* The values of hurray_handoff_op: constants only, never a type. */
enum {
  HURRAY_HANDOFF_OP_OFFER = 0,
  HURRAY_HANDOFF_OP_WITHDRAW = 1,
  HURRAY_HANDOFF_OP_ACCEPT_PRODUCER_SYNCED = 2,
  HURRAY_HANDOFF_OP_ACCEPT_EVENT = 3,
  HURRAY_HANDOFF_OP_ACCEPT_CONSUMER_STREAM = 4,
  HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT = 5,
  HURRAY_HANDOFF_OP_RELEASE_EVENT = 6,
  HURRAY_HANDOFF_OP_RECORD_STREAM_WAIT = 7,
  /** Access on the declared stream (consumer_stream) or on any stream (other modes). */
  HURRAY_HANDOFF_OP_ACCESS = 8,
  /** Access on a stream other than the declared one. */
  HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM = 9,
  HURRAY_HANDOFF_OP_RELEASE = 10,
  HURRAY_HANDOFF_OP_DESTROY = 11,
  /** The buffer-release duty moves to a buffer list (hurray_buffer_list_push_handoff). */
  HURRAY_HANDOFF_OP_TRANSFER = 12
};

/** Number of operations: valid ops are 0 .. HURRAY_HANDOFF_OP_COUNT - 1. */
#define HURRAY_HANDOFF_OP_COUNT 13

/** The callback a transition fires, if any (HO-ABI-4). */
typedef uint32_t hurray_handoff_effect;
#define HURRAY_HANDOFF_EFFECT_NONE 0u
#define HURRAY_HANDOFF_EFFECT_RELEASE_EVENT 1u
#define HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER 2u

/** The outcome of one transition: three u32, 12 bytes, no padding (HO-ABI-3). */
typedef struct hurray_handoff_step {
  /** OK, ILLEGAL_TRANSITION, ALREADY_RELEASED, USE_AFTER_DESTROY or INVALID_ARGUMENT. */
  hurray_status status;
  /** The state after the step; equal to the state before when status != OK (HO-SM-3). */
  hurray_handoff_state next;
  /** The callback to fire; NONE whenever status != OK. */
  hurray_handoff_effect effect;
} hurray_handoff_step;

/**
 * The transition function: pure, total over every (state, op) integer pair
 * (INVALID_ARGUMENT for values outside the named constants), deterministic, equal to
 * the table of specs/handoff.md, and proven (Frama-C WP) to fire each
 * release callback on at most one transition of any path (HO-SM-1..6).
 * The handoff functions below are this function plus atomics and callbacks.
 */
HURRAY_API hurray_handoff_step hurray_handoff_transition(hurray_handoff_state state,
                                                         hurray_handoff_op op);

/** "offered", "event_pending", …; "invalid" outside the named states. */
HURRAY_API const char *hurray_handoff_state_name(uint32_t state);
/** "offer", "release_event", …; "invalid" outside the named operations. */
HURRAY_API const char *hurray_handoff_op_name(uint32_t op);

/* ------------------------------------------------------------------------ */
/* The handoff object                                                       */
/* ------------------------------------------------------------------------ */

/**
 * Bytes of caller-provided storage one handoff occupies, with at least 64
 * bytes of headroom for later versions (HO-ABI-8).
 */
#define HURRAY_HANDOFF_STORAGE_SIZE 256u

/**
 * One buffer changing hands, in storage the caller provides (on the stack,
 * embedded in a struct, anywhere that outlives its use). Opaque: touch it
 * only through the functions below. Not copyable: a copy is a different
 * object whose state diverges.
 *
 * Misuse detection (HO-MIS-1..3): after hurray_handoff_destroy the object is
 * poisoned and every call on it returns HURRAY_ERR_USE_AFTER_DESTROY and does
 * nothing; storage that was never initialised is reported as
 * HURRAY_ERR_INVALID_ARGUMENT. Limits: this works while the storage itself
 * is alive and untouched by anything else; storage that was freed, reused or
 * overwritten is beyond what a library can detect.
 */
typedef struct hurray_handoff {
  uint64_t opaque[HURRAY_HANDOFF_STORAGE_SIZE / sizeof(uint64_t)];
} hurray_handoff;

/**
 * What accept hands out, written only on success. Growable (HO-ABI-9): the
 * caller sets struct_size to sizeof(hurray_accepted_buffer) as it compiled
 * it (HURRAY_ACCEPTED_BUFFER_INIT does); accept writes only that many bytes
 * and refuses a size below HURRAY_ACCEPTED_BUFFER_MIN_SIZE. Fields are only
 * ever appended.
 */
typedef struct hurray_accepted_buffer {
  /** Set by the caller; accept keeps it. */
  uint32_t struct_size;
  /** Written by accept: 0 (no flag is defined in this version). */
  uint32_t flags;
  hurray_buffer_handle handle;
  /** The offered data pointer (NULL possible only for an empty buffer). */
  void *data;
  /** sync_mode event: the event to wait on; NULL otherwise. */
  void *event;
  /** sync_mode consumer_stream: the declared stream; NULL otherwise. */
  void *stream;
  /* Past the 1.0 layout (HURRAY_ACCEPTED_BUFFER_MIN_SIZE): written only when
   * struct_size covers them (HO-ABI-9). */
  /** What `event` is: HURRAY_EVENT_KIND_* (HO-PAY-6); NONE without an event. */
  hurray_event_kind event_kind;
  /** Zero. */
  uint32_t reserved;
  /* Later versions append here. */
} hurray_accepted_buffer;

/**
 * The smallest struct_size accept takes: the first published layout, up to
 * and including `stream` (HO-ABI-9). Never changes.
 */
#define HURRAY_ACCEPTED_BUFFER_MIN_SIZE 48u

/** An initialiser for the struct accept fills: its struct_size set, the rest zero. */
#define HURRAY_ACCEPTED_BUFFER_INIT \
  { .struct_size = (uint32_t)sizeof(hurray_accepted_buffer) }

/**
 * Initialises `handoff` in state EMPTY. Also re-initialises a destroyed
 * object for a new lifetime; on an object still holding an offer, a buffer
 * or an event it would abandon them, so call it only on new storage or
 * after destroy. Must not race with any other call on it. Does nothing when
 * handoff is NULL.
 */
HURRAY_API void hurray_handoff_init(hurray_handoff *handoff);

/**
 * Producer: offers a buffer (state EMPTY -> OFFERED). The handle and offer
 * are copied; nothing is judged yet: accept does the cross-check (HO-CHECK-1).
 * NULL_ARGUMENT (index: 0 handoff, 1 handle, 2 offer, 3 offer->release) when
 * something required is missing; INVALID_ARGUMENT (index 2; value: the size
 * or flags, expected: the minimum or 0; detail names the field) when
 * offer->struct_size or offer->sync.struct_size is below its minimum, the
 * payload does not fit in the offer's size, or a flags word is not 0
 * (HO-ABI-10), checked before offer->release is read; the table's error for
 * OFFER when the object is not EMPTY. Until the consumer has accepted, the producer owns the
 * buffer (HO-OWN-1). Must not race with init or another offer.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_offer(hurray_handoff *handoff,
                                                               const hurray_buffer_handle *handle,
                                                               const hurray_buffer_offer *offer,
                                                               hurray_error *err);

/**
 * As hurray_handoff_offer with the handle in its 16-byte wire form; the
 * bytes are kept as given and decoded (BP-ORDER-1) by accept, so a reserved
 * byte or an undefined sync byte is reported to the consumer.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_offer_encoded(
    hurray_handoff *handoff, const uint8_t encoded_handle[HURRAY_BUFFER_HANDLE_SIZE],
    const hurray_buffer_offer *offer, hurray_error *err);

/**
 * Producer: takes back an offer that was not accepted (OFFERED -> WITHDRAWN),
 * typically after the consumer rejected it. No callback is called: the
 * producer owns the buffer and the event and frees them itself (HO-OWN-2).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_withdraw(hurray_handoff *handoff,
                                                                  hurray_error *err);

/**
 * Consumer: accepts the offer. Runs hurray_handoff_check (HO-CHECK-1..5) on
 * what was offered; on success moves OFFERED -> READABLE, EVENT_PENDING or
 * STREAM_BOUND by sync mode, fills *out, and from then on the consumer owns
 * the buffer (HO-OWN-1). On any failure nothing is handed out (*out
 * untouched), no callback is called, the state stays OFFERED and the
 * producer keeps ownership (HO-OWN-2). ILLEGAL_TRANSITION (value: op,
 * expected: state) when the offer was already accepted or withdrawn;
 * NULL_ARGUMENT (index: 0 handoff, 3 out); INVALID_ARGUMENT (value:
 * out->struct_size, expected: HURRAY_ACCEPTED_BUFFER_MIN_SIZE, index: 3)
 * when out->struct_size is below the minimum, before anything else is
 * looked at. On success at most out->struct_size bytes of *out are written
 * and out->struct_size is kept (HO-ABI-9).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_accept(hurray_handoff *handoff,
                                                                hurray_transport transport,
                                                                uint32_t ipc_capabilities,
                                                                hurray_accepted_buffer *out,
                                                                hurray_error *err);

/**
 * Consumer, event buffers: records that a device-stream wait on the event was
 * issued (EVENT_PENDING -> EVENT_WAITED; again in EVENT_WAITED for every
 * further stream). The wait itself is the consumer's (or its plugin's) to
 * issue: the library cannot see device streams (HO-SYNC-2).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_record_event_wait(hurray_handoff *handoff,
                                                                           hurray_error *err);

/**
 * Consumer, event buffers: releases the event exactly once, calling the
 * producer's event-release function on this thread (EVENT_WAITED ->
 * EVENT_RELEASED, or EVENT_PENDING -> EVENT_DROPPED for a consumer that gives
 * the buffer up unread). ALREADY_RELEASED the second time (HO-SYNC-3).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_release_event(hurray_handoff *handoff,
                                                                       hurray_error *err);

/**
 * Consumer, consumer_stream buffers: records that an inter-stream wait was
 * issued, after which the buffer is readable on any stream
 * (STREAM_BOUND -> STREAM_WAITED) (HO-SYNC-4).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_record_stream_wait(hurray_handoff *handoff,
                                                                            hurray_error *err);

/**
 * Consumer: asks to touch the buffer's bytes on `stream` (NULL: the host or
 * "no particular stream"). For a consumer_stream buffer any stream other than
 * the declared one is ACCESS_OTHER_STREAM. On success *out_data (may be NULL)
 * receives the data pointer; otherwise the error says why the buffer is not
 * readable (not waited, other stream, released) and nothing changes.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_access(const hurray_handoff *handoff,
                                                                const void *stream, void **out_data,
                                                                hurray_error *err);

/**
 * Consumer: releases the buffer exactly once, calling the producer's
 * buffer-release function on this thread. An event buffer's event must be
 * released first (ILLEGAL_TRANSITION otherwise). ALREADY_RELEASED the second
 * time, from whichever thread comes second (HO-OWN-3, HO-THR-2).
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_release(hurray_handoff *handoff,
                                                                 hurray_error *err);

/**
 * Ends the object's lifetime and poisons it (EMPTY, WITHDRAWN or RELEASED ->
 * DESTROYED). ILLEGAL_TRANSITION while a buffer or event is still owed a
 * release or an offer is pending: destroying then would lose it.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_handoff_destroy(hurray_handoff *handoff,
                                                                 hurray_error *err);

/**
 * The current state (a snapshot: another thread may change it right after).
 * For NULL or never-initialised storage, HURRAY_HANDOFF_STATE_INVALID
 * (0xFFFFFFFF), never a value a later version may use for a state (HO-ABI-7).
 */
HURRAY_API uint32_t hurray_handoff_state_of(const hurray_handoff *handoff);

/* ------------------------------------------------------------------------ */
/* Buffer lists (HO-LIST-1..7)                                              */
/* ------------------------------------------------------------------------ */

/**
 * An ordered, owning list of buffers for one tensor (data plus quantization
 * parameters): every entry is a (handle, data, release, ctx) the list will
 * release exactly once, at destroy. Colocated (BP-COLOC-1). Heap-allocated;
 * not thread-safe.
 */
typedef struct hurray_buffer_list hurray_buffer_list;

/** Creates an empty list. OUT_OF_MEMORY (value: bytes) when allocation fails. */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_list_create(hurray_buffer_list **out,
                                                                    hurray_error *err);

/**
 * Appends a buffer; the list owns it from success on. Rejected, with the
 * caller keeping ownership and no callback called (HO-LIST-2): an invalid
 * handle (as hurray_buffer_handle_validate, index: the position it would
 * take), a handle not colocated with the first (DEVICE_TAG_MISMATCH,
 * MEMORY_CLASS_MISMATCH, BP-COLOC-2), a NULL release (NULL_ARGUMENT index 3),
 * NULL data for a non-empty buffer (NULL_ARGUMENT index 2), a full list
 * (CAPACITY, at HURRAY_BUFFER_TABLE_MAX_HANDLES) or OUT_OF_MEMORY.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_list_push(hurray_buffer_list *list, const hurray_buffer_handle *handle, void *data,
                        hurray_buffer_release_fn release, void *release_ctx, hurray_error *err);

/**
 * Consumer: moves an accepted buffer into the list, with the duty to release
 * it (HO-LIST-7). The handoff must be readable on any stream with no event
 * still held: READABLE, EVENT_RELEASED or STREAM_WAITED; it goes to RELEASED
 * without calling anything, and the list calls the producer's release
 * function at destroy. Refused (handoff unchanged, list unchanged, nothing
 * called): the list checks of hurray_buffer_list_push, then the table's
 * error for HURRAY_HANDOFF_OP_TRANSFER (e.g. ILLEGAL_TRANSITION while the
 * event is held, ALREADY_RELEASED after a release). Safe against another
 * thread releasing the same handoff: exactly one of them wins.
 */
HURRAY_API HURRAY_NODISCARD hurray_status hurray_buffer_list_push_handoff(hurray_buffer_list *list,
                                                                          hurray_handoff *handoff,
                                                                          hurray_error *err);

/** Number of buffers held; 0 for NULL or a destroyed list. */
HURRAY_API size_t hurray_buffer_list_count(const hurray_buffer_list *list);

/**
 * Borrows entry `index`: its handle and data pointer, valid until the list is
 * destroyed; ownership stays with the list. INVALID_ARGUMENT (value:
 * index, expected: count, index: 1) past the end.
 */
HURRAY_API HURRAY_NODISCARD hurray_status
hurray_buffer_list_borrow(const hurray_buffer_list *list, size_t index,
                          hurray_buffer_handle *out_handle, void **out_data, hurray_error *err);

/**
 * Releases every owned buffer exactly once, in order, and frees the list;
 * writes NULL to *list first. Each slot is cleared before its callback runs,
 * so a callback that re-enters (destroys the list again, borrows, pushes)
 * gets a no-op or USE_AFTER_DESTROY, never a second release (HO-LIST-4).
 * NULL or *list == NULL: no-op.
 *
 * Misuse detection: the list is poisoned while it is being destroyed and
 * before it is freed, so calls through a stale pointer report
 * USE_AFTER_DESTROY during the callbacks; after the memory is freed, a stale
 * pointer is beyond detection — that is why destroy clears yours.
 */
HURRAY_API void hurray_buffer_list_destroy(hurray_buffer_list **list);

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_HANDOFF_H */
