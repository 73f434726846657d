/*
 * Fuzz target dlpack_pair: the DLPack export half (hurray_dlpack_export,
 * _versioned, _buffer, _buffer_versioned, hurray_dlpack_layout_check;
 * BP-DLPACK-4..8) and the round trip into the import half
 * (hurray_dlpack_import[_versioned], BP-DLPACK-9..14): a buffer is exported
 * under a layout the input chooses, and the tensor the export made is
 * imported again as a second producer would hand it over.
 *
 * Input (missing bytes read as 0):
 *   byte 0   bit 0 versioned, bit 1 from a handoff (else a buffer the
 *            caller owns), bit 2 no layout (1-D uint8), bit 3 strides
 *            given, bit 4 a layout struct_size too small, bit 5 the handoff
 *            holds an event buffer (exported only once waited on and its
 *            event released, bit 6), bit 7 import the tensor back
 *   byte 1   device tag (below 0x80: a named tag, modulo 9), byte 2 class
 *   byte 3-4 byte_size (u16), byte 5 the data's offset from a 4096 base
 *   byte 6-8 dtype code, bits, lanes (lanes 0..255)
 *   byte 9   ndim (signed), byte 10 device_id, byte 11 versioned flags
 *            (bits 0..2 as given, bit 7: an undefined bit)
 *   byte 12  per dimension: extent (u8; 0xFF: 2^62), then stride (u8; 0xFF:
 *            2^62, 0xFE: -1)
 *
 * Oracle: the layout rules of BP-DLPACK-6/7 recomputed here with checked
 * arithmetic decide whether an export succeeds, as hurray_dlpack_layout_check
 * says too; the device type is BP-DLPACK-1's or UNSUPPORTED; an export from a
 * handoff needs a readable buffer (BP-DLPACK-4) and leaves it RELEASED with
 * no callback run; a buffer outside a handoff must be producer_synced. An
 * exported tensor has the data pointer, the device, the layout (compact
 * strides filled), byte_offset 0, the version and flags asked (BP-DLPACK-8).
 * The buffer's release runs exactly once, through the tensor's deleter
 * (BP-DLPACK-5): after the round trip's release, or from the deleter when
 * the import refused it (BP-DLPACK-13); on a refused export the caller
 * still owns it. A round trip that is accepted hands back the same data
 * pointer and device tag.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/dlpack.h"
#include "hurray/handoff.h"

FUZZ_ORACLE_BEGIN

enum { MAX_DIMS = 70 };

static unsigned releases;
static unsigned event_releases;
static void on_release(void *buffer, void *ctx) {
  (void)buffer;
  (void)ctx;
  releases++;
}
static void on_event_release(void *event, void *ctx) {
  (void)event;
  (void)ctx;
  event_releases++;
}

static uint8_t at(const uint8_t *d, size_t n, size_t i) { return i < n ? d[i] : 0u; }

/* BP-DLPACK-6/7 as written: whether `layout` fits a buffer of `size` bytes. */
static bool layout_fits(const hurray_dlpack_layout *l, uint64_t size) {
  if (l == NULL) {
    return size <= (uint64_t)INT64_MAX;
  }
  if (l->struct_size < sizeof *l) {
    return false;
  }
  uint64_t bits = (uint64_t)l->dtype.bits * l->dtype.lanes;
  if (l->dtype.bits == 0u || l->dtype.lanes == 0u || bits % 8u != 0u) {
    return false;
  }
  uint64_t elem = bits / 8u;
  if (l->ndim < 0 || l->ndim > HURRAY_DLPACK_MAX_NDIM || (l->ndim > 0 && l->shape == NULL)) {
    return false;
  }
  uint64_t count = 1u;
  bool empty = false;
  for (int32_t i = 0; i < l->ndim; i++) {
    if (l->shape[i] < 0 || (l->strides != NULL && l->strides[i] < 0)) {
      return false;
    }
    empty = empty || l->shape[i] == 0;
  }
  for (int32_t i = 0; !empty && i < l->ndim; i++) {
    if (__builtin_mul_overflow(count, (uint64_t)l->shape[i], &count)) {
      return false; /* the element count overflows 64 bits */
    }
  }
  if (empty) {
    count = 0u;
  }
  if (l->strides == NULL) {
    uint64_t bytes;
    if (__builtin_mul_overflow(count, elem, &bytes) || bytes != size) {
      return false;
    }
    /* each compact stride must fit an int64 */
    uint64_t running = 1u;
    for (int32_t i = l->ndim - 1; i >= 0; i--) {
      if (running > (uint64_t)INT64_MAX) {
        return false;
      }
      uint64_t extent = (uint64_t)l->shape[i];
      if (extent != 0u && __builtin_mul_overflow(running, extent, &running)) {
        running = UINT64_MAX;
      }
    }
    return true;
  }
  if (count == 0u) {
    return true;
  }
  uint64_t last = 0u;
  for (int32_t i = 0; i < l->ndim; i++) {
    uint64_t step;
    if (__builtin_mul_overflow((uint64_t)l->shape[i] - 1u, (uint64_t)l->strides[i], &step) ||
        __builtin_add_overflow(last, step, &last)) {
      return false;
    }
  }
  uint64_t needed;
  if (__builtin_add_overflow(last, 1u, &needed) || __builtin_mul_overflow(needed, elem, &needed)) {
    return false;
  }
  return needed <= size;
}

static void check_tensor(const hurray_dl_tensor *t, void *data, int32_t device_type,
                         const hurray_dlpack_layout *l, uint64_t size) {
  FUZZ_CHECK(t->data == data && t->byte_offset == 0u && t->device.device_type == device_type);
  if (l == NULL) {
    FUZZ_CHECK(t->ndim == 1 && t->shape[0] == (int64_t)size && t->strides[0] == 1 &&
               t->device.device_id == 0 && t->dtype.bits == 8u && t->dtype.lanes == 1u);
    return;
  }
  FUZZ_CHECK(t->ndim == l->ndim && t->device.device_id == l->device_id &&
             t->dtype.code == l->dtype.code && t->dtype.bits == l->dtype.bits &&
             t->dtype.lanes == l->dtype.lanes);
  uint64_t running = 1u; /* the compact stride, saturated past the first dimension */
  for (int32_t i = t->ndim - 1; i >= 0; i--) {
    FUZZ_CHECK(t->shape[i] == l->shape[i]);
    FUZZ_CHECK((uint64_t)t->strides[i] == (l->strides != NULL ? (uint64_t)l->strides[i] : running));
    if (l->strides == NULL && l->shape[i] != 0 &&
        __builtin_mul_overflow(running, (uint64_t)l->shape[i], &running)) {
      running = UINT64_MAX;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  static _Alignas(4096) uint8_t arena[2 * 4096 + 65536];
  uint8_t mode = at(d, n, 0);
  bool versioned = (mode & 0x01u) != 0u;
  bool from_handoff = (mode & 0x02u) != 0u;
  hurray_device_tag tag = at(d, n, 1) < 0x80u ? (hurray_device_tag)(at(d, n, 1) % 9u) : at(d, n, 1);
  hurray_memory_class mclass = at(d, n, 2) % 4u;
  if (at(d, n, 2) >= 0xF0u) {
    mclass = at(d, n, 2);
  }
  uint64_t size = (uint64_t)at(d, n, 3) | ((uint64_t)at(d, n, 4) << 8);
  /* Through a handoff the offset keeps the declared 64 (HO-CHECK-3); a
   * caller's own buffer may be anywhere (the round trip measures it). */
  void *data = arena + 4096 + (from_handoff ? at(d, n, 5) & ~63u : at(d, n, 5));
  uint64_t flags = at(d, n, 11) & 0x07u;
  if ((at(d, n, 11) & 0x80u) != 0u) {
    flags |= UINT64_C(1) << 40;
  }
  int64_t shape[MAX_DIMS];
  int64_t strides[MAX_DIMS];
  int32_t ndim = (int8_t)at(d, n, 9);
  for (size_t i = 0; i < MAX_DIMS; i++) {
    uint8_t e = at(d, n, 12 + 2 * i);
    uint8_t s = at(d, n, 13 + 2 * i);
    shape[i] = e == 0xFFu ? INT64_C(1) << 62 : e;
    strides[i] = s == 0xFFu ? INT64_C(1) << 62 : s == 0xFEu ? -1 : s;
  }
  hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(at(d, n, 6), at(d, n, 7), at(d, n, 8)), ndim,
                              shape, (mode & 0x08u) != 0u ? strides : NULL, (int8_t)at(d, n, 10));
  if ((mode & 0x10u) != 0u) {
    layout.struct_size = 8u;
  }
  const hurray_dlpack_layout *l = (mode & 0x04u) != 0u ? NULL : &layout;
  bool event = from_handoff && (mode & 0x20u) != 0u && tag != HURRAY_DEVICE_CPU;
  hurray_buffer_handle h;
  if (hurray_buffer_handle_with_memory_class(
          size, 64, tag, event ? HURRAY_SYNC_EVENT : HURRAY_SYNC_PRODUCER_SYNCED, mclass, &h,
          NULL) != HURRAY_OK) {
    return 0; /* not a handle: the handle and table targets' business */
  }
  releases = 0;
  event_releases = 0;
  int32_t device_type = 0;
  bool mapped = hurray_dlpack_device_type_from_pair(tag, mclass, &device_type, NULL) == HURRAY_OK;
  bool fits = layout_fits(l, size);
  hurray_error e;
  FUZZ_CHECK((hurray_dlpack_layout_check(l, size, &e) == HURRAY_OK) == fits);
  bool flags_ok = !versioned || (flags & ~(uint64_t)3u) == 0u;

  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  bool readable = true;
  if (from_handoff) {
    hurray_buffer_offer offer = hurray_buffer_offer_make(
        data, on_release, NULL,
        event ? hurray_sync_payload_event(arena, tag, on_event_release, NULL)
              : hurray_sync_payload_none());
    FUZZ_CHECK(hurray_handoff_offer(&handoff, &h, &offer, NULL) == HURRAY_OK);
    hurray_accepted_buffer accepted;
    accepted.struct_size = sizeof accepted;
    FUZZ_CHECK(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, NULL) ==
               HURRAY_OK);
    if (event) { /* BP-DLPACK-4: readable only once waited on and released */
      readable = (mode & 0x40u) != 0u;
      if (readable) {
        FUZZ_CHECK(hurray_handoff_record_event_wait(&handoff, NULL) == HURRAY_OK);
        FUZZ_CHECK(hurray_handoff_release_event(&handoff, NULL) == HURRAY_OK);
      }
    }
  }
  bool want = mapped && fits && flags_ok && readable;
  hurray_dl_managed_tensor *legacy = NULL;
  hurray_dl_managed_tensor_versioned *modern = NULL;
  hurray_status s;
  if (from_handoff) {
    s = versioned ? hurray_dlpack_export_versioned(&handoff, l, flags, &modern, &e)
                  : hurray_dlpack_export(&handoff, l, &legacy, &e);
  } else {
    s = versioned ? hurray_dlpack_export_buffer_versioned(&h, data, on_release, NULL, l, flags,
                                                          &modern, &e)
                  : hurray_dlpack_export_buffer(&h, data, on_release, NULL, l, &legacy, &e);
  }
  FUZZ_CHECK((s == HURRAY_OK) == want);
  FUZZ_CHECK(releases == 0u); /* an export runs no release (BP-DLPACK-5) */
  if (s != HURRAY_OK) {
    FUZZ_CHECK(legacy == NULL && modern == NULL && e.status == s);
    if (!mapped && fits && flags_ok && readable) {
      FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED);
    }
    if (from_handoff) { /* unchanged: still the caller's to release */
      if (event && !readable) {
        FUZZ_CHECK(hurray_handoff_release_event(&handoff, NULL) == HURRAY_OK);
      }
      FUZZ_CHECK(hurray_handoff_release(&handoff, NULL) == HURRAY_OK && releases == 1u);
    }
    if (from_handoff) {
      FUZZ_CHECK(hurray_handoff_destroy(&handoff, NULL) == HURRAY_OK);
    }
    return 0;
  }
  if (from_handoff) {
    FUZZ_CHECK(hurray_handoff_state_of(&handoff) == HURRAY_HANDOFF_RELEASED);
    FUZZ_CHECK(hurray_handoff_destroy(&handoff, NULL) == HURRAY_OK);
  }
  const hurray_dl_tensor *t = versioned ? &modern->dl_tensor : &legacy->dl_tensor;
  check_tensor(t, data, device_type, l, size);
  if (versioned) {
    FUZZ_CHECK(modern->version.major == HURRAY_DLPACK_VERSION_MAJOR &&
               modern->version.minor == HURRAY_DLPACK_VERSION_MINOR && modern->flags == flags);
  }
  /* The round trip: the tensor handed to an importer (BP-DLPACK-9..13). */
  if ((mode & 0x80u) != 0u) {
    hurray_handoff back;
    hurray_handoff_init(&back);
    s = versioned ? hurray_dlpack_import_versioned(&back, modern, NULL, &e)
                  : hurray_dlpack_import(&back, legacy, &e);
    if (s == HURRAY_OK) {
      hurray_accepted_buffer again;
      again.struct_size = sizeof again;
      FUZZ_CHECK(hurray_handoff_accept(&back, HURRAY_TRANSPORT_IN_PROCESS, 0, &again, NULL) ==
                 HURRAY_OK);
      FUZZ_CHECK(again.data == data && again.handle.device_tag == tag);
      FUZZ_CHECK(releases == 0u);
      FUZZ_CHECK(hurray_handoff_release(&back, NULL) == HURRAY_OK);
      FUZZ_CHECK(releases == 1u); /* through the deleter, once */
      FUZZ_CHECK(hurray_handoff_destroy(&back, NULL) == HURRAY_OK);
      return 0;
    }
    FUZZ_CHECK(hurray_handoff_state_of(&back) == HURRAY_HANDOFF_EMPTY && releases == 0u);
  }
  if (versioned) {
    modern->deleter(modern);
  } else {
    legacy->deleter(legacy);
  }
  FUZZ_CHECK(releases == 1u);
  return 0;
}

FUZZ_ORACLE_END
