/*
 * Fuzz target net_receive: the network transport (net/net.c,
 * net/landing_pool.c) as a remote machine sees it: hurray_net_receive with
 * its checks, refusals and landing pool, fed by a peer the input drives,
 * plus the sending side's answers to that peer. net.c is compiled unchanged
 * against a stand-in for UCX's API (fuzz/fake_ucx/ucp/api/ucp.h,
 * fuzz/fake_ucx.c): the seam is UCX's tag-matched message boundary, so every
 * line of net.c that runs here is the production code, and the peer's
 * messages, fragments (buffer messages of any length), disconnects and
 * UCX's failures are the input's. Device placement (NET-DEV-2) goes
 * through the hostile plugin (fuzz/hostile_plugin.c), answering correctly.
 *
 * Input: byte 0 sets up the connection (bit 0: listen and accept, else
 * connect; bit 1: a plugin registry; bit 2: the shared-memory option; bit
 * 3: small limits; bit 4: options with struct_size 4; bit 5: an undefined
 * option flag; bits 6-7: the address); byte 1 (0xC0 and up) makes UCX
 * calls fail; byte 2 the plugin's tag; byte 3 the reuse budget. Then
 * records [op][u16 length][bytes]: a tensor the peer sends (table, id,
 * each buffer's message exact, short, long or missing, a disconnect), a
 * raw control message (up to 65535 bytes: oversize ones too), a
 * disconnect, a receive with nothing coming, releases, and sends (with how
 * UCX completes them and a REFUSE coming back).
 *
 * Oracle (specs/network.md): every status defined and its error filled; a
 * failed receive hands out nothing, frees everything (ASan's leak check),
 * completes every UCX request it posted (the stand-in counts them and
 * writes into a buffer only when its receive completes, so memory freed
 * under a posted receive is a use after free) and, but for a TIMEOUT before
 * a tensor began, ends the connection after a REFUSE carrying its error
 * (NET-RECV-7, NET-ERR-1, NET-ERR-2); for a tensor built here the outcome
 * is recomputed from NET-RECV-1..8, NET-LIM-1 and NET-DEV-2 (until a
 * disconnect makes the timing the peer's); an accepted tensor has exactly
 * the declared handles, READABLE, with the bytes the peer sent, at the
 * declared alignment, a device buffer holding them too (NET-RECV-5,
 * NET-DEV-2); every source of a send is released exactly once
 * (NET-SEND-3) and sent ids grow (NET-SEND-2); at the end no UCX request
 * and no plugin buffer is left.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fake_ucx.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/net.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

#define KEPT 4

static hostile_source in;
static hurray_net_connection *conn;
static hurray_plugin_registry *registry;
static hurray_plugin *plugin;
static hurray_net_received *kept[KEPT];
static hurray_error err;
static bool relaxed;          /* a disconnect was queued: timing is the peer's */
static uint64_t last_id;      /* the last tensor id the receiver accepted */
static uint64_t last_sent_id; /* the last id a send returned */
static hurray_net_options options;

static void poison(void) { memset(&err, 0xAA, sizeof err); }

static hurray_status checked(hurray_status s) { return fuzz_checked_status(s, &err); }

static uint8_t pattern(uint64_t id, size_t index, size_t k) {
  return (uint8_t)(id * 31u + index * 7u + k);
}

static void keep(hurray_net_received *r) {
  hurray_net_received_free(&kept[0]);
  memmove(kept, kept + 1, (KEPT - 1) * sizeof kept[0]);
  kept[KEPT - 1] = r;
}

/* NET-RECV-7, NET-ERR-1: after a refusal the peer was told (when it could
 * be) and the connection is over. */
static void check_refused(hurray_status s, uint32_t control_sends_before, bool could_tell) {
  FUZZ_CHECK(hurray_net_connection_broken(conn) == HURRAY_TRUE);
  const fake_ucx_sent *log = fake_ucx_sent_log();
  if (could_tell) {
    FUZZ_CHECK(log->control_sends == control_sends_before + 1u);
    hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
    hurray_error e;
    FUZZ_CHECK(hurray_net_message_decode(log->control, log->control_length, &m, NULL, 0, &e) ==
               HURRAY_OK);
    FUZZ_CHECK(m.type == HURRAY_NET_MSG_REFUSE && m.status == (uint32_t)s);
    FUZZ_CHECK(m.value == err.value && m.expected == err.expected);
  }
}

/* Set while the peer's last control message is a REFUSE: the receive's
 * result is the peer's refusal, and nothing is sent back (NET-SEND-4). */
static const hurray_net_message *peer_refusal;

/* A REFUSE that op_send queued ahead of its send and that no call has taken
 * yet (a send refused for its arguments never reads the control queue).
 * Control messages are taken in order, so the next receive takes this one
 * first, whatever the peer queued after it and whatever its timeout: its
 * result is this refusal (NET-SEND-4, NET-RECV-1). */
static hurray_net_message queued_refusal;
static bool refusal_queued;

/* One receive and what every receive must satisfy; `want` is the status
 * the rules give (HURRAY_OK too), or HURRAY_STATUS_COUNT when not known. */
static void receive(int timeout_ms, hurray_status want, bool began) {
  bool ended = hurray_net_connection_broken(conn) == HURRAY_TRUE;
  uint32_t control_before = fake_ucx_sent_log()->control_sends;
  int requests_before = fake_ucx_live_requests();
  hurray_net_received *r = NULL;
  const hurray_net_message *refusal = peer_refusal;
  if (refusal_queued && !ended) {
    want = (hurray_status)queued_refusal.status;
    refusal = &queued_refusal;
  }
  refusal_queued = false;
  poison();
  hurray_status s = checked(hurray_net_receive(conn, timeout_ms, &r, &err));
  FUZZ_CHECK((s == HURRAY_OK) == (r != NULL)); /* a failure hands out nothing */
  if (ended && !relaxed) {
    FUZZ_CHECK(s == HURRAY_ERR_IPC_PEER_GONE); /* NET-RECV-1: refused before, so ended */
    return;
  }
  if (!relaxed && want != HURRAY_STATUS_COUNT) {
    FUZZ_CHECK(s == want);
  }
  if (s == HURRAY_ERR_TIMEOUT &&
      (!began || (relaxed && hurray_net_connection_broken(conn) == HURRAY_FALSE))) {
    /* NET-RECV-1: no tensor began (what the peer queued had not arrived,
     * or nothing was coming), the connection stays, the one control
     * receive stays posted and nothing else. */
    FUZZ_CHECK(hurray_net_connection_broken(conn) == HURRAY_FALSE);
    FUZZ_CHECK(fake_ucx_live_requests() <= requests_before + 1);
    FUZZ_CHECK(fake_ucx_posted_receives() <= 1);
    return;
  }
  if (s != HURRAY_OK) {
    FUZZ_CHECK(fake_ucx_posted_receives() == 0); /* NET-ERR-2, NET-RECV-6 */
    if (refusal != NULL && !relaxed) {
      /* NET-SEND-4: the peer's values when the status is one of ours */
      FUZZ_CHECK(hurray_net_connection_broken(conn) == HURRAY_TRUE);
      FUZZ_CHECK(fake_ucx_sent_log()->control_sends == control_before);
      FUZZ_CHECK(err.index == refusal->index);
      if (s != HURRAY_ERR_UNSUPPORTED || refusal->status == (uint32_t)s) {
        FUZZ_CHECK(err.value == refusal->value && err.expected == refusal->expected);
      } else {
        FUZZ_CHECK(err.value == refusal->status && err.expected == HURRAY_STATUS_COUNT);
      }
    } else if (s != HURRAY_ERR_IPC_PEER_GONE && !relaxed) {
      check_refused(s, control_before, true);
    } else {
      FUZZ_CHECK(hurray_net_connection_broken(conn) == HURRAY_TRUE);
    }
    return;
  }
  /* NET-RECV-5: READABLE handoffs of the declared buffers. */
  uint64_t id = hurray_net_received_tensor_id(r);
  FUZZ_CHECK(id > last_id && id < (1ull << 48)); /* NET-RECV-8 */
  last_id = id;
  for (size_t i = 0; i < hurray_net_received_count(r); i++) {
    const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
    FUZZ_CHECK(b != NULL && b->handle.sync_mode == HURRAY_SYNC_PRODUCER_SYNCED);
    FUZZ_CHECK(hurray_handoff_state_of(hurray_net_received_handoff(r, i)) ==
               HURRAY_HANDOFF_READABLE);
    size_t size = (size_t)b->handle.byte_size;
    hurray_plugin_buffer *device = hurray_net_received_plugin_buffer(r, i);
    FUZZ_CHECK((device != NULL) == (b->handle.device_tag != HURRAY_DEVICE_CPU && size > 0u));
    if (size == 0u) {
      continue;
    }
    const uint8_t *bytes = b->data;
    uint8_t *copy = NULL;
    if (device != NULL) {
      copy = malloc(size);
      FUZZ_CHECK(copy != NULL);
      FUZZ_CHECK(hurray_plugin_buffer_read(device, 0, copy, size, NULL) == HURRAY_OK);
      bytes = copy;
    } else {
      FUZZ_CHECK(((uintptr_t)b->data & (b->handle.alignment - 1u)) == 0u);
    }
    if (!relaxed) {
      for (size_t k = 0; k < size; k++) {
        FUZZ_CHECK(bytes[k] == pattern(id, i, k));
      }
    }
    free(copy);
  }
  keep(r);
}

/* A record's bytes, read in turn; zeros once they end. */
typedef struct record {
  const uint8_t *p;
  size_t n;
  size_t at;
} record;

static uint8_t take(record *r) { return r->at < r->n ? r->p[r->at++] : 0u; }

/* A tensor the peer sends, built from the record, and its outcome by the
 * rules. Per handle: size, alignment, where (cpu, the plugin's tag,
 * another tag), sync mode, class; then per buffer how its message comes. */
static void op_tensor(record *rec) {
  uint8_t id_step = take(rec);
  size_t count = take(rec) % 6u;
  uint64_t id = id_step >= 0xF8u ? (id_step == 0xFFu ? 1ull << 48 : last_id)
                                 : last_id + 1u + id_step % 3u;
  hurray_buffer_handle h[6];
  uint8_t table[1 + 6 * 16];
  uint64_t total = 0;
  hurray_status want = HURRAY_OK;
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  bool has_devices = plugin != NULL && hurray_plugin_device_count(plugin) > 0u &&
                     hurray_plugin_describe_device(plugin, 0, &info, NULL) == HURRAY_OK;
  /* One device for the whole tensor (BP-COLOC-1): cpu, the plugin's, another. */
  uint8_t where = take(rec);
  hurray_device_tag tag = HURRAY_DEVICE_CPU;
  if (where % 4u == 1u) {
    tag = hostile_table_config.device_tag;
  } else if (where % 4u == 2u) {
    tag = HURRAY_DEVICE_VULKAN;
  }
  for (size_t i = 0; i < count; i++) {
    uint8_t size = take(rec);
    uint8_t shape = take(rec);
    uint64_t bytes = size == 0xFFu ? 70000u : (uint64_t)size * 13u;
    uint32_t alignment = 64u << (shape & 3u);
    hurray_sync_mode sync = (shape & 0x40u) != 0u && tag != HURRAY_DEVICE_CPU
                                ? HURRAY_SYNC_EVENT
                                : HURRAY_SYNC_PRODUCER_SYNCED;
    hurray_memory_class c = (shape & 0x80u) != 0u && tag != HURRAY_DEVICE_CPU && has_devices
                                ? info.memory_classes[info.memory_class_count - 1u].memory_class
                                : HURRAY_MEMORY_STANDARD;
    if (hurray_buffer_handle_with_memory_class(bytes, alignment, tag, sync, c, &h[i], NULL) !=
        HURRAY_OK) {
      count = i;
      break;
    }
    total += bytes;
  }
  size_t table_len = 0;
  hurray_error e;
  if (hurray_buffer_table_encode(h, count, table, sizeof table, &table_len, &e) != HURRAY_OK) {
    return; /* a table no writer produces: op_raw's business */
  }
  uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE];
  size_t msg_len = hurray_net_encode_tensor(msg, sizeof msg, id, table, table_len);
  /* NET-RECV-8, NET-RECV-2, NET-LIM-1, NET-DEV-2, in that order. */
  if (id <= last_id || id >= (1ull << 48)) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  }
  for (size_t i = 0; want == HURRAY_OK && i < count; i++) {
    if (h[i].sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
      want = HURRAY_ERR_SYNC_MODE_NOT_ALLOWED;
    }
  }
  for (size_t i = 0; want == HURRAY_OK && i < count; i++) {
    if (h[i].device_tag != HURRAY_DEVICE_CPU &&
        (!has_devices || h[i].device_tag != hostile_table_config.device_tag)) {
      want = HURRAY_ERR_DEVICE_UNAVAILABLE;
    }
  }
  uint64_t received = hurray_net_connection_bytes_received(conn);
  if (want == HURRAY_OK && (total > options.max_tensor_bytes && options.max_tensor_bytes != 0u)) {
    want = HURRAY_ERR_CAPACITY;
  }
  if (want == HURRAY_OK && options.max_connection_bytes != 0u &&
      total + received > options.max_connection_bytes) {
    want = HURRAY_ERR_CAPACITY;
  }
  for (size_t i = 0; want == HURRAY_OK && i < count; i++) {
    if (h[i].device_tag == HURRAY_DEVICE_CPU || h[i].byte_size == 0u) {
      continue;
    }
    const hurray_plugin_memory_class_info *ci = NULL;
    for (uint32_t k = 0; k < info.memory_class_count; k++) {
      if (info.memory_classes[k].memory_class == h[i].memory_class) {
        ci = &info.memory_classes[k];
      }
    }
    if (ci == NULL || h[i].alignment > ci->max_alignment) {
      want = HURRAY_ERR_UNSUPPORTED; /* the plugin's refusal (PL-ALLOC-1) */
    } else if (h[i].byte_size > (1u << 20)) {
      want = HURRAY_ERR_OUT_OF_MEMORY;
    }
  }
  fake_ucx_deliver(HURRAY_NET_TAG_CONTROL, msg, msg_len);
  /* The buffers' messages: exact, one byte short, one long, or missing. */
  bool missing = false;
  hurray_status transfer = HURRAY_OK;
  static uint8_t data[70001];
  for (size_t i = 0; i < count; i++) {
    if (h[i].byte_size == 0u) {
      continue;
    }
    uint8_t how = take(rec) % 8u;
    size_t length = (size_t)h[i].byte_size;
    if (how == 5u) {
      missing = true;
      continue;
    }
    length = how == 6u ? length - 1u : how == 7u ? length + 1u : length;
    for (size_t k = 0; k < length; k++) {
      data[k] = pattern(id, i, k);
    }
    if (transfer == HURRAY_OK && how == 6u) transfer = HURRAY_ERR_TRUNCATED;
    if (transfer == HURRAY_OK && how == 7u) transfer = HURRAY_ERR_TRAILING_BYTES;
    fake_ucx_deliver(hurray_net_data_tag(id, (uint32_t)i), data, length);
  }
  bool disconnect = (take(rec) & 1u) != 0u;
  if (disconnect) {
    fake_ucx_disconnect();
  }
  if (want == HURRAY_OK) {
    want = missing ? (disconnect ? HURRAY_ERR_IPC_PEER_GONE : HURRAY_ERR_TIMEOUT) : transfer;
  }
  relaxed = relaxed || disconnect; /* it may arrive before the refusal is sent */
  receive(200, want, true);
}

/* A control message of any bytes and length (oversize included). */
static void op_raw(record *rec) {
  fake_ucx_deliver(HURRAY_NET_TAG_CONTROL, rec->p, rec->n);
  uint8_t probe[HURRAY_NET_MAX_MESSAGE_SIZE];
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  hurray_error e;
  (void)probe;
  hurray_status decoded = rec->n > HURRAY_NET_MAX_MESSAGE_SIZE
                              ? HURRAY_ERR_CAPACITY
                              : hurray_net_message_decode(rec->p, rec->n, &m, handles,
                                                          HURRAY_BUFFER_TABLE_MAX_HANDLES, &e);
  /* A message that does not decode, or is no TENSOR, is refused as such. */
  hurray_status want = HURRAY_STATUS_COUNT;
  bool began = true;
  if (decoded != HURRAY_OK) {
    want = decoded;
  } else if (m.type == HURRAY_NET_MSG_REFUSE) {
    /* A refusal of what this side sent is the receive's result, and the
     * connection ends (NET-SEND-4); a status unknown here is UNSUPPORTED. */
    want = m.status < (uint32_t)HURRAY_STATUS_COUNT ? (hurray_status)m.status
                                                    : HURRAY_ERR_UNSUPPORTED;
    peer_refusal = &m;
  } else if (m.type != HURRAY_NET_MSG_TENSOR) {
    want = HURRAY_ERR_UNSUPPORTED;
  }
  receive(50, want, began);
  peer_refusal = NULL;
}

static void release_cb_count(void *buffer, void *ctx) {
  (void)buffer;
  (*(int *)ctx)++;
}

/* NET-SEND-1..4: a send from host memory; every source released once. */
static void op_send(record *rec) {
  uint8_t outcomes = take(rec);
  size_t count = take(rec) % 4u;
  bool refuse_back = (outcomes & 0x80u) != 0u;
  for (int i = 0; i < 3; i++) {
    fake_ucx_send_outcome((outcomes >> (2 * i)) & 3u);
  }
  hurray_buffer_handle h[4];
  static uint8_t bytes[4][4096];
  hurray_net_source sources[5]; /* one more: a source count one above the table's */
  int released[5] = {0, 0, 0, 0, 0};
  /* cpu, or cuda with events (refused: NET-SEND-1) for the whole tensor */
  hurray_sync_mode sync = (outcomes & 0x40u) != 0u ? HURRAY_SYNC_EVENT
                                                   : HURRAY_SYNC_PRODUCER_SYNCED;
  hurray_device_tag tag = sync == HURRAY_SYNC_EVENT ? HURRAY_DEVICE_CUDA : HURRAY_DEVICE_CPU;
  for (size_t i = 0; i < count; i++) {
    uint8_t size = take(rec);
    FUZZ_CHECK(hurray_buffer_handle_new((uint64_t)(size & 0x7Fu) * 32u, 64, tag, sync, &h[i],
                                        NULL) == HURRAY_OK);
    memset(&sources[i], 0, sizeof sources[i]);
    sources[i].struct_size = (take(rec) == 0xFFu) ? 8u : (uint32_t)sizeof sources[i];
    sources[i].data = h[i].byte_size > 0u || take(rec) != 0u ? bytes[i] : NULL;
    sources[i].release = release_cb_count;
    sources[i].release_ctx = &released[i];
  }
  uint8_t table[1 + 4 * 16];
  size_t table_len = 0;
  if (hurray_buffer_table_encode(h, count, table, sizeof table, &table_len, NULL) != HURRAY_OK) {
    for (size_t i = 0; i < count; i++) {
      sources[i].release(NULL, sources[i].release_ctx); /* no table: nothing to send */
    }
    return;
  }
  if (refuse_back) {
    uint8_t msg[HURRAY_NET_HEADER_SIZE + HURRAY_NET_REFUSE_BODY_SIZE];
    size_t n = hurray_net_encode_refuse(msg, sizeof msg, last_sent_id + 1u, HURRAY_ERR_CAPACITY, 0,
                                        1u << 20, 1u << 10);
    fake_ucx_deliver(HURRAY_NET_TAG_CONTROL, msg, n);
    if (!refusal_queued && hurray_net_connection_broken(conn) == HURRAY_FALSE) {
      queued_refusal = (hurray_net_message)HURRAY_NET_MESSAGE_INIT;
      FUZZ_CHECK(hurray_net_message_decode(msg, n, &queued_refusal, NULL, 0, NULL) == HURRAY_OK);
      refusal_queued = true;
    }
  }
  size_t given = (take(rec) & 1u) != 0u ? count + 1u : count;
  memset(&sources[count], 0, sizeof sources[count]);
  sources[count].struct_size = (uint32_t)sizeof sources[count];
  sources[count].release = release_cb_count;
  sources[count].release_ctx = &released[count];
  uint64_t id = 0;
  poison();
  hurray_status s =
      checked(hurray_net_send(conn, table, table_len, sources, given, 100, &id, &err));
  if (hurray_net_connection_broken(conn) == HURRAY_TRUE) {
    refusal_queued = false; /* taken by this send, or the connection is over */
  }
  for (size_t i = 0; i < given; i++) {
    FUZZ_CHECK(released[i] == 1); /* NET-SEND-3: every source given, once */
  }
  if (s == HURRAY_OK) {
    FUZZ_CHECK(id > last_sent_id); /* NET-SEND-2 */
    last_sent_id = id;
  }
}

/* NET-SEND-5: the bytes of plugin buffers, copied first. */
static void op_send_plugin(record *rec) {
  if (plugin == NULL || hurray_plugin_device_count(plugin) == 0u) {
    return;
  }
  size_t count = 1u + take(rec) % 2u;
  hurray_buffer_handle h[2];
  hurray_plugin_buffer *b[2] = {NULL, NULL};
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  FUZZ_CHECK(hurray_plugin_describe_device(plugin, 0, &info, NULL) == HURRAY_OK);
  for (size_t i = 0; i < count; i++) {
    uint64_t size = 64u * (1u + take(rec) % 8u);
    FUZZ_CHECK(hurray_buffer_handle_with_memory_class(
                   size, 64, hostile_table_config.device_tag, HURRAY_SYNC_PRODUCER_SYNCED,
                   info.memory_classes[0].memory_class, &h[i], NULL) == HURRAY_OK);
    if (take(rec) != 1u) {
      uint64_t have = (take(rec) & 1u) != 0u ? size / 2u : size; /* smaller than its handle */
      FUZZ_CHECK(hurray_plugin_allocate(plugin, 0, have, 64, info.memory_classes[0].memory_class,
                                        &b[i], NULL) == HURRAY_OK);
    }
  }
  fake_ucx_send_outcome(take(rec) % 3u);
  uint8_t table[1 + 2 * 16];
  size_t table_len = 0;
  FUZZ_CHECK(hurray_buffer_table_encode(h, count, table, sizeof table, &table_len, NULL) ==
             HURRAY_OK);
  uint64_t id = 0;
  poison();
  hurray_status s =
      checked(hurray_net_send_plugin_buffers(conn, table, table_len, b, count, 100, &id, &err));
  if (s == HURRAY_OK) {
    FUZZ_CHECK(id > last_sent_id);
    last_sent_id = id;
  }
  for (size_t i = 0; i < count; i++) {
    hurray_plugin_buffer_free(b[i]); /* the caller's: never freed by the send */
  }
}

static void op_release(record *rec) {
  uint8_t what = take(rec);
  hurray_net_received *r = kept[what % KEPT];
  if (r == NULL) {
    return;
  }
  size_t index = take(rec);
  size_t count = hurray_net_received_count(r);
  poison();
  hurray_status s = checked(hurray_net_received_release(r, index, &err));
  if (index >= count) {
    FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT);
  }
  if ((what & 0x80u) != 0u) {
    hurray_net_received_free(&kept[what % KEPT]);
  }
  /* NET-RECV-9: never more kept than the budget allows. */
  (void)hurray_net_connection_kept_bytes(conn);
  (void)hurray_net_connection_buffers_reused(conn);
}

/* NET-ERR-1: every call refuses its NULL arguments (NULL_ARGUMENT, index:
 * the argument) and the accessors answer 0 or NULL. */
static void null_arguments(void) {
  hurray_net_context *ctx = NULL;
  hurray_net_listener *l = NULL;
  hurray_net_connection *c = NULL;
  hurray_net_received *r = NULL;
  uint8_t table[17] = {1};
  hurray_net_source source;
  memset(&source, 0, sizeof source);
  hurray_plugin_buffer *none = NULL;
  FUZZ_CHECK(hurray_net_context_create(NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_connect(NULL, "127.0.0.1", 1, NULL, &c, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_listen(NULL, "127.0.0.1", 1, &l, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_accept(NULL, NULL, 0, &c, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_send(NULL, table, 17, &source, 1, 0, NULL, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_send_plugin_buffers(NULL, table, 17, &none, 1, 0, NULL, &err) ==
             HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_receive(NULL, 0, &r, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_receive(conn, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 2u);
  FUZZ_CHECK(hurray_net_connection_set_plugins(NULL, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_connection_set_reuse_bytes(NULL, 0, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_received_release(NULL, 0, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_net_connection_broken(NULL) == HURRAY_TRUE);
  FUZZ_CHECK(hurray_net_connection_bytes_received(NULL) == 0u);
  FUZZ_CHECK(hurray_net_connection_kept_bytes(NULL) == 0u);
  FUZZ_CHECK(hurray_net_connection_buffers_reused(NULL) == 0u);
  FUZZ_CHECK(hurray_net_connection_describe(NULL, NULL, 0) == 0u);
  char text[8];
  FUZZ_CHECK(hurray_net_connection_describe(NULL, text, sizeof text) == 0u && text[0] == '\0');
  FUZZ_CHECK(hurray_net_listener_port(NULL) == 0u);
  FUZZ_CHECK(hurray_net_received_tensor_id(NULL) == 0u && hurray_net_received_count(NULL) == 0u);
  FUZZ_CHECK(hurray_net_received_buffer(NULL, 0) == NULL);
  FUZZ_CHECK(hurray_net_received_handoff(NULL, 0) == NULL);
  FUZZ_CHECK(hurray_net_received_plugin_buffer(NULL, 0) == NULL);
  hurray_net_close(NULL);
  hurray_net_close(&c);
  hurray_net_listener_destroy(NULL);
  hurray_net_listener_destroy(&l);
  hurray_net_context_destroy(NULL);
  hurray_net_context_destroy(&ctx);
  hurray_net_received_free(NULL);
  hurray_net_received_free(&r);
  for (int i = 0; i < KEPT; i++) {
    if (kept[i] != NULL) { /* past the end: nothing */
      size_t n = hurray_net_received_count(kept[i]);
      FUZZ_CHECK(hurray_net_received_buffer(kept[i], n) == NULL);
      FUZZ_CHECK(hurray_net_received_handoff(kept[i], n) == NULL);
      FUZZ_CHECK(hurray_net_received_plugin_buffer(kept[i], n) == NULL);
    }
  }
}

static void op_misc(record *rec) {
  uint8_t what = take(rec);
  if (what % 4u == 3u) {
    null_arguments();
  } else if (what % 4u == 0u) {
    uint64_t budget = (uint64_t)take(rec) * 256u;
    FUZZ_CHECK(hurray_net_connection_set_reuse_bytes(conn, budget, NULL) == HURRAY_OK);
    FUZZ_CHECK(hurray_net_connection_kept_bytes(conn) <= budget);
  } else if (what % 4u == 1u) {
    char text[256];
    size_t n = hurray_net_connection_describe(conn, text, 1u + take(rec));
    FUZZ_CHECK(n == strlen(text));
  } else {
    fake_ucx_disconnect();
    relaxed = true;
    receive(20, HURRAY_STATUS_COUNT, false);
  }
}

/* The connection, by connect or by listen and accept. */
static hurray_net_listener *open_connection(hurray_net_context *ctx, uint8_t setup) {
  static const char *const addresses[] = {"127.0.0.1", "::1", "not-an-address", "10.0.0.1"};
  const char *address = addresses[setup >> 6];
  memset(&options, 0, sizeof options);
  options.struct_size = (setup & 0x10u) != 0u ? 4u : (uint32_t)sizeof options;
  options.flags = ((setup & 0x04u) != 0u ? HURRAY_NET_OPTION_SHARED_MEMORY : 0u) |
                  ((setup & 0x20u) != 0u ? 0x80u : 0u);
  if ((setup & 0x08u) != 0u) {
    options.max_tensor_bytes = 2048u;
    options.max_connection_bytes = 6000u;
  }
  hurray_net_listener *listener = NULL;
  poison();
  hurray_status s;
  if ((setup & 0x01u) != 0u) {
    s = checked(hurray_net_listen(ctx, address, 0, &listener, &err));
    if (s != HURRAY_OK) {
      return NULL;
    }
    FUZZ_CHECK(hurray_net_listener_port(listener) != 0u);
    /* A flood beyond the pending limit is rejected, not kept. */
    int requests = (setup & 0x02u) != 0u && (setup & 0x04u) != 0u ? 70 : 1;
    if ((setup & 0x30u) == 0x30u) {
      requests = 0; /* nobody asks: the accept times out */
    }
    for (int i = 0; i < requests; i++) {
      fake_ucx_connection_request();
    }
    s = checked(hurray_net_accept(listener, &options, 100, &conn, &err));
  } else {
    s = checked(hurray_net_connect(ctx, address, 7000, &options, &conn, &err));
  }
  if (s != HURRAY_OK) {
    FUZZ_CHECK(conn == NULL);
    return listener;
  }
  if (options.struct_size < 8u || (options.flags & ~(uint32_t)HURRAY_NET_OPTION_SHARED_MEMORY)) {
    fuzz_oracle_failed("options the receiver must refuse were accepted (NET-LIM-1)", __FILE__,
                       __LINE__);
  }
  if ((setup & 0x10u) != 0u) {
    memset(&options, 0, sizeof options); /* read up to struct_size: defaults */
  }
  return listener;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  in.data = data;
  in.size = size;
  in.at = 0;
  fake_ucx_reset();
  hostile_reset();
  hostile_set_source(NULL); /* the device answers correctly */
  conn = NULL;
  registry = NULL;
  plugin = NULL;
  relaxed = false;
  refusal_queued = false;
  last_id = 0;
  last_sent_id = 0;
  memset(kept, 0, sizeof kept);
  uint8_t setup = hostile_u8(&in);
  uint8_t failing = hostile_u8(&in);
  uint8_t tag = hostile_u8(&in);
  uint8_t reuse = hostile_u8(&in);
  if (failing >= 0xC0u) {
    fake_ucx_set_failing(failing & 0x3Fu);
  }
  hurray_net_context *ctx = NULL;
  poison();
  if (checked(hurray_net_context_create(&ctx, &err)) != HURRAY_OK) {
    FUZZ_CHECK(ctx == NULL && err.status == HURRAY_ERR_IO);
    fake_ucx_reset();
    return 0;
  }
  hurray_net_listener *listener = open_connection(ctx, setup);
  if (conn != NULL && (setup & 0x02u) != 0u) {
    hostile_config_default(&hostile_table_config, tag < 0x80u
                                                      ? (hurray_device_tag)(1u + tag % 8u)
                                                      : (hurray_device_tag)(0xF0u + tag % 15u));
    FUZZ_CHECK(hurray_plugin_registry_create(&registry, NULL) == HURRAY_OK);
    FUZZ_CHECK(hurray_plugin_load_linked(registry, "hostile-linked", hostile_plugin_entry, 0,
                                         &plugin, NULL) == HURRAY_OK);
    FUZZ_CHECK(hurray_net_connection_set_plugins(conn, registry, NULL) == HURRAY_OK);
  }
  if (conn != NULL && reuse != 0u) {
    FUZZ_CHECK(hurray_net_connection_set_reuse_bytes(conn, (uint64_t)reuse * 512u, NULL) ==
               HURRAY_OK);
  }
  for (int ops = 0; conn != NULL && ops < 32 && in.at + 3u <= in.size; ops++) {
    uint8_t op = hostile_u8(&in);
    size_t length = hostile_u16(&in);
    if (length > in.size - in.at) {
      length = in.size - in.at;
    }
    record rec = {in.data + in.at, length, 0};
    in.at += length;
    switch (op % 9u) {
      case 0:
      case 1: op_tensor(&rec); break;
      case 2: op_raw(&rec); break;
      case 3:
        fake_ucx_disconnect();
        relaxed = true;
        receive(20, HURRAY_STATUS_COUNT, true);
        break;
      case 4: receive(1 + take(&rec), HURRAY_ERR_TIMEOUT, false); break;
      case 5: op_release(&rec); break;
      case 6: op_send(&rec); break;
      case 7: op_send_plugin(&rec); break;
      default: op_misc(&rec); break;
    }
  }
  /* Half of what is kept is freed before the close, half after
   * (NET-RECV-9: memory released after the close is freed at once). */
  for (int i = 0; i < KEPT / 2; i++) {
    hurray_net_received_free(&kept[i]);
  }
  hurray_net_close(&conn);
  for (int i = KEPT / 2; i < KEPT; i++) {
    hurray_net_received_free(&kept[i]);
  }
  hurray_net_listener_destroy(&listener);
  hurray_net_context_destroy(&ctx);
  hurray_plugin_registry_destroy(registry);
  FUZZ_CHECK(fake_ucx_live_requests() == 0); /* NET-ERR-2 */
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.shutdowns == hostile_seen.inits);
  hostile_forget_table();
  fake_ucx_reset();
  return 0;
}

FUZZ_ORACLE_END
