/*
 * Display forms of wire values ("cuda", "private(0xF2)", "reserved(0x09)").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdio.h>

#include "hurray/buffer.h"

/* Named values print their name; the others print the name and the byte, since
 * the name alone ("private") does not tell two of them apart. */
static size_t display(const char *name, bool named, uint8_t byte, char *buf, size_t cap) {
  char scratch[1];
  if (buf == NULL || cap == 0u) {
    buf = scratch;
    cap = sizeof scratch;
  }
  int n = named ? snprintf(buf, cap, "%s", name) : snprintf(buf, cap, "%s(0x%02X)", name, byte);
  return n < 0 ? 0u : (size_t)n;
}

size_t hurray_device_tag_display(hurray_device_tag tag, char *buf, size_t cap) {
  bool named = tag <= HURRAY_DEVICE_OPENCL;
  return display(hurray_device_tag_name(tag), named, tag, buf, cap);
}

size_t hurray_memory_class_display(hurray_memory_class memory_class, char *buf, size_t cap) {
  bool named = memory_class <= HURRAY_MEMORY_PEER;
  return display(hurray_memory_class_name(memory_class), named, memory_class, buf, cap);
}

size_t hurray_sync_mode_display(hurray_sync_mode mode, char *buf, size_t cap) {
  bool named = mode <= HURRAY_SYNC_CONSUMER_STREAM;
  return display(hurray_sync_mode_name(mode), named, mode, buf, cap);
}
