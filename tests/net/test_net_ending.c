/*
 * A connection between well-behaved sides that ends early: the receiver
 * closes first, a limit is exceeded, a send times out. Every source is
 * released once all the same. These need peer failure detection, which
 * UCX 1.13 gives over tcp only (test_net.c runs them in test_net_tcp).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hurray/net.h"
#include "net_loopback_support.h"
#include "net_test_support.h"
#include "test_net.h"

START_TEST(receiver_closes_first) {  // NET-CONN-3, NET-SEND-3
  receiver rv = {0};
  receiver_start(&rv);
  hurray_error err;
  /* the sender: this thread; the receiver's side closes at once */
  hurray_net_context *ctx = NULL;
  hurray_net_connection *c = connect_to_receiver(&rv, &ctx);
  hurray_net_connection *conn = accept_in_this_thread(&rv, c, NULL, 10);
  hurray_net_close(&conn);
  /* sends fail once the close is seen, each source released once */
  hurray_buffer_handle h = handle_of(1u << 20, 64, 0, 0);
  uint8_t table[32];
  size_t tlen = encode_table(&h, 1, table, sizeof table);
  release_log log = {0};
  hurray_status st = HURRAY_OK;
  for (int i = 0; i < 100 && st == HURRAY_OK; i++) {
    release_ref ref = {&log, 0, 1};
    hurray_net_source src = {(uint32_t)sizeof src, 0, aligned_pattern(1u << 20, 1), count_release,
                             &ref};
    atomic_store(&log.calls[0], 0);
    st = hurray_net_send(c, table, tlen, &src, 1, 2000, NULL, &err);
    ck_assert_int_eq(atomic_load(&log.calls[0]), 1);
  }
  ck_assert_msg(st == HURRAY_ERR_PEER_GONE || st == HURRAY_ERR_TIMEOUT,
                "send after the peer closed: %s (%s)", hurray_status_name(st), err.detail);
  ck_assert_int_eq(hurray_net_connection_broken(c), HURRAY_TRUE);
  hurray_net_close(&c);
  hurray_net_context_destroy(&ctx);
  receiver_stop(&rv);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */
/* ------------------------------------------------------------------------ */

START_TEST(limit_per_tensor) {  // NET-LIM-1, NET-ERR-1, NET-SEND-3, NET-SEND-4, NET-RECV-7
  receiver rv = {0};
  sender s = {.count = 1, .sizes = {1u << 20}, .send_twice = 1};
  hurray_net_options o = {(uint32_t)sizeof o, 0, 512u << 10, 0};
  hurray_net_connection *conn = start_loopback(&rv, &s, &o);
  hurray_error err;
  hurray_net_received *r = NULL;
  ck_assert_int_eq(hurray_net_receive(conn, 20000, &r, &err), HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 1u << 20);
  ck_assert_uint_eq(err.expected, 512u << 10);
  ck_assert_uint_eq(err.index, 0);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(hurray_net_connection_broken(conn), HURRAY_TRUE);
  atomic_store(&s.receiver_refused, 1);
  atomic_store(&s.done, 1);
  while (!atomic_load(&s.sent)) {
    usleep(1000);
  }
  /* the sender learns the receiver's error (or, if the REFUSE lost the race
   * with the disconnect, that the peer is gone); its source released once */
  ck_assert_msg(s.status == HURRAY_ERR_CAPACITY || s.status == HURRAY_ERR_PEER_GONE ||
                    s.status == HURRAY_OK,
                "sender: %s (%s)", hurray_status_name(s.status), s.err.detail);
  /* OK: UCX had finished with the bytes before the refusal (NET-SEND-4);
   * the sender's next send gets the refusal, in s.second */
  if (s.status == HURRAY_OK) {
    ck_assert_msg(s.second == HURRAY_ERR_CAPACITY || s.second == HURRAY_ERR_PEER_GONE,
                  "second send: %s", hurray_status_name(s.second));
    ck_assert_int_eq(atomic_load(&s.log.calls[1]), 1);
  }
  if (s.status == HURRAY_ERR_CAPACITY) {
    ck_assert_uint_eq(s.err.value, 1u << 20);
    ck_assert_uint_eq(s.err.expected, 512u << 10);
  }
  printf("[%s] sender after the refusal: %s (%s)\n", transport(), hurray_status_name(s.status),
         s.err.detail);
  ck_assert_int_eq(atomic_load(&s.log.calls[0]), 1);
  sender_join(&s);
  hurray_net_close(&conn);
  receiver_stop(&rv);
}
END_TEST

typedef struct two_sends {
  uint16_t port;
  hurray_status status[2];
  release_log log;
  atomic_int done;
} two_sends;

static void *two_sends_main(void *arg) {
  two_sends *t = arg;
  hurray_net_context *ctx = NULL;
  hurray_error err;
  if (hurray_net_context_create(&ctx, &err) != HURRAY_OK) {
    return NULL;
  }
  hurray_net_connection *c = NULL;
  if (hurray_net_connect(ctx, "127.0.0.1", t->port, NULL, &c, &err) == HURRAY_OK) {
    hurray_buffer_handle h = handle_of(1u << 20, 64, 0, 0);
    uint8_t table[32];
    size_t written = 0;
    if (hurray_buffer_table_encode(&h, 1, table, sizeof table, &written, &err) != HURRAY_OK) {
      return NULL;
    }
    release_ref refs[2] = {{&t->log, 0, 1}, {&t->log, 1, 1}};
    for (int i = 0; i < 2; i++) {
      hurray_net_source src = {(uint32_t)sizeof src, 0, aligned_pattern(1u << 20, 5), count_release,
                               &refs[i]};
      t->status[i] = hurray_net_send(c, table, written, &src, 1, 20000, NULL, &err);
    }
    int64_t until = ms_now() + 30000;
    while (!atomic_load(&t->done) && ms_now() < until) {
      usleep(1000);
    }
    hurray_net_close(&c);
  }
  hurray_net_context_destroy(&ctx);
  return NULL;
}

START_TEST(limit_per_connection) {  // NET-LIM-1
  receiver rv = {0};
  receiver_start(&rv);
  two_sends t;
  memset(&t, 0, sizeof t);
  t.port = rv.port;
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, two_sends_main, &t), 0);
  hurray_error err;
  hurray_net_options o = {(uint32_t)sizeof o, 0, 0, (3u << 20) / 2u};
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, &o, 10000, &conn, &err), HURRAY_OK);
  hurray_net_received *r = NULL;
  ck_assert_int_eq(hurray_net_receive(conn, 20000, &r, &err), HURRAY_OK);
  hurray_net_received_free(&r);
  ck_assert_uint_eq(hurray_net_connection_bytes_received(conn), 1u << 20);
  ck_assert_int_eq(hurray_net_receive(conn, 20000, &r, &err), HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 2u << 20);
  ck_assert_uint_eq(err.expected, (3u << 20) / 2u);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_ptr_null(r);
  atomic_store(&t.done, 1);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_int_eq(t.status[0], HURRAY_OK);
  ck_assert_int_ne(t.status[1], HURRAY_OK);
  ck_assert_int_eq(atomic_load(&t.log.calls[0]), 1);
  ck_assert_int_eq(atomic_load(&t.log.calls[1]), 1);
  hurray_net_close(&conn);
  receiver_stop(&rv);
}
END_TEST

START_TEST(sender_times_out) {  // NET-SEND-2, NET-SEND-3
  receiver rv = {0};
  /* rendezvous: it needs the receiver to take it */
  sender s = {.count = 1, .sizes = {1u << 20}, .timeout_ms = 500, .close_first = 1};
  hurray_net_connection *conn = start_loopback(&rv, &s, test_opts());
  /* the receiver never receives */
  int64_t until = ms_now() + 10000;
  while (!atomic_load(&s.sent) && ms_now() < until) {
    usleep(1000);
  }
  ck_assert_int_eq(atomic_load(&s.sent), 1);
  ck_assert_msg(s.status == HURRAY_ERR_TIMEOUT, "sender: %s (%s)", hurray_status_name(s.status),
                s.err.detail);
  ck_assert_uint_eq(s.err.value, 500u * 1000000u);
  ck_assert_int_eq(atomic_load(&s.log.calls[0]), 1);
  sender_join(&s);
  hurray_net_close(&conn);
  receiver_stop(&rv);
}
END_TEST

void add_ending_tests(TCase *tc) {
  tcase_add_test(tc, receiver_closes_first);
  tcase_add_test(tc, limit_per_tensor);
  tcase_add_test(tc, limit_per_connection);
  tcase_add_test(tc, sender_times_out);
}
