/*
 * Fuzz target handoff: the C ABI handoff state machine and buffer lists
 * (include/hurray/handoff.h, specs/handoff.md), driven by a program.
 *
 * Input: a program of steps over three handoff objects and one buffer list.
 * Each step is an opcode byte (low nibble: the operation; high nibble: which
 * handoff) and a parameter byte; OFFER_ENCODED also takes 16 wire bytes.
 * Operations: offer (value or wire form, with each payload shape and each
 * payload fault), withdraw, accept (each transport and capability set),
 * record event wait, release event, record stream wait, access (declared,
 * other or no stream), release, destroy, re-init, the pure transition
 * function on arbitrary integers, the stand-alone cross-check, and list
 * push / borrow / destroy.
 *
 * Oracle: a model written from the spec — the HO-SM-2 table transcribed as
 * text (fuzz/handoff_model.c), the HO-CHECK-1..4 / HO-PAY-2..4 order, HO-LIST
 * rules — predicts
 * every status, error payload, state and callback. Callbacks are counted:
 * each accepted buffer and each accepted event is released exactly once over
 * the object's life (the program ends by driving every object to the end), no
 * callback fires on a failed step or on a step after release, and a list
 * releases each of its buffers once, in order, at destroy.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "handoff_model.h"
#include "hurray/buffer.h"
#include "hurray/handoff.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

/* ---- The objects and what the model knows of them --------------------- */

#define SLOTS 3

alignas(4096) static unsigned char memory[SLOTS][8192];
static int event_objects[SLOTS];
static int stream_objects[SLOTS];
static int other_stream;

typedef struct slot {
  hurray_handoff handoff;
  bool initialised;
  int state;
  /* The offer as the model understands it. */
  bool encoded;
  uint8_t wire[16];
  hurray_buffer_handle handle;
  hurray_buffer_offer offer;
  /* Callbacks seen in this lifetime, and what the model predicts. */
  int buffer_releases;
  int event_releases;
  int buffer_releases_due; /* 1 once accepted */
  int event_releases_due;  /* 1 once an event buffer is accepted */
  void *last_released_buffer;
  void *last_released_event;
  /* The buffer went to the list (HO-LIST-7): the list releases it. */
  bool in_list;
} slot;

static slot slots[SLOTS];

/* Buffers released while a list is being destroyed, in call order. */
static void *list_release_log[HURRAY_BUFFER_TABLE_MAX_HANDLES + 1];
static size_t list_releases;
static bool list_destroying;

static void log_list_release(void *buffer) {
  FUZZ_CHECK(list_destroying && list_releases < HURRAY_BUFFER_TABLE_MAX_HANDLES);
  list_release_log[list_releases++] = buffer;
}

static void buffer_released(void *buffer, void *ctx) {
  slot *s = ctx;
  s->buffer_releases++;
  s->last_released_buffer = buffer;
  if (s->in_list) {
    log_list_release(buffer);
  }
}

static void event_released(void *event, void *ctx) {
  slot *s = ctx;
  s->event_releases++;
  s->last_released_event = event;
}

/* HO-SM-3: errors name the operation and the state. `alt_op` is another
 * operation the implementation may name where the model cannot tell which
 * one applies (both give the same answer in that state). */
static void check_error(hurray_status got, const hurray_error *err, model_step want, uint32_t op,
                        uint32_t alt_op, int state) {
  FUZZ_CHECK(got == want.status);
  if (got == HURRAY_ERR_ILLEGAL_TRANSITION) {
    FUZZ_CHECK((err->value == op || err->value == alt_op) && err->expected == (uint64_t)state);
  } else if (got == HURRAY_ERR_ALREADY_RELEASED) {
    FUZZ_CHECK(err->value == op || err->value == alt_op);
  }
}

/* Runs one state-machine step on the object and checks it against the
 * table: status, error payload, next state, callbacks. */
static void step_either(slot *s, uint32_t op, uint32_t alt_op, hurray_status got,
                        const hurray_error *err, int releases_before, int event_releases_before) {
  model_step want = handoff_model_transition((uint32_t)s->state, op);
  FUZZ_CHECK(handoff_model_transition((uint32_t)s->state, alt_op).status == want.status);
  check_error(got, err, want, op, alt_op, s->state);
  if (got == HURRAY_OK) {
    s->state = want.next;
  }
  FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == (uint32_t)s->state);
  FUZZ_CHECK(s->buffer_releases ==
             releases_before +
                 (got == HURRAY_OK && want.effect == HURRAY_HANDOFF_EFFECT_RELEASE_BUFFER));
  FUZZ_CHECK(s->event_releases ==
             event_releases_before +
                 (got == HURRAY_OK && want.effect == HURRAY_HANDOFF_EFFECT_RELEASE_EVENT));
  if (s->buffer_releases > releases_before) {
    FUZZ_CHECK(s->last_released_buffer == s->offer.data);
  }
  if (s->event_releases > event_releases_before) {
    FUZZ_CHECK(s->last_released_event == s->offer.sync.event);
  }
  /* Exactly once: never more than one release per lifetime. */
  FUZZ_CHECK(s->buffer_releases <= 1 && s->event_releases <= 1);
}

static void step(slot *s, uint32_t op, hurray_status got, const hurray_error *err,
                 int releases_before, int event_releases_before) {
  step_either(s, op, op, got, err, releases_before, event_releases_before);
}

/* ---- Offers ----------------------------------------------------------- */

static const uint8_t devices[4] = {HURRAY_DEVICE_CPU, HURRAY_DEVICE_CUDA, HURRAY_DEVICE_ROCM, 0xF3};

enum {
  FAULT_NONE,
  FAULT_ADD_STREAM,
  FAULT_ADD_EVENT,
  FAULT_NO_EVENT,
  FAULT_NO_EVENT_RELEASE,
  FAULT_WRONG_TAG,
  FAULT_NULL_DATA,
  FAULT_MISALIGNED
};

/* Builds an offer from a parameter byte: mode, device, emptiness, fault. */
static void build_offer(slot *s, size_t index, uint8_t param) {
  uint8_t mode = param % 3u;
  uint8_t tag = devices[(param >> 2) & 3u];
  bool empty = ((param >> 4) & 1u) != 0;
  unsigned fault = param >> 5;
  s->handle.byte_size = empty ? 0u : 4096u;
  s->handle.alignment = 4096u;
  s->handle.device_tag = tag;
  s->handle.sync_mode = mode;
  s->handle.memory_class = HURRAY_MEMORY_STANDARD;
  s->offer = hurray_buffer_offer_make(NULL, NULL, NULL, hurray_sync_payload_none());
  s->offer.data = memory[index];
  s->offer.release = buffer_released;
  s->offer.release_ctx = s;
  if (mode == HURRAY_SYNC_EVENT) {
    s->offer.sync = hurray_sync_payload_event(&event_objects[index], tag, event_released, s);
  } else if (mode == HURRAY_SYNC_CONSUMER_STREAM) {
    s->offer.sync = hurray_sync_payload_stream(&stream_objects[index], tag);
  } else {
    s->offer.sync = hurray_sync_payload_none();
  }
  switch (fault) {
    case FAULT_ADD_STREAM: s->offer.sync.stream = &other_stream; break;
    case FAULT_ADD_EVENT: s->offer.sync.event = &event_objects[index]; break;
    case FAULT_NO_EVENT: s->offer.sync.event = NULL; break;
    case FAULT_NO_EVENT_RELEASE: s->offer.sync.event_release = NULL; break;
    case FAULT_WRONG_TAG:
      s->offer.sync.event_device_tag = (uint8_t)(tag ^ 1u);
      s->offer.sync.stream_device_tag = (uint8_t)(tag ^ 1u);
      break;
    case FAULT_NULL_DATA: s->offer.data = NULL; break;
    case FAULT_MISALIGNED: s->offer.data = memory[index] + 64; break;
    default: break;
  }
  hurray_buffer_handle_encode(&s->handle, s->wire);
}

/* HO-CHECK-1..4 and HO-PAY-2..4, in the spec's order. */
static ref_verdict model_check(const slot *s, uint32_t transport, uint32_t capabilities) {
  ref_fields f;
  ref_verdict v;
  if (s->encoded) {
    v = ref_decode_handle(s->wire, 0, &f);
  } else {
    ref_fields raw = {s->handle.byte_size, s->handle.alignment, s->handle.device_tag,
                      s->handle.sync_mode, s->handle.memory_class};
    f = raw;
    v = ref_check_fields(&raw, 0);
  }
  if (v.status != HURRAY_OK) {
    return v;
  }
  /* HO-CHECK-3 */
  if (f.byte_size != 0 && s->offer.data == NULL) {
    return ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  /* An empty buffer's pointer is never dereferenced (BP-ALIGN-3), so only a
   * non-empty CPU buffer's address is measured. */
  if (f.device_tag == HURRAY_DEVICE_CPU && f.byte_size != 0 && s->offer.data != NULL) {
    uint32_t measured = ref_alignment_of((uintptr_t)s->offer.data);
    if (measured < f.alignment) {
      return ref_fail(HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, measured, f.alignment, 0);
    }
  }
  const hurray_sync_payload *p = &s->offer.sync;
  bool event_side = p->event != NULL || p->event_release != NULL;
  uint32_t reason = 0;
  uint8_t reason_tag = 0;
  switch (f.sync_mode) {
    case HURRAY_SYNC_PRODUCER_SYNCED: /* HO-PAY-2 */
      reason = event_side          ? HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT
               : p->stream != NULL ? HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM
                                   : 0;
      break;
    case HURRAY_SYNC_EVENT: /* HO-PAY-3 */
      if (p->stream != NULL) {
        reason = HURRAY_SYNC_MISMATCH_UNEXPECTED_STREAM;
      } else if (p->event == NULL) {
        reason = HURRAY_SYNC_MISMATCH_MISSING_EVENT;
      } else if (p->event_release == NULL) {
        reason = HURRAY_SYNC_MISMATCH_MISSING_EVENT_RELEASE;
      } else if (p->event_device_tag != f.device_tag) {
        reason = HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG;
        reason_tag = p->event_device_tag;
      }
      break;
    default: /* HO-PAY-4 */
      if (event_side) {
        reason = HURRAY_SYNC_MISMATCH_UNEXPECTED_EVENT;
      } else if (p->stream == NULL) {
        reason = HURRAY_SYNC_MISMATCH_MISSING_STREAM;
      } else if (p->stream_device_tag != f.device_tag) {
        reason = HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG;
        reason_tag = p->stream_device_tag;
      }
      break;
  }
  if (reason != 0) {
    return ref_fail(HURRAY_ERR_SYNC_MODE_MISMATCH, f.sync_mode, reason, reason_tag);
  }
  return ref_transport_check(transport, f.sync_mode, capabilities);
}

static bool check_matches(ref_verdict want, hurray_status got, const hurray_error *err) {
  if (got != want.status) {
    return false;
  }
  if (got == HURRAY_ERR_SYNC_MODE_MISMATCH) { /* HO-PAY-5 */
    return err->value == want.value && err->expected == want.expected && err->index == want.index;
  }
  if (got == HURRAY_ERR_NULL_ARGUMENT) {
    return err->index == want.index;
  }
  if (got == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
    return err->value == want.value && err->expected == want.expected;
  }
  return ref_verdict_matches(want, got, err);
}

/* ---- Operations ------------------------------------------------------- */

static void do_offer(slot *s, size_t index, uint8_t param, const uint8_t *wire) {
  hurray_error err;
  int b = s->buffer_releases;
  int e = s->event_releases;
  bool null_release = (param >> 5) == 7 && s->state == ST_EMPTY && (param & 0x10u) != 0;
  if (null_release) { /* HO-CHECK-1: a missing release is refused, nothing changes */
    build_offer(s, index, param);
    hurray_buffer_offer offer = s->offer;
    offer.release = NULL;
    FUZZ_CHECK(hurray_handoff_offer(&s->handoff, &s->handle, &offer, &err) ==
                   HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 2); /* the offer argument, not err */
    FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == (uint32_t)s->state);
    return;
  }
  if (s->state != ST_EMPTY) {
    /* The old offer stays what the model knows. */
    slot copy = *s;
    build_offer(&copy, index, param);
    hurray_status got = wire != NULL
                            ? hurray_handoff_offer_encoded(&s->handoff, wire, &copy.offer, &err)
                            : hurray_handoff_offer(&s->handoff, &copy.handle, &copy.offer, &err);
    step(s, OP_OFFER, got, &err, b, e);
    return;
  }
  build_offer(s, index, param);
  s->encoded = wire != NULL;
  if (wire != NULL) {
    memcpy(s->wire, wire, 16);
  }
  hurray_status got = wire != NULL
                          ? hurray_handoff_offer_encoded(&s->handoff, wire, &s->offer, &err)
                          : hurray_handoff_offer(&s->handoff, &s->handle, &s->offer, &err);
  step(s, OP_OFFER, got, &err, b, e);
}

static void do_accept(slot *s, uint8_t param) {
  uint32_t transport = param % 4u; /* 3: not a transport */
  uint32_t capabilities = (param >> 2) & 3u;
  hurray_accepted_buffer out = HURRAY_ACCEPTED_BUFFER_INIT;
  memset(&out, 0x5A, sizeof out);
  hurray_accepted_buffer untouched = out;
  hurray_error err;
  int b = s->buffer_releases;
  int e = s->event_releases;
  hurray_status got =
      hurray_handoff_accept(&s->handoff, (hurray_transport)transport, capabilities, &out, &err);
  if (s->state == ST_OFFERED) {
    ref_verdict want = model_check(s, transport, capabilities);
    /* The stand-alone check agrees with what accept does (HO-CHECK-1). */
    if (!s->encoded) {
      hurray_error check_err;
      FUZZ_CHECK(
          check_matches(want,
                        hurray_handoff_check(&s->handle, &s->offer, (hurray_transport)transport,
                                             capabilities, &check_err),
                        &check_err));
    }
    if (want.status != HURRAY_OK) {
      FUZZ_CHECK(check_matches(want, got, &err)); /* HO-CHECK-5 */
      FUZZ_CHECK(memcmp(&out, &untouched, sizeof out) == 0);
      FUZZ_CHECK(s->buffer_releases == b && s->event_releases == e);
      FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == ST_OFFERED);
      return;
    }
    uint8_t mode = s->encoded ? s->wire[13] : s->handle.sync_mode;
    uint32_t op = mode == HURRAY_SYNC_EVENT             ? OP_ACC_EV
                  : mode == HURRAY_SYNC_CONSUMER_STREAM ? OP_ACC_CS
                                                        : OP_ACC_PS;
    step(s, op, got, &err, b, e);
    hurray_buffer_handle want_handle = s->handle;
    if (s->encoded) {
      FUZZ_CHECK(hurray_buffer_handle_decode(s->wire, &want_handle, NULL) == HURRAY_OK);
      s->handle = want_handle;
    }
    FUZZ_CHECK(hurray_buffer_handle_equal(&out.handle, &want_handle));
    FUZZ_CHECK(out.data == s->offer.data);
    FUZZ_CHECK(out.event == (op == OP_ACC_EV ? s->offer.sync.event : NULL));
    FUZZ_CHECK(out.stream == (op == OP_ACC_CS ? s->offer.sync.stream : NULL));
    s->buffer_releases_due = 1;
    s->event_releases_due = op == OP_ACC_EV;
    return;
  }
  /* Not offered: the table answers for every accept operation alike. */
  model_step want = handoff_model_transition((uint32_t)s->state, OP_ACC_PS);
  FUZZ_CHECK(got == want.status);
  if (got == HURRAY_ERR_ILLEGAL_TRANSITION) {
    FUZZ_CHECK(err.value >= OP_ACC_PS && err.value <= OP_ACC_CS &&
               err.expected == (uint64_t)s->state);
  }
  FUZZ_CHECK(memcmp(&out, &untouched, sizeof out) == 0);
  FUZZ_CHECK(s->buffer_releases == b && s->event_releases == e);
  FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == (uint32_t)s->state);
}

static void do_access(slot *s, size_t index, uint8_t param) {
  const void *stream = param % 3u == 0   ? NULL
                       : param % 3u == 1 ? (const void *)&stream_objects[index]
                                         : (const void *)&other_stream;
  /* What the offer declared; before any offer the model cannot know which
   * access operation the object will name (both are illegal there). */
  uint8_t mode = s->encoded ? s->wire[13] : s->handle.sync_mode;
  bool other = mode == HURRAY_SYNC_CONSUMER_STREAM && stream != s->offer.sync.stream;
  uint32_t op = other ? OP_ACCESS_OTHER : OP_ACCESS;
  uint32_t alt_op = s->state == ST_EMPTY ? (other ? OP_ACCESS : OP_ACCESS_OTHER) : op;
  void *data = (void *)&other_stream;
  hurray_error err;
  int b = s->buffer_releases;
  int e = s->event_releases;
  hurray_status got = hurray_handoff_access(&s->handoff, stream, &data, &err);
  step_either(s, op, alt_op, got, &err, b, e);
  FUZZ_CHECK(got == HURRAY_OK ? data == s->offer.data : data == (void *)&other_stream);
}

/* Simple steps whose operation is known up front. */
static void do_simple(slot *s, uint32_t op) {
  hurray_error err;
  int b = s->buffer_releases;
  int e = s->event_releases;
  hurray_status got;
  switch (op) {
    case OP_WITHDRAW: got = hurray_handoff_withdraw(&s->handoff, &err); break;
    case OP_EV_WAIT: got = hurray_handoff_record_event_wait(&s->handoff, &err); break;
    case OP_REL_EV: got = hurray_handoff_release_event(&s->handoff, &err); break;
    case OP_ST_WAIT: got = hurray_handoff_record_stream_wait(&s->handoff, &err); break;
    case OP_RELEASE: got = hurray_handoff_release(&s->handoff, &err); break;
    default: got = hurray_handoff_destroy(&s->handoff, &err); break;
  }
  step(s, op, got, &err, b, e);
  if (op == OP_DESTROY && got == HURRAY_OK) {
    /* The lifetime ends: every release it owed was made exactly once (a
     * buffer moved to the list is released when the list is destroyed). */
    FUZZ_CHECK(s->buffer_releases == (s->in_list ? 0 : s->buffer_releases_due));
    FUZZ_CHECK(s->event_releases == s->event_releases_due);
  }
}

static void start_lifetime(slot *s) {
  FUZZ_CHECK(!s->in_list);
  hurray_handoff_init(&s->handoff);
  s->initialised = true;
  s->state = ST_EMPTY;
  s->encoded = false;
  s->buffer_releases = s->event_releases = 0;
  s->buffer_releases_due = s->event_releases_due = 0;
  FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == ST_EMPTY);
}

/* Ends every object's life the way a correct program would. */
static void finish(slot *s) {
  static const uint32_t path[] = {OP_WITHDRAW, OP_REL_EV, OP_RELEASE, OP_DESTROY};
  if (s->state == ST_DESTROYED && s->in_list) {
    return;
  }
  for (size_t k = 0; k < sizeof path / sizeof path[0] && s->state != ST_DESTROYED; k++) {
    model_step want = handoff_model_transition((uint32_t)s->state, path[k]);
    if (want.status == HURRAY_OK) {
      do_simple(s, path[k]);
    }
  }
  FUZZ_CHECK(s->state == ST_DESTROYED);
}

/* ---- Buffer lists (HO-LIST) ------------------------------------------- */

typedef struct list_model {
  hurray_buffer_list *list;
  size_t count;
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  void *data[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  slot *from_handoff[HURRAY_BUFFER_TABLE_MAX_HANDLES];
} list_model;

static list_model lm;
/* Memory for plain pushes: one distinct address per entry. */
alignas(64) static unsigned char list_memory[HURRAY_BUFFER_TABLE_MAX_HANDLES][64];

static void list_entry_released(void *buffer, void *ctx) {
  (void)ctx;
  log_list_release(buffer);
}

static void list_destroy_and_check(void) {
  list_releases = 0;
  int before[SLOTS];
  for (size_t i = 0; i < SLOTS; i++) {
    before[i] = slots[i].buffer_releases;
  }
  list_destroying = true;
  hurray_buffer_list_destroy(&lm.list);
  list_destroying = false;
  FUZZ_CHECK(lm.list == NULL);
  FUZZ_CHECK(list_releases == lm.count); /* each buffer once ... */
  for (size_t i = 0; i < list_releases; i++) {
    FUZZ_CHECK(list_release_log[i] == lm.data[i]); /* ... in order */
  }
  for (size_t i = 0; i < SLOTS; i++) {
    /* A transferred buffer is released by the list, exactly once. */
    FUZZ_CHECK(slots[i].buffer_releases == before[i] + (slots[i].in_list ? 1 : 0));
    slots[i].in_list = false;
  }
  lm.count = 0;
}

/* The list's own checks for one more handle (HO-LIST-2). */
static ref_verdict list_verdict(const hurray_buffer_handle *h) {
  if (lm.count > 0) {
    if (h->device_tag != lm.handles[0].device_tag) {
      return ref_fail(HURRAY_ERR_DEVICE_TAG_MISMATCH, h->device_tag, lm.handles[0].device_tag,
                      lm.count);
    }
    if (h->memory_class != lm.handles[0].memory_class) {
      return ref_fail(HURRAY_ERR_MEMORY_CLASS_MISMATCH, h->memory_class, lm.handles[0].memory_class,
                      lm.count);
    }
  }
  if (lm.count == HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    return ref_fail(HURRAY_ERR_CAPACITY, lm.count + 1, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  return ref_ok();
}

static void ensure_list(void) {
  if (lm.list == NULL) {
    FUZZ_CHECK(hurray_buffer_list_create(&lm.list, NULL) == HURRAY_OK && lm.list != NULL);
    FUZZ_CHECK(hurray_buffer_list_count(lm.list) == 0);
  }
}

/* HO-LIST-7: an accepted buffer moves into the list. */
static void do_list_transfer(slot *s) {
  ensure_list();
  hurray_error err;
  int b = s->buffer_releases;
  int e = s->event_releases;
  int state = s->state;
  hurray_status got = hurray_buffer_list_push_handoff(lm.list, &s->handoff, &err);
  model_step table = handoff_model_transition((uint32_t)state, OP_TRANSFER);
  if (table.status == HURRAY_OK) {
    ref_verdict want = list_verdict(&s->handle);
    if (want.status == HURRAY_ERR_CAPACITY) {
      FUZZ_CHECK(got == HURRAY_ERR_CAPACITY);
    } else if (want.status != HURRAY_OK) {
      FUZZ_CHECK(check_matches(want, got, &err));
    } else {
      step(s, OP_TRANSFER, got, &err, b, e);
      lm.handles[lm.count] = s->handle;
      lm.data[lm.count] = s->offer.data;
      lm.from_handoff[lm.count] = s;
      lm.count++;
      s->in_list = true;
    }
  } else {
    FUZZ_CHECK(got != HURRAY_OK);
  }
  FUZZ_CHECK(s->buffer_releases == b && s->event_releases == e); /* the step fires nothing */
  FUZZ_CHECK(hurray_handoff_state_of(&s->handoff) == (uint32_t)s->state);
  FUZZ_CHECK(hurray_buffer_list_count(lm.list) == lm.count);
}

static void do_list_push(uint8_t param, uint8_t extra) {
  ensure_list();
  hurray_buffer_handle h;
  h.byte_size = (param & 0x10u) != 0 ? 0u : 256u;
  h.alignment = (extra & 1u) != 0 ? 32u : 64u;
  h.device_tag = devices[(param >> 2) & 3u];
  h.sync_mode = param % 3u;
  h.memory_class = (extra & 2u) != 0 ? HURRAY_MEMORY_UNIFIED : HURRAY_MEMORY_STANDARD;
  unsigned fault = param >> 5;
  size_t slot_index = lm.count < HURRAY_BUFFER_TABLE_MAX_HANDLES ? lm.count : 0;
  void *data = fault == 6 ? NULL : list_memory[slot_index];
  hurray_buffer_release_fn release = fault == 7 ? NULL : list_entry_released;
  /* HO-LIST-2 names the refusals but not their order: every fault present
   * is a correct answer, and no fault means success. */
  ref_fields f = {h.byte_size, h.alignment, h.device_tag, h.sync_mode, h.memory_class};
  ref_verdict faults[4];
  size_t n_faults = 0;
  ref_verdict invalid = ref_check_fields(&f, lm.count);
  if (invalid.status != HURRAY_OK) {
    faults[n_faults++] = invalid;
  } else {
    ref_verdict place = list_verdict(&h);
    if (place.status != HURRAY_OK) {
      faults[n_faults++] = place;
    }
  }
  if (release == NULL) {
    faults[n_faults++] = ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3);
  }
  if (data == NULL && h.byte_size != 0) {
    faults[n_faults++] = ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  hurray_error err;
  size_t releases_before = list_releases;
  hurray_status got = hurray_buffer_list_push(lm.list, &h, data, release, NULL, &err);
  bool explained = n_faults == 0 && got == HURRAY_OK;
  for (size_t k = 0; k < n_faults && !explained; k++) {
    explained = faults[k].status == HURRAY_ERR_CAPACITY ? got == HURRAY_ERR_CAPACITY
                                                        : check_matches(faults[k], got, &err);
  }
  FUZZ_CHECK(explained);
  FUZZ_CHECK(list_releases == releases_before); /* HO-LIST-2: a refusal calls nothing */
  if (got == HURRAY_OK) {
    lm.handles[lm.count] = h;
    lm.data[lm.count] = data;
    lm.from_handoff[lm.count] = NULL;
    lm.count++;
  }
  FUZZ_CHECK(hurray_buffer_list_count(lm.list) == lm.count);
}

static void do_list_borrow(uint8_t param) {
  size_t index = param;
  hurray_buffer_handle h;
  void *data = NULL;
  hurray_error err;
  hurray_status got = hurray_buffer_list_borrow(lm.list, index, &h, &data, &err);
  if (lm.list == NULL) {
    FUZZ_CHECK(got != HURRAY_OK);
    return;
  }
  if (index < lm.count) {
    FUZZ_CHECK(got == HURRAY_OK && hurray_buffer_handle_equal(&h, &lm.handles[index]) &&
               data == lm.data[index]);
  } else {
    FUZZ_CHECK(got == HURRAY_ERR_INVALID_ARGUMENT && err.value == index &&
               err.expected == lm.count && err.index == 1);
  }
}

/* ---- The program ------------------------------------------------------ */

enum {
  I_OFFER,
  I_OFFER_ENCODED,
  I_WITHDRAW,
  I_ACCEPT,
  I_EV_WAIT,
  I_REL_EV,
  I_ST_WAIT,
  I_ACCESS,
  I_RELEASE,
  I_DESTROY,
  I_INIT,
  I_TRANSITION,
  I_LIST_PUSH,
  I_LIST_BORROW,
  I_LIST_DESTROY,
  I_LIST_TRANSFER_OR_NAMES
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  memset(&lm, 0, sizeof lm);
  for (size_t i = 0; i < SLOTS; i++) {
    slots[i].in_list = false;
    start_lifetime(&slots[i]);
  }
  FUZZ_CHECK(hurray_c_abi_version() >= HURRAY_C_ABI_VERSION);

  size_t pc = 0;
  size_t steps = 0;
  while (pc + 2 <= size && steps < 512) {
    uint8_t opcode = data[pc];
    uint8_t param = data[pc + 1];
    pc += 2;
    steps++;
    size_t index = (size_t)(opcode >> 4) % SLOTS;
    slot *s = &slots[index];
    switch (opcode & 0x0Fu) {
      case I_OFFER: do_offer(s, index, param, NULL); break;
      case I_OFFER_ENCODED: {
        uint8_t wire[16] = {0};
        size_t n = size - pc < 16 ? size - pc : 16;
        memcpy(wire, data + pc, n);
        pc += n;
        do_offer(s, index, param, wire);
        break;
      }
      case I_WITHDRAW: do_simple(s, OP_WITHDRAW); break;
      case I_ACCEPT: do_accept(s, param); break;
      case I_EV_WAIT: do_simple(s, OP_EV_WAIT); break;
      case I_REL_EV: do_simple(s, OP_REL_EV); break;
      case I_ST_WAIT: do_simple(s, OP_ST_WAIT); break;
      case I_ACCESS: do_access(s, index, param); break;
      case I_RELEASE: do_simple(s, OP_RELEASE); break;
      case I_DESTROY: do_simple(s, OP_DESTROY); break;
      case I_INIT:
        if (s->state == ST_DESTROYED && !s->in_list) {
          start_lifetime(s); /* a new lifetime for a destroyed object */
        }
        break;
      case I_TRANSITION: {
        /* The pure function, on any integers (HO-SM-6). */
        uint32_t state = param % 16u;
        uint32_t op = (uint32_t)(param >> 4);
        hurray_handoff_step got =
            hurray_handoff_transition((hurray_handoff_state)state, (hurray_handoff_op)op);
        model_step want = handoff_model_transition(state, op);
        FUZZ_CHECK(got.status == want.status && (int)got.next == want.next &&
                   (int)got.effect == want.effect);
        break;
      }
      case I_LIST_PUSH: do_list_push(param, (uint8_t)(opcode >> 4)); break;
      case I_LIST_BORROW: do_list_borrow(param); break;
      case I_LIST_DESTROY: list_destroy_and_check(); break;
      default: {
        if ((param & 1u) == 0) {
          do_list_transfer(s);
          break;
        }
        const char *state_name = hurray_handoff_state_name(param);
        const char *op_name = hurray_handoff_op_name(param);
        FUZZ_CHECK(state_name != NULL && op_name != NULL &&
                   hurray_sync_mismatch_name(param) != NULL);
        FUZZ_CHECK((strcmp(state_name, "invalid") == 0) == (param >= ST_COUNT));
        FUZZ_CHECK((strcmp(op_name, "invalid") == 0) == (param >= OP_COUNT));
        if (param < ST_COUNT) {
          FUZZ_CHECK(strcmp(state_name, handoff_model_state_name(param)) == 0);
        }
        break;
      }
    }
  }
  for (size_t i = 0; i < SLOTS; i++) {
    finish(&slots[i]);
  }
  list_destroy_and_check();
  for (size_t i = 0; i < SLOTS; i++) {
    /* Every accepted buffer of the last lifetimes was released exactly once. */
    FUZZ_CHECK(slots[i].buffer_releases == slots[i].buffer_releases_due);
  }
  return 0;
}

FUZZ_ORACLE_END
