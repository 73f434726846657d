/*
 * The network transport over loopback (specs/network.md). Run once with
 * UCX_TLS=tcp and once with shared-memory transports (tests/net/meson.build
 * sets UCX_TLS and HURRAY_NET_TEST_TRANSPORT). Senders run in threads with
 * contexts of their own; the bad peers of the fault tests are forked
 * children that speak UCX directly, written from the message format of
 * specs/network.md, and a child that _exit()s mid-transfer. Every sender
 * counts its release callbacks; every fault test checks that what the
 * receiver allocated was freed (malloc statistics).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <errno.h>
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "hurray/net.h"
#include "net_test_support.h"

static const char *transport(void) {
  const char *t = getenv("HURRAY_NET_TEST_TRANSPORT");
  return t != NULL ? t : "default";
}

static int shm_run(void) { return strcmp(transport(), "shm") == 0; }

/* Over shared memory both sides must allow it (NET-CONN-5). */
static const hurray_net_options *test_opts(void) {
  static hurray_net_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  o.flags = shm_run() ? HURRAY_NET_OPTION_SHARED_MEMORY : 0u;
  return &o;
}

static uint8_t pattern(uint64_t seed, uint64_t i) { return (uint8_t)((i * 131u + seed * 7u) & 0xFFu); }

static void *aligned_pattern(size_t size, uint64_t seed) {
  void *p = NULL;
  ck_assert_int_eq(posix_memalign(&p, 4096, size), 0);
  uint8_t *b = p;
  for (size_t i = 0; i < size; i++) {
    b[i] = pattern(seed, i);
  }
  return p;
}

/* Release callbacks of a sender, counted per buffer (NET-SEND-3). */
typedef struct release_log {
  atomic_int calls[8];
} release_log;

typedef struct release_ref {
  release_log *log;
  int index;
  int free_it;
} release_ref;

static void count_release(void *buffer, void *ctx) {
  release_ref *r = ctx;
  atomic_fetch_add(&r->log->calls[r->index], 1);
  if (r->free_it) {
    free(buffer);
  }
}

static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static int64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------ */
/* A sender thread with a context of its own                                */
/* ------------------------------------------------------------------------ */

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
  int close_first;  /* close right after sending, before the receiver is done */
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

static void *sender_main(void *arg) {
  sender *s = arg;
  hurray_net_context *ctx = NULL;
  hurray_error err;
  if (hurray_net_context_create(&ctx, &err) != HURRAY_OK) {
    s->status = err.status;
    s->err = err;
    atomic_store(&s->sent, 1);
    return NULL;
  }
  hurray_net_connection *conn = NULL;
  s->status = hurray_net_connect(ctx, "127.0.0.1", s->port, test_opts(), &conn, &s->err);
  if (s->status == HURRAY_OK) {
    hurray_buffer_handle h[4];
    hurray_net_source src[4];
    for (size_t i = 0; i < s->count; i++) {
      h[i] = handle_of(s->sizes[i], s->sizes[i] == 0u ? 1u : 64u, s->device, s->sync[i]);
      s->refs[i] = (release_ref){&s->log, (int)i, 1};
      src[i] = (hurray_net_source){(uint32_t)sizeof(hurray_net_source), 0,
                                   s->sizes[i] == 0u ? NULL
                                                     : aligned_pattern((size_t)s->sizes[i],
                                                                       s->seed + i),
                                   count_release, &s->refs[i]};
    }
    uint8_t table[HURRAY_NET_MAX_MESSAGE_SIZE];
    size_t written = 0;
    hurray_status enc = hurray_buffer_table_encode(h, s->count, table, sizeof table, &written, &err);
    if (enc != HURRAY_OK) {
      /* the tests that want a table the encoder refuses build it by hand */
      written = 1u + 16u * s->count;
      table[0] = (uint8_t)s->count;
      for (size_t i = 0; i < s->count; i++) {
        hurray_buffer_handle_encode(&h[i], table + 1u + 16u * i);
      }
    }
    if (s->from[0] != NULL) {
      /* each refused before anything is copied or sent; the connection stays */
      hurray_plugin_buffer *wrong[4];
      memcpy(wrong, s->from, sizeof wrong);
      s->refused[0] = hurray_net_send_plugin_buffers(conn, table, written, s->from, s->count - 1u,
                                                     20000, NULL, &s->refused_err[0]);
      wrong[1] = NULL;
      s->refused[1] = hurray_net_send_plugin_buffers(conn, table, written, wrong, s->count, 20000,
                                                     NULL, &s->refused_err[1]);
      wrong[1] = s->from[1];
      wrong[0] = s->too_small;
      s->refused[2] = hurray_net_send_plugin_buffers(conn, table, written, wrong, s->count, 20000,
                                                     NULL, &s->refused_err[2]);
      for (size_t i = 0; i < s->count; i++) {
        src[i].release((void *)(uintptr_t)src[i].data, src[i].release_ctx); /* unused */
      }
      s->status = hurray_net_send_plugin_buffers(conn, table, written, s->from, s->count,
                                                 s->timeout_ms != 0 ? s->timeout_ms : 20000,
                                                 &s->tensor_id, &s->err);
    } else {
      s->status = hurray_net_send(conn, table, written, src, s->count,
                                  s->timeout_ms != 0 ? s->timeout_ms : 20000, &s->tensor_id,
                                  &s->err);
    }
    if (s->send_twice && s->status == HURRAY_OK) {
      /* Until the receiver has refused and ended the connection: a fixed
       * sleep here lost that race on a loaded machine. */
      int64_t refused_by = ms_now() + 30000;
      while (!atomic_load(&s->receiver_refused) && ms_now() < refused_by) {
        usleep(1000);
      }
      s->refs[1] = (release_ref){&s->log, 1, 1};
      hurray_net_source again = src[0];
      /* the declared size, so the bytes are valid whether or not the
       * refusal reaches this send before its buffer is posted */
      again.data = aligned_pattern((size_t)s->sizes[0], s->seed);
      again.release_ctx = &s->refs[1];
      hurray_error e2;
      s->second = hurray_net_send(conn, table, written, &again, 1, 20000, NULL, &e2);
    }
    atomic_store(&s->sent, 1);
    if (!s->close_first) {
      int64_t until = ms_now() + 30000;
      while (!atomic_load(&s->done) && ms_now() < until) {
        usleep(1000);
      }
    }
    hurray_net_close(&conn);
  } else {
    atomic_store(&s->sent, 1);
  }
  hurray_net_context_destroy(&ctx);
  return NULL;
}

static void sender_start(sender *s) {
  ck_assert_int_eq(pthread_create(&s->thread, NULL, sender_main, s), 0);
}

static void sender_join(sender *s) {
  atomic_store(&s->done, 1);
  ck_assert_int_eq(pthread_join(s->thread, NULL), 0);
}

/* A receiving side: a context and a listener on 127.0.0.1, port 0. */
typedef struct receiver {
  hurray_net_context *ctx;
  hurray_net_listener *listener;
  uint16_t port;
} receiver;

static void receiver_start(receiver *r) {
  hurray_error err;
  ck_assert_int_eq(hurray_net_context_create(&r->ctx, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_net_listen(r->ctx, "127.0.0.1", 0, &r->listener, &err), HURRAY_OK);
  r->port = hurray_net_listener_port(r->listener);
  ck_assert_uint_ne(r->port, 0);
}

static void receiver_stop(receiver *r) {
  hurray_net_listener_destroy(&r->listener);
  ck_assert_ptr_null(r->listener);
  hurray_net_context_destroy(&r->ctx);
}

static void check_pattern(const hurray_accepted_buffer *b, uint64_t seed) {
  const uint8_t *bytes = b->data;
  for (uint64_t i = 0; i < b->handle.byte_size; i++) {
    if (bytes[i] != pattern(seed, i)) {
      ck_abort_msg("byte %llu of a buffer is 0x%02x, sent 0x%02x", (unsigned long long)i,
                   bytes[i], pattern(seed, i));
    }
  }
}

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

START_TEST(loopback_tensor) {  // NET-CONN-1, NET-CONN-4, NET-CONN-5, NET-SEND-2, NET-SEND-3, NET-TAG-2, NET-RECV-3..5, NET-LIM-1, BP-OWN-4, BP-XPORT-4
  receiver rv = {0};
  receiver_start(&rv);
  sender s = {0};
  s.port = rv.port;
  s.seed = 3;
  s.count = 3;
  s.sizes[0] = 1u << 20; /* rendezvous */
  s.sizes[1] = 4096;     /* eager */
  s.sizes[2] = 0;        /* empty: no message */
  sender_start(&s);
  hurray_error err;
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn, &err), HURRAY_OK);
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
  ck_assert_int_eq(st, HURRAY_ERR_IPC_PEER_GONE);
  ck_assert_int_eq(hurray_net_connection_broken(conn), HURRAY_TRUE);
  sender_join(&s);
  hurray_net_close(&conn);
  ck_assert_ptr_null(conn);
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

START_TEST(landing_memory_reused) {  // NET-RECV-9, NET-RECV-4, NET-RECV-5
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

  /* Tensor 0 lands in new memory; its release keeps the memory. */
  hurray_net_received *r = NULL;
  const void *first = receive_next(&s, conn, &r, 0)->data;
  ck_assert_uint_eq(hurray_net_connection_kept_bytes(conn), 0);
  hurray_net_received_free(&r);
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
  ck_assert_int_eq(hurray_net_connection_set_reuse_bytes(conn, HURRAY_NET_DEFAULT_REUSE_BYTES,
                                                         &err), HURRAY_OK);
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

START_TEST(receiver_closes_first) {  // NET-CONN-3, NET-SEND-3
  receiver rv = {0};
  receiver_start(&rv);
  hurray_error err;
  /* the sender: this thread; the receiver's side closes at once */
  hurray_net_context *ctx = NULL;
  ck_assert_int_eq(hurray_net_context_create(&ctx, &err), HURRAY_OK);
  hurray_net_connection *c = NULL;
  ck_assert_int_eq(hurray_net_connect(ctx, "127.0.0.1", rv.port, test_opts(), &c, &err), HURRAY_OK);
  hurray_net_connection *conn = NULL;
  /* the two sides share this thread: give the connector's worker turns */
  hurray_status st = HURRAY_ERR_TIMEOUT;
  for (int i = 0; i < 200 && st == HURRAY_ERR_TIMEOUT; i++) {
    hurray_net_received *none = NULL;
    ck_assert_int_eq(hurray_net_receive(c, 10, &none, &err), HURRAY_ERR_TIMEOUT);
    st = hurray_net_accept(rv.listener, NULL, 10, &conn, &err);
  }
  ck_assert_int_eq(st, HURRAY_OK);
  hurray_net_close(&conn);
  /* sends fail once the close is seen, each source released once */
  hurray_buffer_handle h = handle_of(1u << 20, 64, 0, 0);
  uint8_t table[32];
  size_t tlen = encode_table(&h, 1, table, sizeof table);
  release_log log = {0};
  st = HURRAY_OK;
  for (int i = 0; i < 100 && st == HURRAY_OK; i++) {
    release_ref ref = {&log, 0, 1};
    hurray_net_source src = {(uint32_t)sizeof src, 0, aligned_pattern(1u << 20, 1), count_release,
                             &ref};
    atomic_store(&log.calls[0], 0);
    st = hurray_net_send(c, table, tlen, &src, 1, 2000, NULL, &err);
    ck_assert_int_eq(atomic_load(&log.calls[0]), 1);
  }
  ck_assert_msg(st == HURRAY_ERR_IPC_PEER_GONE || st == HURRAY_ERR_TIMEOUT,
                "send after the peer closed: %s (%s)", hurray_status_name(st), err.detail);
  ck_assert_int_eq(hurray_net_connection_broken(c), HURRAY_TRUE);
  hurray_net_close(&c);
  hurray_net_context_destroy(&ctx);
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
    ck_assert_msg(st == HURRAY_OK, "connection %d: %s (%s)", i, hurray_status_name(st),
                  err.detail);
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
    ck_assert_int_eq(hurray_net_receive(conn[i], 10000, &r, &err), HURRAY_ERR_IPC_PEER_GONE);
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

START_TEST(sender_refuses_before_sending) {  // NET-SEND-1, NET-SEND-3, NET-RECV-1, BP-XPORT-4
  receiver rv = {0};
  receiver_start(&rv);
  hurray_error err;
  hurray_net_context *ctx = NULL;
  ck_assert_int_eq(hurray_net_context_create(&ctx, &err), HURRAY_OK);
  hurray_net_connection *c = NULL;
  ck_assert_int_eq(hurray_net_connect(ctx, "127.0.0.1", rv.port, test_opts(), &c, &err), HURRAY_OK);
  release_log log = {0};
  release_ref refs[2] = {{&log, 0, 0}, {&log, 1, 0}};
  static uint8_t bytes[2][4096] __attribute__((aligned(64)));
  hurray_net_source src[2] = {
      {(uint32_t)sizeof(hurray_net_source), 0, bytes[0], count_release, &refs[0]},
      {(uint32_t)sizeof(hurray_net_source), 0, bytes[1], count_release, &refs[1]}};
  uint8_t table[64];
  size_t tlen;

  /* an event handle (CUDA, where events exist): refused, naming handle 1 and its mode */
  hurray_buffer_handle ev[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED),
                                handle_of(4096, 64, 0x01, HURRAY_SYNC_EVENT)};
  tlen = encode_table(ev, 2, table, sizeof table);
  ck_assert_int_eq(hurray_net_send(c, table, tlen, src, 2, 1000, NULL, &err),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_uint_eq(err.value, HURRAY_SYNC_EVENT);
  ck_assert_uint_eq(err.expected, HURRAY_TRANSPORT_NETWORK);
  ck_assert_uint_eq(err.index, 1);
  char text[256];
  hurray_error_format(&err, text, sizeof text);
  printf("refused event table: %s\n", text);
  ck_assert_int_eq(atomic_load(&log.calls[0]), 1);
  ck_assert_int_eq(atomic_load(&log.calls[1]), 1);

  /* consumer_stream, at index 0 */
  hurray_buffer_handle cs[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_CONSUMER_STREAM),
                                handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED)};
  tlen = encode_table(cs, 2, table, sizeof table);
  ck_assert_int_eq(hurray_net_send(c, table, tlen, src, 2, 1000, NULL, &err),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_uint_eq(err.value, HURRAY_SYNC_CONSUMER_STREAM);
  ck_assert_uint_eq(err.index, 0);
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
  hurray_net_connection *conn = NULL;
  hurray_status st = HURRAY_ERR_TIMEOUT;
  for (int i = 0; i < 200 && st == HURRAY_ERR_TIMEOUT; i++) {
    hurray_net_received *none = NULL;
    ck_assert_int_eq(hurray_net_receive(c, 5, &none, &err), HURRAY_ERR_TIMEOUT);
    st = hurray_net_accept(rv.listener, test_opts(), 5, &conn, &err);
  }
  ck_assert_int_eq(st, HURRAY_OK);
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

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */
/* ------------------------------------------------------------------------ */

START_TEST(limit_per_tensor) {  // NET-LIM-1, NET-ERR-1, NET-SEND-3, NET-SEND-4, NET-RECV-7
  receiver rv = {0};
  receiver_start(&rv);
  sender s = {0};
  s.port = rv.port;
  s.count = 1;
  s.sizes[0] = 1u << 20;
  s.send_twice = 1;
  sender_start(&s);
  hurray_error err;
  hurray_net_options o = {(uint32_t)sizeof o, 0, 512u << 10, 0};
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, &o, 10000, &conn, &err), HURRAY_OK);
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
  ck_assert_msg(s.status == HURRAY_ERR_CAPACITY || s.status == HURRAY_ERR_IPC_PEER_GONE ||
                    s.status == HURRAY_OK,
                "sender: %s (%s)", hurray_status_name(s.status), s.err.detail);
  /* OK: UCX had finished with the bytes before the refusal (NET-SEND-4);
   * the sender's next send gets the refusal, in s.second */
  if (s.status == HURRAY_OK) {
    ck_assert_msg(s.second == HURRAY_ERR_CAPACITY || s.second == HURRAY_ERR_IPC_PEER_GONE,
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
      hurray_net_source src = {(uint32_t)sizeof src, 0, aligned_pattern(1u << 20, 5),
                               count_release, &refs[i]};
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
  receiver_start(&rv);
  sender s = {0};
  s.port = rv.port;
  s.count = 1;
  s.sizes[0] = 1u << 20; /* rendezvous: it needs the receiver to take it */
  s.timeout_ms = 500;
  s.close_first = 1;
  sender_start(&s);
  hurray_error err;
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn, &err), HURRAY_OK);
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

/* ------------------------------------------------------------------------ */
/* Bad peers: forked children that speak UCX directly                       */
/* ------------------------------------------------------------------------ */

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
  pid_t pid;
  int port_w;
  int hold_w;
  receiver rv;
  hurray_net_connection *conn;
} raw_run;

static void raw_start(raw_run *run, const raw_msg *msgs, size_t n, int die) {
  signal(SIGPIPE, SIG_IGN); /* the hold pipe of a child that died */
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
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 1, &h, 1)};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_CAPACITY, 1ull << 40, HURRAY_NET_DEFAULT_MAX_TENSOR_BYTES, 0);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_unknown_type) {  // NET-MSG-3, NET-MSG-4, NET-ERR-1, NET-RECV-7
  static uint8_t msg[64];
  size_t len = hurray_net_encode_header(msg, sizeof msg, 9, 0);
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, len};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_UNSUPPORTED, 9, 0, 6);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_refuses_while_we_receive) {  // NET-SEND-4, NET-RECV-7
  /* A REFUSE of a tensor this side sent earlier is the receive's result,
   * with the peer's values; before, the receive passed over it. */
  static uint8_t msg[64];
  size_t len = hurray_net_encode_refuse(msg, sizeof msg, 7, HURRAY_ERR_CAPACITY, 2, 5, 4);
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, len};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_CAPACITY, 5, 4, 2);
  raw_finish(&run);
  /* a status this library does not know is not handed on as one of ours */
  len = hurray_net_encode_refuse(msg, sizeof msg, 7, 0xFFFFu, 3, 5, 4);
  raw_msg unknown = {HURRAY_NET_TAG_CONTROL, msg, len};
  raw_start(&run, &unknown, 1, 0);
  expect_refusal(&run, HURRAY_ERR_UNSUPPORTED, 0xFFFFu, HURRAY_STATUS_COUNT, 3);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_truncated_message) {  // NET-MSG-4
  static uint8_t msg[64];
  (void)hurray_net_encode_header(msg, sizeof msg, HURRAY_NET_MSG_TENSOR, 100);
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, 10};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_TRUNCATED, 10, 16, 0);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_oversized_message) {  // NET-MSG-2, NET-RECV-7
  static uint8_t msg[HURRAY_NET_MAX_MESSAGE_SIZE + 1000];
  memset(msg, 0, sizeof msg);
  (void)hurray_net_encode_header(msg, sizeof msg, HURRAY_NET_MSG_TENSOR,
                                 (uint32_t)(sizeof msg - 16u));
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, sizeof msg};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_CAPACITY, 0, HURRAY_NET_MAX_MESSAGE_SIZE, 0);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_event_table) {  // NET-RECV-2, BP-XPORT-4
  hurray_buffer_handle h[2] = {handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED),
                               handle_of(4096, 64, 0x01, HURRAY_SYNC_EVENT)};
  static uint8_t msg[256];
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 1, h, 2)};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, HURRAY_SYNC_EVENT,
                 HURRAY_TRANSPORT_NETWORK, 1);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_device_table) {  // NET-RECV-2
  hurray_buffer_handle h = handle_of(4096, 64, 0x01, HURRAY_SYNC_PRODUCER_SYNCED);
  static uint8_t msg[256];
  raw_msg m = {HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 1, &h, 1)};
  raw_run run;
  raw_start(&run, &m, 1, 0);
  expect_refusal(&run, HURRAY_ERR_DEVICE_UNAVAILABLE, 0x01, HURRAY_DEVICE_CPU, 0);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_short_buffer) {  // NET-RECV-4, NET-ERR-2
  hurray_buffer_handle h[2] = {handle_of(4096, 64, 0, 0), handle_of(4096, 64, 0, 0)};
  static uint8_t msg[256];
  static uint8_t data[8192];
  raw_msg m[3] = {{HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 4, h, 2)},
                  {hurray_net_data_tag(4, 0), data, 4096},
                  {hurray_net_data_tag(4, 1), data, 1000}};
  raw_run run;
  raw_start(&run, m, 3, 0);
  expect_refusal(&run, HURRAY_ERR_TRUNCATED, 1000, 4096, 1);
  raw_finish(&run);
}
END_TEST

START_TEST(bad_peer_long_buffer) {  // NET-RECV-4
  hurray_buffer_handle h = handle_of(4096, 64, 0, 0);
  static uint8_t msg[256];
  static uint8_t data[8192];
  raw_msg m[2] = {{HURRAY_NET_TAG_CONTROL, msg, tensor_msg(msg, sizeof msg, 4, &h, 1)},
                  {hurray_net_data_tag(4, 0), data, 8192}};
  raw_run run;
  raw_start(&run, m, 2, 0);
  expect_refusal(&run, HURRAY_ERR_TRAILING_BYTES, 0, 4096, 0);
  raw_finish(&run);
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
  ck_assert_int_eq(st, HURRAY_ERR_IPC_PEER_GONE);
  ck_assert_uint_eq(err.value, 1);    /* buffers that arrived */
  ck_assert_uint_eq(err.expected, 2); /* buffers declared */
  ck_assert_ptr_null(r);
  ck_assert_uint_lt(heap_in_use(), before + (4u << 20));
  raw_finish(&run);
  free(data);
}
END_TEST

/* The plugin named by HURRAY_NET_TEST_PLUGIN, in a registry of its own. */
static hurray_plugin *load_test_plugin(hurray_plugin_registry **plugins) {
  const char *file = getenv("HURRAY_NET_TEST_PLUGIN");
  hurray_error err;
  hurray_plugin *plugin = NULL;
  ck_assert_int_eq(hurray_plugin_registry_create(plugins, &err), HURRAY_OK);
  ck_assert_msg(hurray_plugin_load(*plugins, file, 0, &plugin, &err) == HURRAY_OK, "load %s: %s",
                file, err.detail);
  return plugin;
}

/* NET-DEV-1, NET-DEV-2: a tensor declared on the device of the plugin
 * named by HURRAY_NET_TEST_PLUGIN (the cuda plugin on its stand-in, in
 * meson), sent from host memory: a receiver without the plugin refuses it
 * (DEVICE_UNAVAILABLE, never placing it elsewhere); one with it places
 * every buffer on that device, with the bytes sent; the release frees it. */
START_TEST(tensor_placed_on_the_declared_device) {
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *plugin = load_test_plugin(&plugins);
  ck_assert_uint_gt(hurray_plugin_device_count(plugin), 0);
  const uint8_t tag = (uint8_t)hurray_plugin_device_tag(plugin);
  for (int placed = 0; placed < 2; placed++) {
    receiver rv = {0};
    receiver_start(&rv);
    sender s = {0};
    s.port = rv.port;
    s.seed = 11;
    s.count = 2;
    s.sizes[0] = 1u << 20;
    s.sizes[1] = 4096;
    s.device = tag;
    sender_start(&s);
    hurray_net_connection *conn = NULL;
    ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn, &err), HURRAY_OK);
    ck_assert_int_eq(hurray_net_connection_set_plugins(conn, placed ? plugins : NULL, &err),
                     HURRAY_OK);
    hurray_net_received *r = NULL;
    hurray_status st = hurray_net_receive(conn, 20000, &r, &err);
    if (!placed) {
      ck_assert_int_eq(st, HURRAY_ERR_DEVICE_UNAVAILABLE);
      ck_assert_uint_eq(err.value, tag);
      ck_assert_uint_eq(err.index, 0);
      ck_assert_ptr_null(r);
      while (!atomic_load(&s.sent)) {
        usleep(1000);
      }
      ck_assert_int_eq(s.status, HURRAY_ERR_DEVICE_UNAVAILABLE); /* the sender learns why */
    } else {
      ck_assert_msg(st == HURRAY_OK, "receive: %s (%s)", hurray_status_name(st), err.detail);
      size_t buffers = 0;
      size_t events = 0;
      (void)hurray_plugin_outstanding(plugin, &buffers, &events);
      ck_assert_uint_eq(buffers, 2); /* on the device, the landing memory gone */
      static uint8_t bytes[1u << 20];
      for (size_t i = 0; i < 2; i++) {
        const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
        hurray_plugin_buffer *pb = hurray_net_received_plugin_buffer(r, i);
        ck_assert_ptr_nonnull(pb);
        ck_assert_uint_eq(b->handle.device_tag, tag);
        ck_assert_ptr_eq(b->data, hurray_plugin_buffer_allocation(pb)->address);
        ck_assert_int_eq(hurray_plugin_buffer_read(pb, 0, bytes, s.sizes[i], &err), HURRAY_OK);
        for (uint64_t k = 0; k < s.sizes[i]; k++) {
          ck_assert_uint_eq(bytes[k], pattern(s.seed + i, k));
        }
      }
      ck_assert_int_eq(hurray_net_received_release(r, 0, &err), HURRAY_OK);
      ck_assert_ptr_null(hurray_net_received_plugin_buffer(r, 0));
      hurray_net_received_free(&r);
      (void)hurray_plugin_outstanding(plugin, &buffers, &events);
      ck_assert_uint_eq(buffers, 0); /* each freed by its release, once */
      while (!atomic_load(&s.sent)) {
        usleep(1000);
      }
      ck_assert_int_eq(s.status, HURRAY_OK);
    }
    for (int i = 0; i < 2; i++) {
      ck_assert_int_eq(atomic_load(&s.log.calls[i]), 1); /* sources released once */
    }
    atomic_store(&s.done, 1);
    sender_join(&s);
    hurray_net_close(&conn);
    receiver_stop(&rv);
  }
  hurray_plugin_registry_destroy(plugins);
}
END_TEST

/* NET-SEND-5: a tensor whose sources are plugin buffers (the plugin named by
 * HURRAY_NET_TEST_PLUGIN), sent to host memory: every byte as the device
 * held it; the plugin buffers untouched and still the sender's; the
 * refusals before anything is sent. */
START_TEST(tensor_sent_from_plugin_buffers) {
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *plugin = load_test_plugin(&plugins);
  receiver rv = {0};
  receiver_start(&rv);
  sender s = {0};
  s.port = rv.port;
  s.seed = 21;
  s.count = 2;
  s.sizes[0] = 1u << 20;
  s.sizes[1] = 4096;
  s.device = HURRAY_DEVICE_CPU; /* the destination: host memory (NET-DEV-1) */
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, s.sizes[i], 64, 0, &s.from[i], &err),
                     HURRAY_OK);
    void *bytes = aligned_pattern((size_t)s.sizes[i], s.seed + i);
    ck_assert_int_eq(hurray_plugin_buffer_write(s.from[i], 0, bytes, s.sizes[i], &err), HURRAY_OK);
    free(bytes);
  }
  ck_assert_int_eq(hurray_plugin_allocate(plugin, 0, 4096, 64, 0, &s.too_small, &err), HURRAY_OK);
  sender_start(&s);
  hurray_net_connection *conn = NULL;
  ck_assert_int_eq(hurray_net_accept(rv.listener, test_opts(), 10000, &conn, &err), HURRAY_OK);
  hurray_net_received *r = NULL;
  hurray_status st = hurray_net_receive(conn, 20000, &r, &err);
  ck_assert_msg(st == HURRAY_OK, "receive: %s (%s)", hurray_status_name(st), err.detail);
  while (!atomic_load(&s.sent)) {
    usleep(1000);
  }
  ck_assert_int_eq(s.refused[0], HURRAY_ERR_INVALID_ARGUMENT); /* 1 buffer, 2 handles */
  ck_assert_uint_eq(s.refused_err[0].value, 1);
  ck_assert_uint_eq(s.refused_err[0].expected, 2);
  ck_assert_int_eq(s.refused[1], HURRAY_ERR_NULL_ARGUMENT); /* buffer 1 missing */
  ck_assert_uint_eq(s.refused_err[1].index, 1);
  ck_assert_uint_eq(s.refused_err[1].expected, 4096);
  ck_assert_int_eq(s.refused[2], HURRAY_ERR_INVALID_ARGUMENT); /* 4096 bytes for 1 MiB */
  ck_assert_uint_eq(s.refused_err[2].index, 0);
  ck_assert_uint_eq(s.refused_err[2].value, 1u << 20);
  ck_assert_uint_eq(s.refused_err[2].expected, 4096);
  ck_assert_int_eq(s.status, HURRAY_OK);
  /* the first tensor on the connection: the refusals sent nothing */
  ck_assert_uint_eq(hurray_net_received_tensor_id(r), 1);
  ck_assert_uint_eq(hurray_net_received_count(r), 2);
  for (size_t i = 0; i < 2; i++) {
    const hurray_accepted_buffer *b = hurray_net_received_buffer(r, i);
    ck_assert_ptr_null(hurray_net_received_plugin_buffer(r, i)); /* landed in host memory */
    check_pattern(b, s.seed + i);
  }
  hurray_net_received_free(&r);
  atomic_store(&s.done, 1);
  sender_join(&s);
  /* the sources are still the sender's, as they were */
  size_t buffers = 0;
  size_t events = 0;
  (void)hurray_plugin_outstanding(plugin, &buffers, &events);
  ck_assert_uint_eq(buffers, 3);
  static uint8_t back[1u << 20];
  ck_assert_int_eq(hurray_plugin_buffer_read(s.from[0], 0, back, sizeof back, &err), HURRAY_OK);
  for (uint64_t k = 0; k < sizeof back; k++) {
    ck_assert_uint_eq(back[k], pattern(s.seed, k));
  }
  for (size_t i = 0; i < 2; i++) {
    hurray_plugin_buffer_free(s.from[i]);
  }
  hurray_plugin_buffer_free(s.too_small);
  hurray_net_close(&conn);
  receiver_stop(&rv);
  hurray_plugin_registry_destroy(plugins);
}
END_TEST

int main(void) {
  Suite *s = suite_create("net");
  TCase *tc = tcase_create("net");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, arguments_refused);
  tcase_add_test(tc, loopback_tensor);
  tcase_add_test(tc, several_connections);
  tcase_add_test(tc, sender_refuses_before_sending);
  tcase_add_test(tc, landing_memory_reused);
  if (shm_run()) {
    /* The fault tests need peer checking, under which UCX 1.13 selects
     * only tcp (NET-CONN-5): over shared memory they would test tcp again. */
    printf("SKIP over shared memory: the close and fault tests (they run in test_net_tcp): "
           "UCX 1.13 selects no shared-memory lane for an endpoint that detects peer failure\n");
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  }
  tcase_add_test(tc, receiver_closes_first);
  tcase_add_test(tc, limit_per_tensor);
  tcase_add_test(tc, limit_per_connection);
  tcase_add_test(tc, sender_times_out);
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
  if (getenv("HURRAY_NET_TEST_PLUGIN") != NULL) {
    tcase_add_test(tc, tensor_placed_on_the_declared_device);
    tcase_add_test(tc, tensor_sent_from_plugin_buffers);
  }
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
