/*
 * Tensors over loopback between a sender thread and this thread's
 * receiver, on connections both sides keep: the arguments refused, a
 * tensor's round trip, several connections on one listener, the reuse of
 * the landing memory, and what the sender refuses before sending. These
 * run under every transport set, shared memory included.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hurray/net.h"
#include "net_loopback_support.h"
#include "net_test_support.h"
#include "test_net.h"

START_TEST(arguments_refused) {  // NET-CONN-1, NET-LIM-1, NET-ERR-1
  hurray_error err;
  hurray_net_context *ctx = NULL;
  ck_assert_int_eq(hurray_net_context_create(&ctx, &err), HURRAY_OK);
  hurray_net_listener *l = NULL;
  /* a name is not a literal: nothing is resolved behind the caller's back */
  ck_assert_int_eq(hurray_net_listen(ctx, "localhost", 0, &l, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(err.detail, "localhost"));
  ck_assert_ptr_null(l);
  hurray_net_connection *c = NULL;
  hurray_net_options o = {.struct_size = 4};
  ck_assert_int_eq(hurray_net_connect(ctx, "127.0.0.1", 1, &o, &c, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 4);
  ck_assert_uint_eq(err.expected, 8);
  o = (hurray_net_options){.struct_size = (uint32_t)sizeof o, .flags = 0x6};
  ck_assert_int_eq(hurray_net_connect(ctx, "127.0.0.1", 1, &o, &c, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 0x6);
  ck_assert_uint_eq(err.expected, HURRAY_NET_OPTION_SHARED_MEMORY);
  ck_assert_ptr_null(c);
  /* an older caller's 8-byte options: the limits it does not know are defaults */
  o = (hurray_net_options){.struct_size = 8, .max_tensor_bytes = 1};
  ck_assert_int_eq(hurray_net_listen(ctx, "127.0.0.1", 0, &l, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_net_connect(ctx, "127.0.0.1", hurray_net_listener_port(l), &o, &c, &err),
                   HURRAY_OK);
  hurray_net_close(&c);
  hurray_net_listener_destroy(&l);
  ck_assert_int_eq(hurray_net_accept(NULL, NULL, 0, &c, &err), HURRAY_ERR_NULL_ARGUMENT);
  hurray_net_context_destroy(&ctx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Loopback                                                                 */
/* ------------------------------------------------------------------------ */

START_TEST(
    loopback_tensor) {  // NET-CONN-1, NET-CONN-4, NET-CONN-5, NET-SEND-2, NET-SEND-3, NET-TAG-2, NET-RECV-3..5, NET-LIM-1, BP-OWN-4, BP-XPORT-4
  receiver rv = {0};
  /* rendezvous, eager, and empty: no message */
  sender s = {.seed = 3, .count = 3, .sizes = {1u << 20, 4096, 0}};
  hurray_net_connection *conn = start_loopback(&rv, &s, test_opts());
  hurray_error err;
  hurray_net_received *r = NULL;
  hurray_status st = hurray_net_receive(conn, 20000, &r, &err);
  ck_assert_msg(st == HURRAY_OK, "receive: %s (%s)", hurray_status_name(st), err.detail);
  char info[8192];
  ck_assert_uint_gt(hurray_net_connection_describe(conn, info, sizeof info), 0);
  printf("[%s] receiver's endpoint:\n%s\n", transport(), info);
  if (strcmp(transport(), "tcp") == 0) {
    ck_assert_ptr_nonnull(strstr(info, "tcp/lo"));
  } else if (strcmp(transport(), "shm") == 0) {
    ck_assert_msg(strstr(info, "posix/") != NULL || strstr(info, "sysv/") != NULL ||
                      strstr(info, "cma/") != NULL,
                  "no shared-memory lane:\n%s", info);
  }
  ck_assert_uint_eq(hurray_net_received_count(r), 3);
  while (!atomic_load(&s.sent)) {
    usleep(1000);
  }
  ck_assert_int_eq(s.status, HURRAY_OK);
  ck_assert_uint_eq(hurray_net_received_tensor_id(r), s.tensor_id);
  for (size_t i = 0; i < 3; i++) {
    const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(b->handle.byte_size, s.sizes[i]);
    ck_assert_uint_eq(b->handle.sync_mode, HURRAY_SYNC_PRODUCER_SYNCED);
    ck_assert_uint_eq(hurray_handoff_state_of(hurray_net_received_handoff(r, i)),
                      HURRAY_HANDOFF_READABLE);
    if (s.sizes[i] != 0u) {
      ck_assert_uint_eq((uintptr_t)b->data % b->handle.alignment, 0);
      check_pattern(b, s.seed + i);
    } else {
      ck_assert_ptr_null(b->data);
    }
  }
  ck_assert_ptr_null(hurray_net_received_buffer(r, 3));
  /* the sender released each source exactly once, after UCX was done */
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(atomic_load(&s.log.calls[i]), 1);
  }
  ck_assert_uint_eq(hurray_net_connection_bytes_received(conn), (1u << 20) + 4096u);
  /* the receiver's buffers: released exactly once */
  ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_release(hurray_net_received_handoff(r, 0), &err),
                   HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_net_received_release(r, 9, &err), HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 9);
  hurray_net_received_free(&r); /* releases buffers 1 and 2 */
  ck_assert_ptr_null(r);
  /* the sender closes: the receiver sees the peer gone (NET-CONN-3) */
  atomic_store(&s.done, 1);
  st = hurray_net_receive(conn, 10000, &r, &err);
  ck_assert_int_eq(st, HURRAY_ERR_PEER_GONE);
  ck_assert_int_eq(hurray_net_connection_broken(conn), HURRAY_TRUE);
  sender_join(&s);
  hurray_net_close(&conn);
  ck_assert_ptr_null(conn);
  receiver_stop(&rv);
}
END_TEST

/* A receiver that polls (timeout 0) gets the tensor that has arrived: a
 * receive takes what came by its deadline before it says TIMEOUT. Without
 * that, a poll never progressed UCX and no poll ever received anything. The
 * tensor's one buffer is empty, so its control message is all of it: a
 * buffer's bytes that have not arrived by a poll's deadline would end the
 * connection (a tensor that began and did not complete in time). */
START_TEST(poll_with_timeout_zero) {  // NET-RECV-1
  receiver rv = {0};
  sender s = {.seed = 5, .count = 1, .sizes = {0}};
  hurray_net_connection *conn = start_loopback(&rv, &s, test_opts());
  hurray_error err;
  hurray_net_received *r = NULL;
  hurray_status st = HURRAY_ERR_TIMEOUT;
  long polls = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  t = t0;
  while (st == HURRAY_ERR_TIMEOUT && t.tv_sec - t0.tv_sec < 20) {
    st = hurray_net_receive(conn, 0, &r, &err);
    polls++;
    if (st == HURRAY_ERR_TIMEOUT) {
      ck_assert_ptr_null(r);
      ck_assert_int_eq(hurray_net_connection_broken(conn), HURRAY_FALSE);
      usleep(100);
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
  }
  ck_assert_msg(st == HURRAY_OK, "after %ld polls: %s (%s)", polls, hurray_status_name(st),
                err.detail);
  ck_assert_uint_eq(hurray_net_received_count(r), 1);
  ck_assert_uint_eq(hurray_net_received_buffer(r, 0)->handle.byte_size, 0);
  hurray_net_received_free(&r);
  atomic_store(&s.done, 1);
  sender_join(&s);
  hurray_net_close(&conn);
  receiver_stop(&rv);
}
END_TEST

/* A sender of `tensors` one-buffer tensors of `size` bytes, tensor k filled
 * with pattern seed + k, each send waiting for the receiver's go (so the
 * receiver decides when the next tensor comes, after the first). */
typedef struct serial_sender {
  pthread_t thread;
  uint16_t port;
  uint64_t size;
  uint64_t seed;
  int tensors;
  atomic_int go; /* tensors the receiver is ready for */
  atomic_int done;
  atomic_int releases;
  hurray_status status;
} serial_sender;

static void serial_release(void *buffer, void *ctx) {
  serial_sender *s = ctx;
  atomic_fetch_add(&s->releases, 1);
  free(buffer);
}

static void *serial_sender_main(void *arg) {
  serial_sender *s = arg;
  hurray_net_context *ctx = NULL;
  hurray_net_connection *conn = NULL;
  hurray_error err;
  s->status = hurray_net_context_create(&ctx, &err);
  if (s->status == HURRAY_OK) {
    s->status = hurray_net_connect(ctx, "127.0.0.1", s->port, test_opts(), &conn, &err);
  }
  for (int k = 0; s->status == HURRAY_OK && k < s->tensors; k++) {
    while (atomic_load(&s->go) <= k) {
      usleep(1000);
    }
    hurray_buffer_handle h = handle_of(s->size, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED);
    uint8_t table[1 + HURRAY_BUFFER_HANDLE_SIZE];
    size_t written = encode_table(&h, 1, table, sizeof table);
    hurray_net_source src = {(uint32_t)sizeof src, 0,
                             aligned_pattern((size_t)s->size, s->seed + (uint64_t)k),
                             serial_release, s};
    s->status = hurray_net_send(conn, table, written, &src, 1, 20000, NULL, &err);
  }
  int64_t until = ms_now() + 30000;
  while (!atomic_load(&s->done) && ms_now() < until) {
    usleep(1000);
  }
  hurray_net_close(&conn);
  hurray_net_context_destroy(&ctx);
  return NULL;
}

static const hurray_accepted_buffer *receive_next(serial_sender *s, hurray_net_connection *conn,
                                                  hurray_net_received **r, int k) {
  hurray_error err;
  atomic_store(&s->go, k + 1);
  hurray_status st = hurray_net_receive(conn, 20000, r, &err);
  ck_assert_msg(st == HURRAY_OK, "receive %d: %s (%s)", k, hurray_status_name(st), err.detail);
  const hurray_accepted_buffer *b = hurray_net_received_buffer(*r, 0);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(b->handle.byte_size, s->size);
  ck_assert_uint_eq((uintptr_t)b->data % b->handle.alignment, 0);
  check_pattern(b, s->seed + (uint64_t)k); /* every byte this tensor's, none a previous one's */
  return b;
}

START_TEST(landing_memory_reused) {  // NET-RECV-9, NET-RECV-4, NET-RECV-5, RX-OBJ-1, RX-REL-4
  const uint64_t size = 1u << 20;
  receiver rv = {0};
  receiver_start(&rv);
  serial_sender s = {.port = rv.port, .size = size, .seed = 40, .tensors = 5};
  atomic_store(&s.go, 1); /* the first send is what makes UCX connect */
  ck_assert_int_eq(pthread_create(&s.thread, NULL, serial_sender_main, &s), 0);
  hurray_error err;
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);
  ck_assert_uint_eq(hurray_net_connection_buffers_reused(conn), 0);

  /* Tensor 0 lands in new memory; its release keeps the memory. It is the
   * neutral received tensor (RX-OBJ-1): released through its handoff, then
   * freed, its memory goes back exactly once (RX-REL-1, RX-REL-4). */
  hurray_net_received *r = NULL;
  const void *first = receive_next(&s, conn, &r, 0)->data;
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);
  hurray_received *neutral = hurray_net_received_tensor(r);
  ck_assert_ptr_nonnull(neutral);
  ck_assert_uint_eq(hurray_received_transport(neutral), HURRAY_TRANSPORT_NETWORK);
  ck_assert_uint_eq(hurray_received_id(neutral), hurray_net_received_tensor_id(r));
  ck_assert_uint_eq(hurray_received_count(neutral), 1);
  ck_assert_ptr_eq(hurray_received_buffer(neutral, 0), hurray_net_received_buffer(r, 0));
  ck_assert_ptr_null(hurray_net_received_tensor(NULL));
  ck_assert_int_eq(hurray_handoff_release(hurray_received_handoff(neutral, 0), &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), size);
  ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_ERR_ALREADY_RELEASED);
  hurray_net_received_free(&r);
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), size);

  /* Tensor 1 lands in that memory, overwritten with its own bytes. */
  const void *second = receive_next(&s, conn, &r, 1)->data;
  ck_assert_ptr_eq(second, first);
  ck_assert_uint_eq(hurray_net_connection_buffers_reused(conn), 1);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);

  /* A budget below the buffer: its release frees it instead. */
  ck_assert_int_eq(hurray_net_connection_set_reuse_bytes(conn, size / 2u, &err), HURRAY_OK);
  hurray_net_received_free(&r);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);

  /* Lowering the budget frees what is kept above it. */
  ck_assert_int_eq(
      hurray_net_connection_set_reuse_bytes(conn, HURRAY_NET_DEFAULT_REUSE_BYTES, &err), HURRAY_OK);
  (void)receive_next(&s, conn, &r, 2);
  ck_assert_uint_eq(hurray_net_connection_buffers_reused(conn), 1);
  hurray_net_received_free(&r);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), size);
  ck_assert_int_eq(hurray_net_connection_set_reuse_bytes(conn, 0, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);

  /* Reuse off: nothing is kept. */
  (void)receive_next(&s, conn, &r, 3);
  hurray_net_received_free(&r);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);
  ck_assert_uint_eq(hurray_net_connection_buffers_reused(conn), 1);

  /* A buffer released after the connection closed is freed then (ASan and
   * valgrind see a leak or a use after free otherwise). */
  ck_assert_int_eq(hurray_net_connection_set_reuse_bytes(conn, size, &err), HURRAY_OK);
  (void)receive_next(&s, conn, &r, 4);
  atomic_store(&s.done, 1);
  ck_assert_int_eq(pthread_join(s.thread, NULL), 0);
  ck_assert_int_eq(s.status, HURRAY_OK);
  ck_assert_int_eq(atomic_load(&s.releases), 5); /* NET-SEND-3 */
  hurray_net_close(&conn);
  check_pattern(hurray_net_received_buffer(r, 0), s.seed + 4u);
  ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_OK);
  hurray_net_received_free(&r);

  ck_assert_int_eq(hurray_net_connection_set_reuse_bytes(NULL, 0, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(NULL), 0);
  ck_assert_uint_eq(hurray_net_connection_buffers_reused(NULL), 0);
  receiver_stop(&rv);
}
END_TEST

START_TEST(several_connections) {  // NET-CONN-2
  receiver rv = {0};
  receiver_start(&rv);
  enum { N = 3 };
  sender s[N];
  memset(s, 0, sizeof s);
  for (int i = 0; i < N; i++) {
    s[i].port = rv.port;
    s[i].seed = 10u + (uint64_t)i * 10u;
    s[i].count = 1;
    s[i].sizes[0] = (64u << 10) * (uint64_t)(i + 1);
    sender_start(&s[i]);
  }
  hurray_error err;
  hurray_net_connection *conn[N] = {NULL};
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn[i], &err), HURRAY_OK);
  }
  int seen[N] = {0};
  for (int i = 0; i < N; i++) {
    hurray_net_received *r = NULL;
    hurray_status st = hurray_net_receive(conn[i], 20000, &r, &err);
    ck_assert_msg(st == HURRAY_OK, "connection %d: %s (%s)", i, hurray_status_name(st), err.detail);
    const hurray_accepted_buffer *b = hurray_net_received_buffer(r, 0);
    /* which sender: its size says it; its bytes must be its own */
    int who = (int)(b->handle.byte_size / (64u << 10)) - 1;
    ck_assert_int_ge(who, 0);
    ck_assert_int_lt(who, N);
    seen[who]++;
    check_pattern(b, s[who].seed);
    hurray_net_received_free(&r);
  }
  for (int i = 0; i < N; i++) {
    atomic_store(&s[i].done, 1);
  }
  for (int i = 0; i < N; i++) {
    hurray_net_received *r = NULL;
    ck_assert_int_eq(hurray_net_receive(conn[i], 10000, &r, &err), HURRAY_ERR_PEER_GONE);
  }
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(seen[i], 1);
    sender_join(&s[i]);
    ck_assert_int_eq(s[i].status, HURRAY_OK);
    ck_assert_int_eq(atomic_load(&s[i].log.calls[0]), 1);
    hurray_net_close(&conn[i]);
  }
  receiver_stop(&rv);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The sender's checks                                                      */
/* ------------------------------------------------------------------------ */

/* A send of the two sources src on c with the table of the two handles h:
 * refused before anything is sent, SYNC_MODE_NOT_ALLOWED naming the mode
 * `value` of handle `index` (the rest in *err). */
static void expect_sync_mode_refused(hurray_net_connection *c, const hurray_buffer_handle h[2],
                                     const hurray_net_source *src, uint64_t value, size_t index,
                                     hurray_error *err) {
  uint8_t table[64];
  size_t tlen = encode_table(h, 2, table, sizeof table);
  ck_assert_int_eq(hurray_net_send(c, table, tlen, src, 2, 1000, NULL, err),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_uint_eq(err->value, value);
  ck_assert_uint_eq(err->index, index);
}

START_TEST(sender_refuses_before_sending) {  // NET-SEND-1, NET-SEND-3, NET-RECV-1, BP-XPORT-4
  receiver rv = {0};
  receiver_start(&rv);
  hurray_error err;
  hurray_net_context *ctx = NULL;
  hurray_net_connection *c = connect_to_receiver(&rv, &ctx);
  release_log log = {0};
  release_ref refs[2] = {{&log, 0, 0}, {&log, 1, 0}};
  static uint8_t bytes[2][4096] __attribute__((aligned(64)));
  hurray_net_source src[2] = {
      {(uint32_t)sizeof(hurray_net_source), 0, bytes[0], count_release, &refs[0]},
      {(uint32_t)sizeof(hurray_net_source), 0, bytes[1], count_release, &refs[1]}};
  uint8_t table[64];
  size_t tlen;

  /* an event handle (CUDA, where events exist): refused, naming handle 1 and its mode */
  const hurray_buffer_handle ev[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED),
                                      handle_of(4096, 64, 0x01, HURRAY_SYNC_EVENT)};
  expect_sync_mode_refused(c, ev, src, HURRAY_SYNC_EVENT, 1, &err);
  ck_assert_uint_eq(err.expected, HURRAY_TRANSPORT_NETWORK);
  char text[256];
  hurray_error_format(&err, text, sizeof text);
  printf("refused event table: %s\n", text);
  ck_assert_int_eq(atomic_load(&log.calls[0]), 1);
  ck_assert_int_eq(atomic_load(&log.calls[1]), 1);

  /* consumer_stream, at index 0 */
  const hurray_buffer_handle cs[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_CONSUMER_STREAM),
                                      handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED)};
  expect_sync_mode_refused(c, cs, src, HURRAY_SYNC_CONSUMER_STREAM, 0, &err);
  ck_assert_int_eq(atomic_load(&log.calls[0]), 2);

  /* A device tag is no refusal here: it names where the receiver places
   * the buffer (NET-DEV-1); tensor_placed_on_the_declared_device sends one. */

  /* a table the decoder rejects: trailing byte; a source count that differs */
  hurray_buffer_handle cpu[1] = {handle_of(4096, 64, 0, 0)};
  tlen = encode_table(cpu, 1, table, sizeof table);
  ck_assert_int_eq(hurray_net_send(c, table, tlen + 1u, src, 1, 1000, NULL, &err),
                   HURRAY_ERR_TRAILING_BYTES);
  ck_assert_int_eq(hurray_net_send(c, table, tlen, src, 2, 1000, NULL, &err),
                   HURRAY_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(err.value, 2);
  ck_assert_uint_eq(err.expected, 1);
  hurray_net_source nul = {(uint32_t)sizeof nul, 0, NULL, count_release, &refs[0]};
  ck_assert_int_eq(hurray_net_send(c, table, tlen, &nul, 1, 1000, NULL, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.expected, 4096);
  /* every refusal released every source once: 2 + 1 + 1 + 2 + 1 */
  ck_assert_int_eq(atomic_load(&log.calls[0]), 5);
  ck_assert_int_eq(atomic_load(&log.calls[1]), 3);

  /* nothing left the sender: the receiver gets no tensor */
  hurray_net_connection *conn = accept_in_this_thread(&rv, c, test_opts(), 5);
  hurray_net_received *r = NULL;
  ck_assert_int_eq(hurray_net_receive(conn, 300, &r, &err), HURRAY_ERR_TIMEOUT);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(hurray_net_connection_broken(conn), HURRAY_FALSE);
  hurray_net_close(&conn);
  hurray_net_close(&c);
  hurray_net_context_destroy(&ctx);
  receiver_stop(&rv);
}
END_TEST

void add_loopback_tests(TCase *tc) {
  tcase_add_test(tc, arguments_refused);
  tcase_add_test(tc, loopback_tensor);
  tcase_add_test(tc, poll_with_timeout_zero);
  tcase_add_test(tc, several_connections);
  tcase_add_test(tc, sender_refuses_before_sending);
  tcase_add_test(tc, landing_memory_reused);
}
