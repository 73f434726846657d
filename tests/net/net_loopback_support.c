/*
 * The two well-behaved sides of test_net's loopback connections
 * (net_loopback_support.h): the sender's thread, the receiving side, the
 * byte patterns and the release counting.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include "net_loopback_support.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *transport(void) {
  const char *t = getenv("HURRAY_NET_TEST_TRANSPORT");
  return t != NULL ? t : "default";
}

int shm_run(void) { return strcmp(transport(), "shm") == 0; }

/* Over shared memory both sides must allow it (NET-CONN-5). */
const hurray_net_options *test_opts(void) {
  static hurray_net_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = (uint32_t)sizeof o;
  o.flags = shm_run() ? HURRAY_NET_OPTION_SHARED_MEMORY : 0u;
  return &o;
}

uint8_t pattern(uint64_t seed, uint64_t i) { return (uint8_t)((i * 131u + seed * 7u) & 0xFFu); }

void *aligned_pattern(size_t size, uint64_t seed) {
  void *p = NULL;
  ck_assert_int_eq(posix_memalign(&p, 4096, size), 0);
  uint8_t *b = p;
  for (size_t i = 0; i < size; i++) {
    b[i] = pattern(seed, i);
  }
  return p;
}

void count_release(void *buffer, void *ctx) {
  release_ref *r = ctx;
  atomic_fetch_add(&r->log->calls[r->index], 1);
  if (r->free_it) {
    free(buffer);
  }
}

int64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
      src[i] = (hurray_net_source){
          (uint32_t)sizeof(hurray_net_source), 0,
          s->sizes[i] == 0u ? NULL : aligned_pattern((size_t)s->sizes[i], s->seed + i),
          count_release, &s->refs[i]};
    }
    uint8_t table[HURRAY_NET_MAX_MESSAGE_SIZE];
    size_t written = 0;
    hurray_status enc =
        hurray_buffer_table_encode(h, s->count, table, sizeof table, &written, &err);
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

void sender_start(sender *s) {
  ck_assert_int_eq(pthread_create(&s->thread, NULL, sender_main, s), 0);
}

void sender_join(sender *s) {
  atomic_store(&s->done, 1);
  ck_assert_int_eq(pthread_join(s->thread, NULL), 0);
}

void receiver_start(receiver *r) {
  hurray_error err;
  ck_assert_int_eq(hurray_net_context_create(&r->ctx, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_net_listen(r->ctx, "127.0.0.1", 0, &r->listener, &err), HURRAY_OK);
  r->port = hurray_net_listener_port(r->listener);
  ck_assert_uint_ne(r->port, 0);
}

hurray_net_connection *start_loopback(receiver *r, sender *s, const hurray_net_options *opts) {
  receiver_start(r);
  s->port = r->port;
  sender_start(s);
  hurray_net_connection *conn = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_net_accept(r->listener, opts, 10000, &conn, &err), HURRAY_OK);
  return conn;
}

hurray_net_connection *connect_to_receiver(const receiver *r, hurray_net_context **ctx) {
  hurray_error err;
  ck_assert_int_eq(hurray_net_context_create(ctx, &err), HURRAY_OK);
  hurray_net_connection *c = NULL;
  ck_assert_int_eq(hurray_net_connect(*ctx, "127.0.0.1", r->port, test_opts(), &c, &err),
                   HURRAY_OK);
  return c;
}

hurray_net_connection *accept_in_this_thread(const receiver *r, hurray_net_connection *c,
                                             const hurray_net_options *opts, int turn_ms) {
  hurray_error err;
  hurray_net_connection *conn = NULL;
  hurray_status st = HURRAY_ERR_TIMEOUT;
  for (int i = 0; i < 200 && st == HURRAY_ERR_TIMEOUT; i++) {
    hurray_net_received *none = NULL;
    ck_assert_int_eq(hurray_net_receive(c, turn_ms, &none, &err), HURRAY_ERR_TIMEOUT);
    st = hurray_net_accept(r->listener, opts, turn_ms, &conn, &err);
  }
  ck_assert_int_eq(st, HURRAY_OK);
  return conn;
}

void receiver_stop(receiver *r) {
  hurray_net_listener_destroy(&r->listener);
  ck_assert_ptr_null(r->listener);
  hurray_net_context_destroy(&r->ctx);
}

void check_pattern(const hurray_accepted_buffer *b, uint64_t seed) {
  const uint8_t *bytes = b->data;
  for (uint64_t i = 0; i < b->handle.byte_size; i++) {
    if (bytes[i] != pattern(seed, i)) {
      ck_abort_msg("byte %llu of a buffer is 0x%02x, sent 0x%02x", (unsigned long long)i, bytes[i],
                   pattern(seed, i));
    }
  }
}
