/*
 * hurray-ipc-demo: one producer process hands a 64 MiB host buffer, then a
 * Vulkan buffer, to one consumer process without a copy (specs/ipc.md,
 * docs/ipc.md). The producer fills a sealed memfd, offers it, and prints
 * each release as it arrives; the consumer (this program again, started
 * with --consumer) checks every byte through its read-only mapping and
 * releases. With a Vulkan plugin, the producer then allocates exportable
 * device memory through it (an OPAQUE_FD of VK_KHR_external_memory_fd),
 * offers it, and the consumer imports it through its own Vulkan plugin,
 * reads it back, checks it and releases (IPC-OFF-3, IPC-SEG-5).
 *
 *   hurray-ipc-demo [MiB] [VULKAN_PLUGIN_FILE]     the producer (default 64 MiB)
 *   hurray-ipc-demo --consumer ADDRESS MiB [VULKAN_PLUGIN_FILE]
 * Exit status 0 when the bytes arrived intact and every release came back;
 * a Vulkan plugin without a device here is reported and skipped.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hurray/ipc.h"
#include "hurray/plugin.h"

/* The Vulkan buffer's size: large enough to mean something, small enough
 * for lavapipe's read-back to be quick. */
#define DEVICE_BYTES (16u << 20)

static uint8_t byte_at(uint64_t i) { return (uint8_t)((i ^ (i >> 13)) * 29u); }

static int fail(const char *who, const hurray_error *err) {
  char msg[256];
  hurray_error_format(err, msg, sizeof msg);
  fprintf(stderr, "hurray-ipc-demo %s: %s (%s)\n", who, hurray_status_name(err->status), msg);
  return 1;
}

/* The second offer: a Vulkan buffer, imported through our own plugin. */
static int consume_device(hurray_ipc_consumer *c, hurray_plugin_registry *plugins) {
  hurray_ipc_received *r = NULL;
  hurray_error err;
  if (hurray_ipc_consumer_receive(c, 10000, &r, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  const hurray_accepted_buffer *b = hurray_ipc_received_buffer(r, 0);
  hurray_plugin_buffer *imported = hurray_ipc_received_plugin_buffer(r, 0);
  uint8_t *bytes = malloc(DEVICE_BYTES);
  if (bytes == NULL || imported == NULL ||
      hurray_plugin_buffer_read(imported, 0, bytes, DEVICE_BYTES, &err) != HURRAY_OK) {
    free(bytes);
    return imported == NULL ? 1 : fail("consumer", &err);
  }
  for (uint64_t i = 0; i < DEVICE_BYTES; i++) {
    if (bytes[i] != byte_at(i + 1u)) {
      fprintf(stderr, "hurray-ipc-demo consumer: device byte %" PRIu64 " differs\n", i);
      free(bytes);
      return 1;
    }
  }
  free(bytes);
  printf("consumer pid %d: offer %" PRIu64 ", a %s buffer of %" PRIu64
         " bytes imported "
         "through our own plugin (VkDeviceMemory %p, imported from an OPAQUE_FD), every byte "
         "read back and checked; releasing\n",
         (int)getpid(), hurray_ipc_received_offer_id(r),
         hurray_device_tag_name(b->handle.device_tag), b->handle.byte_size, b->data);
  fflush(stdout);
  if (hurray_ipc_received_release(r, 0, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  hurray_ipc_received_free(&r);
  (void)plugins;
  return 0;
}

/* Whether the Vulkan plugin at `file` loads into `registry` with a device;
 * says why not on stdout. */
static int vulkan_ready(const char *file, hurray_plugin_registry **registry,
                        hurray_plugin **plugin) {
  hurray_error err;
  if (file == NULL) {
    return 0;
  }
  if (hurray_plugin_registry_create(registry, &err) != HURRAY_OK ||
      hurray_plugin_load(*registry, file, 0, plugin, &err) != HURRAY_OK) {
    char msg[256];
    hurray_error_format(&err, msg, sizeof msg);
    printf("hurray-ipc-demo: SKIP the Vulkan buffer: %s does not load: %s\n", file, msg);
    return 0;
  }
  if (hurray_plugin_device_count(*plugin) == 0) {
    char reason[256];
    (void)hurray_plugin_unavailable_reason(*plugin, reason, sizeof reason);
    printf("hurray-ipc-demo: SKIP the Vulkan buffer: no Vulkan device here: %s\n", reason);
    return 0;
  }
  return 1;
}

static int consumer(const char *address, uint64_t size, const char *vulkan_file) {
  hurray_ipc_consumer *c = NULL;
  hurray_ipc_received *r = NULL;
  hurray_error err;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *vulkan = NULL;
  int device = vulkan_ready(vulkan_file, &plugins, &vulkan);
  if (hurray_ipc_consumer_connect(address, NULL, &c, &err) != HURRAY_OK ||
      hurray_ipc_consumer_set_plugins(c, plugins, &err) != HURRAY_OK ||
      hurray_ipc_consumer_receive(c, 10000, &r, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  const hurray_accepted_buffer *b = hurray_ipc_received_buffer(r, 0);
  const uint8_t *bytes = b->data;
  for (uint64_t i = 0; i < size; i++) {
    if (bytes[i] != byte_at(i)) {
      fprintf(stderr, "hurray-ipc-demo consumer: byte %" PRIu64 " differs\n", i);
      return 1;
    }
  }
  printf("consumer pid %d: offer %" PRIu64 ", %" PRIu64
         " bytes mapped read-only at %p, "
         "every byte checked; releasing\n",
         (int)getpid(), hurray_ipc_received_offer_id(r), b->handle.byte_size, b->data);
  fflush(stdout);
  if (hurray_ipc_received_release(r, 0, &err) != HURRAY_OK) {
    return fail("consumer", &err);
  }
  hurray_ipc_received_free(&r);
  int status = device ? consume_device(c, plugins) : 0;
  hurray_ipc_consumer_destroy(&c);
  hurray_plugin_registry_destroy(plugins);
  return status;
}

typedef struct demo_state {
  int released;
  void *data;
  uint64_t size;
  int device_released;
  hurray_plugin_buffer *device;
} demo_state;

static void on_event(const hurray_ipc_event *ev, void *ctx) {
  (void)ctx;
  if (ev->kind == HURRAY_IPC_EVENT_CONNECTED) {
    printf("producer: consumer %" PRIu64 " connected (pid %d, uid %u)\n", ev->consumer_id,
           (int)ev->pid, ev->uid);
  } else if (ev->kind == HURRAY_IPC_EVENT_RELEASED) {
    printf("producer: release from consumer pid %d: offer %" PRIu64 " buffer %u\n", (int)ev->pid,
           ev->offer_id, ev->buffer_index);
  } else if (ev->kind == HURRAY_IPC_EVENT_GONE) {
    printf("producer: consumer pid %d left (%" PRIu64 " holds reclaimed)\n", (int)ev->pid,
           ev->value);
  }
  fflush(stdout);
}

static void on_release(void *buffer, void *ctx) {
  demo_state *s = ctx;
  s->released++;
  printf("producer: last reference gone, release callback called; unmapping %p\n", buffer);
  fflush(stdout);
  munmap(buffer, s->size);
}

static void on_device_release(void *data, void *ctx) {
  (void)data;
  demo_state *s = ctx;
  s->device_released++;
  printf(
      "producer: last reference to the Vulkan buffer gone, release callback called; "
      "freeing it\n");
  fflush(stdout);
  (void)!hurray_plugin_buffer_release(s->device, NULL);
}

/* The second offer: exportable Vulkan memory, filled through the plugin. */
static hurray_status offer_device(hurray_ipc_producer *p, uint64_t cid, hurray_plugin *vulkan,
                                  demo_state *state, hurray_error *err) {
  hurray_status st =
      hurray_plugin_allocate_flags(vulkan, 0, DEVICE_BYTES, 256, HURRAY_MEMORY_STANDARD,
                                   HURRAY_PLUGIN_ALLOCATE_EXPORTABLE, &state->device, err);
  uint8_t *bytes = st == HURRAY_OK ? malloc(DEVICE_BYTES) : NULL;
  if (st == HURRAY_OK && bytes == NULL) {
    st = HURRAY_ERR_OUT_OF_MEMORY;
  }
  if (st == HURRAY_OK) {
    for (uint64_t i = 0; i < DEVICE_BYTES; i++) {
      bytes[i] = byte_at(i + 1u);
    }
    st = hurray_plugin_buffer_write(state->device, 0, bytes, DEVICE_BYTES, err);
  }
  free(bytes);
  hurray_ipc_shared *s = NULL;
  if (st == HURRAY_OK) {
    st =
        hurray_ipc_producer_share_device(p, state->device, NULL, on_device_release, state, &s, err);
  }
  if (st == HURRAY_OK) {
    st = hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, err);
  }
  if (st == HURRAY_OK) {
    printf("producer: offered a %u-byte Vulkan buffer to consumer %" PRIu64
           " (VkDeviceMemory exported as an OPAQUE_FD in a DEVICE message, no copy)\n",
           DEVICE_BYTES, cid);
    fflush(stdout);
    hurray_ipc_shared_retire(s);
  }
  return st;
}

int main(int argc, char **argv) {
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "--consumer") == 0) {
    return consumer(argv[2], strtoull(argv[3], NULL, 10) << 20, argc == 5 ? argv[4] : NULL);
  }
  uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64u;
  const char *vulkan_file = argc > 2 ? argv[2] : NULL;
  hurray_plugin_registry *plugins = NULL;
  hurray_plugin *vulkan = NULL;
  int device = vulkan_ready(vulkan_file, &plugins, &vulkan);
  uint64_t size = mib << 20;
  char address[64];
  snprintf(address, sizeof address, "@hurray-ipc-demo-%d", (int)getpid());
  hurray_error err;
  hurray_ipc_producer_options po;
  memset(&po, 0, sizeof po);
  po.struct_size = sizeof po;
  po.on_event = on_event;
  hurray_ipc_producer *p = NULL;
  if (hurray_ipc_producer_listen(address, &po, &p, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  int fd = -1;
  void *data = NULL;
  if (hurray_ipc_segment_create(size, &fd, &data, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  uint8_t *bytes = data;
  for (uint64_t i = 0; i < size; i++) {
    bytes[i] = byte_at(i);
  }
  if (hurray_ipc_segment_seal(fd, data, size, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  printf("producer pid %d: %" PRIu64
         " MiB written to a memfd, sealed (shrink, grow, "
         "future-write, seal), listening on %s\n",
         (int)getpid(), mib, address);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    char mib_text[32];
    snprintf(mib_text, sizeof mib_text, "%" PRIu64, mib);
    execl("/proc/self/exe", argv[0], "--consumer", address, mib_text,
          device ? vulkan_file : (char *)NULL, (char *)NULL);
    _exit(127);
  }
  uint64_t cid = 0;
  demo_state state = {0, data, size, 0, NULL};
  hurray_ipc_buffer_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.memory_kind = HURRAY_IPC_MEMORY_HOST_MEMFD;
  d.fd = fd;
  d.data = data;
  d.release = on_release;
  d.release_ctx = &state;
  hurray_ipc_shared *s = NULL;
  hurray_status st = hurray_ipc_producer_next_consumer(p, 10000, &cid, &err);
  if (st == HURRAY_OK) {
    st = hurray_buffer_handle_for_host_memory(data, size, HURRAY_PAGE_ALIGNMENT, &d.handle, &err);
  }
  if (st == HURRAY_OK) {
    st = hurray_ipc_producer_share(p, &d, &s, &err);
  }
  if (st == HURRAY_OK) {
    st = hurray_ipc_producer_offer(p, cid, &s, 1, 0, NULL, &err);
  }
  if (st != HURRAY_OK) {
    return fail("producer", &err);
  }
  printf("producer: offered %" PRIu64 " bytes to consumer %" PRIu64 " (one fd, no copy)\n", size,
         cid);
  fflush(stdout);
  hurray_ipc_shared_retire(s);
  if (device && offer_device(p, cid, vulkan, &state, &err) != HURRAY_OK) {
    return fail("producer", &err);
  }
  for (int i = 0; i < 400 && (state.released == 0 || state.device_released < device); i++) {
    (void)!hurray_ipc_producer_poll(p, 50, &err);
  }
  int status = 0;
  waitpid(child, &status, 0);
  hurray_ipc_producer_destroy(&p);
  hurray_plugin_registry_destroy(plugins);
  if (state.released != 1 || state.device_released != device || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "hurray-ipc-demo: releases %d (host), %d (Vulkan), consumer status 0x%x\n",
            state.released, state.device_released, status);
    return 1;
  }
  return 0;
}
