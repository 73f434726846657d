/*
 * The buffers an IPC producer shares (specs/ipc.md IPC-OFF-1, IPC-OFF-3,
 * IPC-OFF-4, IPC-SEG-1..3): a sealed host memfd, or a plugin's device buffer
 * exported once, with its event or without; each kept, with a reference per
 * consumer's hold, until its last reference calls the release (IPC-REL-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hurray/plugin_support.h"

#include "ipc_common.h"
#include "ipc_producer_state.h"

/* Drops one reference; the last one calls the release callback (IPC-REL-2). */
void hurray_internal_ipc_shared_unref(struct hurray_ipc_shared *s) {
  if (--s->refs != 0u) {
    return;
  }
  hurray_ipc_producer *p = s->producer;
  for (struct hurray_ipc_shared **pp = &p->shared; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == s) {
      *pp = s->next;
      break;
    }
  }
  if (s->fd >= 0) {
    close(s->fd);
  }
  /* The importers' waits need the exporter's event until here (IPC-REL-2). */
  hurray_plugin_event_release(s->event);
  hurray_buffer_release_fn release = s->release;
  void *data = s->data;
  void *ctx = s->release_ctx;
  free(s);
  release(data, ctx);
}

hurray_status hurray_ipc_producer_share(hurray_ipc_producer *producer,
                                        const hurray_ipc_buffer_desc *desc, hurray_ipc_shared **out,
                                        hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (desc == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (desc->struct_size < sizeof(hurray_ipc_buffer_desc)) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_INVALID_ARGUMENT, desc->struct_size,
                                    sizeof(hurray_ipc_buffer_desc), 1);
  }
  if (desc->release == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (desc->memory_kind != HURRAY_IPC_MEMORY_HOST_MEMFD) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_UNSUPPORTED, desc->memory_kind,
                                    HURRAY_IPC_MEMORY_HOST_MEMFD, 0);
  }
  hurray_status st = hurray_buffer_handle_validate(&desc->handle, err);
  if (st != HURRAY_OK) {
    return st;
  }
  if (desc->handle.device_tag != HURRAY_DEVICE_CPU) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_UNSUPPORTED, desc->handle.device_tag,
                                    HURRAY_DEVICE_CPU, 0);
  }
  struct stat sb;
  if (fstat(desc->fd, &sb) != 0) {
    return hurray_internal_ipc_fail_errno(err, errno, "fstat");
  }
  if (!S_ISREG(sb.st_mode)) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT,
                                    (uint64_t)(sb.st_mode & S_IFMT), S_IFREG, 0);
  }
  int seals = fcntl(desc->fd, F_GET_SEALS);
  uint32_t need = hurray_ipc_required_seals();
  uint32_t have = seals < 0 ? 0u : (uint32_t)seals;
  if ((have & need) != need) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, have, need, 0);
  }
  uint64_t end = desc->offset + desc->handle.byte_size;
  if (end < desc->offset || (uint64_t)sb.st_size < end) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT, (uint64_t)sb.st_size, end, 0);
  }
  struct hurray_ipc_shared *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0, 0);
  }
  s->producer = producer;
  s->memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  s->fd = desc->fd;
  s->refs = 1;
  s->handle = desc->handle;
  s->offset = desc->offset;
  s->data = desc->data;
  s->release = desc->release;
  s->release_ctx = desc->release_ctx;
  s->next = producer->shared;
  producer->shared = s;
  *out = s;
  return HURRAY_OK;
}

/* The DEVICE message carries the export's kind as it is (IPC-MSG-13); the
 * host has checked it is one of these two (PL-IPC-2). */
_Static_assert(HURRAY_IPC_DEVICE_FD == HURRAY_PLUGIN_IPC_MEMORY_FD &&
                   HURRAY_IPC_DEVICE_HANDLE == HURRAY_PLUGIN_IPC_MEMORY_HANDLE,
               "IPC-MSG-13 kinds are the plugin export's");
_Static_assert(HURRAY_IPC_EVENT_HANDLE == HURRAY_PLUGIN_IPC_EVENT_HANDLE,
               "the IPC-MSG-14 kind is the plugin event export's");

/* IPC-OFF-3, IPC-OFF-4: a device buffer, with its event or without
 * (event NULL), exported here once; nothing kept on failure. */
static hurray_status share_device(hurray_ipc_producer *producer, const hurray_plugin_buffer *buffer,
                                  hurray_plugin_event *event, void *data,
                                  hurray_buffer_release_fn release, void *release_ctx,
                                  hurray_ipc_shared **out, hurray_error *err) {
  const hurray_buffer_handle *handle = hurray_plugin_buffer_handle(buffer);
  if (handle == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_USE_AFTER_DESTROY, 0, 0, 1);
  }
  /* A plugin buffer declares producer_synced (PL-ALLOC-5); the event, when
   * there is one, is what makes it an event buffer (IPC-OFF-4). */
  if (handle->sync_mode != HURRAY_SYNC_PRODUCER_SYNCED) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_UNSUPPORTED, handle->sync_mode,
                                    HURRAY_SYNC_PRODUCER_SYNCED, 1);
  }
  if (event != NULL && hurray_plugin_event_plugin(event) != hurray_plugin_buffer_plugin(buffer)) {
    const hurray_plugin *event_plugin = hurray_plugin_event_plugin(event);
    return hurray_internal_ipc_fail(
        err, HURRAY_ERR_DEVICE_TAG_MISMATCH,
        event_plugin == NULL ? 0u : hurray_plugin_device_tag(event_plugin), handle->device_tag, 2);
  }
  struct hurray_ipc_shared *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0, 0);
  }
  /* Exported once, here: a plugin without export (or a buffer not
   * allocated exportable, an event not created exportable) is
   * UNSUPPORTED, never a silent copy (IPC-OFF-3, IPC-OFF-4). The event
   * first: its export opens nothing, the memory's may open a descriptor. */
  if (event != NULL) {
    s->event_export.struct_size = (uint32_t)sizeof s->event_export;
    hurray_status st = hurray_plugin_event_export(event, &s->event_export, err);
    if (st != HURRAY_OK) {
      free(s);
      return st;
    }
  }
  s->device.struct_size = (uint32_t)sizeof s->device;
  hurray_status st = hurray_plugin_buffer_export(buffer, &s->device, err);
  if (st != HURRAY_OK) {
    free(s);
    return st;
  }
  s->producer = producer;
  s->memory_kind = HURRAY_IPC_MEMORY_DEVICE;
  s->fd = s->device.kind == HURRAY_IPC_DEVICE_FD ? s->device.fd : -1;
  s->refs = 1;
  s->handle = *handle;
  if (event != NULL) {
    s->handle.sync_mode = HURRAY_SYNC_EVENT;
    s->event = event;
  }
  s->offset = s->device.offset;
  s->data = data;
  s->release = release;
  s->release_ctx = release_ctx;
  s->next = producer->shared;
  producer->shared = s;
  *out = s;
  return HURRAY_OK;
}

hurray_status hurray_ipc_producer_share_device(hurray_ipc_producer *producer,
                                               const hurray_plugin_buffer *buffer, void *data,
                                               hurray_buffer_release_fn release, void *release_ctx,
                                               hurray_ipc_shared **out, hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (buffer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (release == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3);
  }
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 5);
  }
  return share_device(producer, buffer, NULL, data, release, release_ctx, out, err);
}

hurray_status hurray_ipc_producer_share_device_event(hurray_ipc_producer *producer,
                                                     const hurray_plugin_buffer *buffer,
                                                     hurray_plugin_event *event, void *data,
                                                     hurray_buffer_release_fn release,
                                                     void *release_ctx, hurray_ipc_shared **out,
                                                     hurray_error *err) {
  if (producer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (buffer == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (event == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  if (release == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 4);
  }
  if (out == NULL) {
    return hurray_internal_ipc_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 6);
  }
  return share_device(producer, buffer, event, data, release, release_ctx, out, err);
}

void hurray_ipc_shared_retire(hurray_ipc_shared *shared) {
  if (shared == NULL || shared->retired) {
    return;
  }
  shared->retired = 1;
  hurray_internal_ipc_shared_unref(shared);
}
