/*
 * An independent reference for the buffer protocol's reader rules, used as
 * the differential oracle of the fuzz harnesses. It is written from the
 * tables of specs/buffer-protocol.md (byte ranges, the BP-PAIR-1 grid, the
 * BP-ORDER-1 rule list, BP-DLPACK-1/2 rows, BP-XPORT-2..4) and shares no code
 * with core/: a bug has to be made twice, differently, to go unnoticed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_REFERENCE_DECODER_H
#define HURRAY_FUZZ_REFERENCE_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/buffer.h"

/* What the spec says a call must answer. */
typedef struct ref_verdict {
  hurray_status status;
  uint64_t value;
  uint64_t expected;
  size_t index;
} ref_verdict;

/* The five fields of a handle, as plain values (no validation implied). */
typedef struct ref_fields {
  uint64_t byte_size;
  uint32_t alignment;
  uint8_t device_tag;
  uint8_t sync_mode;
  uint8_t memory_class;
} ref_fields;

/* How a byte falls in the ranges of BP-DEV-1..4, BP-MEM-1..3, BP-SYNC-1. */
typedef enum ref_kind { REF_NAMED, REF_RESERVED, REF_PRIVATE, REF_INVALID } ref_kind;

ref_kind ref_device_kind(uint8_t byte);
ref_kind ref_memory_class_kind(uint8_t byte);
ref_kind ref_sync_mode_kind(uint8_t byte);

/* The spec's names, or "private", "reserved", "invalid". */
const char *ref_device_name(uint8_t byte);
const char *ref_memory_class_name(uint8_t byte);
const char *ref_sync_mode_name(uint8_t byte);

/* BP-PAIR-1..3. */
bool ref_pair_valid(uint8_t device_tag, uint8_t memory_class);

/* BP-ORDER-1 steps 2..8 on plain fields, reported at `index`. */
ref_verdict ref_check_fields(const ref_fields *fields, size_t index);

/* The 16 bytes of BP-WIRE-1 read as fields (no rule applied). */
ref_fields ref_read_fields(const uint8_t *in);

/* BP-ORDER-1 steps 1..8 on 16 wire bytes; *out is filled when OK. */
ref_verdict ref_decode_handle(const uint8_t *in, size_t index, ref_fields *out);

/* BP-COLOC-1, BP-COLOC-2 on n handles (n may be 0). */
ref_verdict ref_colocation(const ref_fields *handles, size_t n);

/* BP-TABLE-1..6: `exact` applies BP-TABLE-6. out needs room for 255. */
ref_verdict ref_decode_table(const uint8_t *in, size_t len, size_t cap, bool exact, ref_fields *out,
                             size_t *count);

/* BP-DLPACK-1: 0 when the pair has no DLPack value. */
int32_t ref_dlpack_export(uint8_t device_tag, uint8_t memory_class);
/* BP-DLPACK-2: false when the type has no Hurray equivalent. */
bool ref_dlpack_import(int32_t device_type, uint8_t *device_tag, uint8_t *memory_class);

/* BP-XPORT-1..4 for one (transport, mode, capabilities). */
ref_verdict ref_transport_check(uint32_t transport, uint8_t mode, uint32_t ipc_capabilities);
/* BP-XPORT-3 defaults. */
uint32_t ref_default_ipc_capabilities(uint8_t device_tag);

/* The alignment BP-ALIGN-5 measures from an address. */
uint32_t ref_alignment_of(uintptr_t address);

static inline ref_verdict ref_ok(void) {
  ref_verdict v = {HURRAY_OK, 0, 0, 0};
  return v;
}

static inline ref_verdict ref_fail(hurray_status status, uint64_t value, uint64_t expected,
                                   size_t index) {
  ref_verdict v = {status, value, expected, index};
  return v;
}

/* True when the implementation's (status, err) says what `want` says: the
 * status, and each payload field the status's documentation defines
 * (include/hurray/buffer.h), and an empty detail (the core writes none). */
bool ref_verdict_matches(ref_verdict want, hurray_status got, const hurray_error *err);

/* A hurray_error filled with a pattern, to tell whether a call wrote it. */
void ref_error_poison(hurray_error *err);
bool ref_error_is_poisoned(const hurray_error *err);

#endif /* HURRAY_FUZZ_REFERENCE_DECODER_H */
