/*
 * Human messages for hurray_error, naming the values involved.
 * Not part of the proven core: it formats with snprintf.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <inttypes.h>
#include <stdio.h>

#include "hurray/buffer.h"
#include "hurray/handoff.h"

static const char *transport_name(uint64_t transport) {
  switch (transport) {
    case HURRAY_TRANSPORT_IN_PROCESS: return "in-process";
    case HURRAY_TRANSPORT_IPC: return "IPC";
    case HURRAY_TRANSPORT_NETWORK: return "network";
    default: return "unknown";
  }
}

/* Handoff names for the u64 fields of an error; "invalid" when out of range. */
static const char *op_name(uint64_t op) {
  return op > UINT32_MAX ? "invalid" : hurray_handoff_op_name((uint32_t)op);
}

static const char *state_name(uint64_t state) {
  return state > UINT32_MAX ? "invalid" : hurray_handoff_state_name((uint32_t)state);
}

/* The display of a device tag or a memory class byte. */
typedef size_t (*byte_display)(uint8_t byte, char *buf, size_t cap);

/* A handle's byte (e->value) judged against another (e->expected: the other
 * byte of its pair, or the first handle's), both shown as hex and by name:
 * "handle N: <field> 0xVV (name) <relation> 0xXX (name)<consequence>". */
static int format_byte_against(const hurray_error *e, char *buf, size_t cap, const char *field,
                               byte_display display_value, const char *relation,
                               byte_display display_expected, const char *consequence) {
  char value_name[32];
  char expected_name[32];
  uint8_t value = (uint8_t)e->value;
  uint8_t expected = (uint8_t)e->expected;
  display_value(value, value_name, sizeof value_name);
  display_expected(expected, expected_name, sizeof expected_name);
  return snprintf(buf, cap, "handle %zu: %s 0x%02X (%s) %s 0x%02X (%s)%s", e->index, field, value,
                  value_name, relation, expected, expected_name, consequence);
}

/* Writes the message proper (without the detail suffix). */
static int format_body(const hurray_error *e, char *buf, size_t cap) {
  char a[32];
  uint8_t v8 = (uint8_t)e->value;
  uint8_t x8 = (uint8_t)e->expected;
  switch (e->status) {
    case HURRAY_OK: return snprintf(buf, cap, "ok");
    case HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO:
      return snprintf(buf, cap, "handle %zu: alignment %" PRIu64 " is not a power of two", e->index,
                      e->value);
    case HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM:
      return snprintf(buf, cap,
                      "handle %zu: alignment %" PRIu64 " (%" PRIu64
                      "-byte aligned) is below the %" PRIu64 "-byte minimum for a non-empty buffer",
                      e->index, e->value, e->value, e->expected);
    case HURRAY_ERR_INVALID_SYNC_MODE:
      if (e->value <= HURRAY_SYNC_CONSUMER_STREAM) {
        return snprintf(buf, cap,
                        "handle %zu: sync_mode 0x%02X (%s) is not allowed on a CPU buffer, which "
                        "must be producer_synced (0x%02X)",
                        e->index, v8, hurray_sync_mode_name(v8), x8);
      }
      return snprintf(buf, cap, "handle %zu: sync_mode 0x%02X is not defined (valid: 0x00..0x02)",
                      e->index, v8);
    case HURRAY_ERR_RESERVED_DEVICE_TAG:
      return snprintf(buf, cap,
                      "handle %zu: device_tag 0x%02X is reserved for future versions "
                      "(0x09..0xEF)",
                      e->index, v8);
    case HURRAY_ERR_INVALID_DEVICE_TAG:
      return snprintf(buf, cap, "handle %zu: device_tag 0x%02X is permanently invalid", e->index,
                      v8);
    case HURRAY_ERR_RESERVED_MEMORY_CLASS:
      return snprintf(buf, cap, "handle %zu: memory_class 0x%02X is reserved (0x04..0xEF)",
                      e->index, v8);
    case HURRAY_ERR_INVALID_MEMORY_CLASS:
      return snprintf(buf, cap, "handle %zu: memory_class 0x%02X is permanently invalid", e->index,
                      v8);
    case HURRAY_ERR_INVALID_PAIR:
      return format_byte_against(e, buf, cap, "memory_class", hurray_memory_class_display,
                                 "is not valid on device_tag", hurray_device_tag_display, "");
    case HURRAY_ERR_RESERVED_BYTE_NONZERO:
      return snprintf(buf, cap, "handle %zu: reserved byte 15 is 0x%02X, must be 0x00", e->index,
                      v8);
    case HURRAY_ERR_DEVICE_TAG_MISMATCH:
      return format_byte_against(e, buf, cap, "device_tag", hurray_device_tag_display,
                                 "differs from the first handle's", hurray_device_tag_display,
                                 "; all buffers of a tensor must be colocated");
    case HURRAY_ERR_MEMORY_CLASS_MISMATCH:
      return format_byte_against(e, buf, cap, "memory_class", hurray_memory_class_display,
                                 "differs from the first handle's", hurray_memory_class_display,
                                 "; all buffers of a tensor must share one memory class");
    case HURRAY_ERR_EMPTY_BUFFER_LIST:
      return snprintf(buf, cap, "no buffer handle given; at least 1 is required");
    case HURRAY_ERR_TRUNCATED:
      return snprintf(buf, cap, "input is truncated: %" PRIu64 " bytes, %" PRIu64 " needed",
                      e->value, e->expected);
    case HURRAY_ERR_TRAILING_BYTES:
      if (e->value <= e->expected) {
        /* The length is unknown (NET-RECV-4: UCX says only that the message
         * did not fit, value 0): no count of trailing bytes to give. */
        return snprintf(buf, cap, "buffer %zu: more than the %" PRIu64 " bytes declared arrived",
                        e->index, e->expected);
      }
      return snprintf(buf, cap,
                      "%" PRIu64 " trailing bytes: input is %" PRIu64
                      " bytes, the table occupies %" PRIu64,
                      e->value - e->expected, e->value, e->expected);
    case HURRAY_ERR_CAPACITY:
      return snprintf(buf, cap, "capacity too small: %" PRIu64 " needed, %" PRIu64 " available",
                      e->value, e->expected);
    case HURRAY_ERR_SYNC_MODE_NOT_ALLOWED:
      return snprintf(buf, cap, "sync_mode 0x%02X (%s) is not allowed on the %s transport", v8,
                      hurray_sync_mode_name(v8), transport_name(e->expected));
    case HURRAY_ERR_UNSUPPORTED:
      if ((int64_t)e->value < 0) { /* a negative DLDeviceType (BP-DLPACK-2) */
        return snprintf(buf, cap, "unsupported: no mapping for value %" PRId64, (int64_t)e->value);
      }
      return snprintf(buf, cap, "unsupported: no mapping for value %" PRIu64 " (with %" PRIu64 ")",
                      e->value, e->expected);
    case HURRAY_ERR_NULL_ARGUMENT: return snprintf(buf, cap, "argument %zu is NULL", e->index);
    case HURRAY_ERR_SYNC_MODE_MISMATCH: /* specs/handoff.md HO-PAY-5 */
      if (e->expected == HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG ||
          e->expected == HURRAY_SYNC_MISMATCH_STREAM_DEVICE_TAG) {
        hurray_device_tag_display((uint8_t)e->index, a, sizeof a);
        return snprintf(buf, cap,
                        "handoff payload does not match sync_mode 0x%02X (%s): the %s's device "
                        "tag 0x%02X (%s) differs from the buffer's",
                        v8, hurray_sync_mode_name(v8),
                        e->expected == HURRAY_SYNC_MISMATCH_EVENT_DEVICE_TAG ? "event" : "stream",
                        (unsigned)(uint8_t)e->index, a);
      }
      if (e->expected == HURRAY_SYNC_MISMATCH_EVENT_KIND) { /* HO-PAY-6 */
        return snprintf(buf, cap,
                        "handoff payload does not match sync_mode 0x%02X (%s): event_kind %zu "
                        "(0 none, 1 native, 2 plugin) does not fit the mode",
                        v8, hurray_sync_mode_name(v8), e->index);
      }
      return snprintf(buf, cap, "handoff payload does not match sync_mode 0x%02X (%s): %s", v8,
                      hurray_sync_mode_name(v8),
                      e->expected > UINT32_MAX ? "unknown"
                                               : hurray_sync_mismatch_name((uint32_t)e->expected));
    case HURRAY_ERR_ILLEGAL_TRANSITION: /* HO-SM-3 */
      return snprintf(buf, cap, "handoff operation %s is not allowed in state %s",
                      op_name(e->value), state_name(e->expected));
    case HURRAY_ERR_ALREADY_RELEASED:
      return snprintf(buf, cap, "handoff operation %s refused: already released (state %s)",
                      op_name(e->value), state_name(e->expected));
    case HURRAY_ERR_USE_AFTER_DESTROY:
      if (e->value < HURRAY_HANDOFF_OP_COUNT) {
        return snprintf(buf, cap, "handoff operation %s on a destroyed handoff", op_name(e->value));
      }
      return snprintf(buf, cap, "object used after it was destroyed");
    case HURRAY_ERR_PLUGIN_LOAD_FAILED: return snprintf(buf, cap, "plugin could not be loaded");
    case HURRAY_ERR_PLUGIN_ABI_MISMATCH:
      return snprintf(buf, cap, "plugin ABI version 0x%08" PRIX64 ", host speaks 0x%08" PRIX64,
                      e->value, e->expected);
    case HURRAY_ERR_PLUGIN_INVALID: return snprintf(buf, cap, "plugin table is invalid");
    case HURRAY_ERR_PLUGIN_UNSAFE_PATH:
      return snprintf(buf, cap, "plugin path is not safe to load");
    case HURRAY_ERR_PLUGIN_DUPLICATE_TAG:
      return snprintf(buf, cap, "device_tag 0x%02X is already served by another plugin", v8);
    case HURRAY_ERR_DEVICE_UNAVAILABLE: return snprintf(buf, cap, "device unavailable");
    case HURRAY_ERR_OUT_OF_MEMORY:
      return snprintf(buf, cap, "out of memory allocating %" PRIu64 " bytes", e->value);
    case HURRAY_ERR_DEVICE_ERROR:
      return snprintf(buf, cap, "device call failed with error %" PRId64, (int64_t)e->value);
    case HURRAY_ERR_INVALID_ARGUMENT:
      return snprintf(buf, cap, "argument %zu has invalid value %" PRIu64, e->index, e->value);
    case HURRAY_ERR_TIMEOUT: return snprintf(buf, cap, "timed out after %" PRIu64 " ns", e->value);
    case HURRAY_ERR_REFUSED: /* RX-ST-1, -2 */
      return snprintf(buf, cap, "refused by the peer, reason %" PRIu64 " (uid %" PRIu64 ")",
                      e->value, e->expected);
    case HURRAY_ERR_PEER_GONE: /* RX-ST-2 */
      /* Each transport fills it its own way: the network mid-transfer with
       * the buffers that arrived of those expected (NET-RECV-6), an ended
       * network connection with zeros (NET-CONN-3), IPC with the peer's pid
       * and expected 0 (IPC-FLT-2). */
      if (e->expected != 0u) {
        return snprintf(buf, cap,
                        "the peer is gone mid-transfer: %" PRIu64 " of %" PRIu64 " buffers arrived",
                        e->value, e->expected);
      }
      if (e->value == 0u) {
        return snprintf(buf, cap, "the peer is gone: the connection has ended");
      }
      return snprintf(buf, cap, "the peer process (pid %" PRIu64 ") is gone", e->value);
    case HURRAY_ERR_IPC_BAD_SEGMENT:
      return snprintf(buf, cap,
                      "segment of buffer %zu unusable: found 0x%" PRIX64 ", required 0x%" PRIX64,
                      e->index, e->value, e->expected);
    case HURRAY_ERR_IO:
      return snprintf(buf, cap, "system call failed with errno %" PRIu64, e->value);
  }
  return snprintf(buf, cap, "unknown status %d", (int)e->status);
}

size_t hurray_error_format(const hurray_error *err, char *buf, size_t cap) {
  char scratch[1];
  if (buf == NULL || cap == 0u) {
    buf = scratch;
    cap = sizeof scratch;
  }
  if (err == NULL) {
    int n = snprintf(buf, cap, "no error information (NULL hurray_error)");
    return n < 0 ? 0u : (size_t)n;
  }
  int n = format_body(err, buf, cap);
  if (n < 0) {
    buf[0] = '\0';
    return 0u;
  }
  size_t len = (size_t)n;
  if (err->status != HURRAY_OK && err->detail[0] != '\0') {
    size_t used = len < cap ? len : cap - 1u;
    int m = snprintf(buf + used, cap - used, ": %.*s", HURRAY_ERROR_DETAIL_SIZE, err->detail);
    if (m > 0) {
      len += (size_t)m;
    }
  }
  return len;
}
