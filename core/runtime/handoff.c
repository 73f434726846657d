/*
 * The C ABI handoff at run time: the cross-check (HO-CHECK-*), and a thin
 * wrapper around the proven transition function (core/proven/
 * handoff_state.c) that makes each step one atomic compare-and-swap and
 * fires the callback the step names. Exactly-once under concurrency
 * (HO-THR-2) follows from the proof (a release only leaves a state that owes
 * it) plus the CAS (only one thread can leave that state).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/handoff.h"

#include <stdbool.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#include "handoff_internal.h"
#include "hurray/plugin_support.h"

/* The state word. The upper 24 bits say "this storage is a handoff"; the
 * low 5 bits are the hurray_handoff_state; bits 5..6 are the offer's sync
 * class (below). One word, so that checking the object and taking a step is
 * a single atomic operation, and so that what accept and access need before
 * the offer is published (which operation they are) is read atomically with
 * the state instead of from a field the offer may be writing (HO-THR-4). */
#define HANDOFF_MAGIC 0x484F46u /* "HOF" */
#define WORD_STATE_MASK 0x1Fu
#define WORD_SYNC_SHIFT 5u
#define WORD_SYNC_MASK 0x3u
#define HANDOFF_WORD(state, sync_class) \
  ((HANDOFF_MAGIC << 8) | (uint32_t)(sync_class) << WORD_SYNC_SHIFT | (uint32_t)(state))
/* The sync class: the offered sync byte when it is one of the three modes,
 * producer_synced otherwise (a reserved byte is refused by accept's
 * cross-check, and names accept's producer_synced operation until then, as
 * does an object never offered). */
#define SYNC_CLASS_OF(byte) ((byte) <= HURRAY_SYNC_CONSUMER_STREAM ? (uint32_t)(byte) : 0u)

_Static_assert(HURRAY_HANDOFF_STATE_COUNT <= WORD_STATE_MASK + 1u,
               "the handoff states must fit the state bits of the word");
_Static_assert(HURRAY_SYNC_PRODUCER_SYNCED == 0u && HURRAY_SYNC_CONSUMER_STREAM <= WORD_SYNC_MASK,
               "the sync classes must fit the sync bits of the word");

static uint32_t state_of_word(uint32_t word) { return word & WORD_STATE_MASK; }

static uint32_t sync_class_of_word(uint32_t word) {
  return (word >> WORD_SYNC_SHIFT) & WORD_SYNC_MASK;
}

/* The word after a step to `next`: magic and sync class carried over. */
static uint32_t word_with_state(uint32_t word, uint32_t next) {
  return (word & ~WORD_STATE_MASK) | next;
}

typedef struct handoff_impl {
  _Atomic uint32_t word;
  /* Everything below is written by the offer only, before the state word
   * publishes it (its compare-and-swap, with release order), and never
   * written again in this lifetime. It is read only after an acquire load of
   * a word that the offer's step precedes (a state other than empty, or the
   * sync class of an offer), so readers see it complete (HO-THR-4). */
  hurray_buffer_offer offer;
  /* A value handle is kept as a value and validated at accept; wire bytes
   * are kept as given and decoded at accept (BP-ORDER-1, reserved byte
   * included). Encoding a value only to decode it again would double the
   * cost of the check for nothing. */
  hurray_buffer_handle handle;
  uint8_t encoded_handle[HURRAY_BUFFER_HANDLE_SIZE];
  bool from_wire;
} handoff_impl;

/* HO-ABI-8: at least 64 bytes of the storage stay free for later versions. */
_Static_assert(sizeof(handoff_impl) + 64u <= sizeof(hurray_handoff),
               "hurray_handoff storage must keep 64 bytes of headroom (HO-ABI-8)");
_Static_assert(alignof(handoff_impl) <= alignof(hurray_handoff),
               "hurray_handoff storage under-aligned for the implementation");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handoff needs lock-free 32-bit atomics");

/* Failure paths are the rare ones: keep them out of the hot code. */
#if defined(__GNUC__) || defined(__clang__)
#define HANDOFF_COLD __attribute__((cold, noinline))
#else
#define HANDOFF_COLD
#endif

HANDOFF_COLD static hurray_status fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index, const char *detail) {
  return detail == NULL ? hurray_support_fail(err, status, value, expected, index, NULL)
                        : hurray_support_fail(err, status, value, expected, index, "%s", detail);
}

uint32_t hurray_c_abi_version(void) { return HURRAY_C_ABI_VERSION; }

const char *hurray_sync_mismatch_name(uint32_t reason) {
  switch (reason) {
    case HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT: return "unexpected event";
    case HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM: return "unexpected stream";
    case HURRAY_SYNC_MISMATCH_MISSING_EVENT: return "missing event";
    case HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE: return "missing event release";
    case HURRAY_SYNC_MISMATCH_MISSING_STREAM: return "missing stream";
    case HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG: return "event device tag differs";
    case HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG: return "stream device tag differs";
    case HURRAY_SYNC_MISMATCH_EVENT_KIND: return "event kind does not match";
    default: return "unknown";
  }
}

const char *hurray_handoff_state_name(uint32_t state) {
  static const char *const names[HURRAY_HANDOFF_STATE_COUNT] = {
      "empty",         "offered",       "withdrawn",      "readable",
      "event_pending", "event_waited",  "event_released", "event_dropped",
      "stream_bound",  "stream_waited", "released",       "destroyed"};
  return state < HURRAY_HANDOFF_STATE_COUNT ? names[state] : "invalid";
}

const char *hurray_handoff_op_name(uint32_t op) {
  static const char *const names[HURRAY_HANDOFF_OP_COUNT] = {"offer",
                                                             "withdraw",
                                                             "accept_producer_synced",
                                                             "accept_event",
                                                             "accept_consumer_stream",
                                                             "record_event_wait",
                                                             "release_event",
                                                             "record_stream_wait",
                                                             "access",
                                                             "access_other_stream",
                                                             "release",
                                                             "destroy",
                                                             "transfer"};
  return op < HURRAY_HANDOFF_OP_COUNT ? names[op] : "invalid";
}

/* ------------------------------------------------------------------------ */
/* Cross-check (HO-CHECK-1..5)                                              */
/* ------------------------------------------------------------------------ */

static hurray_status mismatch(hurray_error *err, hurray_sync_mode mode, hurray_sync_mismatch reason,
                              size_t payload_tag) {
  return fail(err, HURRAY_ERR_SYNC_MODE_MISMATCH, mode, (uint64_t)reason, payload_tag, NULL);
}

/* HO-PAY-2..4: the payload carries exactly what the declared mode needs. */
static hurray_status check_payload(const hurray_buffer_handle *handle,
                                   const hurray_sync_payload *sync, hurray_error *err) {
  const hurray_sync_mode mode = handle->sync_mode;
  const bool has_event = sync->event != NULL || sync->event_release != NULL;
  switch (mode) {
    case HURRAY_SYNC_PRODUCER_SYNCED:
      if (has_event) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT, 0);
      }
      if (sync->stream != NULL) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM, 0);
      }
      if (sync->event_kind != HURRAY_EVENT_KIND_NONE) { /* HO-PAY-6 */
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_EVENT_KIND, sync->event_kind);
      }
      return HURRAY_OK;
    case HURRAY_SYNC_EVENT:
      if (sync->stream != NULL) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM, 0);
      }
      if (sync->event == NULL) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_MISSING_EVENT, 0);
      }
      if (sync->event_release == NULL) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE, 0);
      }
      if (sync->event_device_tag != handle->device_tag) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG, sync->event_device_tag);
      }
      if (sync->event_kind != HURRAY_EVENT_KIND_NATIVE &&
          sync->event_kind != HURRAY_EVENT_KIND_PLUGIN) { /* HO-PAY-6 */
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_EVENT_KIND, sync->event_kind);
      }
      return HURRAY_OK;
    default: /* consumer_stream: the handle was validated, no other mode is left */
      if (has_event) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT, 0);
      }
      if (sync->stream == NULL) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_MISSING_STREAM, 0);
      }
      if (sync->stream_device_tag != handle->device_tag) {
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG, sync->stream_device_tag);
      }
      if (sync->event_kind != HURRAY_EVENT_KIND_NONE) { /* HO-PAY-6 */
        return mismatch(err, mode, HURRAY_SYNC_MISMATCH_EVENT_KIND, sync->event_kind);
      }
      return HURRAY_OK;
  }
}

/* Everything after the handle's own validation: HO-CHECK-3..5. */
/* HO-ABI-10: the caller's sizes say how much of *offer exists; the flags
 * words are 0. Checked before any other field of the offer is read. */
static hurray_status check_offer_sizes(const hurray_buffer_offer *offer, size_t index,
                                       hurray_error *err) {
  if (offer->struct_size < HURRAY_BUFFER_OFFER_MIN_SIZE) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer->struct_size, HURRAY_BUFFER_OFFER_MIN_SIZE,
                index,
                "offer->struct_size is below HURRAY_BUFFER_OFFER_MIN_SIZE: build the offer "
                "with hurray_buffer_offer_make()");
  }
  if (offer->flags != 0u) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer->flags, 0, index,
                "offer->flags has bits this version does not define");
  }
  const uint32_t room = offer->struct_size - (uint32_t)offsetof(hurray_buffer_offer, sync);
  if (offer->sync.struct_size < HURRAY_SYNC_PAYLOAD_MIN_SIZE || offer->sync.struct_size > room) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer->sync.struct_size,
                HURRAY_SYNC_PAYLOAD_MIN_SIZE, index,
                "offer->sync.struct_size is below HURRAY_SYNC_PAYLOAD_MIN_SIZE or past the "
                "offer's struct_size: build the payload with a hurray_sync_payload_* helper");
  }
  if (offer->sync.flags != 0u) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer->sync.flags, 0, index,
                "offer->sync.flags has bits this version does not define");
  }
  return HURRAY_OK;
}

/* HO-CHECK-3..5 after the release callback: what accept checks of an offer
 * the object holds, whose release the offer already checked (HO-CHECK-1).
 * Inline, so that accept's cross-check costs no call. */
static inline hurray_status check_offered(const hurray_buffer_handle *handle,
                                          const hurray_buffer_offer *offer,
                                          hurray_transport transport, uint32_t ipc_capabilities,
                                          hurray_error *err) {
  if (handle->byte_size != 0u) {
    if (offer->data == NULL) {
      return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1,
                  "offer->data is NULL for a non-empty buffer");
    }
    /* BP-ALIGN-5 on the one device whose pointers are plain host addresses. */
    if (handle->device_tag == HURRAY_DEVICE_CPU) {
      const uint32_t measured = hurray_alignment_of(offer->data);
      if (measured < handle->alignment) {
        return fail(err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, measured, handle->alignment, 0,
                    "the data pointer is less aligned than the handle declares");
      }
    }
  }
  hurray_status status = check_payload(handle, &offer->sync, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return hurray_transport_check_sync_mode(transport, handle->sync_mode, ipc_capabilities, err);
}

static hurray_status check_offer_against(const hurray_buffer_handle *handle,
                                         const hurray_buffer_offer *offer,
                                         hurray_transport transport, uint32_t ipc_capabilities,
                                         hurray_error *err) {
  if (offer->release == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, "offer->release is NULL");
  }
  return check_offered(handle, offer, transport, ipc_capabilities, err);
}

hurray_status hurray_handoff_check(const hurray_buffer_handle *handle,
                                   const hurray_buffer_offer *offer, hurray_transport transport,
                                   uint32_t ipc_capabilities, hurray_error *err) {
  if (handle == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  if (offer == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, NULL);
  }
  hurray_status status = check_offer_sizes(offer, 1, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = hurray_buffer_handle_validate(handle, err);
  if (status != HURRAY_OK) {
    return status;
  }
  return check_offer_against(handle, offer, transport, ipc_capabilities, err);
}

/* ------------------------------------------------------------------------ */
/* The handoff object                                                       */
/* ------------------------------------------------------------------------ */

static handoff_impl *impl_of(hurray_handoff *handoff) { return (handoff_impl *)(void *)handoff; }

static const handoff_impl *const_impl_of(const hurray_handoff *handoff) {
  return (const handoff_impl *)(const void *)handoff;
}

/* Acquire: a word the offer's release step precedes makes the offer's
 * fields visible complete to the reads that follow it (HO-THR-4); a word a
 * winner's release step wrote orders that winner's reads of the storage
 * before this thread's reuse of it (HO-THR-5). */
static uint32_t load_word(const handoff_impl *impl) {
  return atomic_load_explicit(&impl->word, memory_order_acquire);
}

/* HO-MIS-2: storage that does not carry the magic was never initialised. */
static hurray_status check_word(uint32_t word, hurray_error *err) {
  if ((word >> 8) != HANDOFF_MAGIC) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, word, 0, 0,
                "not an initialised hurray_handoff (call hurray_handoff_init first)");
  }
  return HURRAY_OK;
}

/* The word of a handoff the caller only reads, with *status HURRAY_OK once
 * the handoff is known to be neither NULL (argument `index`) nor
 * uninitialised storage; 0 when it is NULL. */
static inline uint32_t load_checked_word(const hurray_handoff *handoff, size_t index,
                                         hurray_status *status, hurray_error *err) {
  if (handoff == NULL) {
    *status = fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, index, NULL);
    return 0u;
  }
  const uint32_t word = load_word(const_impl_of(handoff));
  *status = check_word(word, err);
  return word;
}

/*
 * The steps of the proven transition function, memoised: each (state, op)
 * cell is computed by hurray_handoff_transition the first time any thread
 * needs it and kept in a relaxed atomic word, so the runtime takes exactly
 * the proven function's steps while paying one load per step (a call costs
 * a third of a handoff). Threads that race to fill a cell store the same
 * value. Bit 31 marks a filled cell; 0 means not computed yet.
 */
#define MEMO_FILLED 0x80000000u
static _Atomic uint32_t step_memo[HURRAY_HANDOFF_STATE_COUNT * HURRAY_HANDOFF_OP_COUNT];

static inline hurray_handoff_step step_of(uint32_t state, hurray_handoff_op op) {
  if (state >= HURRAY_HANDOFF_STATE_COUNT || (uint32_t)op >= HURRAY_HANDOFF_OP_COUNT) {
    return hurray_handoff_transition((hurray_handoff_state)state, op);
  }
  _Atomic uint32_t *cell = &step_memo[state * HURRAY_HANDOFF_OP_COUNT + (uint32_t)op];
  uint32_t packed = atomic_load_explicit(cell, memory_order_relaxed);
  if (packed == 0u) {
    const hurray_handoff_step step = hurray_handoff_transition((hurray_handoff_state)state, op);
    packed = MEMO_FILLED | (uint32_t)step.status << 16 | (uint32_t)step.next << 8 |
             (uint32_t)step.effect;
    atomic_store_explicit(cell, packed, memory_order_relaxed);
  }
  hurray_handoff_step step;
  step.status = (hurray_status)((packed >> 16) & 0xFFu);
  step.next = (hurray_handoff_state)((packed >> 8) & 0xFFu);
  step.effect = (hurray_handoff_effect)(packed & 0xFFu);
  return step;
}

static hurray_status step_error(hurray_error *err, hurray_handoff_step step, hurray_handoff_op op,
                                uint32_t state) {
  return fail(err, step.status, (uint64_t)op, state, 0, NULL);
}

/* The callback a step fires, with its arguments, as read from the object
 * before the step (HO-THR-5). */
typedef struct handoff_callback {
  hurray_handoff_effect effect;
  void (*fn)(void *object, void *ctx);
  void *object;
  void *ctx;
} handoff_callback;

/* Reads the callback `effect` names. Only called for a step that fires one,
 * and every such step leaves an accepted state: the offer is published. */
static handoff_callback callback_for(const handoff_impl *impl, hurray_handoff_effect effect) {
  handoff_callback callback = {effect, NULL, NULL, NULL};
  if (effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER) {
    callback.fn = impl->offer.release;
    callback.object = impl->offer.data;
    callback.ctx = impl->offer.release_ctx;
  } else if (effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT) {
    callback.fn = impl->offer.sync.event_release;
    callback.object = impl->offer.sync.event;
    callback.ctx = impl->offer.sync.event_release_ctx;
  }
  return callback;
}

/*
 * Takes one step of the table from whatever state the object is in now.
 * A step that moves the state is a CAS from the state it was computed for;
 * losing the race recomputes from the winner's state, so of two threads
 * releasing, the second sees RELEASED and gets ALREADY_RELEASED.
 *
 * HO-THR-5: the callback the step fires is copied into *fire before the CAS,
 * by every contender; the winner fires the copy and nobody reads the object
 * after its CAS, so a loser may destroy and reuse the storage at once.
 */
static inline hurray_status apply_from(handoff_impl *impl, uint32_t word, hurray_handoff_op op,
                                       handoff_callback *fire, hurray_error *err) {
  for (;;) {
    hurray_status status = check_word(word, err);
    if (status != HURRAY_OK) {
      return status;
    }
    const uint32_t state = state_of_word(word);
    const hurray_handoff_step step = step_of(state, op);
    if (step.status != HURRAY_OK) {
      return step_error(err, step, op, state);
    }
    const handoff_callback callback =
        step.effect == HURRAY_HANDOFF_EFFECT_NONE
            ? (handoff_callback){HURRAY_HANDOFF_EFFECT_NONE, NULL, NULL, NULL}
            : callback_for(impl, step.effect);
    if ((uint32_t)step.next == state) {
      *fire = callback;
      return HURRAY_OK;
    }
    /* Release on success: this thread's copies of the fields, taken above,
     * happen before anything a thread that sees the new state does to the
     * storage, a loser's destroy and reuse included (HO-THR-5). Acquire on
     * success: the step is ordered after the one it follows, so the owner
     * a step makes sees what the previous owner wrote before handing over
     * (BP-OWN-1, BP-OWN-2). Acquire on failure: the step is judged again
     * from the winner's word, and its fields read again (HO-THR-4). The
     * compare-and-swap itself is what makes a release exactly-once: only one
     * thread leaves the state that owes it (HO-THR-2). */
    if (atomic_compare_exchange_weak_explicit(&impl->word, &word,
                                              word_with_state(word, (uint32_t)step.next),
                                              memory_order_acq_rel, memory_order_acquire)) {
      *fire = callback;
      return HURRAY_OK;
    }
  }
}

/* apply_from the word the object holds now. */
static inline hurray_status apply(handoff_impl *impl, hurray_handoff_op op, handoff_callback *fire,
                                  hurray_error *err) {
  return apply_from(impl, load_word(impl), op, fire, err);
}

void hurray_handoff_init(hurray_handoff *handoff) {
  if (handoff == NULL) {
    return;
  }
  handoff_impl *impl = impl_of(handoff);
  /* The fields are written by the offer before anything reads them; in
   * EMPTY nothing but the word is read (HO-THR-4). */
  atomic_init(&impl->word, HANDOFF_WORD(HURRAY_HANDOFF_EMPTY, 0u));
}

/* The part of both offers after their own arguments were checked: the
 * object must be EMPTY; then the fields are written and published. */
static hurray_status offer_common(hurray_handoff *handoff, const hurray_buffer_handle *handle,
                                  const uint8_t *encoded_handle, const hurray_buffer_offer *offer,
                                  hurray_error *err) {
  if (offer == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2, NULL);
  }
  const hurray_status sizes = check_offer_sizes(offer, 2, err);
  if (sizes != HURRAY_OK) {
    return sizes;
  }
  if (offer->release == NULL) {
    /* HO-CHECK-1: a NULL field is reported as its argument, `offer` (2);
     * 3 would be `err`. */
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2, "offer->release is NULL");
  }
  handoff_impl *impl = impl_of(handoff);
  uint32_t word = load_word(impl);
  for (;;) {
    hurray_status status = check_word(word, err);
    if (status != HURRAY_OK) {
      return status;
    }
    const uint32_t state = state_of_word(word);
    const hurray_handoff_step step = step_of(state, HURRAY_HANDOFF_OP_OFFER);
    if (step.status != HURRAY_OK) {
      return step_error(err, step, HURRAY_HANDOFF_OP_OFFER, state);
    }
    /* Only the offer writes these, and nothing reads them while the state
     * is empty (HO-THR-4): writing before the step races nobody. */
    /* The 1.0 fields: every size accepted covers them (HO-ABI-10). */
    memcpy(&impl->offer, offer, sizeof impl->offer);
    impl->offer.struct_size = (uint32_t)sizeof impl->offer;
    impl->offer.sync.struct_size = (uint32_t)sizeof impl->offer.sync;
    uint8_t sync_byte;
    if (encoded_handle != NULL) {
      memcpy(impl->encoded_handle, encoded_handle, HURRAY_BUFFER_HANDLE_SIZE);
      impl->from_wire = true;
      sync_byte = encoded_handle[13]; /* BP-WIRE-1: offset of sync_mode */
    } else {
      impl->handle = *handle;
      impl->from_wire = false;
      sync_byte = handle->sync_mode;
    }
    /* A CAS, not a store: a destroy racing the offer on the empty object
     * wins or loses as a whole (HO-THR-1). Release order publishes the
     * fields above to every thread that acquires the word (HO-THR-4).
     * Acquire on failure: the retry judges the winner's word. */
    const uint32_t offered = HANDOFF_WORD(step.next, SYNC_CLASS_OF(sync_byte));
    if (atomic_compare_exchange_strong_explicit(&impl->word, &word, offered, memory_order_release,
                                                memory_order_acquire)) {
      return HURRAY_OK;
    }
  }
}

hurray_status hurray_handoff_offer_encoded(hurray_handoff *handoff,
                                           const uint8_t encoded_handle[HURRAY_BUFFER_HANDLE_SIZE],
                                           const hurray_buffer_offer *offer, hurray_error *err) {
  if (handoff == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  if (encoded_handle == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, NULL);
  }
  return offer_common(handoff, NULL, encoded_handle, offer, err);
}

hurray_status hurray_handoff_offer(hurray_handoff *handoff, const hurray_buffer_handle *handle,
                                   const hurray_buffer_offer *offer, hurray_error *err) {
  if (handoff == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  if (handle == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1, NULL);
  }
  return offer_common(handoff, handle, NULL, offer, err);
}

/* Runs `op` on a non-NULL handoff and fires the callback the step names. */
static hurray_status run_op(hurray_handoff *handoff, hurray_handoff_op op, hurray_error *err) {
  if (handoff == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  /* Filled by apply on success; zero otherwise, which also keeps gcc -O3's
   * uninitialised-use analysis, blind to that, quiet. */
  handoff_callback fire = {HURRAY_HANDOFF_EFFECT_NONE, NULL, NULL, NULL};
  hurray_status status = apply(impl_of(handoff), op, &fire, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* This thread won the only transition that fires this callback (HO-SM-5);
   * it fires the copy taken before the step, never reading the object again
   * (HO-THR-5). */
  if (fire.fn != NULL) {
    fire.fn(fire.object, fire.ctx);
  }
  return HURRAY_OK;
}

hurray_status hurray_handoff_withdraw(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_WITHDRAW, err);
}

static hurray_handoff_op accept_op_for(uint32_t sync_mode_byte) {
  switch (sync_mode_byte) {
    case HURRAY_SYNC_EVENT: return HURRAY_HANDOFF_OP_ACCEPT_EVENT;
    case HURRAY_SYNC_CONSUMER_STREAM: return HURRAY_HANDOFF_OP_ACCEPT_CONSUMER_STREAM;
    default: return HURRAY_HANDOFF_OP_ACCEPT_PRODUCER_SYNCED;
  }
}

_Static_assert(offsetof(hurray_accepted_buffer, event_kind) == HURRAY_ACCEPTED_BUFFER_MIN_SIZE &&
                   offsetof(hurray_accepted_buffer, reserved) + sizeof(uint32_t) ==
                       sizeof(hurray_accepted_buffer),
               "the fields past the 1.0 layout of hurray_accepted_buffer are event_kind, reserved");

/* HO-ABI-9: a struct_size that ends inside the fields past the 1.0 layout
 * gets the bytes it covers of them and no more. */
HANDOFF_COLD static void write_accepted_tail(hurray_accepted_buffer *out, uint32_t out_size,
                                             hurray_event_kind event_kind) {
  const uint32_t tail[2] = {(uint32_t)event_kind, 0u};
  memcpy((unsigned char *)out + HURRAY_ACCEPTED_BUFFER_MIN_SIZE, tail,
         out_size - HURRAY_ACCEPTED_BUFFER_MIN_SIZE);
}

hurray_status hurray_handoff_accept(hurray_handoff *handoff, hurray_transport transport,
                                    uint32_t ipc_capabilities, hurray_accepted_buffer *out,
                                    hurray_error *err) {
  if (handoff == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  if (out == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3, NULL);
  }
  /* HO-ABI-9: the caller's struct_size says how much of *out exists. */
  const uint32_t out_size = out->struct_size;
  if (out_size < HURRAY_ACCEPTED_BUFFER_MIN_SIZE) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, out_size, HURRAY_ACCEPTED_BUFFER_MIN_SIZE, 3,
                "out->struct_size is below HURRAY_ACCEPTED_BUFFER_MIN_SIZE: set it to "
                "sizeof(hurray_accepted_buffer) (HURRAY_ACCEPTED_BUFFER_INIT)");
  }
  handoff_impl *impl = impl_of(handoff);
  const uint32_t word = load_word(impl);
  hurray_status status = check_word(word, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* The fields are only meaningful once offered: judge the state first, so
   * an EMPTY or RELEASED object reports its state, not a garbage handle. */
  const uint32_t state = state_of_word(word);
  if (state != HURRAY_HANDOFF_OFFERED) {
    /* From the word, not the fields: an empty object may be being offered
     * right now (HO-THR-4). */
    const hurray_handoff_op op = accept_op_for(sync_class_of_word(word));
    return step_error(err, step_of(state, op), op, state);
  }
  hurray_buffer_handle handle;
  if (impl->from_wire) {
    status = hurray_buffer_handle_decode(impl->encoded_handle, &handle, err);
  } else {
    handle = impl->handle;
    status = hurray_buffer_handle_validate(&handle, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  status = check_offered(&handle, &impl->offer, transport, ipc_capabilities, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* Read before the step: after it the buffer is the consumer's, and another
   * of its threads may release, destroy and reuse the storage (HO-THR-5). */
  void *const data = impl->offer.data;
  void *const event = handle.sync_mode == HURRAY_SYNC_EVENT ? impl->offer.sync.event : NULL;
  void *const stream = handle.sync_mode == HURRAY_SYNC_CONSUMER_STREAM ? impl->offer.sync.stream
                                                                       : NULL;
  const hurray_event_kind event_kind = event != NULL ? impl->offer.sync.event_kind
                                                     : HURRAY_EVENT_KIND_NONE;
  /* From the word loaded above: if another thread stepped since, the
   * compare-and-swap fails and the step is judged again from its state. */
  handoff_callback none;
  status = apply_from(impl, word, accept_op_for(handle.sync_mode), &none, err);
  if (status != HURRAY_OK) {
    return status; /* another thread accepted or withdrew first */
  }
  /* HO-ABI-9: min(caller's size, ours) bytes; struct_size stays the caller's.
   * Field by field, not a variable-length copy of a temporary: the copy's
   * loads, of other widths than the stores that built the temporary, stall
   * on store forwarding (docs/performance.md). Every size accepted covers
   * the 1.0 fields (HURRAY_ACCEPTED_BUFFER_MIN_SIZE). */
  out->flags = 0u;
  out->handle = handle;
  out->data = data;
  out->event = event;
  out->stream = stream;
  if (out_size >= sizeof *out) {
    out->event_kind = event_kind;
    out->reserved = 0u;
  } else if (out_size > HURRAY_ACCEPTED_BUFFER_MIN_SIZE) {
    write_accepted_tail(out, out_size, event_kind);
  }
  return HURRAY_OK;
}

hurray_status hurray_handoff_record_event_wait(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_RECORD_EVENT_WAIT, err);
}

hurray_status hurray_handoff_release_event(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_RELEASE_EVENT, err);
}

hurray_status hurray_handoff_record_stream_wait(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_RECORD_STREAM_WAIT, err);
}

hurray_status hurray_handoff_access(const hurray_handoff *handoff, const void *stream,
                                    void **out_data, hurray_error *err) {
  hurray_status status;
  const uint32_t word = load_checked_word(handoff, 0, &status, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const handoff_impl *impl = const_impl_of(handoff);
  const uint32_t state = state_of_word(word);
  /* Only a consumer_stream buffer has a declared stream to differ from. The
   * sync class comes from the word: when it says consumer_stream, the offer
   * that wrote the stream was published before this load (HO-THR-4). */
  const bool other_stream = sync_class_of_word(word) == HURRAY_SYNC_CONSUMER_STREAM &&
                            stream != impl->offer.sync.stream;
  const hurray_handoff_op op = other_stream ? HURRAY_HANDOFF_OP_ACCESS_OTHER_STREAM
                                            : HURRAY_HANDOFF_OP_ACCESS;
  const hurray_handoff_step step = step_of(state, op);
  if (step.status != HURRAY_OK) {
    return step_error(err, step, op, state);
  }
  if (out_data != NULL) {
    *out_data = impl->offer.data;
  }
  return HURRAY_OK;
}

hurray_status hurray_handoff_release(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_RELEASE, err);
}

hurray_status hurray_handoff_destroy(hurray_handoff *handoff, hurray_error *err) {
  return run_op(handoff, HURRAY_HANDOFF_OP_DESTROY, err);
}

/* HO-ABI-7: the sentinel is far from the states, which later versions append. */
uint32_t hurray_handoff_state_of(const hurray_handoff *handoff) {
  if (handoff == NULL) {
    return HURRAY_HANDOFF_STATE_INVALID;
  }
  const uint32_t word = load_word(const_impl_of(handoff));
  return (word >> 8) == HANDOFF_MAGIC ? state_of_word(word) : HURRAY_HANDOFF_STATE_INVALID;
}

/* ------------------------------------------------------------------------ */
/* Transfer into a buffer list (HO-LIST-7)                                  */
/* ------------------------------------------------------------------------ */

hurray_status hurray_internal_handoff_transfer_peek(const hurray_handoff *handoff,
                                                    handoff_owned_buffer *out, hurray_error *err) {
  hurray_status status;
  const uint32_t word = load_checked_word(handoff, 1, &status, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const uint32_t state = state_of_word(word);
  const hurray_handoff_step step = step_of(state, HURRAY_HANDOFF_OP_TRANSFER);
  if (step.status != HURRAY_OK) {
    return step_error(err, step, HURRAY_HANDOFF_OP_TRANSFER, state);
  }
  /* Only accepted states get here: the handle passed the cross-check. */
  const handoff_impl *impl = const_impl_of(handoff);
  if (impl->from_wire) {
    status = hurray_buffer_handle_decode(impl->encoded_handle, &out->handle, err);
    if (status != HURRAY_OK) {
      return status;
    }
  } else {
    out->handle = impl->handle;
  }
  out->data = impl->offer.data;
  out->release = impl->offer.release;
  out->release_ctx = impl->offer.release_ctx;
  return HURRAY_OK;
}

hurray_status hurray_internal_handoff_transfer_commit(hurray_handoff *handoff, hurray_error *err) {
  handoff_callback none; /* the transfer step fires nothing (HO-SM-2) */
  return apply(impl_of(handoff), HURRAY_HANDOFF_OP_TRANSFER, &none, err);
}
