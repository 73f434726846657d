/*
 * Bad peers of the receiver: forked children that speak UCX directly,
 * written from the message format of specs/network.md, each breaking one
 * rule, and a child that _exit()s mid-transfer. The receiver refuses each
 * with the error and values the rule names, and frees what it allocated
 * (malloc statistics). These need peer failure detection, which UCX 1.13
 * gives over tcp only (test_net.c runs them in test_net_tcp).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "hurray/net.h"
#include "net_loopback_support.h"
#include "net_test_support.h"
#include "test_net.h"

static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static void raw_peer_error(void *arg, ucp_ep_h ep, ucs_status_t status) {
  (void)arg;
  (void)ep;
  (void)status; /* the receiver refused and closed: expected */
}

typedef struct raw_msg {
  uint64_t tag;
  const void *data;
  size_t len;
} raw_msg;

/* The child: connects to the port it reads from `port_fd`, sends msgs in
 * order (each completed before the next), then either _exit()s at once
 * (die: a peer that vanishes mid-transfer) or waits for a byte on
 * `hold_fd` (the parent has checked what it needed) and closes. Forked
 * before the parent touches UCX, so it inherits no UCX state. */
static void raw_peer(int port_fd, int hold_fd, const raw_msg *msgs, size_t n, int die) {
  uint16_t port = 0;
  if (read(port_fd, &port, sizeof port) != (ssize_t)sizeof port) {
    _exit(10);
  }
  ucp_config_t *config = NULL;
  ucp_context_h ctx;
  ucp_worker_h worker;
  ucp_params_t params;
  memset(&params, 0, sizeof params);
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG;
  if (ucp_config_read(NULL, NULL, &config) != UCS_OK || ucp_init(&params, config, &ctx) != UCS_OK) {
    _exit(11);
  }
  ucp_config_release(config);
  ucp_worker_params_t wp;
  memset(&wp, 0, sizeof wp);
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  if (ucp_worker_create(ctx, &wp, &worker) != UCS_OK) {
    _exit(12);
  }
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ucp_ep_params_t ep;
  memset(&ep, 0, sizeof ep);
  ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
                  UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.err_handler.cb = raw_peer_error;
  ep.err_handler.arg = NULL;
  ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  ep.sockaddr.addr = (const struct sockaddr *)&sa;
  ep.sockaddr.addrlen = sizeof sa;
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ucp_ep_h e;
  if (ucp_ep_create(worker, &ep, &e) != UCS_OK) {
    _exit(13);
  }
  for (size_t i = 0; i < n; i++) {
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    ucs_status_ptr_t r = ucp_tag_send_nbx(e, msgs[i].data, msgs[i].len, msgs[i].tag, &p);
    if (UCS_PTR_IS_ERR(r)) {
      _exit(14);
    }
    int64_t until = ms_now() + 20000;
    while (r != NULL && ucp_request_check_status(r) == UCS_INPROGRESS) {
      ucp_worker_progress(worker);
      if (ms_now() > until) {
        _exit(15);
      }
    }
    if (r != NULL) {
      ucp_request_free(r);
    }
  }
  if (die) {
    _exit(0); /* no close, no flush: the peer sees the connection drop */
  }
  struct pollfd pfd = {hold_fd, POLLIN, 0};
  int64_t until = ms_now() + 30000;
  while (ms_now() < until) {
    ucp_worker_progress(worker);
    if (poll(&pfd, 1, 0) > 0) {
      break;
    }
    usleep(100);
  }
  _exit(0);
}

typedef struct raw_run {
  net_probe probe;
  pid_t pid;
  int port_w;
  int hold_w;
  receiver rv;
  hurray_net_connection *conn;
} raw_run;

/* UCX's process-wide state, made once before the first count (net_probe);
 * and one malloc arena for every thread, so that the arena glibc would make
 * for the first UCX thread that allocates (64 MiB reserved, two mappings,
 * kept for the process's life) does not show as the scenario's. */
static void warm_up(void) {
  static int done;
  if (!done) {
    (void)mallopt(M_ARENA_MAX, 1); /* 0 under ASan, whose allocator has no arenas */
    receiver rv = {0};
    receiver_start(&rv);
    receiver_stop(&rv);
    done = 1;
  }
}

/* Each scenario is counted: the descriptors and mappings it leaves behind
 * (none) from here to raw_finish. */
static void raw_start(raw_run *run, const raw_msg *msgs, size_t n, int die) {
  signal(SIGPIPE, SIG_IGN); /* the hold pipe of a child that died */
  warm_up();
  run->probe = net_probe_start("bad peer scenario");
  int port_pipe[2], hold_pipe[2];
  ck_assert_int_eq(pipe(port_pipe), 0);
  ck_assert_int_eq(pipe(hold_pipe), 0);
  run->pid = fork();
  ck_assert_int_ge(run->pid, 0);
  if (run->pid == 0) {
    close(port_pipe[1]);
    close(hold_pipe[1]);
    raw_peer(port_pipe[0], hold_pipe[0], msgs, n, die);
  }
  close(port_pipe[0]);
  close(hold_pipe[0]);
  run->port_w = port_pipe[1];
  run->hold_w = hold_pipe[1];
  receiver_start(&run->rv);
  ck_assert_int_eq(write(run->port_w, &run->rv.port, sizeof run->rv.port),
                   (ssize_t)sizeof run->rv.port);
  hurray_error err;
  ck_assert_int_eq(hurray_net_accept(run->rv.listener, NULL, 10000, &run->conn, &err), HURRAY_OK);
}

static void raw_finish(raw_run *run) {
  char b = 1;
  (void)!write(run->hold_w, &b, 1);
  int status = 0;
  ck_assert_int_eq(waitpid(run->pid, &status, 0), run->pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the bad peer failed: status %d",
                status);
  close(run->port_w);
  close(run->hold_w);
  hurray_net_close(&run->conn);
  receiver_stop(&run->rv);
  net_probe_check(&run->probe);
}

/* Receives on a connection from a bad peer and checks the refusal. */
static void expect_refusal_within(raw_run *run, int timeout_ms, hurray_status st, uint64_t value,
                                  uint64_t expected, size_t index) {
  hurray_error err;
  hurray_net_received *r = NULL;
  hurray_status got = hurray_net_receive(run->conn, timeout_ms, &r, &err);
  char text[256];
  hurray_error_format(&err, text, sizeof text);
  printf("[%s] refused: %s\n", transport(), text);
  ck_assert_msg(got == st, "receive: %s, expected %s (%s)", hurray_status_name(got),
                hurray_status_name(st), err.detail);
  ck_assert_uint_eq(err.value, value);
  ck_assert_uint_eq(err.expected, expected);
  ck_assert_uint_eq(err.index, index);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(hurray_net_connection_broken(run->conn), HURRAY_TRUE);
}

static void expect_refusal(raw_run *run, hurray_status st, uint64_t value, uint64_t expected,
                           size_t index) {
  expect_refusal_within(run, 20000, st, value, expected, index);
}

/* A peer that sends msgs[0 .. n): the receive must refuse them with st,
 * value, expected and index, and end the connection. */
static void expect_messages_refused(const raw_msg *msgs, size_t n, hurray_status st, uint64_t value,
                                    uint64_t expected, size_t index) {
  raw_run run;
  raw_start(&run, msgs, n, 0);
  expect_refusal(&run, st, value, expected, index);
  raw_finish(&run);
}

/* The same for one control message, the len bytes at msg. */
static void expect_control_refused(const uint8_t *msg, size_t len, hurray_status st, uint64_t value,
                                   uint64_t expected, size_t index) {
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, len};
  expect_messages_refused(&m, 1, st, value, expected, index);
}

static size_t tensor_msg(uint8_t *out, size_t cap, uint64_t id, const hurray_buffer_handle *h,
                         size_t n) {
  uint8_t table[HURRAY_NET_MAX_MESSAGE_SIZE];
  size_t tlen = 1u + 16u * n;
  table[0] = (uint8_t)n;
  for (size_t i = 0; i < n; i++) {
    hurray_buffer_handle_encode(&h[i], table + 1u + 16u * i);
  }
  return hurray_net_encode_tensor(out, cap, id, table, tlen);
}

START_TEST(bad_peer_huge_declaration) {  // NET-LIM-1, NET-ERR-1, NET-ERR-2
  /* 1 TiB declared: refused by the limit, not by a failed allocation */
  hurray_buffer_handle h = handle_of(1ull << 40, 64, 0, 0);
  static uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE];
  expect_control_refused(msg, tensor_msg(msg, sizeof msg, 1, &h, 1), HURRAY_ERR_CAPACITY,
                         1ull << 40, HURRAY_NET_DEFAULT_MAX_TENSOR_BYTES, 0);
}
END_TEST

START_TEST(bad_peer_unknown_type) {  // NET-MSG-3, NET-MSG-4, NET-ERR-1, NET-RECV-7
  static uint8_t msg[64];
  size_t len = hurray_net_encode_header(msg, sizeof msg, 9, 0);
  expect_control_refused(msg, len, HURRAY_ERR_UNSUPPORTED, 9, 0, 6);
}
END_TEST

START_TEST(bad_peer_refuses_while_we_receive) {  // NET-SEND-4, NET-RECV-7
  /* A REFUSE of a tensor this side sent earlier is the receive's result,
   * with the peer's values; before, the receive passed over it. */
  static uint8_t msg[64];
  size_t len = hurray_net_encode_refuse(msg, sizeof msg, 7, HURRAY_ERR_CAPACITY, 2, 5, 4);
  expect_control_refused(msg, len, HURRAY_ERR_CAPACITY, 5, 4, 2);
  /* a status this library does not know is not handed on as one of ours */
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, 0xFFFFu, 3, 5, 4);
  expect_control_refused(msg, len, HURRAY_ERR_UNSUPPORTED, 0xFFFFu, HURRAY_STATUS_COUNT, 3);
}
END_TEST

START_TEST(bad_peer_truncated_message) {  // NET-MSG-4
  static uint8_t msg[64];
  (void)hurray_net_encode_header(msg, sizeof msg, HURRAY_NET_MSG_TENSOR, 100);
  expect_control_refused(msg, 10, HURRAY_ERR_TRUNCATED, 10, 16, 0);
}
END_TEST

START_TEST(bad_peer_oversized_message) {  // NET-MSG-2, NET-RECV-7
  static uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE + 1000];
  memset(msg, 0, sizeof msg);
  (void)hurray_net_encode_header(msg, sizeof msg, HURRAY_NET_MSG_TENSOR,
                                 (uint32_t)(sizeof msg - 16u));
  expect_control_refused(msg, sizeof msg, HURRAY_ERR_CAPACITY, 0, HURRAY_NET_MAX_MESSAGE_SIZE, 0);
}
END_TEST

START_TEST(bad_peer_event_table) {  // NET-RECV-2, BP-XPORT-4
  hurray_buffer_handle h[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED),
                               handle_of(4096, 64, 0x01, HURRAY_SYNC_EVENT)};
  static uint8_t msg[256];
  expect_control_refused(msg, tensor_msg(msg, sizeof msg, 1, h, 2),
                         HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, HURRAY_SYNC_EVENT,
                         HURRAY_TRANSPORT_NETWORK, 1);
}
END_TEST

START_TEST(bad_peer_device_table) {  // NET-RECV-2
  hurray_buffer_handle h = handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED);
  static uint8_t msg[256];
  expect_control_refused(msg, tensor_msg(msg, sizeof msg, 1, &h, 1), HURRAY_ERR_DEVICE_UNAVAILABLE,
                         0x01, HURRAY_DEVICE_CPU, 0);
}
END_TEST

START_TEST(bad_peer_short_buffer) {  // NET-RECV-4, NET-ERR-2
  hurray_buffer_handle h[2] = {handle_of(4096, 64, 0, 0), handle_of(4096, 64, 0, 0)};
  static uint8_t msg[256];
  static uint8_t data[8192];
  raw_msg m[3] = {{HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 4, h, 2)},
                  {hurray_net_data_tag(4, 0), data, 4096},
                  {hurray_net_data_tag(4, 1), data, 1000}};
  expect_messages_refused(m, 3, HURRAY_ERR_TRUNCATED, 1000, 4096, 1);
}
END_TEST

START_TEST(bad_peer_long_buffer) {  // NET-RECV-4
  hurray_buffer_handle h = handle_of(4096, 64, 0, 0);
  static uint8_t msg[256];
  static uint8_t data[8192];
  raw_msg m[2] = {{HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 4, &h, 1)},
                  {hurray_net_data_tag(4, 0), data, 8192}};
  expect_messages_refused(m, 2, HURRAY_ERR_TRAILING_BYTES, 0, 4096, 0);
}
END_TEST

START_TEST(bad_peer_stalls) {  // NET-RECV-6, NET-RECV-7, NET-ERR-2
  /* declares a buffer and never sends it: the receiver's timeout ends it */
  hurray_buffer_handle h = handle_of(1u << 20, 64, 0, 0);
  static uint8_t msg[256];
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 3, &h, 1)};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal_within(&run, 700, HURRAY_ERR_TIMEOUT, 700u * 1000000u, 0, 0);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_repeats_tensor_id) {  // NET-RECV-8, NET-RECV-5
  /* the first TENSOR (one empty buffer: no bytes follow) is accepted; a
   * second one with the same id could share its buffers' tags: refused */
  hurray_buffer_handle h = handle_of(0, 1, 0, 0);
  static uint8_t msg[256];
  size_t len = tensor_msg(msg, sizeof msg, 5, &h, 1);
  raw_msg m[2] = {{HURRAY_NET_TAG_CONTROL, msg, len}, {HURRAY_NET_TAG_CONTROL, msg, len}};
  raw_run run;
  raw_start(&run, m, 2, 0);
  hurray_error err;
  hurray_net_received *r = NULL;
  ck_assert_int_eq(hurray_net_receive(run.conn, 20000, &r, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_net_received_tensor_id(r), 5);
  ck_assert_uint_eq(hurray_net_received_count(r), 1);
  ck_assert_ptr_null(hurray_net_received_buffer(r, 0)->data);
  hurray_net_received_free(&r);
  expect_refusal(&run, HURRAY_ERR_INVALID_ARGUMENT, 5, 6, 16);
  raw_finish(&run);
}
END_TEST

START_TEST(peer_dies_mid_transfer) {  // NET-RECV-6, NET-ERR-2
  /* two 8 MiB buffers declared; the child sends the first and _exit()s.
   * 8 MiB: far above what UCX's own pools grow by here (under 1 MiB), so
   * the heap check below sees a leaked buffer */
  hurray_buffer_handle h[2] = {handle_of(8u << 20, 64, 0, 0), handle_of(8u << 20, 64, 0, 0)};
  static uint8_t msg[256];
  void *data = aligned_pattern(8u << 20, 1);
  raw_msg m[2] = {{HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 2, h, 2)},
                  {hurray_net_data_tag(2, 0), data, 8u << 20}};
  raw_run run;
  raw_start(&run, m, 2, 1);
  hurray_error err;
  hurray_net_received *r = NULL;
  size_t before = heap_in_use();
  int64_t t0 = ms_now();
  hurray_status st = hurray_net_receive(run.conn, 60000, &r, &err);
  char text[256];
  hurray_error_format(&err, text, sizeof text);
  printf("[%s] after %lld ms: %s\n", transport(), (long long)(ms_now() - t0), text);
  ck_assert_int_eq(st, HURRAY_ERR_PEER_GONE);
  ck_assert_uint_eq(err.value, 1);    /* buffers that arrived */
  ck_assert_uint_eq(err.expected, 2); /* buffers declared */
  ck_assert_ptr_null(r);
  ck_assert_uint_lt(heap_in_use(), before + (4u << 20));
  raw_finish(&run);
  free(data);
}
END_TEST

void add_bad_peer_tests(TCase *tc) {
  tcase_add_test(tc, bad_peer_huge_declaration);
  tcase_add_test(tc, bad_peer_unknown_type);
  tcase_add_test(tc, bad_peer_refuses_while_we_receive);
  tcase_add_test(tc, bad_peer_truncated_message);
  tcase_add_test(tc, bad_peer_oversized_message);
  tcase_add_test(tc, bad_peer_event_table);
  tcase_add_test(tc, bad_peer_device_table);
  tcase_add_test(tc, bad_peer_short_buffer);
  tcase_add_test(tc, bad_peer_long_buffer);
  tcase_add_test(tc, bad_peer_stalls);
  tcase_add_test(tc, bad_peer_repeats_tensor_id);
  tcase_add_test(tc, peer_dies_mid_transfer);
}
