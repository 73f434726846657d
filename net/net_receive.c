/*
 * Receiving tensors over the network transport (specs/network.md
 * NET-RECV-*, NET-LIM-1, NET-DEV-2): the checks, the landing memory, the
 * receives, and the received tensor built as the transport-neutral one
 * (specs/inbound.md, core/runtime/received.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "net_conn.h"

#include <stdlib.h>
#include <string.h>

#include "../core/runtime/received_names.h"

/* ------------------------------------------------------------------------ */
/* Receiving                                                                */
/* ------------------------------------------------------------------------ */

/* A received tensor is the transport-neutral received tensor
 * (specs/inbound.md, core/runtime/received.c); hurray_net_received is its
 * old name (RX-OBJ-1), its accessors defined at the end of this file by
 * HURRAY_RECEIVED_DEFINE_NAMES (core/runtime/received_names.h). */

/* The network part of one buffer's release (RX-REL-2, RX-REL-3): host
 * memory goes back to the connection's pool (NET-RECV-9), which frees it
 * when the connection has closed; a device buffer was freed before this
 * and has no memory here. Nothing reaches the sender: each side owns its
 * copy (BP-OWN-4). */
static hurray_status release_landing(void *ctx, uint64_t tensor_id, uint32_t index, void *memory,
                                     uint64_t size, uint32_t how, hurray_error *err) {
  (void)tensor_id;
  (void)index;
  (void)how;
  (void)err;
  hurray_internal_landing_give(ctx, memory, size);
  return HURRAY_OK;
}

/* The tensor's end (RX-REL-4): its reference on the pool. */
static void close_landing(void *ctx) { hurray_internal_landing_release(ctx, NULL, 0); }

/* A refusal after the message was taken: tell the sender why when the
 * connection still works (NET-ERR-1), then end the connection, since the
 * sender's unmatched buffers could otherwise never complete. */
static hurray_status refuse(hurray_net_connection *conn, uint64_t tensor_id, hurray_status st,
                            const hurray_error *e) {
  if (!conn->broken && conn->ep != NULL) {
    uint8_t msg[HURRAY_NET_HEADER_SIZE + HURRAY_NET_REFUSE_BODY_SIZE];
    size_t len = hurray_net_encode_refuse(msg, sizeof msg, tensor_id, st, (uint32_t)e->index,
                                          e->value, e->expected);
    net_op op;
    hurray_internal_net_op_send(&op, conn->ep, msg, len, HURRAY_NET_TAG_CONTROL);
    int64_t deadline = hurray_internal_net_now_ms() + 1000;
    unsigned idle = 0;
    while (!op.done && !conn->broken && !hurray_internal_net_expired(deadline)) {
      hurray_internal_net_progress(conn->worker, &idle);
    }
    if (!op.done) {
      conn->broken = 1;
    }
    hurray_internal_net_op_cancel(&conn->ctl, conn->worker);
    hurray_internal_net_conn_end(conn);
    while (!op.done) { /* the forced close above completes it */
      hurray_internal_net_progress(conn->worker, &idle);
    }
    hurray_internal_net_op_reap(&op);
  } else {
    hurray_internal_net_op_cancel(&conn->ctl, conn->worker);
    hurray_internal_net_conn_end(conn);
  }
  return st;
}

/* A failed receive frees its memory, taken from the pool or not (NET-ERR-2):
 * the failure ends the connection, so nothing would reuse it. */
static void free_memory(void **mem, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(mem[i]);
    mem[i] = NULL;
  }
}

static void free_devices(hurray_plugin_buffer **dev, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (dev[i] != NULL) {
      hurray_plugin_buffer_free(dev[i]);
      dev[i] = NULL;
    }
  }
}

hurray_status hurray_net_receive(hurray_net_connection *conn, int timeout_ms,
                                 hurray_net_received **out, hurray_error *err) {
  if (conn == NULL || out == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, conn == NULL ? 0u : 2u,
                                    NULL);
  }
  if (conn->ep == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_PEER_GONE, 0, 0, 0, "the connection has ended");
  }
  int64_t deadline = hurray_internal_net_deadline(timeout_ms);
  unsigned idle = 0;
  int grace_done = 0;
  int drained = 0;
  /* NET-RECV-1: wait for the next control message. */
  for (;;) {
    hurray_internal_net_ctl_post(conn);
    if (conn->ctl.done) {
      hurray_status refused = HURRAY_OK;
      if (hurray_internal_net_ctl_take_refuse(conn, err, &refused)) {
        /* NET-SEND-4: the peer refused a tensor we sent, after that send
         * had returned; the refusal is this call's result, and the peer
         * closes next (NET-RECV-7), so the connection ends here too. */
        hurray_internal_net_conn_end(conn);
        return refused;
      }
      break;
    }
    if (conn->broken && !grace_done) {
      int64_t grace = hurray_internal_net_now_ms() + 100; /* as below: a message may be waiting */
      while (!hurray_internal_net_expired(grace)) {
        hurray_internal_net_progress(conn->worker, &idle);
      }
      grace_done = 1;
      continue;
    }
    if (conn->broken) {
      hurray_status st = hurray_internal_net_fail(err, HURRAY_ERR_PEER_GONE, 0, 0, 0,
                                                  "the peer disconnected (%s)",
                                                  ucs_status_string(conn->ep_status));
      hurray_internal_net_op_cancel(&conn->ctl, conn->worker);
      hurray_internal_net_conn_end(conn);
      return st;
    }
    if (hurray_internal_net_expired(deadline)) {
      if (!drained) {
        /* NET-RECV-1: what had arrived by the deadline is taken, a REFUSE
         * included, whatever the timeout (0 polls): progress until UCX has
         * nothing more to do (at most 8 rounds), then look once more. */
        for (int i = 0; i < 8 && ucp_worker_progress(conn->worker) != 0u; i++) {
        }
        drained = 1;
        continue;
      }
      return hurray_internal_net_fail(err, HURRAY_ERR_TIMEOUT, (uint64_t)timeout_ms * 1000000u, 0,
                                      0, "no tensor within %d ms", timeout_ms);
    }
    hurray_internal_net_progress(conn->worker, &idle);
  }
  net_op ctl = conn->ctl;
  hurray_internal_net_op_reap(&conn->ctl);
  conn->ctl.posted = 0;
  hurray_error e;
  memset(&e, 0, sizeof e);
  if (ctl.status == UCS_ERR_MESSAGE_TRUNCATED) {
    hurray_internal_net_fail(&e, HURRAY_ERR_CAPACITY, 0, HURRAY_NET_MAX_MESSAGE_SIZE, 0,
                             "a control message longer than %u bytes (UCX: message truncated)",
                             (unsigned)HURRAY_NET_MAX_MESSAGE_SIZE);
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, 0, e.status, &e);
  }
  if (ctl.status != UCS_OK) {
    hurray_status st = hurray_internal_net_fail_ucs(&e, ctl.status, "ucp_tag_recv_nbx (message)");
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, 0, st, &e);
  }
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  /* zeroed: the decoder leaves it untouched on failure */
  hurray_net_message m = HURRAY_NET_MESSAGE_INIT;
  hurray_status st = hurray_net_message_decode(conn->ctl_buf, ctl.length, &m, handles,
                                               HURRAY_BUFFER_TABLE_MAX_HANDLES, &e);
  if (st == HURRAY_OK && m.type != HURRAY_NET_MSG_TENSOR) {
    st = hurray_internal_net_fail(&e, HURRAY_ERR_UNSUPPORTED, m.type, HURRAY_NET_MSG_TENSOR, 6,
                                  "message type %u where a TENSOR was expected", m.type);
  }
  /* NET-RECV-8: tensor ids only grow and fit the tag's 48 bits, so no two
   * tensors' buffers share a tag on this connection. */
  if (st == HURRAY_OK && (m.tensor_id <= conn->last_tensor_id || m.tensor_id > 0xFFFFFFFFFFFFull)) {
    st = hurray_internal_net_fail(
        &e, HURRAY_ERR_INVALID_ARGUMENT, m.tensor_id, conn->last_tensor_id + 1u, 16,
        "tensor_id %llu after %llu (ids grow, below 2^48)", (unsigned long long)m.tensor_id,
        (unsigned long long)conn->last_tensor_id);
  }
  if (st == HURRAY_OK) {
    conn->last_tensor_id = m.tensor_id;
  }
  size_t n = st == HURRAY_OK ? m.buffer_count : 0u;
  if (st == HURRAY_OK) {
    st = hurray_internal_net_check_handles(handles, n, 1, conn->plugins, &e);
  }
  /* NET-LIM-1: the limits on what was declared, before any allocation. */
  uint64_t total = 0;
  for (size_t i = 0; st == HURRAY_OK && i < n; i++) {
    if (handles[i].byte_size > UINT64_MAX - total) {
      total = UINT64_MAX;
      break;
    }
    total += handles[i].byte_size;
  }
  if (st == HURRAY_OK && total > conn->max_tensor_bytes) {
    st = hurray_internal_net_fail(&e, HURRAY_ERR_CAPACITY, total, conn->max_tensor_bytes, 0,
                                  "tensor %llu declares %llu bytes, above the receiver's limit of "
                                  "%llu bytes per tensor",
                                  (unsigned long long)m.tensor_id, (unsigned long long)total,
                                  (unsigned long long)conn->max_tensor_bytes);
  }
  if (st == HURRAY_OK && (total > conn->max_connection_bytes ||
                          conn->bytes_received > conn->max_connection_bytes - total)) {
    uint64_t sum = total > UINT64_MAX - conn->bytes_received ? UINT64_MAX
                                                             : conn->bytes_received + total;
    st = hurray_internal_net_fail(&e, HURRAY_ERR_CAPACITY, sum, conn->max_connection_bytes, 1,
                                  "tensor %llu would bring the connection to %llu bytes, above "
                                  "the receiver's limit of %llu bytes per connection",
                                  (unsigned long long)m.tensor_id, (unsigned long long)sum,
                                  (unsigned long long)conn->max_connection_bytes);
  }
  if (st == HURRAY_OK && total > SIZE_MAX) {
    st = hurray_internal_net_fail(&e, HURRAY_ERR_OUT_OF_MEMORY, total, SIZE_MAX, 0, NULL);
  }
  if (st != HURRAY_OK) {
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, m.tensor_id, st, &e);
  }

  /* NET-RECV-3: destination memory, aligned as declared. */
  void *mem[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  /* NET-DEV-2: the device buffers; mem[i] is then where UCX lands the bytes. */
  hurray_plugin_buffer *dev[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  net_op *ops = calloc(n > 0u ? n : 1u, sizeof *ops);
  memset(mem, 0, sizeof mem);
  memset(dev, 0, sizeof dev);
  if (ops == NULL) {
    hurray_internal_net_fail(&e, HURRAY_ERR_OUT_OF_MEMORY, n * sizeof *ops, 0, 0, NULL);
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, m.tensor_id, e.status, &e);
  }
  for (size_t i = 0; st == HURRAY_OK && i < n; i++) {
    if (handles[i].byte_size == 0u) {
      continue;
    }
    if (handles[i].device_tag != HURRAY_DEVICE_CPU) {
      /* NET-DEV-2: on the declared device, or refused (never elsewhere). */
      hurray_plugin *plugin =
          hurray_internal_net_placing_plugin(conn->plugins, handles[i].device_tag);
      st = hurray_plugin_allocate(plugin, 0, handles[i].byte_size, handles[i].alignment,
                                  handles[i].memory_class, &dev[i], &e);
      if (st != HURRAY_OK) {
        e.index = i;
        break;
      }
    }
    size_t align = handles[i].alignment < sizeof(void *) ? sizeof(void *) : handles[i].alignment;
    /* NET-RECV-9: kept memory of this size, or new; every byte of it is
     * overwritten before it is handed out (NET-RECV-4, NET-RECV-5). */
    mem[i] = hurray_internal_landing_take(conn->landing, handles[i].byte_size, align);
    if (mem[i] == NULL) {
      st = hurray_internal_net_fail(&e, HURRAY_ERR_OUT_OF_MEMORY, handles[i].byte_size, align, i,
                                    "buffer %zu", i);
    }
  }
  for (size_t i = 0; st == HURRAY_OK && i < n; i++) {
    if (mem[i] != NULL) {
      hurray_internal_net_op_recv(&ops[i], conn->worker, mem[i], (size_t)handles[i].byte_size,
                                  hurray_net_data_tag(m.tensor_id, (uint32_t)i), UINT64_MAX);
    }
  }
  /* NET-RECV-4: every byte before anything is handed out. */
  size_t arrived = 0;
  grace_done = 0;
  while (st == HURRAY_OK) {
    size_t pending = 0;
    arrived = 0;
    for (size_t i = 0; i < n; i++) {
      pending += (ops[i].posted && !ops[i].done) ? 1u : 0u;
      arrived += (ops[i].posted && ops[i].done) ? 1u : 0u;
    }
    if (pending == 0u) {
      break;
    }
    if (conn->broken && !grace_done) {
      /* A sender that closes right after its sends completed is not a
       * fault: what it sent may be here, waiting for UCX to match it to
       * our receives on the next progress calls. */
      int64_t grace = hurray_internal_net_now_ms() + 100;
      while (!hurray_internal_net_expired(grace)) {
        hurray_internal_net_progress(conn->worker, &idle);
      }
      grace_done = 1;
      continue;
    }
    if (conn->broken) {
      st = hurray_internal_net_fail(&e, HURRAY_ERR_PEER_GONE, arrived, arrived + pending, 0,
                                    "the peer disconnected mid-transfer of tensor %llu: %zu of "
                                    "%zu buffers arrived (%s)",
                                    (unsigned long long)m.tensor_id, arrived, arrived + pending,
                                    ucs_status_string(conn->ep_status));
      break;
    }
    if (hurray_internal_net_expired(deadline)) {
      st = hurray_internal_net_fail(&e, HURRAY_ERR_TIMEOUT, (uint64_t)timeout_ms * 1000000u, 0, 0,
                                    "tensor %llu: %zu of %zu buffers arrived within %d ms",
                                    (unsigned long long)m.tensor_id, arrived, arrived + pending,
                                    timeout_ms);
      break;
    }
    hurray_internal_net_progress(conn->worker, &idle);
  }
  for (size_t i = 0; st == HURRAY_OK && i < n; i++) {
    if (!ops[i].posted) {
      continue;
    }
    if (ops[i].status == UCS_ERR_MESSAGE_TRUNCATED) {
      st = hurray_internal_net_fail(&e, HURRAY_ERR_TRAILING_BYTES, 0, handles[i].byte_size, i,
                                    "buffer %zu: the sender sent more than the %llu bytes declared "
                                    "(UCX: message truncated)",
                                    i, (unsigned long long)handles[i].byte_size);
    } else if (ops[i].status != UCS_OK) {
      st = hurray_internal_net_fail_ucs(&e, ops[i].status, "ucp_tag_recv_nbx (buffer)");
      e.index = i;
    } else if (ops[i].length != handles[i].byte_size) {
      st = hurray_internal_net_fail(&e, HURRAY_ERR_TRUNCATED, ops[i].length, handles[i].byte_size,
                                    i, "buffer %zu: %zu bytes arrived, %llu declared", i,
                                    ops[i].length, (unsigned long long)handles[i].byte_size);
    }
  }
  for (size_t i = 0; i < n; i++) {
    hurray_internal_net_op_cancel(&ops[i], conn->worker);
  }
  free(ops);
  /* NET-DEV-2: every byte arrived; onto each device buffer, then the
   * landing memory goes. */
  for (size_t i = 0; st == HURRAY_OK && i < n; i++) {
    if (dev[i] == NULL) {
      continue;
    }
    st = hurray_plugin_buffer_write(dev[i], 0, mem[i], handles[i].byte_size, &e);
    if (st != HURRAY_OK) {
      e.index = i;
      break;
    }
    hurray_internal_landing_give(conn->landing, mem[i], handles[i].byte_size);
    mem[i] = NULL;
  }
  if (st != HURRAY_OK) {
    free_memory(mem, n);
    free_devices(dev, n);
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, m.tensor_id, st, &e);
  }
  /* NET-RECV-5: ordinary accepted handoffs, owned by the receiver, all or
   * none (RX-BUILD-1, RX-BUILD-2). The tensor holds one reference on the
   * landing pool until it is freed (RX-REL-4). */
  hurray_received_transport_desc transport = hurray_received_transport_make(
      HURRAY_TRANSPORT_NETWORK, conn->landing, release_landing, close_landing);
  hurray_received *r = NULL;
  st = hurray_received_create(&transport, m.tensor_id, n, &r, &e);
  if (st != HURRAY_OK) {
    free_memory(mem, n);
    free_devices(dev, n);
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, m.tensor_id, st, &e);
  }
  hurray_internal_landing_hold(conn->landing); /* the tensor's reference */
  for (size_t i = 0; i < n && st == HURRAY_OK; i++) {
    hurray_received_buffer_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = (uint32_t)sizeof d;
    d.handle = handles[i];
    d.plugin_buffer = dev[i];
    d.data = dev[i] != NULL ? hurray_plugin_buffer_allocation(dev[i])->address : mem[i];
    d.memory = mem[i]; /* NULL for a device buffer: its landing memory went back above */
    d.memory_size = handles[i].byte_size;
    st = hurray_received_stage(r, i, &d, &e);
    if (st == HURRAY_OK) {
      mem[i] = NULL; /* the tensor's now (RX-BUILD-1) */
      dev[i] = NULL;
    }
  }
  if (st == HURRAY_OK) {
    st = hurray_received_publish(r, &e);
  }
  if (st != HURRAY_OK) {
    /* Cannot happen for a table that passed the checks above; if it does,
     * nothing is handed out and everything is undone once (RX-REL-3). */
    hurray_received_free(&r);
    free_memory(mem, n);
    free_devices(dev, n);
    if (err != NULL) {
      *err = e;
    }
    return refuse(conn, m.tensor_id, st, &e);
  }
  conn->bytes_received += total;
  *out = (hurray_net_received *)(void *)r;
  return HURRAY_OK;
}

/* The old accessors: the neutral ones under the network names (RX-OBJ-1). */
HURRAY_RECEIVED_DEFINE_NAMES(hurray_net_received, hurray_net_received, tensor_id)

hurray_status hurray_net_connection_set_plugins(hurray_net_connection *conn,
                                                hurray_plugin_registry *plugins,
                                                hurray_error *err) {
  if (conn == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  conn->plugins = plugins;
  return HURRAY_OK;
}

hurray_status hurray_net_connection_set_reuse_bytes(hurray_net_connection *conn, uint64_t bytes,
                                                    hurray_error *err) {
  if (conn == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, NULL);
  }
  hurray_internal_landing_set_max(conn->landing, bytes);
  return HURRAY_OK;
}

uint64_t hurray_net_connection_kept_bytes(const hurray_net_connection *conn) {
  return conn == NULL ? 0u : hurray_internal_landing_kept_bytes(conn->landing);
}

uint64_t hurray_net_connection_buffers_reused(const hurray_net_connection *conn) {
  return conn == NULL ? 0u : hurray_internal_landing_reused(conn->landing);
}
