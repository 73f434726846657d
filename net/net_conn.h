/*
 * Shared inside libhurray-net by the connection (net/net.c), sending
 * (net/net_send.c) and receiving (net/net_receive.c): the connection, the
 * UCX operations (net/net_ucx.c) and the checks of a table.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_NET_CONN_H
#define HURRAY_NET_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "hurray/net.h"
#include "net_internal.h"

/* Fills err (when given; detail from fmt, or empty for NULL) and returns
 * status (NET-ERR-1). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
hurray_status
hurray_internal_net_fail(hurray_error *err, hurray_status status, uint64_t value, uint64_t expected,
                         size_t index, const char *fmt, ...);
/* IO with the magnitude of UCX's status as value and its message in detail (NET-ERR-1). */
hurray_status hurray_internal_net_fail_ucs(hurray_error *err, ucs_status_t s, const char *call);

/* Monotonic milliseconds; a deadline timeout_ms from now (-1: none); whether it passed. */
int64_t hurray_internal_net_now_ms(void);
int64_t hurray_internal_net_deadline(int timeout_ms);
int hurray_internal_net_expired(int64_t deadline);
/* Polls the worker without pinning a core (idle: the caller's count of idle polls). */
void hurray_internal_net_progress(ucp_worker_h worker, unsigned *idle);

/* One outstanding UCX operation and what its completion said. */
typedef struct net_op {
  void *req;
  int32_t posted;
  int32_t done;
  ucs_status_t status;
  uint32_t reserved;
  size_t length;
} net_op;

/* Posts a tagged send or receive; the op records its completion. */
void hurray_internal_net_op_send(net_op *op, ucp_ep_h ep, const void *buf, size_t len,
                                 uint64_t tag);
void hurray_internal_net_op_recv(net_op *op, ucp_worker_h worker, void *buf, size_t len,
                                 uint64_t tag, uint64_t mask);
/* Frees a finished operation's request; the op keeps its outcome. */
void hurray_internal_net_op_reap(net_op *op);
/* Cancels an unfinished receive and waits until UCX completed it (NET-ERR-2). */
void hurray_internal_net_op_cancel(net_op *op, ucp_worker_h worker);

struct hurray_net_connection {
  hurray_net_context *ctx;
  ucp_worker_h worker;
  ucp_ep_h ep;
  int32_t broken;
  ucs_status_t ep_status;
  /* 1: UCP_ERR_HANDLING_MODE_PEER (the default); 0 with HURRAY_NET_OPTION_SHARED_MEMORY */
  uint32_t peer_checked;
  uint32_t reserved;
  uint64_t next_tensor_id;
  /* the id of the last TENSOR received (NET-RECV-8) */
  uint64_t last_tensor_id;
  uint64_t bytes_received;
  uint64_t max_tensor_bytes;
  uint64_t max_connection_bytes;
  /* Where a receiver places buffers declared on a device (NET-DEV-2); NULL: host only. */
  hurray_plugin_registry *plugins;
  /* Released landing memory kept for the next receives (NET-RECV-9). */
  hurray_internal_landing_pool *landing;
  /* The control receive stays posted between calls, so a message that
   * arrives while nobody waits is matched, not lost to a cancel race. */
  net_op ctl;
  uint8_t ctl_buf[HURRAY_NET_MAX_MESSAGE_SIZE];
};

/* Ends the connection's endpoint (NET-CONN-3); leaves the worker. */
void hurray_internal_net_conn_end(hurray_net_connection *conn);
/* Keeps the control receive posted (NET-RECV-1). */
void hurray_internal_net_ctl_post(hurray_net_connection *conn);
/* A completed control receive that is a REFUSE of what we sent: 1 and its
 * values in err and *st (NET-SEND-4); 0 otherwise. */
int hurray_internal_net_ctl_take_refuse(hurray_net_connection *conn, hurray_error *err,
                                        hurray_status *st);
/* The plugin of `plugins` that places buffers of `tag` (NET-DEV-2), or NULL. */
hurray_plugin *hurray_internal_net_placing_plugin(hurray_plugin_registry *plugins,
                                                  hurray_device_tag tag);
/* The network rule for every handle, and for a receiver the declared
 * device (NET-SEND-1, NET-RECV-2, NET-DEV-2). */
hurray_status hurray_internal_net_check_handles(const hurray_buffer_handle *h, size_t n,
                                                int receiving, hurray_plugin_registry *plugins,
                                                hurray_error *err);

#endif /* HURRAY_NET_CONN_H */
