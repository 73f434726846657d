/*
 * The two well-behaved sides of test_net's loopback connections: a sender
 * thread with a context of its own, and a receiving side listening on
 * 127.0.0.1; with the byte patterns they send, the release callbacks the
 * sender counts, and the transport set this run was given
 * (HURRAY_NET_TEST_TRANSPORT, set by tests/net/meson.build).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_NET_LOOPBACK_SUPPORT_H
#define HURRAY_TESTS_NET_LOOPBACK_SUPPORT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/net.h"
#include "net_test_support.h"

/* "tcp", "shm" or "default": the transport set of this run. */
const char *transport(void);
int shm_run(void);
/* Both sides' options: shared memory allowed on a shm run. */
const hurray_net_options *test_opts(void);

uint8_t pattern(uint64_t seed, uint64_t i);
/* `size` bytes aligned to 4096, filled with pattern `seed`; free() them. */
void *aligned_pattern(size_t size, uint64_t seed);
/* Fails the test at the first byte of `b` that is not pattern `seed`. */
void check_pattern(const hurray_accepted_buffer *b, uint64_t seed);

/* Release callbacks of a sender, counted per buffer (NET-SEND-3). */
typedef struct release_log {
  atomic_int calls[8];
} release_log;

typedef struct release_ref {
  release_log *log;
  int index;
  int free_it;
} release_ref;

/* A release callback: counts the call in ctx, a release_ref. */
void count_release(void *buffer, void *ctx);

/* Milliseconds of the monotonic clock. */
int64_t ms_now(void);

/* A sender thread with a context of its own. */
typedef struct sender {
  pthread_t thread;
  uint16_t port;
  uint64_t seed;
  size_t count;
  uint64_t sizes[4];
  /* the send's timeout; 0: 20 s */
  int timeout_ms;
  uint8_t sync[4];
  uint8_t device;
  int close_first; /* close right after sending, before the receiver is done */
  hurray_status status;
  hurray_error err;
  uint64_t tensor_id;
  release_log log;
  release_ref refs[4];
  /* set by the main thread once it has what it needs: the sender closes then */
  atomic_int done;
  atomic_int sent;
  /* with send_twice: the status of a second send after the first returned
   * OK, made once the main thread has set receiver_refused (the refusal
   * is then sent and its connection ended) */
  int send_twice;
  atomic_int receiver_refused;
  hurray_status second;
  /* set: the sources are these plugin buffers (NET-SEND-5), sent after the
   * refusals below were tried on the same connection */
  hurray_plugin_buffer *from[4];
  hurray_plugin_buffer *too_small; /* smaller than from[0] */
  hurray_status refused[3];
  hurray_error refused_err[3];
} sender;

void sender_start(sender *s);
/* Lets the sender close, and waits for its thread. */
void sender_join(sender *s);

/* A receiving side: a context and a listener on 127.0.0.1, port 0. */
typedef struct receiver {
  hurray_net_context *ctx;
  hurray_net_listener *listener;
  uint16_t port;
} receiver;

void receiver_start(receiver *r);
void receiver_stop(receiver *r);

/* Starts r, then s connecting to it; returns the connection r accepted from
 * s with opts. */
hurray_net_connection *start_loopback(receiver *r, sender *s, const hurray_net_options *opts);

/* A connection to r from this thread, on a context of its own (*ctx). */
hurray_net_connection *connect_to_receiver(const receiver *r, hurray_net_context **ctx);
/* The connection r accepts (with opts) from c's connect, both sides in
 * this thread: c's worker gets turns of turn_ms, in which it must receive
 * nothing. */
hurray_net_connection *accept_in_this_thread(const receiver *r, hurray_net_connection *c,
                                             const hurray_net_options *opts, int turn_ms);

#endif /* HURRAY_TESTS_NET_LOOPBACK_SUPPORT_H */
