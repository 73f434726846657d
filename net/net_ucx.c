/*
 * The UCX layer of the network transport: errors named after UCX's
 * statuses (NET-ERR-1), time, progress, and one outstanding UCX operation
 * (its completion, reaping and cancel, NET-ERR-2). net/net_conn.h declares it.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "net_conn.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Fills err (when given; detail from fmt, or empty for NULL) and returns
 * status. libhurray-net's own since the message decoder became proven code
 * (core/proven/net_message.c, which fills errors through hurray_fail). */
hurray_status hurray_internal_net_fail(hurray_error *err, hurray_status status, uint64_t value,
                                       uint64_t expected, size_t index, const char *fmt, ...) {
  if (err != NULL) {
    memset(err, 0, sizeof *err);
    err->status = status;
    err->value = value;
    err->expected = expected;
    err->index = index;
    if (fmt != NULL) {
      va_list ap;
      va_start(ap, fmt);
      (void)vsnprintf(err->detail, sizeof err->detail, fmt, ap);
      va_end(ap);
    }
  }
  return status;
}

/* UCX's statuses are negative; value carries the magnitude (NET-ERR-1). */
hurray_status hurray_internal_net_fail_ucs(hurray_error *err, ucs_status_t s, const char *call) {
  return hurray_internal_net_fail(err, HURRAY_ERR_IO, (uint64_t)(-(int64_t)s), 0, 0, "%s: %s", call,
                                  ucs_status_string(s));
}

/* ------------------------------------------------------------------------ */
/* Time and progress                                                        */
/* ------------------------------------------------------------------------ */

int64_t hurray_internal_net_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t hurray_internal_net_deadline(int timeout_ms) {
  return timeout_ms < 0 ? -1 : hurray_internal_net_now_ms() + timeout_ms;
}

int hurray_internal_net_expired(int64_t deadline) {
  return deadline >= 0 && hurray_internal_net_now_ms() >= deadline;
}

/* Progress without pinning a core: the machines this runs on in CI share
 * their cores, and a busy-wait on an idle peer would starve it. */
/* Polls the worker. While it makes progress, nothing else; idle, first a
 * yield (a transfer in flight: the kernel or the peer is moving bytes and
 * a sleep would cost more than it saves), and only after a long idle
 * stretch (about a millisecond of polls) a short sleep, so a receiver that
 * waits for a tensor does not hold a core. */
void hurray_internal_net_progress(ucp_worker_h worker, unsigned *idle) {
  if (ucp_worker_progress(worker) != 0u) {
    *idle = 0;
    return;
  }
  ++*idle;
  if (*idle > 20000u) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  } else if (*idle > 64u) {
    sched_yield();
  }
}

static void op_send_cb(void *request, ucs_status_t status, void *user_data) {
  (void)request;
  net_op *op = user_data;
  op->status = status;
  op->done = 1;
}

static void op_recv_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                       void *user_data) {
  (void)request;
  net_op *op = user_data;
  op->status = status;
  op->length = (status == UCS_OK && info != NULL) ? info->length : 0u;
  op->done = 1;
}

static void op_started(net_op *op, ucs_status_ptr_t r) {
  op->posted = 1;
  if (r == NULL) {
    op->done = 1;
    op->status = UCS_OK;
  } else if (UCS_PTR_IS_ERR(r)) {
    op->done = 1;
    op->status = UCS_PTR_STATUS(r);
  } else {
    op->req = r;
  }
}

void hurray_internal_net_op_send(net_op *op, ucp_ep_h ep, const void *buf, size_t len,
                                 uint64_t tag) {
  ucp_request_param_t p;
  memset(&p, 0, sizeof p);
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = op_send_cb;
  p.user_data = op;
  memset(op, 0, sizeof *op);
  op->status = UCS_INPROGRESS;
  op_started(op, ucp_tag_send_nbx(ep, buf, len, tag, &p));
}

void hurray_internal_net_op_recv(net_op *op, ucp_worker_h worker, void *buf, size_t len,
                                 uint64_t tag, uint64_t mask) {
  ucp_request_param_t p;
  memset(&p, 0, sizeof p);
  /* No immediate completion: UCX 1.13 does not fill recv_info.tag_info
   * when a receive matches an already arrived message at once, and the
   * length is what NET-RECV-4 checks; the callback always has it. */
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  p.cb.recv = op_recv_cb;
  p.user_data = op;
  memset(op, 0, sizeof *op);
  op->status = UCS_INPROGRESS;
  op_started(op, ucp_tag_recv_nbx(worker, buf, len, tag, mask, &p));
}

/* Frees a finished operation's request; the op keeps its outcome. */
void hurray_internal_net_op_reap(net_op *op) {
  if (op->done && op->req != NULL) {
    ucp_request_free(op->req);
    op->req = NULL;
  }
}

/* Cancels an unfinished receive and waits for UCX to complete it
 * (UCS_ERR_CANCELED), so no request and no write into its buffer outlive
 * the call (NET-ERR-2). */
void hurray_internal_net_op_cancel(net_op *op, ucp_worker_h worker) {
  if (!op->posted) {
    return;
  }
  if (!op->done && op->req != NULL) {
    ucp_request_cancel(worker, op->req);
    unsigned idle = 0;
    while (!op->done) {
      hurray_internal_net_progress(worker, &idle);
    }
  }
  hurray_internal_net_op_reap(op);
}
