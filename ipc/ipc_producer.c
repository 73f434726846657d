/*
 * The producer side of the IPC transport: listening, credentials, offers,
 * the consumers' holds, reclaiming a dead consumer's holds (specs/ipc.md
 * IPC-CHAN-*, IPC-CRED-*, IPC-OFF-1, IPC-REL-*, IPC-FLT-1, IPC-ERR-*,
 * IPC-FLOW-1). The buffers it shares, and their reference counts, are
 * ipc_share.c's (IPC-OFF-3, IPC-OFF-4).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hurray/plugin_support.h"

#include "ipc_common.h"
#include "ipc_producer_state.h"

#define DEFAULT_MAX_CONSUMERS 64u

static void emit(hurray_ipc_producer *p, uint32_t kind, const ipc_conn *c, uint64_t offer_id,
                 uint32_t buffer_index, uint32_t status, uint64_t value, uint64_t expected,
                 uint64_t index) {
  if (p->on_event == NULL) {
    return;
  }
  hurray_ipc_event ev;
  memset(&ev, 0, sizeof ev);
  ev.struct_size = (uint32_t)sizeof ev;
  ev.kind = kind;
  if (c != NULL) {
    ev.consumer_id = c->id;
    ev.pid = c->pid;
    ev.uid = c->uid;
  }
  ev.offer_id = offer_id;
  ev.buffer_index = buffer_index;
  ev.status = status;
  ev.value = value;
  ev.expected = expected;
  ev.index = index;
  p->on_event(&ev, p->event_ctx);
}

/* Which of a consumer's holds drop_holds removes. The scope is the
 * producer's own word, never a wire value: every offer_id and buffer index
 * a consumer sends names that offer and that buffer only, 2^64-1 and
 * 2^32-1 included (IPC-REL-1). */
typedef enum {
  HOLDS_OF_CONSUMER, /* all of them: the consumer is gone (IPC-FLT-1) */
  HOLDS_OF_OFFER,    /* every buffer of one offer: REJECT (IPC-REL-1) */
  HOLD_OF_BUFFER,    /* one buffer of one offer: RELEASE (IPC-REL-1) */
} hold_scope;

static int hold_in_scope(const ipc_hold *h, const ipc_conn *c, hold_scope scope, uint64_t offer_id,
                         uint32_t index) {
  if (h->consumer_id != c->id) {
    return 0;
  }
  switch (scope) {
    case HOLDS_OF_CONSUMER: return 1;
    case HOLDS_OF_OFFER: return h->offer_id == offer_id;
    case HOLD_OF_BUFFER: return h->offer_id == offer_id && h->buffer_index == index;
  }
  return 0;
}

/* Removes the consumer's holds in scope and returns how many were dropped
 * (IPC-REL-1, IPC-FLT-1). */
static uint64_t drop_holds(hurray_ipc_producer *p, const ipc_conn *c, hold_scope scope,
                           uint64_t offer_id, uint32_t index, int report_each) {
  uint64_t dropped = 0;
  ipc_hold **pp = &p->holds;
  while (*pp != NULL) {
    ipc_hold *h = *pp;
    if (hold_in_scope(h, c, scope, offer_id, index)) {
      *pp = h->next;
      struct hurray_ipc_shared *s = h->buffer;
      uint64_t oid = h->offer_id;
      uint32_t bi = h->buffer_index;
      free(h);
      dropped++;
      if (report_each) {
        emit(p, HURRAY_IPC_EVENT_RELEASED, c, oid, bi, 0, 0, 0, 0);
      }
      hurray_internal_ipc_shared_unref(s);
    } else {
      pp = &h->next;
    }
  }
  return dropped;
}

/* The consumer is gone (hang-up, death, protocol error, disconnect): its
 * holds are reclaimed exactly once, because the connection is marked dead
 * and never looked at again (IPC-FLT-1). */
static void conn_gone(hurray_ipc_producer *p, ipc_conn *c) {
  if (c->dead) {
    return;
  }
  c->dead = 1;
  close(c->fd);
  c->fd = -1;
  uint64_t reclaimed = drop_holds(p, c, HOLDS_OF_CONSUMER, 0, 0, 0);
  emit(p, HURRAY_IPC_EVENT_GONE, c, 0, 0, 0, reclaimed, 0, 0);
}

static void sweep_dead(hurray_ipc_producer *p) {
  ipc_conn **pp = &p->conns;
  while (*pp != NULL) {
    ipc_conn *c = *pp;
    if (c->dead) {
      *pp = c->next;
      p->conn_count--;
      free(c);
    } else {
      pp = &c->next;
    }
  }
}

static void send_refuse(int fd, uint32_t reason, uint64_t value) {
  uint8_t msg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_REFUSE_BODY_SIZE];
  size_t n = hurray_ipc_encode_refuse(msg, sizeof msg, reason, value);
  (void)hurray_internal_ipc_send_now(fd, msg, n, NULL, 0, NULL);
}

/* IPC-CRED-1, IPC-CRED-2: admits or refuses a new connection; takes fd. */
static hurray_status admit(hurray_ipc_producer *p, int fd, ipc_conn **out, hurray_error *err) {
  struct ucred cred;
  hurray_status st = hurray_internal_ipc_peer_cred(fd, &cred, err);
  if (st != HURRAY_OK) {
    return st;
  }
  ipc_conn probe = {NULL, fd, 0, 0, 0, (int32_t)cred.pid, (uint32_t)cred.uid};
  if (!hurray_internal_ipc_uid_allowed((uint32_t)cred.uid, p->allowed_uids, p->allowed_uid_count)) {
    send_refuse(fd, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED, (uint32_t)cred.uid);
    close(fd);
    emit(p, HURRAY_IPC_EVENT_REFUSED, &probe, 0, 0, HURRAY_ERR_IPC_REFUSED,
         HURRAY_IPC_REFUSE_UID_NOT_ALLOWED, (uint32_t)cred.uid, 0);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_REFUSED, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED,
                                    (uint32_t)cred.uid, 0);
  }
  if (p->conn_count >= p->max_consumers) {
    send_refuse(fd, HURRAY_IPC_REFUSE_CONSUMER_LIMIT, p->max_consumers);
    close(fd);
    emit(p, HURRAY_IPC_EVENT_REFUSED, &probe, 0, 0, HURRAY_ERR_IPC_REFUSED,
         HURRAY_IPC_REFUSE_CONSUMER_LIMIT, p->max_consumers, 0);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_REFUSED, HURRAY_IPC_REFUSE_CONSUMER_LIMIT,
                                    (uint32_t)cred.uid, 0);
  }
  ipc_conn *c = calloc(1, sizeof *c);
  if (c == NULL) {
    close(fd);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *c, 0, 0);
  }
  *c = probe;
  c->id = ++p->next_consumer_id;
  uint8_t hello[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_HELLO_BODY_SIZE];
  size_t n = hurray_ipc_encode_hello(hello, sizeof hello, (uint32_t)getpid(), (uint32_t)geteuid(),
                                     HURRAY_IPC_MAX_FDS);
  st = hurray_internal_ipc_send_now(fd, hello, n, NULL, 0, err);
  if (st != HURRAY_OK) {
    close(fd);
    free(c);
    return st;
  }
  c->next = p->conns;
  p->conns = c;
  p->conn_count++;
  emit(p, HURRAY_IPC_EVENT_CONNECTED, c, 0, 0, 0, 0, 0, 0);
  if (out != NULL) {
    *out = c;
  }
  return HURRAY_OK;
}

static hurray_status producer_new(const hurray_ipc_producer_options *opts,
                                  hurray_ipc_producer **out, hurray_error *err) {
  hurray_ipc_producer *p = calloc(1, sizeof *p);
  if (p == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *p, 0, 0);
  }
  p->listen_fd = -1;
  p->max_consumers = DEFAULT_MAX_CONSUMERS;
  if (opts != NULL) {
    if (opts->struct_size < offsetof(hurray_ipc_producer_options, reserved)) {
      free(p);
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, opts->struct_size,
                                      sizeof(hurray_ipc_producer_options), 1);
    }
    if (opts->allowed_uid_count > 0u) {
      if (opts->allowed_uids == NULL) {
        free(p);
        return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
      }
      p->allowed_uids = calloc(opts->allowed_uid_count, sizeof(uint32_t));
      if (p->allowed_uids == NULL) {
        free(p);
        return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, opts->allowed_uid_count * 4u,
                                        0, 0);
      }
      memcpy(p->allowed_uids, opts->allowed_uids, opts->allowed_uid_count * sizeof(uint32_t));
      p->allowed_uid_count = opts->allowed_uid_count;
    }
    p->on_event = opts->on_event;
    p->event_ctx = opts->event_ctx;
    if (opts->max_consumers != 0u) {
      p->max_consumers = opts->max_consumers;
    }
  }
  *out = p;
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_listen(const char *address,
                                         const hurray_ipc_producer_options *opts,
                                         hurray_ipc_producer **out, hurray_error *err) {
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  struct sockaddr_un sa;
  unsigned sa_len = 0;
  hurray_ipc_producer *p = NULL;
  hurray_status st = hurray_internal_ipc_address(address, &sa, &sa_len, err);
  if (st == HURRAY_OK) {
    st = producer_new(opts, &p, err);
  }
  if (st != HURRAY_OK) {
    return st;
  }
  int fd = -1;
  st = hurray_internal_ipc_socket_at(&sa, sa_len, 1, &fd, err);
  if (st != HURRAY_OK) {
    hurray_ipc_producer_destroy(&p);
    return st;
  }
  p->listen_fd = fd;
  if (address[0] != '@') {
    memcpy(p->path, address, strlen(address) + 1u);
  }
  *out = p;
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_from_socket(int fd, const hurray_ipc_producer_options *opts,
                                              hurray_ipc_producer **out, uint64_t *out_consumer_id,
                                              hurray_error *err) {
  hurray_status st = hurray_internal_ipc_adopt_checks(fd, out, err);
  if (st != HURRAY_OK) {
    return st;
  }
  hurray_ipc_producer *p = NULL;
  st = producer_new(opts, &p, err);
  if (st != HURRAY_OK) {
    close(fd);
    return st;
  }
  ipc_conn *c = NULL;
  st = admit(p, fd, &c, err);
  if (st != HURRAY_OK) {
    hurray_ipc_producer_destroy(&p);
    return st;
  }
  if (out_consumer_id != NULL) {
    *out_consumer_id = c->id;
    c->announced = 1;
  }
  *out = p;
  return HURRAY_OK;
}

/* One message from consumer c (IPC-REL-1, IPC-ERR-2). */
static void handle_message(hurray_ipc_producer *p, ipc_conn *c, const uint8_t *buf, size_t len,
                           int *fds, size_t nfds) {
  hurray_ipc_message m;
  hurray_error e;
  memset(&e, 0, sizeof e);
  hurray_status st = hurray_ipc_message_decode(buf, len, nfds, &m, NULL, NULL, 0, &e);
  hurray_internal_ipc_close_fds(fds, nfds); /* a consumer sends no descriptor: never kept */
  if (st == HURRAY_OK && m.type == HURRAY_IPC_MSG_RELEASE) {
    if (drop_holds(p, c, HOLD_OF_BUFFER, m.offer_id, m.buffer_index, 1) == 0u) {
      emit(p, HURRAY_IPC_EVENT_PROTOCOL_ERROR, c, m.offer_id, m.buffer_index,
           HURRAY_ERR_ALREADY_RELEASED, m.offer_id, 0, m.buffer_index);
    }
    return;
  }
  if (st == HURRAY_OK && m.type == HURRAY_IPC_MSG_REJECT) {
    uint64_t dropped = drop_holds(p, c, HOLDS_OF_OFFER, m.offer_id, 0, 0);
    if (dropped == 0u) {
      emit(p, HURRAY_IPC_EVENT_PROTOCOL_ERROR, c, m.offer_id, m.buffer_index,
           HURRAY_ERR_ALREADY_RELEASED, m.offer_id, 0, m.buffer_index);
    } else {
      emit(p, HURRAY_IPC_EVENT_REJECTED, c, m.offer_id, m.buffer_index, m.code, m.value, m.expected,
           m.buffer_index);
    }
    return;
  }
  if (st == HURRAY_OK && m.type == HURRAY_IPC_MSG_REFUSE) {
    emit(p, HURRAY_IPC_EVENT_REFUSED, c, 0, 0, HURRAY_ERR_IPC_REFUSED, m.code, m.value, 0);
    conn_gone(p, c);
    return;
  }
  if (st == HURRAY_OK) {
    /* HELLO or OFFER from a consumer: well formed, but not its to send. */
    e.status = HURRAY_ERR_UNSUPPORTED;
    e.value = m.type;
    e.expected = HURRAY_IPC_MSG_RELEASE;
    e.index = 6;
    st = HURRAY_ERR_UNSUPPORTED;
  }
  emit(p, HURRAY_IPC_EVENT_PROTOCOL_ERROR, c, 0, 0, (uint32_t)st, e.value, e.expected, e.index);
  send_refuse(c->fd, HURRAY_IPC_REFUSE_PROTOCOL_ERROR, (uint64_t)st);
  conn_gone(p, c);
}

static void drain(hurray_ipc_producer *p, ipc_conn *c) {
  uint8_t *buf = p->rx;
  int fds[IPC_RECV_FDS];
  while (!c->dead) {
    size_t len = 0;
    size_t nfds = 0;
    hurray_error e;
    hurray_status st = hurray_internal_ipc_recv(c->fd, MSG_DONTWAIT, buf, &len, fds, &nfds, &e);
    if (st == HURRAY_ERR_TIMEOUT) {
      return; /* nothing more for now */
    }
    if (st != HURRAY_OK) {
      emit(p, HURRAY_IPC_EVENT_PROTOCOL_ERROR, c, 0, 0, (uint32_t)st, e.value, e.expected, e.index);
      send_refuse(c->fd, HURRAY_IPC_REFUSE_PROTOCOL_ERROR, (uint64_t)st);
      conn_gone(p, c);
      return;
    }
    if (len == 0u && nfds == 0u) {
      conn_gone(p, c); /* hang-up: closed, or the process died (IPC-FLT-1) */
      return;
    }
    handle_message(p, c, buf, len, fds, nfds);
  }
}

hurray_status hurray_ipc_producer_poll(hurray_ipc_producer *producer, int timeout_ms,
                                       hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  hurray_ipc_producer *p = producer;
  size_t n = p->conn_count + 1u;
  struct pollfd *pfds = calloc(n, sizeof *pfds);
  ipc_conn **who = calloc(n, sizeof *who);
  if (pfds == NULL || who == NULL) {
    free(pfds);
    free(who);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, n * sizeof *pfds, 0, 0);
  }
  size_t k = 0;
  if (p->listen_fd >= 0) {
    pfds[k].fd = p->listen_fd;
    pfds[k].events = POLLIN;
    who[k++] = NULL;
  }
  for (ipc_conn *c = p->conns; c != NULL; c = c->next) {
    if (!c->dead) {
      pfds[k].fd = c->fd;
      pfds[k].events = POLLIN;
      who[k++] = c;
    }
  }
  int rc;
  do {
    rc = poll(pfds, (nfds_t)k, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    int e = errno;
    free(pfds);
    free(who);
    return hurray_internal_ipc_fail_errno(err, e, "poll");
  }
  for (size_t i = 0; i < k && rc > 0; i++) {
    if (pfds[i].revents == 0) {
      continue;
    }
    if (who[i] == NULL) {
      int fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        (void)admit(p, fd, NULL, NULL);
      }
    } else {
      drain(p, who[i]);
    }
  }
  free(pfds);
  free(who);
  sweep_dead(p);
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_next_consumer(hurray_ipc_producer *producer, int timeout_ms,
                                                uint64_t *consumer_id, hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (consumer_id == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    for (ipc_conn *c = producer->conns; c != NULL; c = c->next) {
      if (!c->dead && !c->announced) {
        c->announced = 1;
        *consumer_id = c->id;
        return HURRAY_OK;
      }
    }
    int wait = timeout_ms;
    if (timeout_ms >= 0) {
      struct timespec t1;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      long spent = (long)(t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L;
      if (spent >= timeout_ms) {
        return hurray_internal_ipc_fail(err, HURRAY_ERR_TIMEOUT, (uint64_t)timeout_ms * 1000000u, 0,
                                        0);
      }
      wait = (int)(timeout_ms - spent);
    }
    hurray_status st = hurray_ipc_producer_poll(producer, wait, err);
    if (st != HURRAY_OK) {
      return st;
    }
  }
}

static ipc_conn *find_conn(hurray_ipc_producer *p, uint64_t id) {
  for (ipc_conn *c = p->conns; c != NULL; c = c->next) {
    if (c->id == id && !c->dead) {
      return c;
    }
  }
  return NULL;
}

hurray_status hurray_ipc_producer_offer(hurray_ipc_producer *producer, uint64_t consumer_id,
                                        hurray_ipc_shared *const *buffers, size_t count,
                                        uint32_t ipc_capabilities, uint64_t *offer_id,
                                        hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (buffers == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (count == 0u) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 1, 0);
  }
  if (count > HURRAY_IPC_MAX_FDS) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_CAPACITY, count, HURRAY_IPC_MAX_FDS, 0);
  }
  ipc_conn *c = find_conn(producer, consumer_id);
  if (c == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, consumer_id, 0, 1);
  }
  hurray_buffer_handle handles[HURRAY_IPC_MAX_FDS];
  hurray_ipc_segment segments[HURRAY_IPC_MAX_FDS];
  int fds[HURRAY_IPC_MAX_FDS];
  size_t nfds = 0;
  for (size_t i = 0; i < count; i++) {
    if (buffers[i] == NULL || buffers[i]->producer != producer || buffers[i]->retired) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, i, 0, 2);
    }
    handles[i] = buffers[i]->handle;
    /* BP-XPORT-3 for IPC with the device's capabilities (IPC-OFF-1). */
    hurray_status st = hurray_transport_check_sync_mode(HURRAY_TRANSPORT_IPC, handles[i].sync_mode,
                                                        ipc_capabilities, err);
    if (st != HURRAY_OK) {
      if (err != NULL) {
        err->index = i;
      }
      return st;
    }
    segments[i].offset = buffers[i]->offset;
    segments[i].memory_kind = buffers[i]->memory_kind;
    segments[i].reserved = 0;
    if (buffers[i]->memory_kind == HURRAY_IPC_MEMORY_HOST_MEMFD) {
      fds[nfds++] = buffers[i]->fd; /* device descriptors go with their DEVICE message */
    }
  }
  hurray_status st = hurray_validate_colocation(handles, count, NULL, err);
  if (st != HURRAY_OK) {
    return st;
  }
  uint64_t id = ++producer->next_offer_id;
  uint8_t msg[HURRAY_IPC_MAX_MESSAGE_SIZE];
  size_t len = hurray_ipc_encode_offer(msg, sizeof msg, id, handles, segments, count);
  if (len == 0u) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, count, 0, 2);
  }
  /* Holds first, so that nothing can release the buffers in between. */
  ipc_hold *added[HURRAY_IPC_MAX_FDS];
  for (size_t i = 0; i < count; i++) {
    added[i] = calloc(1, sizeof(ipc_hold));
    if (added[i] == NULL) {
      for (size_t j = 0; j < i; j++) {
        free(added[j]);
      }
      return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof(ipc_hold), 0, 0);
    }
  }
  /* IPC-OFF-3: each device buffer's DEVICE message, in buffer order, then the OFFER. */
  size_t sent = 0;
  st = HURRAY_OK;
  for (size_t i = 0; i < count && st == HURRAY_OK; i++) {
    const struct hurray_ipc_shared *b = buffers[i];
    if (b->memory_kind != HURRAY_IPC_MEMORY_DEVICE) {
      continue;
    }
    uint8_t dmsg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_DEVICE_BODY_SIZE];
    size_t dlen = hurray_ipc_encode_device(
        dmsg, sizeof dmsg, id, (uint32_t)i, b->device.kind, b->device.segment_size,
        b->device.device_uuid, b->device.driver_uuid, b->device.handle,
        b->device.kind == HURRAY_IPC_DEVICE_HANDLE ? b->device.handle_size : 0u);
    if (dlen == 0u) {
      st = hurray_internal_ipc_fail(err, HURRAY_ERR_PLUGIN_INVALID, b->device.handle_size,
                                    HURRAY_IPC_DEVICE_HANDLE_SIZE, i);
      break;
    }
    st = hurray_internal_ipc_send_now(c->fd, dmsg, dlen, b->fd >= 0 ? &b->fd : NULL,
                                      b->fd >= 0 ? 1u : 0u, err);
    sent += st == HURRAY_OK;
    if (st != HURRAY_OK || b->event == NULL) {
      continue;
    }
    /* IPC-OFF-4: the event after its memory. The export's handle_size was
     * checked by the host (1..64, PL-IPC-8), so the encoder takes it. */
    uint8_t emsg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_EVENT_BODY_SIZE];
    size_t elen = hurray_ipc_encode_event(emsg, sizeof emsg, id, (uint32_t)i, b->event_export.kind,
                                          b->event_export.device_uuid, b->event_export.driver_uuid,
                                          b->event_export.handle, b->event_export.handle_size);
    st = hurray_internal_ipc_send_now(c->fd, emsg, elen, NULL, 0, err);
  }
  if (st == HURRAY_OK) {
    st = hurray_internal_ipc_send_now(c->fd, msg, len, fds, nfds, err);
  }
  if (st != HURRAY_OK) {
    for (size_t i = 0; i < count; i++) {
      free(added[i]);
    }
    if (st != HURRAY_ERR_IPC_PEER_GONE && sent > 0u) {
      /* DEVICE messages went out without their OFFER: the consumer could
       * not tell the next offer from a broken one, so the connection ends
       * here, its holds reclaimed (IPC-ERR-1: nothing half-done). */
      shutdown(c->fd, SHUT_RDWR);
      conn_gone(producer, c);
      sweep_dead(producer);
      return st;
    }
    if (st == HURRAY_ERR_TIMEOUT) {
      /* IPC-FLOW-1: nothing of the offer went out; the consumer keeps its
       * connection and holds, and may read and be offered to again. */
      return hurray_support_fail(err, HURRAY_ERR_TIMEOUT, 0, 0, 1,
                                 "consumer %llu (pid %d) is not reading: its socket takes no "
                                 "more messages now; offer %llu not sent",
                                 (unsigned long long)c->id, (int)c->pid, (unsigned long long)id);
    }
    if (st == HURRAY_ERR_IPC_PEER_GONE) {
      if (err != NULL) {
        err->value = (uint64_t)(int64_t)c->pid;
      }
      conn_gone(producer, c);
      sweep_dead(producer);
    }
    return st;
  }
  for (size_t i = 0; i < count; i++) {
    ipc_hold *h = added[i];
    h->consumer_id = c->id;
    h->offer_id = id;
    h->buffer_index = (uint32_t)i;
    h->pid = c->pid;
    h->buffer = buffers[i];
    buffers[i]->refs++;
    h->next = producer->holds;
    producer->holds = h;
  }
  if (offer_id != NULL) {
    *offer_id = id;
  }
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_holds(const hurray_ipc_producer *producer, hurray_ipc_hold *out,
                                        size_t cap, size_t *count, hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (count == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3);
  }
  if (cap > 0u && out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  size_t n = 0;
  for (const ipc_hold *h = producer->holds; h != NULL; h = h->next) {
    if (n < cap) {
      out[n].consumer_id = h->consumer_id;
      out[n].offer_id = h->offer_id;
      out[n].pid = h->pid;
      out[n].buffer_index = h->buffer_index;
      out[n].buffer = h->buffer;
    }
    n++;
  }
  *count = n;
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_disconnect(hurray_ipc_producer *producer, uint64_t consumer_id,
                                             hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  ipc_conn *c = find_conn(producer, consumer_id);
  if (c == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, consumer_id, 0, 1);
  }
  send_refuse(c->fd, HURRAY_IPC_REFUSE_SHUTDOWN, 0);
  conn_gone(producer, c);
  sweep_dead(producer);
  return HURRAY_OK;
}

void hurray_ipc_producer_destroy(hurray_ipc_producer **producer) {
  if (producer == NULL || *producer == NULL) {
    return;
  }
  hurray_ipc_producer *p = *producer;
  *producer = NULL;
  for (ipc_conn *c = p->conns; c != NULL; c = c->next) {
    if (!c->dead) {
      send_refuse(c->fd, HURRAY_IPC_REFUSE_SHUTDOWN, 0);
      conn_gone(p, c);
    }
  }
  sweep_dead(p);
  while (p->shared != NULL) {
    struct hurray_ipc_shared *s = p->shared;
    /* no holds are left: retiring drops the last reference */
    s->retired = 1;
    s->refs = 1;
    hurray_internal_ipc_shared_unref(s);
  }
  if (p->listen_fd >= 0) {
    close(p->listen_fd);
    if (p->path[0] != '\0') {
      unlink(p->path);
    }
  }
  free(p->allowed_uids);
  free(p);
}
