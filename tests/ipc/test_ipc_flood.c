/*
 * Floods from hostile consumers (issue 42): a burst of connections beyond
 * the producer's limit, and a stream of forged RELEASE and REJECT messages
 * that name nothing the consumer holds. The producer must refuse or report
 * each one, keep serving the consumers it admitted, and leave no descriptor
 * or mapping behind (counted before and after).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hurray/hurray.h"
#include "check_main.h"
#include "ipc_test_support.h"

enum { LIMIT = 4, CONNECTIONS = 40, FORGED = 5000 };

static uint8_t msg[HURRAY_IPC_MAX_MESSAGE_SIZE];

/* The first message a raw connection got from the producer, decoded; then
 * whether the producer closed it (a refused connection is closed at once). */
static hurray_ipc_message first_message(int fd, int *closed) {
  ssize_t got = recv(fd, msg, sizeof msg, 0);
  ck_assert_int_gt(got, 0);
  hurray_ipc_message m;
  memset(&m, 0, sizeof m);
  hurray_error err;
  ck_assert_int_eq(hurray_ipc_message_decode(msg, (size_t)got, 0, &m, NULL, NULL, 0, &err),
                   HURRAY_OK);
  *closed = recv(fd, msg, sizeof msg, MSG_DONTWAIT) == 0;
  return m;
}

/* IPC-MSG-8, IPC-FLT-1: of a burst of CONNECTIONS connections, the first
 * LIMIT are admitted (HELLO) and every other one gets REFUSE CONSUMER_LIMIT
 * (value: the limit) and is closed by the producer; once all hang up, the
 * producer reports each admitted one gone and holds no descriptor more. */
START_TEST(connection_flood_beyond_the_limit) {
  leak_probe probe = leak_start("40 connections, limit 4");
  char address[64];
  event_log events = {0};
  hurray_ipc_producer *p = listening_producer(address, sizeof address, "flood", &events, LIMIT);
  hurray_error err;
  int fds[CONNECTIONS];
  for (int i = 0; i < CONNECTIONS; i++) {
    fds[i] = raw_connect(address);
  }
  for (int i = 0; i < LIMIT; i++) {
    uint64_t cid = 0;
    ck_assert_int_eq(hurray_ipc_producer_next_consumer(p, 5000, &cid, &err), HURRAY_OK);
  }
  for (int round = 0;
       round < 400 && events_of(&events, HURRAY_IPC_EVENT_REFUSED) < CONNECTIONS - LIMIT; round++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(p, 100, &err), HURRAY_OK);
  }
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_CONNECTED), LIMIT);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_REFUSED), CONNECTIONS - LIMIT);
  ck_assert_uint_eq(last_event(&events, HURRAY_IPC_EVENT_REFUSED)->value,
                    HURRAY_IPC_REFUSE_CONSUMER_LIMIT);
  int hellos = 0;
  for (int i = 0; i < CONNECTIONS; i++) {
    int closed = 0;
    hurray_ipc_message m = first_message(fds[i], &closed);
    if (m.type == HURRAY_IPC_MSG_HELLO) {
      hellos++;
      ck_assert_msg(!closed, "connection %d: admitted, then closed", i);
    } else {
      ck_assert_uint_eq(m.type, HURRAY_IPC_MSG_REFUSE);
      ck_assert_uint_eq(m.code, HURRAY_IPC_REFUSE_CONSUMER_LIMIT);
      ck_assert_uint_eq(m.value, LIMIT);
      ck_assert_msg(closed, "connection %d: refused but left open", i);
    }
  }
  ck_assert_int_eq(hellos, LIMIT);
  for (int i = 0; i < CONNECTIONS; i++) {
    close(fds[i]);
  }
  for (int round = 0; round < 20 && events_of(&events, HURRAY_IPC_EVENT_GONE) < LIMIT; round++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(p, 100, &err), HURRAY_OK);
  }
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), LIMIT);
  /* the places freed are taken again: a new consumer is admitted */
  int again = raw_connect(address);
  uint64_t cid = 0;
  ck_assert_int_eq(hurray_ipc_producer_next_consumer(p, 5000, &cid, &err), HURRAY_OK);
  int closed = 0;
  ck_assert_uint_eq(first_message(again, &closed).type, HURRAY_IPC_MSG_HELLO);
  close(again);
  hurray_ipc_producer_destroy(&p);
  leak_check(&probe);
}
END_TEST

typedef struct kind_counts {
  int by_kind[8];
  uint64_t last_value;
  uint32_t last_status;
} kind_counts;

static void count_event(const hurray_ipc_event *ev, void *ctx) {
  kind_counts *k = ctx;
  k->by_kind[ev->kind < 8u ? ev->kind : 0u]++;
  if (ev->kind == HURRAY_IPC_EVENT_PROTOCOL_ERROR) {
    k->last_value = ev->value;
    k->last_status = ev->status;
  }
}

/* IPC-REL-1, IPC-FLOW-1: FORGED messages that each name an offer the
 * consumer does not hold (RELEASE and REJECT in turn, sent as fast as the
 * socket takes them) drop nothing: each is reported with the value it
 * named, the connection stays, the consumer's real hold stays, and the
 * real RELEASE after them still drops exactly that hold. */
START_TEST(forged_message_flood_drops_nothing) {
  leak_probe probe = leak_start("5000 forged RELEASE and REJECT");
  kind_counts counts;
  memset(&counts, 0, sizeof counts);
  hurray_ipc_producer_options po;
  memset(&po, 0, sizeof po);
  po.struct_size = (uint32_t)sizeof po;
  po.on_event = count_event;
  po.event_ctx = &counts;
  raw_peer_page f;
  open_raw_peer_page(&f, &po);
  hurray_error err;
  uint64_t offer = 0;
  ck_assert_int_eq(hurray_ipc_producer_offer(f.p, f.cid, &f.s, 1, 0, &offer, &err), HURRAY_OK);
  hurray_ipc_shared_retire(f.s);
  int sent = 0;
  while (sent < FORGED) {
    uint64_t forged = offer + 1u + (uint64_t)sent;
    size_t n = sent % 2 == 0 ? hurray_ipc_encode_release(msg, sizeof msg, forged, 0)
                             : hurray_ipc_encode_reject(msg, sizeof msg, forged,
                                                        HURRAY_ERR_UNSUPPORTED, 0, 0, 0);
    ck_assert_uint_gt(n, 0);
    if (send(f.peer, msg, n, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)n) {
      sent++;
      continue;
    }
    ck_assert_int_eq(errno, EAGAIN); /* the socket is full: let the producer read */
    ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 100, &err), HURRAY_OK);
  }
  for (int round = 0; round < 200 && counts.by_kind[HURRAY_IPC_EVENT_PROTOCOL_ERROR] < FORGED;
       round++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 50, &err), HURRAY_OK);
  }
  ck_assert_int_eq(counts.by_kind[HURRAY_IPC_EVENT_PROTOCOL_ERROR], FORGED);
  ck_assert_uint_eq(counts.last_status, HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_uint_eq(counts.last_value, offer + FORGED);
  ck_assert_int_eq(counts.by_kind[HURRAY_IPC_EVENT_GONE], 0);
  ck_assert_int_eq(counts.by_kind[HURRAY_IPC_EVENT_RELEASED], 0);
  size_t holds = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(f.p, NULL, 0, &holds, &err), HURRAY_OK);
  ck_assert_uint_eq(holds, 1);
  ck_assert_int_eq(f.rel.calls, 0);
  size_t n = hurray_ipc_encode_release(msg, sizeof msg, offer, 0);
  send_raw_fds(f.peer, msg, n, NULL, 0);
  ck_assert_int_eq(hurray_ipc_producer_poll(f.p, 1000, &err), HURRAY_OK);
  ck_assert_int_eq(counts.by_kind[HURRAY_IPC_EVENT_RELEASED], 1);
  ck_assert_int_eq(f.rel.calls, 1);
  close_raw_peer_page(&f, &probe);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN_WITH(CK_NOFORK, "ipc_flood", "flood", 60,
                                connection_flood_beyond_the_limit,
                                forged_message_flood_drops_nothing);
}
