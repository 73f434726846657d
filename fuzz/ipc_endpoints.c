/*
 * The IPC transport's endpoints for the ipc_api fuzz target (bit 6 of its
 * first byte): a producer listening on an address, consumers connecting to
 * it (on a thread, since connect waits for the HELLO the producer's poll
 * sends), the consumer limit, the event callback, a disconnect, the address
 * rules and the calls' NULL arguments (specs/ipc.md IPC-CRED-1..3,
 * IPC-REL-3, IPC-ERR-1). `how` varies the limit and the address kind.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hurray/ipc.h"

FUZZ_ORACLE_BEGIN

void ipc_endpoints_round(uint8_t how);

typedef struct connecting {
  const char *address;
  hurray_ipc_consumer *consumer;
  hurray_status status;
} connecting;

static void *connect_thread(void *arg) {
  connecting *c = arg;
  hurray_ipc_consumer_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.connect_timeout_ms = 5000;
  hurray_error err;
  c->status = hurray_ipc_consumer_connect(c->address, &opts, &c->consumer, &err);
  return NULL;
}

typedef struct events {
  unsigned connected, refused, gone, other;
} events;

static void on_event(const hurray_ipc_event *event, void *ctx) {
  events *e = ctx;
  FUZZ_CHECK(event->struct_size == sizeof *event);
  switch (event->kind) {
    case HURRAY_IPC_EVENT_CONNECTED: e->connected++; break;
    case HURRAY_IPC_EVENT_REFUSED: e->refused++; break;
    case HURRAY_IPC_EVENT_GONE: e->gone++; break;
    default: e->other++; break;
  }
}

/* One consumer connects while the producer polls; its outcome. */
static connecting connect_one(hurray_ipc_producer *p, const char *address) {
  connecting c = {address, NULL, HURRAY_OK};
  pthread_t thread;
  FUZZ_CHECK(pthread_create(&thread, NULL, connect_thread, &c) == 0);
  hurray_error err;
  /* Until the connection was admitted or refused: the thread's connect
   * returns once the producer has answered. */
  for (int i = 0; i < 2000; i++) {
    (void)!hurray_ipc_producer_poll(p, 1, &err);
    if (pthread_tryjoin_np(thread, NULL) == 0) {
      return c;
    }
  }
  FUZZ_CHECK(pthread_join(thread, NULL) == 0);
  return c;
}

void ipc_endpoints_round(uint8_t how) {
  static unsigned serial;
  char address[108];
  char path_address[108];
  snprintf(address, sizeof address, "@hurray-fuzz-%ld-%u", (long)getpid(), serial);
  snprintf(path_address, sizeof path_address, "/tmp/hurray-fuzz-%ld-%u.sock", (long)getpid(),
           serial++);
  const char *where = (how & 0x80u) != 0u ? path_address : address;
  events seen = {0, 0, 0, 0};
  hurray_ipc_producer_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.on_event = on_event;
  opts.event_ctx = &seen;
  opts.max_consumers = 1; /* a second consumer is refused (CONSUMER_LIMIT) */
  hurray_error err;
  hurray_ipc_producer *p = NULL;
  FUZZ_CHECK(hurray_ipc_producer_listen(where, &opts, &p, &err) == HURRAY_OK);
  hurray_ipc_producer *twin = NULL;
  FUZZ_CHECK(hurray_ipc_producer_listen(where, NULL, &twin, &err) == HURRAY_ERR_IO &&
             twin == NULL); /* the address is taken */
  connecting first = connect_one(p, where);
  FUZZ_CHECK(first.status == HURRAY_OK && first.consumer != NULL && seen.connected == 1u);
  uint64_t id = 0;
  FUZZ_CHECK(hurray_ipc_producer_next_consumer(p, 0, &id, &err) == HURRAY_OK);
  FUZZ_CHECK(hurray_ipc_producer_next_consumer(p, 0, &id, &err) == HURRAY_ERR_TIMEOUT);
  FUZZ_CHECK(hurray_ipc_consumer_producer_pid(first.consumer) == (int32_t)getpid());
  connecting second = connect_one(p, where);
  FUZZ_CHECK(second.status == HURRAY_ERR_IPC_REFUSED && second.consumer == NULL);
  FUZZ_CHECK(seen.refused == 1u);
  if ((how & 0x01u) != 0u) {
    FUZZ_CHECK(hurray_ipc_producer_disconnect(p, id, &err) == HURRAY_OK);
    FUZZ_CHECK(seen.gone == 1u);
    hurray_ipc_received *r = NULL;
    FUZZ_CHECK(hurray_ipc_consumer_receive(first.consumer, 100, &r, &err) != HURRAY_OK &&
               r == NULL);
    FUZZ_CHECK(hurray_ipc_producer_disconnect(p, id, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  } else {
    hurray_ipc_consumer_destroy(&first.consumer);
    (void)!hurray_ipc_producer_poll(p, 100, &err); /* the hang-up */
    FUZZ_CHECK(seen.gone == 1u);
  }
  hurray_ipc_consumer_destroy(&first.consumer);
  hurray_ipc_producer_destroy(&p);
  FUZZ_CHECK(access(path_address, F_OK) != 0); /* a path producer removes its file */
  /* Addresses and arguments refused before anything is opened (IPC-ERR-1). */
  char long_address[200];
  memset(long_address, 'a', sizeof long_address - 1u);
  long_address[sizeof long_address - 1u] = '\0';
  FUZZ_CHECK(hurray_ipc_producer_listen(long_address, NULL, &p, &err) ==
             HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_listen("", NULL, &p, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_listen(NULL, NULL, &p, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_listen(address, NULL, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_consumer *c = NULL;
  FUZZ_CHECK(hurray_ipc_consumer_connect(address, NULL, &c, &err) == HURRAY_ERR_IO && c == NULL);
  FUZZ_CHECK(hurray_ipc_consumer_connect(address, NULL, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_consumer_from_socket(-1, NULL, &c, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_from_socket(-1, NULL, &p, NULL, &err) ==
             HURRAY_ERR_INVALID_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_poll(NULL, 0, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_producer_next_consumer(NULL, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_consumer_receive(NULL, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_ipc_consumer_set_plugins(NULL, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_ipc_producer_options small;
  memset(&small, 0, sizeof small);
  small.struct_size = 4;
  FUZZ_CHECK(hurray_ipc_producer_listen(address, &small, &p, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  small.struct_size = sizeof small;
  small.allowed_uid_count = 2; /* and no list */
  FUZZ_CHECK(hurray_ipc_producer_listen(address, &small, &p, &err) == HURRAY_ERR_NULL_ARGUMENT);
}

FUZZ_ORACLE_END
