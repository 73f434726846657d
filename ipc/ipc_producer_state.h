/*
 * The IPC producer's state, shared by the files that make the producer:
 * ipc_producer.c (listening, consumers, offers, holds) and ipc_share.c (the
 * buffers a producer shares and their reference counts). Internal to ipc/.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_IPC_PRODUCER_STATE_H
#define HURRAY_IPC_PRODUCER_STATE_H

#include <stdint.h>
#include <sys/un.h>

#include "hurray/ipc.h"
#include "hurray/plugin_host.h"

#include "ipc_common.h"

struct hurray_ipc_shared {
  hurray_ipc_producer *producer;
  struct hurray_ipc_shared *next;
  /* HURRAY_IPC_MEMORY_*. */
  uint32_t memory_kind;
  /* The host memfd, or the device export's descriptor (kind FD), or -1. */
  int fd;
  /* Device memory: the plugin's export, kept until the release (IPC-OFF-3). */
  hurray_plugin_ipc_memory device;
  /* An event buffer's event and its export, kept until the release
   * (IPC-OFF-4, IPC-REL-2); NULL for producer_synced. */
  hurray_plugin_event *event;
  hurray_plugin_ipc_event event_export;
  int retired;
  uint64_t refs; /* the producer's own (until retired) plus one per hold */
  hurray_buffer_handle handle;
  uint64_t offset;
  void *data;
  hurray_buffer_release_fn release;
  void *release_ctx;
};

typedef struct ipc_hold {
  struct ipc_hold *next;
  uint64_t consumer_id;
  uint64_t offer_id;
  uint32_t buffer_index;
  int32_t pid;
  struct hurray_ipc_shared *buffer;
} ipc_hold;

typedef struct ipc_conn {
  struct ipc_conn *next;
  int fd;
  int dead;
  int announced; /* returned by next_consumer */
  uint64_t id;
  int32_t pid;
  uint32_t uid;
} ipc_conn;

struct hurray_ipc_producer {
  int listen_fd;
  char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
  uint32_t *allowed_uids;
  size_t allowed_uid_count;
  uint32_t max_consumers;
  hurray_ipc_event_fn on_event;
  void *event_ctx;
  ipc_conn *conns;
  size_t conn_count;
  struct hurray_ipc_shared *shared;
  ipc_hold *holds;
  uint64_t next_consumer_id;
  uint64_t next_offer_id;
  uint8_t rx[IPC_RECV_CAP];
};

/* Drops one reference of a shared buffer; the last one closes its
 * descriptor, releases its event and calls its release callback
 * (IPC-REL-2). Defined in ipc_share.c. */
void hurray_internal_ipc_shared_unref(struct hurray_ipc_shared *s);

#endif /* HURRAY_IPC_PRODUCER_STATE_H */
