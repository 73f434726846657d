/*
 * The consumer side of the IPC transport: connecting, checking and mapping
 * an offer's segments, handing them out as accepted handoffs whose release
 * unmaps and sends the release signal (specs/ipc.md IPC-CRED-3, IPC-SEG-2..6,
 * IPC-SEG-7, IPC-OFF-3, IPC-OFF-4, IPC-FLT-2, IPC-ERR-*). Device buffers
 * and their events are imported through the consumer's plugin registry.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc_common.h"

#include "../core/runtime/received_names.h"

#define DEFAULT_CONNECT_TIMEOUT_MS 5000

/* The connection, shared by the consumer object and every received offer,
 * so that releases after hurray_ipc_consumer_destroy still reach the
 * producer; closed when the last of them goes. */
typedef struct ipc_link {
  atomic_uint refs;
  int fd;
  int32_t producer_pid;
} ipc_link;

/* A DEVICE or EVENT message kept for the next OFFER (IPC-OFF-3,
 * IPC-OFF-4). The fields are DEVICE's; an EVENT has no segment_size and
 * no descriptor. */
typedef struct ipc_pending {
  /* HURRAY_IPC_MSG_DEVICE or HURRAY_IPC_MSG_EVENT. */
  uint32_t type;
  uint32_t index;
  uint32_t kind;
  uint64_t segment_size;
  uint32_t handle_size;
  /* Kind FD: the descriptor received with it; -1 otherwise. */
  int fd;
  uint8_t device_uuid[16];
  uint8_t driver_uuid[16];
  uint8_t handle[HURRAY_IPC_DEVICE_HANDLE_SIZE];
} ipc_pending;

struct hurray_ipc_consumer {
  ipc_link *link;
  hurray_plugin_registry *plugins;
  /* The offer the kept DEVICE and EVENT messages belong to; at most one
   * of each type per buffer. */
  uint64_t pending_offer;
  size_t pending_count;
  ipc_pending pending[2 * HURRAY_IPC_MAX_FDS];
  uint8_t rx[IPC_RECV_CAP];
};

/* The received offer is the transport-neutral received tensor
 * (specs/inbound.md, core/runtime/received.c); hurray_ipc_received is its
 * old name (RX-OBJ-1), its accessors defined at the end of this file by
 * HURRAY_RECEIVED_DEFINE_NAMES (core/runtime/received_names.h). */

static void link_unref(ipc_link *link) {
  if (atomic_fetch_sub(&link->refs, 1u) == 1u) {
    close(link->fd);
    free(link);
  }
}

/* The IPC part of one buffer's release (RX-REL-2, RX-REL-3): RELEASE to the
 * producer when the consumer released it (IPC-SEG-4), nothing when the
 * offer was never handed out; then the host mapping goes. The unmap comes
 * after the signal: the producer needs nothing from it, and its cost grows
 * with the buffer's page tables. A device import was freed before this. */
static hurray_status release_buffer(void *ctx, uint64_t offer_id, uint32_t index, void *map,
                                    uint64_t map_len, uint32_t how, hurray_error *err) {
  ipc_link *link = ctx;
  hurray_status st = HURRAY_OK;
  if (how == HURRAY_RECEIVED_RELEASE_SIGNAL) {
    uint8_t msg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_RELEASE_BODY_SIZE];
    size_t n = hurray_ipc_encode_release(msg, sizeof msg, offer_id, index);
    if (hurray_internal_ipc_send(link->fd, msg, n, NULL, 0, NULL) != HURRAY_OK) {
      /* IPC-FLT-2: released locally all the same. */
      st = hurray_internal_ipc_fail(err, HURRAY_ERR_PEER_GONE,
                                    (uint64_t)(int64_t)link->producer_pid, 0, index);
    }
  }
  if (map != NULL) {
    munmap(map, (size_t)map_len);
  }
  return st;
}

/* The received offer's end (RX-REL-4): its reference on the connection. */
static void close_link(void *ctx) { link_unref(ctx); }

static void send_refuse(int fd, uint32_t reason, uint64_t value) {
  uint8_t msg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_REFUSE_BODY_SIZE];
  size_t n = hurray_ipc_encode_refuse(msg, sizeof msg, reason, value);
  (void)hurray_internal_ipc_send(fd, msg, n, NULL, 0, NULL);
}

/* IPC-ERR-2: the producer broke the protocol; tell it, stop reading. */
static void protocol_error(ipc_link *link, hurray_status st) {
  send_refuse(link->fd, HURRAY_IPC_REFUSE_PROTOCOL_ERROR, (uint64_t)st);
  shutdown(link->fd, SHUT_RDWR);
}

static hurray_status start(int fd, const hurray_ipc_consumer_options *opts,
                           hurray_ipc_consumer **out, hurray_error *err) {
  int timeout = DEFAULT_CONNECT_TIMEOUT_MS;
  const uint32_t *uids = NULL;
  size_t uid_count = 0;
  if (opts != NULL) {
    if (opts->struct_size < offsetof(hurray_ipc_consumer_options, reserved)) {
      close(fd);
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, opts->struct_size,
                                      sizeof(hurray_ipc_consumer_options), 1);
    }
    if (opts->connect_timeout_ms != 0) {
      timeout = opts->connect_timeout_ms;
    }
    uids = opts->allowed_uids;
    uid_count = opts->allowed_uid_count;
  }
  struct ucred cred;
  hurray_status st = hurray_internal_ipc_peer_cred(fd, &cred, err);
  if (st != HURRAY_OK) {
    return st;
  }
  hurray_ipc_consumer *c = calloc(1, sizeof *c);
  ipc_link *link = calloc(1, sizeof *link);
  if (c == NULL || link == NULL) {
    free(c);
    free(link);
    close(fd);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *c, 0, 0);
  }
  atomic_init(&link->refs, 1u);
  link->fd = fd;
  link->producer_pid = (int32_t)cred.pid;
  c->link = link;
  /* The first message: HELLO, or REFUSE with the reason (IPC-CRED-2). */
  st = hurray_internal_ipc_wait_readable(fd, timeout, err);
  int fds[IPC_RECV_FDS];
  size_t nfds = 0;
  size_t n = 0;
  if (st == HURRAY_OK) {
    st = hurray_internal_ipc_recv(fd, MSG_DONTWAIT, c->rx, &n, fds, &nfds, err);
  }
  if (st == HURRAY_OK && n == 0u && nfds == 0u) {
    st = hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_PEER_GONE, (uint64_t)(int64_t)cred.pid, 0, 0);
  }
  hurray_ipc_message m;
  memset(&m, 0, sizeof m);
  if (st == HURRAY_OK) {
    st = hurray_ipc_message_decode(c->rx, n, nfds, &m, NULL, NULL, 0, err);
    hurray_internal_ipc_close_fds(fds, nfds);
    if (st != HURRAY_OK) {
      protocol_error(link, st);
    } else if (m.type == HURRAY_IPC_MSG_REFUSE) {
      st = hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_REFUSED, m.code, m.value, 0);
    } else if (m.type != HURRAY_IPC_MSG_HELLO) {
      st = hurray_internal_ipc_fail(err, HURRAY_ERR_UNSUPPORTED, m.type, HURRAY_IPC_MSG_HELLO, 6);
      protocol_error(link, st);
    }
  }
  /* IPC-CRED-3, after HELLO was read: closing with unread data would
   * reset the connection before our REFUSE reached the producer. */
  if (st == HURRAY_OK && !hurray_internal_ipc_uid_allowed((uint32_t)cred.uid, uids, uid_count)) {
    send_refuse(fd, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED, (uint32_t)cred.uid);
    st = hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_REFUSED, HURRAY_IPC_REFUSE_UID_NOT_ALLOWED,
                                  (uint32_t)cred.uid, 0);
  }
  if (st != HURRAY_OK) {
    hurray_ipc_consumer_destroy(&c);
    return st;
  }
  /* The pid the producer reports: SO_PEERCRED names the creator of a
   * socketpair, not the process that inherited it. */
  link->producer_pid = (int32_t)m.code;
  *out = c;
  return HURRAY_OK;
}

hurray_status hurray_ipc_consumer_connect(const char *address,
                                          const hurray_ipc_consumer_options *opts,
                                          hurray_ipc_consumer **out, hurray_error *err) {
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  struct sockaddr_un sa;
  unsigned sa_len = 0;
  int fd = -1;
  hurray_status st = hurray_internal_ipc_address(address, &sa, &sa_len, err);
  if (st == HURRAY_OK) {
    st = hurray_internal_ipc_socket_at(&sa, sa_len, 0, &fd, err);
  }
  return st == HURRAY_OK ? start(fd, opts, out, err) : st;
}

hurray_status hurray_ipc_consumer_from_socket(int fd, const hurray_ipc_consumer_options *opts,
                                              hurray_ipc_consumer **out, hurray_error *err) {
  hurray_status st = hurray_internal_ipc_adopt_checks(fd, out, err);
  if (st != HURRAY_OK) {
    return st;
  }
  return start(fd, opts, out, err);
}

/* Closes the descriptors of the messages kept, forgets them. */
static void clear_pending(hurray_ipc_consumer *c) {
  for (size_t i = 0; i < c->pending_count; i++) {
    if (c->pending[i].fd >= 0) {
      close(c->pending[i].fd);
    }
  }
  c->pending_count = 0;
}

/* IPC-OFF-3, IPC-OFF-4: keeps a DEVICE message (and its descriptor) or an
 * EVENT message for the OFFER that follows; one for another offer, or a
 * second of the same type for the same buffer, is a protocol error (the
 * caller closes fd then). */
static hurray_status keep_pending(hurray_ipc_consumer *c, const hurray_ipc_message *m,
                                  const uint8_t *bytes, int fd, hurray_error *err) {
  if (c->pending_count > 0u && m->offer_id != c->pending_offer) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, m->offer_id, c->pending_offer,
                                    m->buffer_index);
  }
  for (size_t i = 0; i < c->pending_count; i++) {
    if (c->pending[i].type == m->type && c->pending[i].index == m->buffer_index) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, m->offer_id, m->offer_id,
                                      m->buffer_index);
    }
  }
  /* Indices are below 253 (IPC-MSG-13, -14) and distinct per type, so
   * there is room. */
  ipc_pending *p = &c->pending[c->pending_count++];
  c->pending_offer = m->offer_id;
  p->type = m->type;
  p->index = m->buffer_index;
  p->kind = m->code;
  p->segment_size = m->value; /* 0 for EVENT (ipc_wire.h) */
  p->handle_size = (uint32_t)m->expected;
  p->fd = fd;
  memcpy(p->device_uuid, bytes + HURRAY_IPC_DEVICE_UUID_OFFSET, sizeof p->device_uuid);
  memcpy(p->driver_uuid, bytes + HURRAY_IPC_DEVICE_DRIVER_UUID_OFFSET, sizeof p->driver_uuid);
  memset(p->handle, 0, sizeof p->handle);
  memcpy(p->handle, bytes + HURRAY_IPC_DEVICE_HANDLE_OFFSET, p->handle_size);
  return HURRAY_OK;
}

/* The kept message of `type` for buffer `index`, or NULL. */
static const ipc_pending *pending_for(const hurray_ipc_consumer *c, uint32_t type, size_t index) {
  for (size_t i = 0; i < c->pending_count; i++) {
    if (c->pending[i].type == type && c->pending[i].index == index) {
      return &c->pending[i];
    }
  }
  return NULL;
}

/* IPC-OFF-3, IPC-OFF-4: the kept messages of `type` are exactly one for
 * each buffer i < n with wanted[i]: a wanted buffer without one, or one
 * left over for a buffer that does not want it, is the error (index: that
 * buffer). */
static hurray_status match_pending(const hurray_ipc_consumer *c, uint32_t type,
                                   const uint8_t *wanted, size_t n, uint64_t offer_id,
                                   hurray_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (wanted[i] && pending_for(c, type, i) == NULL) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer_id, 0, i);
    }
  }
  for (size_t k = 0; k < c->pending_count; k++) {
    const ipc_pending *p = &c->pending[k];
    if (p->type == type && (p->index >= n || !wanted[p->index])) {
      return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, offer_id, 0, p->index);
    }
  }
  return HURRAY_OK;
}

_Static_assert(HURRAY_IPC_DEVICE_HANDLE_SIZE == HURRAY_PLUGIN_IPC_HANDLE_SIZE,
               "a kept message's handle fills the plugin record's");

/* What the plugin's memory and event records take from a kept DEVICE or
 * EVENT message (PL-IPC-3, PL-IPC-9), each record keeping it in fields of
 * its own. */
static void copy_opaque(const ipc_pending *p, uint32_t *kind, uint32_t *handle_size,
                        uint8_t handle[HURRAY_PLUGIN_IPC_HANDLE_SIZE], uint8_t device_uuid[16],
                        uint8_t driver_uuid[16]) {
  *kind = p->kind;
  *handle_size = p->handle_size;
  memcpy(handle, p->handle, sizeof p->handle);
  memcpy(device_uuid, p->device_uuid, sizeof p->device_uuid);
  memcpy(driver_uuid, p->driver_uuid, sizeof p->driver_uuid);
}

/* IPC-SEG-5: imports a device buffer through a plugin of the consumer's
 * registry serving its tag, on the first of its devices that takes it
 * (*out_device: which); the plugin's refusal on device 0 is the error
 * otherwise. */
static hurray_status import_device(const hurray_ipc_consumer *c, const ipc_pending *pd,
                                   const hurray_buffer_handle *h, uint64_t offset, size_t index,
                                   hurray_plugin_buffer **out, uint32_t *out_device,
                                   hurray_error *err) {
  hurray_plugin *plugin =
      c->plugins == NULL ? NULL : hurray_plugin_registry_find(c->plugins, h->device_tag);
  uint32_t devices = plugin == NULL ? 0u : hurray_plugin_device_count(plugin);
  if (devices == 0u) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_DEVICE_UNAVAILABLE, h->device_tag, 0, index);
  }
  hurray_plugin_ipc_memory mem;
  memset(&mem, 0, sizeof mem);
  mem.struct_size = (uint32_t)sizeof mem;
  copy_opaque(pd, &mem.kind, &mem.handle_size, mem.handle, mem.device_uuid, mem.driver_uuid);
  mem.fd = pd->fd;
  mem.segment_size = pd->segment_size;
  mem.offset = offset;
  mem.byte_size = h->byte_size;
  mem.alignment = h->alignment;
  mem.device_tag = h->device_tag;
  mem.memory_class = h->memory_class;
  hurray_error first;
  memset(&first, 0, sizeof first);
  for (uint32_t d = 0; d < devices; d++) {
    hurray_error attempt;
    hurray_status st = hurray_plugin_import(plugin, d, &mem, out, &attempt);
    if (st == HURRAY_OK) {
      *out_device = d;
      return HURRAY_OK;
    }
    if (d == 0u) {
      first = attempt;
    }
  }
  if (err != NULL) {
    *err = first;
    err->index = index;
  }
  return first.status;
}

/* IPC-SEG-7: opens a buffer's event through the plugin and on the device
 * that imported its memory (the plugin's checks and refusals, PL-IPC-9). */
static hurray_status import_event(const hurray_ipc_consumer *c, const ipc_pending *pe,
                                  const hurray_buffer_handle *h, uint32_t device, size_t index,
                                  hurray_plugin_event **out, hurray_error *err) {
  if (pe == NULL) { /* the matching of IPC-OFF-4 rules it out; a refusal, not a crash */
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, index, 0, index);
  }
  hurray_plugin *plugin = hurray_plugin_registry_find(c->plugins, h->device_tag);
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = (uint32_t)sizeof record;
  copy_opaque(pe, &record.kind, &record.handle_size, record.handle, record.device_uuid,
              record.driver_uuid);
  record.device_tag = h->device_tag;
  hurray_status st = hurray_plugin_event_import(plugin, device, &record, out, err);
  if (st != HURRAY_OK && err != NULL) {
    err->index = index;
  }
  return st;
}

hurray_status hurray_ipc_consumer_set_plugins(hurray_ipc_consumer *consumer,
                                              hurray_plugin_registry *plugins, hurray_error *err) {
  if (consumer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  consumer->plugins = plugins;
  return HURRAY_OK;
}

int32_t hurray_ipc_consumer_producer_pid(const hurray_ipc_consumer *consumer) {
  return consumer == NULL ? 0 : consumer->link->producer_pid;
}

void hurray_ipc_consumer_destroy(hurray_ipc_consumer **consumer) {
  if (consumer == NULL || *consumer == NULL) {
    return;
  }
  hurray_ipc_consumer *c = *consumer;
  *consumer = NULL;
  clear_pending(c);
  link_unref(c->link);
  free(c);
}

/* IPC-SEG-2: the descriptor is a sealed regular file large enough. */
static hurray_status check_segment(int fd, const hurray_buffer_handle *h, uint64_t offset,
                                   size_t index, hurray_error *err) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "fstat");
  }
  if (!S_ISREG(sb.st_mode)) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT,
                                    (uint64_t)(sb.st_mode & S_IFMT), S_IFREG, index);
  }
  int seals = fcntl(fd, F_GET_SEALS);
  uint32_t need = hurray_ipc_required_seals();
  uint32_t have = seals < 0 ? 0u : (uint32_t)seals;
  if ((have & need) != need) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, have, need, index);
  }
  uint64_t end = offset + h->byte_size;
  if (end < offset || sb.st_size < 0 || (uint64_t)sb.st_size < end) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, (uint64_t)sb.st_size,
                                    end < offset ? UINT64_MAX : end, index);
  }
  return HURRAY_OK;
}

static void send_reject(ipc_link *link, uint64_t offer_id, const hurray_error *e) {
  uint8_t msg[HURRAY_IPC_HEADER_SIZE + HURRAY_IPC_REJECT_BODY_SIZE];
  size_t n = hurray_ipc_encode_reject(msg, sizeof msg, offer_id, (uint32_t)e->status,
                                      (uint32_t)e->index, e->value, e->expected);
  (void)hurray_internal_ipc_send(link->fd, msg, n, NULL, 0, NULL);
}

/* Stages buffer `index` of the offer (RX-BUILD-1); a staging that fails
 * leaves the mapping, import and event ours, undone here. */
static hurray_status stage(hurray_received *r, size_t index, hurray_received_buffer_desc *d,
                           hurray_error *err) {
  hurray_status st = hurray_received_stage(r, index, d, err);
  if (st != HURRAY_OK) {
    hurray_plugin_event_release(d->event);
    if (d->plugin_buffer != NULL) {
      hurray_plugin_buffer_free(d->plugin_buffer);
    }
    if (d->memory != NULL) {
      munmap(d->memory, (size_t)d->memory_size);
    }
  }
  return st;
}

hurray_status hurray_ipc_consumer_receive(hurray_ipc_consumer *consumer, int timeout_ms,
                                          hurray_ipc_received **out, hurray_error *err) {
  if (consumer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  ipc_link *link = consumer->link;
  int fds[IPC_RECV_FDS];
  size_t nfds = 0;
  hurray_buffer_handle handles[HURRAY_IPC_MAX_FDS];
  hurray_ipc_segment segments[HURRAY_IPC_MAX_FDS];
  hurray_ipc_message m;
  hurray_status st;
  /* DEVICE messages come first, each kept for the OFFER (IPC-OFF-3). A
   * protocol error drops them with the connection (IPC-ERR-2); a timeout
   * keeps them for the next call. */
  for (;;) {
    st = hurray_internal_ipc_wait_readable(link->fd, timeout_ms, err);
    if (st != HURRAY_OK) {
      return st;
    }
    size_t len = 0;
    nfds = 0;
    st = hurray_internal_ipc_recv(link->fd, MSG_DONTWAIT, consumer->rx, &len, fds, &nfds, err);
    if (st == HURRAY_ERR_TIMEOUT) {
      return st;
    }
    if (st != HURRAY_OK) {
      clear_pending(consumer);
      protocol_error(link, st);
      return st;
    }
    if (len == 0u && nfds == 0u) {
      clear_pending(consumer);
      return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_PEER_GONE,
                                      (uint64_t)(int64_t)link->producer_pid, 0, 0);
    }
    st = hurray_ipc_message_decode(consumer->rx, len, nfds, &m, handles, segments,
                                   HURRAY_IPC_MAX_FDS, err);
    if (st == HURRAY_OK && (m.type == HURRAY_IPC_MSG_DEVICE || m.type == HURRAY_IPC_MSG_EVENT)) {
      st = keep_pending(consumer, &m, consumer->rx, nfds == 1u ? fds[0] : -1, err);
      if (st == HURRAY_OK) {
        continue;
      }
    }
    if (st != HURRAY_OK) {
      hurray_internal_ipc_close_fds(fds, nfds);
      clear_pending(consumer);
      protocol_error(link, st);
      return st;
    }
    break;
  }
  if (m.type == HURRAY_IPC_MSG_REFUSE) {
    hurray_internal_ipc_close_fds(fds, nfds);
    clear_pending(consumer);
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_REFUSED, m.code, m.value, 0);
  }
  if (m.type != HURRAY_IPC_MSG_OFFER) {
    hurray_internal_ipc_close_fds(fds, nfds);
    clear_pending(consumer);
    st = hurray_internal_ipc_fail(err, HURRAY_ERR_UNSUPPORTED, m.type, HURRAY_IPC_MSG_OFFER, 6);
    protocol_error(link, st);
    return st;
  }
  size_t n = m.buffer_count;
  /* IPC-OFF-3, IPC-OFF-4: the kept DEVICE messages are exactly this
   * offer's device buffers, the kept EVENT messages exactly its event
   * buffers, each of them device memory. */
  st = HURRAY_OK;
  if (consumer->pending_count > 0u && consumer->pending_offer != m.offer_id) {
    st = hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, consumer->pending_offer,
                                  m.offer_id, consumer->pending[0].index);
  }
  uint8_t wants_event[HURRAY_IPC_MAX_FDS];
  uint8_t wants_device[HURRAY_IPC_MAX_FDS];
  for (size_t i = 0; i < n && st == HURRAY_OK; i++) {
    wants_event[i] = handles[i].sync_mode == HURRAY_SYNC_EVENT;
    wants_device[i] = segments[i].memory_kind == HURRAY_IPC_MEMORY_DEVICE;
    if (wants_event[i] && !wants_device[i]) {
      st = hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, m.offer_id, 0, i);
    }
  }
  if (st == HURRAY_OK) {
    st = match_pending(consumer, HURRAY_IPC_MSG_EVENT, wants_event, n, m.offer_id, err);
  }
  if (st == HURRAY_OK) {
    st = match_pending(consumer, HURRAY_IPC_MSG_DEVICE, wants_device, n, m.offer_id, err);
  }
  if (st != HURRAY_OK) {
    hurray_internal_ipc_close_fds(fds, nfds);
    clear_pending(consumer);
    protocol_error(link, st);
    return st;
  }
  hurray_error local;
  hurray_error *e = err != NULL ? err : &local;
  /* RX-BUILD-1: the offer's received tensor, holding one reference on the
   * connection, so that its releases reach the producer after the consumer
   * is destroyed (RX-REL-4). */
  hurray_received_transport_desc transport =
      hurray_received_transport_make(HURRAY_TRANSPORT_IPC, link, release_buffer, close_link);
  hurray_received *r = NULL;
  atomic_fetch_add(&link->refs, 1u);
  st = hurray_received_create(&transport, m.offer_id, n, &r, e);
  if (st != HURRAY_OK) {
    link_unref(link);
    hurray_internal_ipc_close_fds(fds, nfds);
    clear_pending(consumer);
    send_reject(link, m.offer_id, e);
    return st;
  }
  long page = sysconf(_SC_PAGESIZE);
  uint64_t page_size = page > 0 ? (uint64_t)page : 4096u;
  size_t host = 0; /* the k-th host record's descriptor is fds[k] (IPC-MSG-9) */
  for (size_t i = 0; i < n && st == HURRAY_OK; i++) {
    const hurray_buffer_handle *h = &handles[i];
    hurray_received_buffer_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = (uint32_t)sizeof d;
    d.handle = *h;
    d.ipc_capabilities = hurray_device_default_ipc_capabilities(h->device_tag);
    st =
        hurray_transport_check_sync_mode(HURRAY_TRANSPORT_IPC, h->sync_mode, d.ipc_capabilities, e);
    if (st != HURRAY_OK) {
      e->index = i;
      break;
    }
    /* No stream crosses processes (IPC-OFF-1); an event comes with
     * device memory only, as the checks above made sure (IPC-OFF-4). */
    if (h->sync_mode == HURRAY_SYNC_CONSUMER_STREAM) {
      st = hurray_internal_ipc_fail(e, HURRAY_ERR_UNSUPPORTED, h->sync_mode,
                                    HURRAY_SYNC_PRODUCER_SYNCED, i);
      break;
    }
    if (segments[i].memory_kind == HURRAY_IPC_MEMORY_DEVICE) {
      uint32_t device_index = 0;
      st = import_device(consumer, pending_for(consumer, HURRAY_IPC_MSG_DEVICE, i), h,
                         segments[i].offset, i, &d.plugin_buffer, &device_index, e);
      if (st != HURRAY_OK) {
        break;
      }
      d.data = hurray_plugin_buffer_allocation(d.plugin_buffer)->address;
      if (h->sync_mode == HURRAY_SYNC_EVENT) {
        st = import_event(consumer, pending_for(consumer, HURRAY_IPC_MSG_EVENT, i), h, device_index,
                          i, &d.event, e);
        if (st != HURRAY_OK) {
          hurray_plugin_buffer_free(d.plugin_buffer); /* not staged: still ours */
          break;
        }
      }
      st = stage(r, i, &d, e);
      continue;
    }
    /* Host memory: a memfd, on the CPU only (IPC-OFF-1). */
    if (h->device_tag != HURRAY_DEVICE_CPU) {
      st = hurray_internal_ipc_fail(e, HURRAY_ERR_UNSUPPORTED, h->device_tag, HURRAY_DEVICE_CPU, i);
      break;
    }
    const int fd = fds[host++];
    st = check_segment(fd, h, segments[i].offset, i, e);
    if (st != HURRAY_OK) {
      break;
    }
    if (h->byte_size == 0u) {
      /* an empty buffer: nothing to map, data NULL (BP-ALIGN-3) */
      st = stage(r, i, &d, e);
      continue;
    }
    uint64_t start = segments[i].offset / page_size * page_size;
    uint64_t map_len = segments[i].offset - start + h->byte_size;
    /* Private and read-only: F_SEAL_WRITE (IPC-SEG-2) already keeps the
     * bytes from changing, and kernels before 6.7 refuse a shared mapping,
     * even a read-only one, of a segment sealed so (IPC-SEG-3). */
    void *map = mmap(NULL, (size_t)map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
    if (map == MAP_FAILED) {
      st = hurray_internal_ipc_fail_errno(e, errno, "mmap");
      e->index = i;
      break;
    }
    d.memory = map;
    d.memory_size = map_len;
    d.data = (uint8_t *)map + (segments[i].offset - start);
    st = stage(r, i, &d, e); /* the tensor unmaps it from now on */
    uint32_t measured = hurray_alignment_of(d.data);
    /* BP-ALIGN-5: the declared alignment is what the mapping has (IPC-SEG-3). */
    if (st == HURRAY_OK && measured < h->alignment) {
      st = hurray_internal_ipc_fail(e, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, measured, h->alignment,
                                    i);
    }
  }
  hurray_internal_ipc_close_fds(fds, nfds); /* mappings and imports outlive their descriptors */
  clear_pending(consumer);
  /* Ordinary accepted buffers, all or none (IPC-SEG-4, RX-BUILD-2, HO-SM-*);
   * an event buffer's payload is its imported event, which the handoff
   * releases, closing the import (IPC-SEG-7). */
  if (st == HURRAY_OK) {
    st = hurray_received_publish(r, e);
  }
  if (st != HURRAY_OK) {
    /* Unmapped and unimported without a RELEASE (RX-REL-3): the whole
     * offer is rejected. */
    hurray_received_free(&r);
    send_reject(link, m.offer_id, e);
    return st;
  }
  *out = (hurray_ipc_received *)(void *)r;
  return HURRAY_OK;
}

/* The old accessors: the neutral ones under the IPC names (RX-OBJ-1). */
HURRAY_RECEIVED_DEFINE_NAMES(hurray_ipc_received, hurray_ipc_received, offer_id)
