/*
 * hurray-devices: which device plugins this machine has, where they come
 * from, their ABI and plugin versions, devices, memory classes and IPC
 * capabilities, and for each plugin that is refused or has no device, why.
 * With --handoff it also runs, on every available device, one real
 * allocate -> write -> record event -> offer -> accept -> wait -> release
 * through the plugin and the C ABI handoff (docs/plugin-abi.md).
 *
 * Usage: hurray-devices [--path DIRS] [--plugin FILE]... [--handoff]
 *   --path DIRS     search DIRS (colon-separated, absolute) instead of
 *                   HURRAY_PLUGIN_PATH; the installed directory still follows
 *   --plugin FILE   load this file (absolute) instead of searching; repeatable
 *   --handoff       run the handoff on every available device
 * Exit status: 0 when every handoff run succeeded (or none was asked for),
 * 1 when one failed, 2 on a usage error. Refused plugins are reported, not
 * failures: a machine without a vendor's runtime is normal.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hurray/handoff.h"
#include "hurray/plugin.h"

#define MAX_PLUGIN_FILES 32

static void print_error_line(const char *what, const hurray_error *err) {
  printf("    %s: %s: %s\n", what, hurray_status_name(err->status), err->detail);
}

static void print_classes(const hurray_plugin_device_info *info) {
  for (uint32_t c = 0; c < info->memory_class_count; c++) {
    const hurray_plugin_memory_class_info *mc = &info->memory_classes[c];
    char name[32];
    hurray_memory_class_display(mc->memory_class, name, sizeof name);
    printf("        %-14s %-20s max alignment %u\n", name,
           (mc->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u ? "host-accessible"
                                                                    : "device-only",
           (unsigned)mc->max_alignment);
  }
}

static void print_plugin(const hurray_plugin *plugin) {
  char tag[32];
  hurray_device_tag_display(hurray_plugin_device_tag(plugin), tag, sizeof tag);
  uint32_t abi = hurray_plugin_abi_version(plugin);
  printf("  %s %s  (tag %s, ABI %u.%u%s)\n", hurray_plugin_name(plugin),
         hurray_plugin_version(plugin), tag, (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(abi),
         (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(abi),
         hurray_plugin_serves_tag(plugin) ? "" : ", not serving its tag");
  printf("    from %s\n", hurray_plugin_path(plugin));
  uint32_t count = hurray_plugin_device_count(plugin);
  if (count == 0u) {
    char reason[512];
    hurray_plugin_unavailable_reason(plugin, reason, sizeof reason);
    printf("    unavailable: %s\n", reason);
    return;
  }
  printf("    events: %s\n", hurray_plugin_supports_events(plugin) ? "yes" : "no");
  for (uint32_t d = 0; d < count; d++) {
    hurray_plugin_device_info info;
    hurray_error err;
    if (hurray_plugin_describe_device(plugin, d, &info, &err) != HURRAY_OK) {
      print_error_line("describe", &err);
      continue;
    }
    printf("    device %u: %s", (unsigned)d, info.name);
    if (info.memory_bytes > 0u) {
      printf(", %llu MiB", (unsigned long long)(info.memory_bytes >> 20));
    }
    printf(
        "\n      IPC: events %s, streams %s\n",
        (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u ? "exported" : "not exported",
        (info.ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS) != 0u ? "exported" : "not exported");
    printf("      memory classes:\n");
    print_classes(&info);
  }
}

static void report_candidate(void *ctx, const char *path, hurray_status status,
                             const hurray_error *err, hurray_plugin *plugin) {
  (void)ctx;
  (void)plugin;
  if (status != HURRAY_OK) {
    printf("  refused: %s\n", path);
    print_error_line("reason", err);
  }
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One handoff on one device; returns false (after printing why) on failure. */
static bool run_handoff(hurray_plugin *plugin, uint32_t device) {
  enum { size = 1 << 20 };
  hurray_error err;
  memset(&err, 0, sizeof err);
  double t0 = now_ms();
  hurray_plugin_buffer *buffer = NULL;
  const char *step = "allocate";
  bool ok = false;
  hurray_plugin_event *event = NULL;
  unsigned char *pattern = malloc(size);
  unsigned char *back = malloc(size);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  if (pattern == NULL || back == NULL) {
    printf("      handoff: no host memory for the test pattern\n");
    goto done;
  }
  for (size_t i = 0; i < size; i++) {
    pattern[i] = (unsigned char)(i * 13u + device);
  }
  if (hurray_plugin_allocate(plugin, device, size, 4096, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
      HURRAY_OK) {
    /* A device that cannot align standard memory to a page: the minimum. */
    if (hurray_plugin_allocate(plugin, device, size, 64, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
        HURRAY_OK) {
      goto done;
    }
  }
  step = "write";
  if (hurray_plugin_buffer_write(buffer, 0, pattern, size, &err) != HURRAY_OK) {
    goto done;
  }
  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  hurray_buffer_offer offer;
  offer.data = hurray_plugin_buffer_allocation(buffer)->address;
  offer.release = hurray_plugin_buffer_release_callback;
  offer.release_ctx = buffer;
  offer.sync = hurray_sync_payload_none();
  /* A CPU buffer is producer_synced (BP-SYNC-2); elsewhere an event travels. */
  bool with_event = handle.device_tag != HURRAY_DEVICE_CPU && hurray_plugin_supports_events(plugin);
  if (with_event) {
    step = "record event";
    if (hurray_plugin_event_create(plugin, device, &event, &err) != HURRAY_OK ||
        hurray_plugin_event_record(event, NULL, &err) != HURRAY_OK) {
      goto done;
    }
    handle.sync_mode = HURRAY_SYNC_EVENT;
    offer.sync = hurray_sync_payload_event(event, handle.device_tag,
                                           hurray_plugin_event_release_callback, NULL);
  }
  step = "offer";
  if (hurray_handoff_offer(&handoff, &handle, &offer, &err) != HURRAY_OK) {
    goto done;
  }
  step = "accept";
  hurray_accepted_buffer accepted;
  if (hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err) !=
      HURRAY_OK) {
    /* A refused accept leaves the offer with the producer (HO-CHECK-5):
     * take it back, so that the buffer and event are freed below. */
    hurray_error withdraw_err;
    if (hurray_handoff_withdraw(&handoff, &withdraw_err) != HURRAY_OK) {
      printf("      handoff: withdraw after the refused accept: %s\n",
             hurray_status_name(withdraw_err.status));
    }
    goto done;
  }
  /* From here the consumer owns the buffer and the event: the handoff's
   * releases free them, so the producer's pointers are dropped. */
  buffer = NULL;
  event = NULL;
  if (with_event) {
    step = "wait";
    if (hurray_plugin_event_wait(accepted.event, 10u * 1000u * 1000u * 1000u, &err) != HURRAY_OK ||
        hurray_handoff_record_event_wait(&handoff, &err) != HURRAY_OK ||
        hurray_handoff_release_event(&handoff, &err) != HURRAY_OK) {
      goto release;
    }
  }
  step = "read back";
  hurray_plugin_buffer *owned = offer.release_ctx;
  if (hurray_plugin_buffer_read(owned, 0, back, size, &err) != HURRAY_OK) {
    goto release;
  }
  if (memcmp(back, pattern, size) != 0) {
    printf("      handoff: FAILED at read back: the bytes differ\n");
    step = NULL;
    goto release;
  }
  ok = true;
release:
  if (with_event && !ok) {
    /* Makes the buffer releasable whatever step failed; either may have
     * been done already, and the failure reported is the first one. */
    hurray_error ignored;
    const hurray_status waited = hurray_handoff_record_event_wait(&handoff, &ignored);
    const hurray_status event_released = hurray_handoff_release_event(&handoff, &ignored);
    (void)waited;
    (void)event_released;
  }
  {
    hurray_error release_err;
    if (hurray_handoff_release(&handoff, &release_err) != HURRAY_OK && ok) {
      err = release_err;
      step = "release";
      ok = false;
    }
  }
done:
  if (ok) {
    char sync[24];
    hurray_sync_mode_display(handle.sync_mode, sync, sizeof sync);
    printf(
        "      handoff: ok  (1 MiB standard, alignment %u, %s; allocate -> write -> %s"
        "offer -> accept -> %srelease in %.2f ms)\n",
        (unsigned)handle.alignment, sync, with_event ? "record event -> " : "",
        with_event ? "wait -> release event -> " : "", now_ms() - t0);
  } else if (step != NULL) {
    printf("      handoff: FAILED at %s: %s: %s\n", step, hurray_status_name(err.status),
           err.detail);
  }
  hurray_plugin_event_release(event);
  hurray_plugin_buffer_free(buffer);
  hurray_error destroy_err;
  if (hurray_handoff_destroy(&handoff, &destroy_err) != HURRAY_OK) {
    printf("      handoff: FAILED at destroy: %s\n", hurray_status_name(destroy_err.status));
    ok = false;
  }
  free(pattern);
  free(back);
  return ok;
}

static int usage(const char *program) {
  fprintf(stderr, "usage: %s [--path DIRS] [--plugin FILE]... [--handoff]\n", program);
  return 2;
}

int main(int argc, char **argv) {
  const char *files[MAX_PLUGIN_FILES];
  size_t file_count = 0;
  bool handoff = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--handoff") == 0) {
      handoff = true;
    } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      setenv(HURRAY_PLUGIN_PATH_ENV, argv[++i], 1);
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc && file_count < MAX_PLUGIN_FILES) {
      files[file_count++] = argv[++i];
    } else if (strcmp(argv[i], "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else {
      return usage(argv[0]);
    }
  }
  hurray_plugin_registry *registry = NULL;
  hurray_error err;
  if (hurray_plugin_registry_create(&registry, &err) != HURRAY_OK) {
    fprintf(stderr, "hurray-devices: %s\n", err.detail);
    return 1;
  }
  printf("plugin ABI %u.%u (this library)\n", HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR);
  if (file_count > 0u) {
    printf("plugins given on the command line:\n");
    for (size_t i = 0; i < file_count; i++) {
      if (hurray_plugin_load(registry, files[i], 0, NULL, &err) != HURRAY_OK) {
        printf("  refused: %s\n", files[i]);
        print_error_line("reason", &err);
      }
    }
  } else {
    char path[4096];
    hurray_plugin_search_path(path, sizeof path);
    printf("search path: %s\n", path);
    printf("plugins found:\n");
    hurray_plugin_discover(registry, report_candidate, NULL);
  }
  size_t count = hurray_plugin_registry_count(registry);
  if (count == 0u) {
    printf("  (no plugin loaded)\n");
  }
  int failures = 0;
  int runs = 0;
  for (size_t i = 0; i < count; i++) {
    hurray_plugin *plugin = hurray_plugin_registry_at(registry, i);
    print_plugin(plugin);
    if (!handoff) {
      continue;
    }
    for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
      printf("    device %u (%s):\n", (unsigned)d, hurray_plugin_name(plugin));
      runs++;
      failures += run_handoff(plugin, d) ? 0 : 1;
    }
  }
  if (handoff) {
    printf("handoffs: %d run, %d failed\n", runs, failures);
  }
  hurray_plugin_registry_destroy(registry);
  return failures == 0 ? 0 : 1;
}
