/*
 * `allocation` (PL-ALLOC-1..5) and `copy` (PL-COPY-1..2): memory through the
 * plugin on every device and class it describes (specs/cli.md CLI-CHK-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

/* An independent measure of an address's alignment: its lowest set bit. */
static uint64_t lowest_set_bit(uintptr_t address) { return address & (~address + 1u); }

static void describe(conformance_run *run, uint32_t d, hurray_plugin_device_info *info) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  conformance_expect_status(run,
                            hurray_plugin_describe_device(conformance_plugin(run), d, info, &err),
                            HURRAY_OK, &err, "describe_device(%u)", (unsigned)d);
}

/* One allocation of class mc at `alignment`: the handle declares what was
 * obtained (at least what was asked), the address shows it, a host-accessible
 * class can be written through its host address. Returns the alignment
 * obtained, 0 when a host_pinned mapping had less than asked (refused, not
 * downgraded). */
static uint32_t allocate_one(conformance_run *run, uint32_t d,
                             const hurray_plugin_memory_class_info *mc, uint32_t alignment) {
  hurray_plugin *plugin = conformance_plugin(run);
  char name[32];
  conformance_class_name(mc->memory_class, name);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  hurray_status s =
      hurray_plugin_allocate(plugin, d, 10000, alignment, mc->memory_class, &buffer, &err);
  if (s == HURRAY_ERR_UNSUPPORTED && mc->memory_class == HURRAY_MEMORY_HOST_PINNED) {
    /* A runtime-chosen mapping may have less than asked: refused, not downgraded. */
    CONFORM(run, err.expected < alignment,
            "device %u class %s alignment %u: UNSUPPORTED, but its expected (%llu) is not the "
            "smaller alignment obtained",
            (unsigned)d, name, (unsigned)alignment, (unsigned long long)err.expected);
    return 0;
  }
  conformance_expect_status(run, s, HURRAY_OK, &err,
                            "allocate(device %u, 10000 bytes, alignment %u, class %s)", (unsigned)d,
                            (unsigned)alignment, name);
  const hurray_plugin_allocation *a = hurray_plugin_buffer_allocation(buffer);
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(buffer);
  CONFORM(run, h->alignment >= alignment,
          "device %u class %s: asked alignment %u, the handle declares %u (PL-ALLOC-2: refuse, "
          "never downgrade)",
          (unsigned)d, name, (unsigned)alignment, (unsigned)h->alignment);
  conformance_expect_eq(run, h->alignment, a->alignment,
                        "device %u class %s: the handle's alignment against the allocation's",
                        (unsigned)d, name);
  conformance_expect_eq(run, h->byte_size, 10000, "device %u class %s: the handle's byte_size",
                        (unsigned)d, name);
  conformance_expect_eq(run, h->memory_class, mc->memory_class,
                        "device %u class %s: the handle's memory_class", (unsigned)d, name);
  conformance_expect_eq(run, h->device_tag, hurray_plugin_device_tag(plugin),
                        "device %u class %s: the handle's device_tag", (unsigned)d, name);
  conformance_expect_status(run, hurray_buffer_handle_validate(h, &err), HURRAY_OK, &err,
                            "device %u class %s: the handle's validation", (unsigned)d, name);
  if (a->host_address != NULL) {
    CONFORM(run, lowest_set_bit((uintptr_t)a->host_address) >= h->alignment,
            "device %u class %s: the host address %p shows alignment %llu, less than the %u "
            "declared (PL-ALLOC-3)",
            (unsigned)d, name, a->host_address,
            (unsigned long long)lowest_set_bit((uintptr_t)a->host_address), (unsigned)h->alignment);
  }
  CONFORM(run,
          a->alignment_basis != HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE || a->host_address == NULL,
          "device %u class %s: a device guarantee declared for memory with a host address "
          "(PL-ALLOC-3: measure the address)",
          (unsigned)d, name);
  if ((mc->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u) {
    CONFORM(run, a->host_address != NULL,
            "device %u class %s is described host-accessible but the allocation has no host "
            "address",
            (unsigned)d, name);
    memset(a->host_address, 0x5A, 10000);
  }
  uint32_t obtained = h->alignment;
  hurray_plugin_buffer_free(buffer);
  return obtained;
}

/* Refusals the host or the plugin owes whatever the class (PL-ALLOC-1..2). */
static void refusals(conformance_run *run, uint32_t d) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, d, 4096, 64, HURRAY_MEMORY_PEER, &buffer, &err),
      HURRAY_ERR_UNSUPPORTED, &err, "allocate(device %u, class peer), a class not described",
      (unsigned)d);
  conformance_expect_eq(run, err.value, HURRAY_MEMORY_PEER, "its error's value (the class)");
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, d, 0, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_INVALID_ARGUMENT, &err, "allocate(device %u, 0 bytes)", (unsigned)d);
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, d, 64, 32, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, &err, "allocate(device %u, alignment 32)", (unsigned)d);
  /* buffer.h's payload: value the alignment, expected the minimum, index
   * the buffer's one handle, 0. */
  conformance_expect_eq(run, err.value, 32, "its error's value");
  conformance_expect_eq(run, err.expected, 64, "its error's expected");
  conformance_expect_eq(run, err.index, 0, "its error's index");
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, d, 64, 96, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, &err, "allocate(device %u, alignment 96)",
      (unsigned)d);
  conformance_expect_eq(run, err.value, 96, "its error's value");
  conformance_expect_eq(run, err.index, 0, "its error's index");
  char message[256];
  (void)hurray_error_format(&err, message, sizeof message);
  CONFORM(run, strstr(message, "handle 3") == NULL, "the formatted error names handle 3: %s",
          message);
  CONFORM(run, buffer == NULL, "a refused allocate wrote its buffer");
}

/* PL-ALLOC-1..5: every class, several alignments; the handle declares what
 * was obtained and that is what the address shows. */
void conformance_check_allocation(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_plugin_device_info info;
    describe(run, d, &info);
    for (uint32_t c = 0; c < info.memory_class_count; c++) {
      const hurray_plugin_memory_class_info *mc = &info.memory_classes[c];
      char measured[256];
      int used = 0;
      for (uint32_t alignment = 64; alignment <= mc->max_alignment && alignment <= 65536u;
           alignment *= 4u) {
        uint32_t obtained = allocate_one(run, d, mc, alignment);
        if (used >= 0 && (size_t)used < sizeof measured) {
          used += snprintf(measured + used, sizeof measured - (size_t)used, " %u->%u",
                           (unsigned)alignment, (unsigned)obtained);
        }
      }
      char name[32];
      conformance_note(run, "device %u class %s, alignment asked->obtained (measured):%s",
                       (unsigned)d, conformance_class_name(mc->memory_class, name),
                       used > 0 ? measured : " none below its maximum");
      /* Past the class's maximum: refused with the maximum named. */
      if (mc->max_alignment < HURRAY_PLUGIN_MAX_ALIGNMENT) {
        hurray_plugin_buffer *buffer = NULL;
        hurray_error err;
        memset(&err, 0, sizeof err);
        conformance_expect_status(run,
                                  hurray_plugin_allocate(plugin, d, 4096, mc->max_alignment * 2u,
                                                         mc->memory_class, &buffer, &err),
                                  HURRAY_ERR_UNSUPPORTED, &err,
                                  "allocate(device %u, class %s, alignment %u), above the %u "
                                  "described",
                                  (unsigned)d, name, (unsigned)(mc->max_alignment * 2u),
                                  (unsigned)mc->max_alignment);
        conformance_expect_eq(run, err.value, mc->max_alignment * 2u, "its error's value");
        conformance_expect_eq(run, err.expected, mc->max_alignment,
                              "its error's expected (the maximum)");
        CONFORM(run, buffer == NULL, "a refused allocate wrote its buffer");
      }
    }
    refusals(run, d);
  }
  hurray_plugin_buffer *buffer = NULL;
  hurray_error err;
  memset(&err, 0, sizeof err);
  uint32_t count = hurray_plugin_device_count(plugin);
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, count, 64, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_ERR_INVALID_ARGUMENT, &err, "allocate on device %u, past the count", (unsigned)count);
}

/* PL-COPY-1..2: bytes written through the plugin come back unchanged, in
 * every class, at an offset; out-of-range copies are refused before the
 * plugin runs. */
void conformance_check_copy(conformance_run *run) {
  enum { size = 1 << 16 };
  static unsigned char pattern[size];
  static unsigned char back[size];
  for (size_t i = 0; i < size; i++) {
    pattern[i] = (unsigned char)(i * 31u + 7u);
  }
  hurray_plugin *plugin = conformance_plugin(run);
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hurray_plugin_device_info info;
    describe(run, d, &info);
    for (uint32_t c = 0; c < info.memory_class_count; c++) {
      char name[32];
      conformance_class_name(info.memory_classes[c].memory_class, name);
      hurray_error err;
      memset(&err, 0, sizeof err);
      hurray_plugin_buffer *buffer = NULL;
      conformance_expect_status(
          run,
          hurray_plugin_allocate(plugin, d, size, 64, info.memory_classes[c].memory_class, &buffer,
                                 &err),
          HURRAY_OK, &err, "allocate(device %u, 64 KiB, class %s)", (unsigned)d, name);
      conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, pattern, size, &err),
                                HURRAY_OK, &err, "copy_to_device of 64 KiB (class %s)", name);
      conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 100, pattern, 1000, &err),
                                HURRAY_OK, &err, "copy_to_device at offset 100 (class %s)", name);
      memset(back, 0, size);
      conformance_expect_status(run, hurray_plugin_buffer_read(buffer, 0, back, size, &err),
                                HURRAY_OK, &err, "copy_to_host of 64 KiB (class %s)", name);
      CONFORM(run,
              memcmp(back, pattern, 100) == 0 && memcmp(back + 100, pattern, 1000) == 0 &&
                  memcmp(back + 1100, pattern + 1100, size - 1100) == 0,
              "device %u class %s: the bytes read back differ from those written", (unsigned)d,
              name);
      conformance_expect_status(run, hurray_plugin_buffer_read(buffer, size - 10, back, 11, &err),
                                HURRAY_ERR_INVALID_ARGUMENT, &err,
                                "a read of 11 bytes at 10 before the end");
      conformance_expect_eq(run, err.value, size + 1u, "its error's value (the end asked)");
      conformance_expect_eq(run, err.expected, size, "its error's expected (the size)");
      conformance_expect_status(run,
                                hurray_plugin_buffer_write(buffer, UINT64_MAX, pattern, 2, &err),
                                HURRAY_ERR_INVALID_ARGUMENT, &err, "a write at offset UINT64_MAX");
      hurray_plugin_buffer_free(buffer);
    }
  }
}
