/*
 * Sending tensors over the network transport (specs/network.md NET-SEND-*):
 * the checks before a byte leaves, the sends and the wait for UCX, the
 * sources' releases.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "net_conn.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

static void release_sources(const hurray_net_source *sources, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (sources[i].release != NULL) {
      sources[i].release((void *)(uintptr_t)sources[i].data, sources[i].release_ctx);
    }
  }
}

/* Progresses until ops[0 .. count) are done, a REFUSE arrives, the peer
 * goes, or the deadline passes; returns what ended the wait. */
static hurray_status send_wait(hurray_net_connection *conn, net_op *ops, size_t count,
                               int64_t deadline, int timeout_ms, uint64_t id, hurray_error *err) {
  unsigned idle = 0;
  hurray_status st = HURRAY_OK;
  for (;;) {
    size_t pending = 0;
    for (size_t i = 0; i < count; i++) {
      if (ops[i].posted && !ops[i].done) {
        pending++;
      }
    }
    if (hurray_internal_net_ctl_take_refuse(conn, err, &st)) {
      return st;
    }
    if (pending == 0u) {
      return HURRAY_OK;
    }
    if (conn->broken) {
      /* A receiver that refuses sends REFUSE and then disconnects; give
       * the REFUSE a moment to be matched so the sender learns why. */
      int64_t grace = hurray_internal_net_now_ms() + 200;
      while (!hurray_internal_net_expired(grace) &&
             !hurray_internal_net_ctl_take_refuse(conn, err, &st)) {
        hurray_internal_net_progress(conn->worker, &idle);
      }
      if (st == HURRAY_OK) {
        st = hurray_internal_net_fail(err, HURRAY_ERR_PEER_GONE, 0, 0, 0,
                                      "the peer disconnected while tensor %llu was sent (%s)",
                                      (unsigned long long)id, ucs_status_string(conn->ep_status));
      }
      return st;
    }
    if (hurray_internal_net_expired(deadline)) {
      return hurray_internal_net_fail(err, HURRAY_ERR_TIMEOUT, (uint64_t)timeout_ms * 1000000u, 0,
                                      0, "tensor %llu was not taken within %d ms",
                                      (unsigned long long)id, timeout_ms);
    }
    hurray_internal_net_progress(conn->worker, &idle);
  }
}

/* The table a send decoded: its handles, count of them. */
typedef struct send_table {
  hurray_buffer_handle handles[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  size_t count;
} send_table;

/* The first checks of a send (NET-SEND-1), shared by both kinds of source:
 * the table, decoded into *t, and one source per handle. */
static hurray_status send_table_check(const uint8_t *table, size_t table_len, size_t source_count,
                                      send_table *t, hurray_error *err) {
  t->count = 0;
  hurray_status st = hurray_buffer_table_decode_exact(
      table, table_len, t->handles, HURRAY_BUFFER_TABLE_MAX_HANDLES, &t->count, err);
  if (st == HURRAY_OK && source_count != t->count) {
    st = hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, source_count, t->count, 4,
                                  "%zu sources for a table of %zu handles", source_count, t->count);
  }
  return st;
}

hurray_status hurray_net_send(hurray_net_connection *conn, const uint8_t *table, size_t table_len,
                              const hurray_net_source *sources, size_t source_count, int timeout_ms,
                              uint64_t *tensor_id, hurray_error *err) {
  if (conn == NULL || table == NULL || sources == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                                    conn == NULL ? 0u : (table == NULL ? 1u : 3u), NULL);
  }
  send_table decoded;
  /* NET-SEND-1: every check before anything is posted to UCX. */
  hurray_status st = send_table_check(table, table_len, source_count, &decoded, err);
  for (size_t i = 0; st == HURRAY_OK && i < decoded.count; i++) {
    if (sources[i].struct_size != (uint32_t)sizeof(hurray_net_source)) {
      st = hurray_internal_net_fail(err, HURRAY_ERR_INVALID_ARGUMENT, sources[i].struct_size,
                                    sizeof(hurray_net_source), i, "source %zu: struct_size", i);
    } else if (sources[i].data == NULL && decoded.handles[i].byte_size != 0u) {
      st = hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, decoded.handles[i].byte_size,
                                    i, "source %zu: data is NULL for %llu bytes", i,
                                    (unsigned long long)decoded.handles[i].byte_size);
    }
  }
  if (st == HURRAY_OK) {
    st = hurray_internal_net_check_handles(decoded.handles, decoded.count, 0, NULL, err);
  }
  if (st == HURRAY_OK && conn->ep != NULL) {
    /* NET-SEND-4: a refusal of an earlier tensor that came after its send
     * had completed is this call's answer. Progress until UCX has nothing
     * more to do (at most 8 rounds): what has arrived is then taken in, and
     * an idle connection costs one round, not eight. A round is a system
     * call on TCP (epoll_wait), which a small tensor's latency feels. */
    for (int i = 0; i < 8 && ucp_worker_progress(conn->worker) != 0u; i++) {
    }
    if (hurray_internal_net_ctl_take_refuse(conn, err, &st)) {
      hurray_internal_net_op_cancel(&conn->ctl, conn->worker);
      hurray_internal_net_conn_end(conn);
    }
  }
  if (st == HURRAY_OK && (conn->broken || conn->ep == NULL)) {
    st = hurray_internal_net_fail(err, HURRAY_ERR_PEER_GONE, 0, 0, 0, "the connection has ended");
  }
  if (st != HURRAY_OK) {
    release_sources(sources, source_count);
    return st;
  }

  uint64_t id = ++conn->next_tensor_id;
  uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE];
  size_t msg_len = hurray_net_encode_tensor(msg, sizeof msg, id, table, table_len);
  net_op *ops = calloc(decoded.count + 1u, sizeof *ops);
  if (ops == NULL) {
    release_sources(sources, source_count);
    return hurray_internal_net_fail(err, HURRAY_ERR_OUT_OF_MEMORY,
                                    (decoded.count + 1u) * sizeof *ops, 0, 0, NULL);
  }
  hurray_internal_net_ctl_post(conn);
  hurray_internal_net_op_send(&ops[0], conn->ep, msg, msg_len, HURRAY_NET_TAG_CONTROL);
  int64_t deadline = hurray_internal_net_deadline(timeout_ms);
  /* The buffers go out once the message has: then the endpoint's lanes are
   * wired up. Rendezvous sends posted before that are replayed by UCX 1.13
   * after wire-up, which aborts on an assertion (rndv.c, rkey size) when
   * the lanes are shared-memory ones. */
  st = send_wait(conn, ops, 1, deadline, timeout_ms, id, err);
  if (st == HURRAY_OK && ops[0].status == UCS_OK) {
    for (size_t i = 0; i < decoded.count; i++) {
      if (decoded.handles[i].byte_size != 0u) { /* NET-TAG-2: no message for an empty buffer */
        hurray_internal_net_op_send(&ops[i + 1u], conn->ep, sources[i].data,
                                    (size_t)decoded.handles[i].byte_size,
                                    hurray_net_data_tag(id, (uint32_t)i));
      }
    }
    st = send_wait(conn, ops, decoded.count + 1u, deadline, timeout_ms, id, err);
  }
  unsigned idle = 0;
  if (st == HURRAY_OK) {
    for (size_t i = 0; i <= decoded.count; i++) {
      if (ops[i].posted && ops[i].status != UCS_OK) {
        st = hurray_internal_net_fail_ucs(err, ops[i].status,
                                          i == 0u ? "ucp_tag_send_nbx (message)"
                                                  : "ucp_tag_send_nbx (buffer)");
        if (i > 0u && err != NULL) {
          err->index = i - 1u;
        }
        break;
      }
    }
  }
  if (st != HURRAY_OK) {
    /* NET-SEND-3: a forced close completes every outstanding send as
     * canceled, so UCX is done with every source before it is released. */
    conn->broken = 1;
    hurray_internal_net_op_cancel(&conn->ctl, conn->worker);
    hurray_internal_net_conn_end(conn);
    while (1) {
      size_t pending = 0;
      for (size_t i = 0; i <= decoded.count; i++) {
        pending += (ops[i].posted && !ops[i].done) ? 1u : 0u;
      }
      if (pending == 0u) {
        break;
      }
      hurray_internal_net_progress(conn->worker, &idle);
    }
  }
  for (size_t i = 0; i <= decoded.count; i++) {
    hurray_internal_net_op_reap(&ops[i]);
  }
  free(ops);
  release_sources(sources, decoded.count);
  if (st == HURRAY_OK && tensor_id != NULL) {
    *tensor_id = id;
  }
  return st;
}

/* A host copy of a plugin buffer's bytes (NET-SEND-5): freed by its release. */
static void free_staging(void *buffer, void *ctx) {
  (void)ctx;
  free(buffer);
}

hurray_status hurray_net_send_plugin_buffers(hurray_net_connection *conn, const uint8_t *table,
                                             size_t table_len, hurray_plugin_buffer *const *buffers,
                                             size_t buffer_count, int timeout_ms,
                                             uint64_t *tensor_id, hurray_error *err) {
  if (conn == NULL || table == NULL || buffers == NULL) {
    return hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                                    conn == NULL ? 0u : (table == NULL ? 1u : 3u), NULL);
  }
  send_table decoded;
  /* NET-SEND-1 first: a table the send would refuse costs no copy. */
  hurray_status st = send_table_check(table, table_len, buffer_count, &decoded, err);
  if (st == HURRAY_OK) {
    st = hurray_internal_net_check_handles(decoded.handles, decoded.count, 0, NULL, err);
  }
  for (size_t i = 0; st == HURRAY_OK && i < decoded.count; i++) {
    if (buffers[i] == NULL && decoded.handles[i].byte_size != 0u) {
      st = hurray_internal_net_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, decoded.handles[i].byte_size,
                                    i, "buffer %zu is NULL for %llu bytes", i,
                                    (unsigned long long)decoded.handles[i].byte_size);
    }
  }
  if (st != HURRAY_OK) {
    return st;
  }
  hurray_net_source sources[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  memset(sources, 0, sizeof sources);
  for (size_t i = 0; i < decoded.count; i++) {
    sources[i].struct_size = (uint32_t)sizeof sources[i];
    sources[i].release = free_staging;
    if (decoded.handles[i].byte_size == 0u) {
      continue;
    }
    void *copy = NULL;
    if (decoded.handles[i].byte_size > SIZE_MAX ||
        posix_memalign(&copy, 64, (size_t)decoded.handles[i].byte_size) != 0) {
      st = hurray_internal_net_fail(err, HURRAY_ERR_OUT_OF_MEMORY, decoded.handles[i].byte_size, 64,
                                    i, "host copy of buffer %zu", i);
    } else {
      sources[i].data = copy;
      st = hurray_plugin_buffer_read(buffers[i], 0, copy, decoded.handles[i].byte_size, err);
      if (st != HURRAY_OK && err != NULL) {
        err->index = i;
      }
    }
    if (st != HURRAY_OK) {
      for (size_t k = 0; k <= i; k++) {
        free((void *)(uintptr_t)sources[k].data);
      }
      return st;
    }
  }
  /* From here hurray_net_send owns the copies: each released exactly once. */
  return hurray_net_send(conn, table, table_len, sources, decoded.count, timeout_ms, tensor_id,
                         err);
}
