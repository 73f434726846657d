/*
 * The runtime start, device opening and closing that the GPU runtime
 * plugins share (gpu_plugin_frame.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "gpu_plugin_frame.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void gpu_plugin_open_devices(void *state, const gpu_plugin_vendor *vendor, const char *library) {
  gpu_plugin_frame *frame = state;
  int count = 0;
  int code = vendor->init(state);
  if (code != 0) {
    snprintf(frame->reason, sizeof frame->reason, "%s: %s: %s (%d)", library, vendor->init_call,
             vendor->error_name(state, code), code);
    goto unload;
  }
  code = vendor->device_count(state, &count);
  if (code != 0 || count <= 0) {
    snprintf(frame->reason, sizeof frame->reason, "%s: %s: %s (%d), %d devices", library,
             vendor->count_call, vendor->error_name(state, code), code, count);
    goto unload;
  }
  if (!vendor->make_devices(state, (size_t)count)) {
    snprintf(frame->reason, sizeof frame->reason, "%s: out of host memory for %d devices",
             vendor->plugin, count);
    goto unload;
  }
  for (int i = 0; i < count; i++) {
    if (!vendor->open_device(state, i)) {
      vendor->release_devices(state, (uint32_t)i);
      frame->device_count = 0;
      goto unload;
    }
    frame->device_count = (uint32_t)i + 1u;
  }
  vendor->enable_peers(state);
  return;
unload:
  dlclose(frame->library);
  frame->library = NULL;
  vendor->forget_symbols(state);
}

void gpu_plugin_close(void *state, const gpu_plugin_vendor *vendor) {
  gpu_plugin_frame *frame = state;
  if (frame->library != NULL) {
    vendor->release_devices(state, frame->device_count);
    frame->device_count = 0;
    dlclose(frame->library);
  }
  free(state);
}

hurray_status gpu_plugin_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((const gpu_plugin_frame *)state)->device_count;
  return HURRAY_OK;
}

size_t gpu_plugin_unavailable_reason(void *state, char *buf, size_t cap) {
  const gpu_plugin_frame *frame = state;
  return hurray_support_copy_reason(buf, cap, frame->device_count > 0 ? "" : frame->reason);
}
