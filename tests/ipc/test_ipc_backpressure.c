/*
 * A consumer that stops reading never stalls its producer or the other
 * consumers (IPC-FLOW-1): a producer with one consumer that never reads and
 * one that does; every offer to the reader arrives while the other's socket
 * is full, and every offer call returns.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hurray/hurray.h"
#include "ipc_test_support.h"
#include "check_main.h"

enum { READER_OFFERS = 50, MAX_STALLED_OFFERS = 100000 };

/* The consumer that reads, in a child process: receives and releases
 * READER_OFFERS offers; exits 0 when every one arrived and was released. */
static pid_t start_reader(const char *address) {
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child != 0) {
    return child;
  }
  alarm(30); /* bounded: a hung reader dies */
  hurray_error err;
  hurray_ipc_consumer *c = NULL;
  hurray_status st = hurray_ipc_consumer_connect(address, NULL, &c, &err);
  int received = 0;
  for (int i = 0; st == HURRAY_OK && i < READER_OFFERS; i++) {
    hurray_ipc_received *offer = NULL;
    st = hurray_ipc_consumer_receive(c, 10000, &offer, &err);
    if (st == HURRAY_OK) {
      st = hurray_ipc_received_release(offer, 0, &err);
      hurray_ipc_received_free(&offer);
      received += st == HURRAY_OK;
    }
  }
  if (st != HURRAY_OK) {
    char text[256];
    hurray_error_format(&err, text, sizeof text);
    fprintf(stderr, "reader: %s after %d offers\n", text, received);
  }
  hurray_ipc_consumer_destroy(&c);
  _exit(received == READER_OFFERS ? 0 : 1);
}

START_TEST(stalled_consumer_stalls_nobody) {  // IPC-FLOW-1, IPC-FLT-1
  leak_probe probe = leak_start("one consumer never reads");
  char address[64];
  event_log events = {0};
  hurray_ipc_producer *p = listening_producer(address, sizeof address, "stall", &events, 0);
  hurray_error err;
  int stalled_fd = raw_connect(address); /* connects, then never reads */
  uint64_t stalled = 0;
  ck_assert_int_eq(hurray_ipc_producer_next_consumer(p, 5000, &stalled, &err), HURRAY_OK);
  pid_t reader = start_reader(address);
  uint64_t reading = 0;
  ck_assert_int_eq(hurray_ipc_producer_next_consumer(p, 5000, &reading, &err), HURRAY_OK);

  void *data = NULL;
  release_log rel = {0, NULL};
  hurray_ipc_shared *s = share_segment(p, 4096, &data, count_release, &rel);
  /* Offers to the consumer that never reads, until its socket is full: the
   * call that does not fit returns at once, and nothing of it is held. */
  size_t stalled_holds = 0;
  hurray_status st = HURRAY_OK;
  while (st == HURRAY_OK && stalled_holds < MAX_STALLED_OFFERS) {
    st = hurray_ipc_producer_offer(p, stalled, &s, 1, 0, NULL, &err);
    stalled_holds += st == HURRAY_OK;
  }
  char text[256];
  hurray_error_format(&err, text, sizeof text);
  printf("the stalled consumer took %zu offers, then: %s\n", stalled_holds, text);
  ck_assert_msg(st == HURRAY_ERR_TIMEOUT, "offer to the stalled consumer: %s", text);
  ck_assert_uint_eq(err.index, 1);
  ck_assert_ptr_nonnull(strstr(err.detail, "is not reading"));
  size_t holds = 0;
  ck_assert_int_eq(hurray_ipc_producer_holds(p, NULL, 0, &holds, &err), HURRAY_OK);
  ck_assert_uint_eq(holds, stalled_holds);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_GONE), 0); /* still connected */

  /* The reader gets every offer meanwhile; the stalled one stays refused. */
  for (int i = 0; i < READER_OFFERS; i++) {
    ck_assert_int_eq(hurray_ipc_producer_offer(p, reading, &s, 1, 0, NULL, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_ipc_producer_offer(p, stalled, &s, 1, 0, NULL, &err),
                     HURRAY_ERR_TIMEOUT);
    ck_assert_int_eq(hurray_ipc_producer_poll(p, 0, &err), HURRAY_OK);
  }
  for (int i = 0; i < 400 && events_of(&events, HURRAY_IPC_EVENT_RELEASED) < READER_OFFERS; i++) {
    ck_assert_int_eq(hurray_ipc_producer_poll(p, 50, &err), HURRAY_OK);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(reader, &status, 0), reader);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader: status 0x%x", status);
  ck_assert_int_eq(events_of(&events, HURRAY_IPC_EVENT_RELEASED), READER_OFFERS);

  /* Disconnecting the stalled consumer reclaims its holds, once each. */
  ck_assert_int_eq(hurray_ipc_producer_disconnect(p, stalled, &err), HURRAY_OK);
  const hurray_ipc_event *gone = last_event(&events, HURRAY_IPC_EVENT_GONE);
  ck_assert_ptr_nonnull(gone);
  ck_assert_uint_eq(gone->value, stalled_holds);
  ck_assert_int_eq(rel.calls, 0); /* the producer's own reference */
  hurray_ipc_shared_retire(s);
  ck_assert_int_eq(rel.calls, 1);
  hurray_ipc_producer_destroy(&p);
  ck_assert_int_eq(rel.calls, 1);
  close(stalled_fd);
  munmap(data, 4096);
  leak_check(&probe);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN_WITH(CK_NOFORK, "ipc_backpressure", "backpressure", 60,
                                stalled_consumer_stalls_nobody);
}
