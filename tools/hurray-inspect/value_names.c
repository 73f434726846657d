/*
 * Numbers and wire-value names on the command line (specs/cli.md CLI-ENC-2).
 * Names are libhurray's own (hurray_device_tag_name etc.), so the tool keeps
 * no second list of them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "cli.h"

static int digit_value(char c, unsigned base) {
  int v = -1;
  if (c >= '0' && c <= '9') {
    v = c - '0';
  } else if (base == 16u && c >= 'a' && c <= 'f') {
    v = c - 'a' + 10;
  } else if (base == 16u && c >= 'A' && c <= 'F') {
    v = c - 'A' + 10;
  }
  return v;
}

bool inspect_parse_number(const char *text, uint64_t max, uint64_t *out) {
  unsigned base = 10;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text += 2;
  }
  if (text[0] == '\0') {
    return false;
  }
  uint64_t value = 0;
  for (const char *p = text; *p != '\0'; p++) {
    int d = digit_value(*p, base);
    if (d < 0) {
      return false;
    }
    if (value > (max - (uint64_t)d) / base) {
      return false;
    }
    value = value * base + (uint64_t)d;
  }
  *out = value;
  return true;
}

/* A name is accepted for a byte when the library names that byte alone: its
 * display form is the bare name ("cuda", not "private(0xF2)"). */
static bool parse_named_byte(const char *text, const char *(*name_of)(uint8_t),
                             size_t (*display)(uint8_t, char *, size_t), uint8_t *out) {
  for (unsigned b = 0; b <= 0xFFu; b++) {
    char shown[32];
    display((uint8_t)b, shown, sizeof shown);
    const char *name = name_of((uint8_t)b);
    if (strcmp(shown, name) == 0 && strcmp(text, name) == 0) {
      *out = (uint8_t)b;
      return true;
    }
  }
  uint64_t value = 0;
  if (inspect_parse_number(text, 0xFFu, &value)) {
    *out = (uint8_t)value;
    return true;
  }
  return false;
}

bool inspect_parse_device_tag(const char *text, uint8_t *out) {
  return parse_named_byte(text, hurray_device_tag_name, hurray_device_tag_display, out);
}

bool inspect_parse_sync_mode(const char *text, uint8_t *out) {
  return parse_named_byte(text, hurray_sync_mode_name, hurray_sync_mode_display, out);
}

bool inspect_parse_memory_class(const char *text, uint8_t *out) {
  return parse_named_byte(text, hurray_memory_class_name, hurray_memory_class_display, out);
}
