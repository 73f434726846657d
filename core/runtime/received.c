/*
 * The received tensor of every transport (specs/inbound.md RX-OBJ-*,
 * RX-BUILD-*, RX-REL-*): its buffers as accepted handoffs, their release
 * and the teardown of the whole. The transports (ipc/ipc_consumer.c,
 * net/net.c) build it and keep only their own undo function.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin_support.h"
#include "hurray/received.h"

/* Where one buffer is in its life here (not the handoff's state). */
enum {
  ENTRY_EMPTY = 0,     /* not staged: owns nothing */
  ENTRY_STAGED = 1,    /* owns its resources, not handed out (RX-BUILD-1) */
  ENTRY_PUBLISHED = 2, /* handed out: its handoff releases it (RX-REL-1) */
  ENTRY_UNDONE = 3     /* undone in discard mode before it was handed out (RX-REL-3) */
};

typedef struct rx_entry {
  hurray_handoff handoff;
  hurray_accepted_buffer accepted;
  struct hurray_received *owner;
  /* Device memory; taken by the release (NULL from then on, RX-OBJ-2). */
  hurray_plugin_buffer *_Atomic device;
  /* An event not yet owned by the handoff (before the publish). */
  hurray_plugin_event *event;
  void *memory;
  uint64_t memory_size;
  hurray_buffer_handle handle;
  uint32_t ipc_capabilities;
  uint32_t stage;
  /* HURRAY_RECEIVED_RELEASE_SIGNAL once handed out, DISCARD before. */
  uint32_t how;
  /* What the transport reported of the release (RX-REL-2). */
  hurray_error release_error;
} rx_entry;

struct hurray_received {
  hurray_received_transport_desc transport;
  uint64_t id;
  size_t count;
  int published;
  rx_entry entries[];
};

static hurray_status fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, size_t index, const char *detail) {
  return hurray_support_fail(err, status, value, expected, index, "%s", detail);
}

/* RX-REL-2, RX-REL-3: the plugin buffer first, then the transport's part,
 * exactly once per staged buffer (the callers see to once). */
static void undo_entry(rx_entry *e, uint32_t how) {
  hurray_plugin_buffer *device = atomic_exchange(&e->device, NULL);
  if (device != NULL) {
    hurray_plugin_buffer_free(device);
  }
  hurray_received *r = e->owner;
  memset(&e->release_error, 0, sizeof e->release_error);
  hurray_status st = r->transport.release(r->transport.ctx, r->id, (uint32_t)(e - r->entries),
                                          e->memory, e->memory_size, how, &e->release_error);
  e->release_error.status = st;
  e->memory = NULL;
}

/* The handoff's buffer release (HO-OWN-3): runs once, on the releasing thread. */
static void release_entry(void *buffer, void *ctx) {
  (void)buffer;
  rx_entry *e = ctx;
  undo_entry(e, e->how);
}

/* A staged buffer that was never offered or was withdrawn (RX-REL-3). */
static void discard_staged(rx_entry *e) {
  if (e->event != NULL) {
    hurray_plugin_event_release(e->event);
    e->event = NULL;
  }
  undo_entry(e, HURRAY_RECEIVED_RELEASE_DISCARD);
  e->stage = ENTRY_UNDONE;
}

/* RX-REL-4: whatever state the handoff reached, the event (if still held)
 * and then the buffer are released exactly once. */
static void teardown_handoff(hurray_handoff *h) {
  uint32_t state = hurray_handoff_state_of(h);
  if (state == HURRAY_HANDOFF_EVENT_PENDING || state == HURRAY_HANDOFF_EVENT_WAITED) {
    (void)!hurray_handoff_release_event(h, NULL); /* teardown: nothing to report to */
  }
  state = hurray_handoff_state_of(h);
  if (state == HURRAY_HANDOFF_OFFERED) {
    (void)!hurray_handoff_withdraw(h, NULL);
  } else if (state != HURRAY_HANDOFF_RELEASED && state != HURRAY_HANDOFF_EMPTY &&
             state != HURRAY_HANDOFF_WITHDRAWN && state != HURRAY_HANDOFF_DESTROYED) {
    (void)!hurray_handoff_release(h, NULL);
  }
  (void)!hurray_handoff_destroy(h, NULL);
}

hurray_status hurray_received_create(const hurray_received_transport_desc *t, uint64_t id,
                                     size_t count, hurray_received **out, hurray_error *err) {
  if (t == NULL || t->release == NULL || out == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, out == NULL ? 3u : 0u,
                "received tensor: transport, its release or out is NULL");
  }
  if (t->struct_size < sizeof *t) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, t->struct_size, sizeof *t, 0,
                "hurray_received_transport_desc.struct_size");
  }
  if (count == 0u || count > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, count, HURRAY_BUFFER_TABLE_MAX_HANDLES, 2,
                "received tensor: number of buffers");
  }
  size_t bytes = sizeof(hurray_received) + count * sizeof(rx_entry);
  hurray_received *r = calloc(1, bytes);
  if (r == NULL) {
    return fail(err, HURRAY_ERR_OUT_OF_MEMORY, bytes, 0, 0, "received tensor");
  }
  memcpy(&r->transport, t, sizeof r->transport);
  r->transport.struct_size = (uint32_t)sizeof r->transport;
  r->id = id;
  r->count = count;
  for (size_t i = 0; i < count; i++) {
    r->entries[i].owner = r;
    atomic_init(&r->entries[i].device, NULL);
    r->entries[i].how = HURRAY_RECEIVED_RELEASE_DISCARD;
  }
  *out = r;
  return HURRAY_OK;
}

hurray_status hurray_received_stage(hurray_received *received, size_t index,
                                    const hurray_received_buffer_desc *desc, hurray_error *err) {
  if (received == NULL || desc == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, received == NULL ? 0u : 2u,
                "received tensor or buffer description is NULL");
  }
  if (index >= received->count) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, index, received->count, 1, "buffer index");
  }
  if (desc->struct_size < sizeof *desc) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, desc->struct_size, sizeof *desc, 2,
                "hurray_received_buffer_desc.struct_size");
  }
  rx_entry *e = &received->entries[index];
  if (received->published || e->stage != ENTRY_EMPTY) {
    return fail(err, HURRAY_ERR_ILLEGAL_TRANSITION, e->stage, ENTRY_EMPTY, index,
                "buffer already staged, or the tensor already published");
  }
  e->handle = desc->handle;
  e->ipc_capabilities = desc->ipc_capabilities;
  e->accepted.data = desc->data;
  atomic_store(&e->device, desc->plugin_buffer);
  e->event = desc->event;
  e->memory = desc->memory;
  e->memory_size = desc->memory_size;
  e->stage = ENTRY_STAGED;
  return HURRAY_OK;
}

/* RX-BUILD-2: offer and accept one staged buffer. On failure the handoff
 * is back in EMPTY or WITHDRAWN and nothing of the entry was released. */
static hurray_status publish_entry(hurray_received *r, rx_entry *e, hurray_error *err) {
  hurray_buffer_offer offer = hurray_buffer_offer_make(
      e->accepted.data, release_entry, e,
      e->event == NULL ? hurray_sync_payload_none()
                       : hurray_sync_payload_event_of_kind(
                             e->event, HURRAY_EVENT_KIND_PLUGIN, e->handle.device_tag,
                             hurray_plugin_event_release_callback, NULL));
  hurray_handoff_init(&e->handoff);
  hurray_status st = hurray_handoff_offer(&e->handoff, &e->handle, &offer, err);
  if (st != HURRAY_OK) {
    return st;
  }
  e->accepted.struct_size = (uint32_t)sizeof e->accepted; /* HO-ABI-9 */
  st = hurray_handoff_accept(&e->handoff, (hurray_transport)r->transport.transport,
                             e->ipc_capabilities, &e->accepted, err);
  if (st != HURRAY_OK) {
    (void)!hurray_handoff_withdraw(&e->handoff, NULL); /* no callback runs (HO-OWN-2) */
  }
  return st;
}

hurray_status hurray_received_publish(hurray_received *received, hurray_error *err) {
  if (received == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "received tensor is NULL");
  }
  if (received->published) {
    return fail(err, HURRAY_ERR_ILLEGAL_TRANSITION, 1, 0, 0, "received tensor already published");
  }
  for (size_t i = 0; i < received->count; i++) {
    if (received->entries[i].stage != ENTRY_STAGED) {
      return fail(err, HURRAY_ERR_INVALID_ARGUMENT, i, received->count, i, "buffer not staged");
    }
  }
  for (size_t i = 0; i < received->count; i++) {
    rx_entry *e = &received->entries[i];
    hurray_status st = publish_entry(received, e, err);
    if (st == HURRAY_OK) {
      continue;
    }
    if (err != NULL) {
      err->index = i;
    }
    (void)!hurray_handoff_destroy(&e->handoff, NULL);
    /* All or none: undo what was accepted, in discard mode (RX-REL-3). */
    for (size_t j = 0; j < i; j++) {
      rx_entry *done = &received->entries[j];
      done->event = NULL; /* its handoff owns it and releases it below */
      teardown_handoff(&done->handoff);
      done->stage = ENTRY_UNDONE;
    }
    return st;
  }
  for (size_t i = 0; i < received->count; i++) {
    rx_entry *e = &received->entries[i];
    e->event = NULL; /* the handoff releases it from now on (IPC-SEG-7) */
    e->how = HURRAY_RECEIVED_RELEASE_SIGNAL;
    e->stage = ENTRY_PUBLISHED;
  }
  received->published = 1;
  return HURRAY_OK;
}

uint32_t hurray_received_transport(const hurray_received *received) {
  return received == NULL ? 0u : received->transport.transport;
}

uint64_t hurray_received_id(const hurray_received *received) {
  return received == NULL ? 0u : received->id;
}

size_t hurray_received_count(const hurray_received *received) {
  return received == NULL ? 0u : received->count;
}

const hurray_accepted_buffer *hurray_received_buffer(const hurray_received *received,
                                                     size_t index) {
  if (received == NULL || index >= received->count) {
    return NULL;
  }
  return &received->entries[index].accepted;
}

hurray_handoff *hurray_received_handoff(hurray_received *received, size_t index) {
  if (received == NULL || index >= received->count) {
    return NULL;
  }
  return &received->entries[index].handoff;
}

hurray_plugin_buffer *hurray_received_plugin_buffer(const hurray_received *received, size_t index) {
  if (received == NULL || index >= received->count) {
    return NULL;
  }
  return atomic_load(&received->entries[index].device);
}

hurray_status hurray_received_release(hurray_received *received, size_t index, hurray_error *err) {
  if (received == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "received tensor is NULL");
  }
  if (index >= received->count) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, index, received->count, 1, "buffer index");
  }
  rx_entry *e = &received->entries[index];
  hurray_status st = hurray_handoff_release(&e->handoff, err);
  if (st != HURRAY_OK) {
    return st;
  }
  /* RX-REL-2: this call ran the release, so the transport's report is ours. */
  if (e->release_error.status != HURRAY_OK) {
    if (err != NULL) {
      *err = e->release_error;
    }
    return e->release_error.status;
  }
  return HURRAY_OK;
}

void hurray_received_free(hurray_received **received) {
  if (received == NULL || *received == NULL) {
    return;
  }
  hurray_received *r = *received;
  *received = NULL;
  for (size_t i = 0; i < r->count; i++) {
    rx_entry *e = &r->entries[i];
    if (e->stage == ENTRY_PUBLISHED) {
      teardown_handoff(&e->handoff);
    } else if (e->stage == ENTRY_STAGED) {
      discard_staged(e);
    }
  }
  if (r->transport.close != NULL) {
    r->transport.close(r->transport.ctx);
  }
  free(r);
}
