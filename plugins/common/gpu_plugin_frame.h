/*
 * What the GPU runtime plugins (cuda, rocm) do alike around their devices:
 * the runtime's start, the device count, the device records opened one by
 * one and undone on the first failure, peer access, and the reason a plugin
 * without devices gives (PL-AVAIL-1). Each plugin's state begins with a
 * gpu_plugin_frame and fills a gpu_plugin_vendor with its runtime's calls;
 * what a device is, and every vendor call, stay in the plugin. In-tree
 * plugins only; not installed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_COMMON_GPU_PLUGIN_FRAME_H
#define HURRAY_PLUGINS_COMMON_GPU_PLUGIN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/plugin_support.h"

/* The first member of a GPU plugin's state, so that the state's address is
 * the frame's (C11 6.7.2.1p15). */
typedef struct gpu_plugin_frame {
  void *library;         /* the loaded runtime; NULL when there is none */
  uint32_t device_count; /* devices opened; 0 with `reason` set */
  char reason[HURRAY_SUPPORT_REASON_SIZE];
} gpu_plugin_frame;

/* A runtime's half of opening and closing. `state` is the plugin's state.
 * The vendor calls return the runtime's status code, 0 for success (CUresult
 * CUDA_SUCCESS, hipError_t hipSuccess). */
typedef struct gpu_plugin_vendor {
  const char *plugin;     /* the plugin's name: the start of its messages */
  const char *init_call;  /* the runtime's start, for the reason: "cuInit" */
  const char *count_call; /* its device count: "cuDeviceGetCount" */
  int (*init)(void *state);
  int (*device_count)(void *state, int *count);
  const char *(*error_name)(const void *state, int code);
  /* Zeroed records for `count` devices; false when out of memory. */
  bool (*make_devices)(void *state, size_t count);
  /* Opens device `ordinal` into its record; false with the frame's reason
   * set and nothing of that device held. */
  bool (*open_device)(void *state, int ordinal);
  /* Releases the first `count` devices and frees the records. */
  void (*release_devices)(void *state, uint32_t count);
  /* Peer access between the opened devices, where the runtime allows it. */
  void (*enable_peers)(void *state);
  /* Clears the plugin's table of runtime symbols once the runtime is closed. */
  void (*forget_symbols)(void *state);
} gpu_plugin_vendor;

/* After plugin_load_runtime loaded `library` into the frame: starts the
 * runtime and opens every device. On any failure the runtime is closed
 * again, no device is held, the frame has zero devices and its reason names
 * the call, its status and `library`. */
void gpu_plugin_open_devices(void *state, const gpu_plugin_vendor *vendor, const char *library);

/* The plugin's shutdown entry: releases every device, closes the runtime
 * and frees the state. */
void gpu_plugin_close(void *state, const gpu_plugin_vendor *vendor);

/* The plugin's count_devices entry. */
hurray_status gpu_plugin_count_devices(void *state, uint32_t *out_count, hurray_error *err);

/* The plugin's unavailable_reason entry: empty while it has devices. */
size_t gpu_plugin_unavailable_reason(void *state, char *buf, size_t cap);

#endif
