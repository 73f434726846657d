/*
 * Fuzz target cli_input: hurray-inspect's input reading and its writers
 * (tools/hurray-inspect/inspect.h, specs/cli.md).
 *
 * Input: byte 0 is flags (bit 0: the rest is hex text, else raw bytes;
 * bit 1: --handle, else a table; bits 2..7: a small output capacity), the
 * rest is the input as the tool would read it from a file.
 *
 * Oracle:
 *  - hex text: a reference parser written here from CLI-HEX-1..4 agrees on
 *    the bytes, or on the error, its offset, line, column and character; a
 *    capacity one byte short is reported at the first digit of the byte that
 *    does not fit; the error message names the offset;
 *  - analysis: the verdict is the reference decoder's (CLI-INPUT-1: table
 *    decoded exactly; CLI-INPUT-2: a handle is exactly 16 bytes); each handle
 *    view holds the input's bytes, fields and own verdict; the counts and the
 *    trailing-bytes bookkeeping add up to the input length;
 *  - text report and JSON: the snprintf contract (length independent of the
 *    capacity, a NUL-terminated prefix, nothing written past cap — buffers are
 *    heap blocks of exactly cap bytes for ASan);
 *  - JSON: the output parses as exactly one JSON object and a newline
 *    (CLI-JSON-1), with "valid", "handles" and "error" saying what the
 *    analysis says;
 *  - JSON strings: any bytes written with inspect_json_write_string parse
 *    back to those bytes with each byte of invalid UTF-8 replaced by U+FFFD
 *    (CLI-JSON-2);
 *  - names: any bytes escaped with inspect_escape_name come out printable
 *    (no C0/C1 control, no DEL, valid UTF-8, every backslash an escape), and
 *    a failure object carrying them is one JSON object (CLI-OUT-2,
 *    CLI-JSON-3).
 * The reference hex parser counts CR, LF and CR LF each as one line break
 * (CLI-HEX-3); a handle input's TRAILING_BYTES message is the tool's own
 * (CLI-INPUT-2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_readers.h"
#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "inspect.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

/* ---- The checks ------------------------------------------------------ */

static uint8_t hex_bytes[64 * 1024];
static uint8_t ref_bytes[64 * 1024];
static inspect_result result;
static json_facts facts;

/* Calls a snprintf-style writer with a heap block of exactly `cap` bytes and
 * checks the contract against the full output. */
typedef size_t (*writer_fn)(const void *ctx, char *buf, size_t cap);

static void check_writer_contract(writer_fn write, const void *ctx, const char *full,
                                  size_t full_len, size_t cap) {
  char *small = malloc(cap > 0 ? cap : 1);
  FUZZ_CHECK(small != NULL);
  small[0] = 'X';
  FUZZ_CHECK(write(ctx, small, cap) == full_len);
  if (cap > 0) {
    size_t kept = full_len < cap ? full_len : cap - 1;
    FUZZ_CHECK(strlen(small) == kept && memcmp(small, full, kept) == 0);
  } else {
    FUZZ_CHECK(small[0] == 'X');
  }
  free(small);
}

static size_t write_text(const void *ctx, char *buf, size_t cap) {
  return inspect_write_text_report(ctx, "fuzz input", buf, cap);
}

static size_t write_json(const void *ctx, char *buf, size_t cap) {
  return inspect_write_json(ctx, buf, cap);
}

static size_t write_hex_error(const void *ctx, char *buf, size_t cap) {
  return inspect_hex_error_format(ctx, buf, cap);
}

/* Writes with a buffer sized from the announced length; returns it (heap). */
static char *write_full(writer_fn write, const void *ctx, size_t *len) {
  size_t n = write(ctx, NULL, 0);
  char *buf = malloc(n + 1);
  FUZZ_CHECK(buf != NULL);
  FUZZ_CHECK(write(ctx, buf, n + 1) == n && strlen(buf) == n);
  *len = n;
  return buf;
}

/* Writes a JSON document with `write`, checks the writer's contract at
 * `small_cap`, and reads the document into `facts`: CLI-JSON-1, one object,
 * then a newline, then nothing. */
static void read_json_document(writer_fn write, const void *ctx, size_t small_cap) {
  size_t json_len = 0;
  char *json = write_full(write, ctx, &json_len);
  check_writer_contract(write, ctx, json, json_len, small_cap);
  memset(&facts, 0, sizeof facts);
  facts.valid = -1;
  facts.error = -1;
  json_reader r = {json, json + json_len, 0};
  json_space(&r);
  FUZZ_CHECK(r.p < r.end && *r.p == '{');
  FUZZ_CHECK(json_value(&r, &facts, ROLE_TOP));
  FUZZ_CHECK(r.end - r.p == 1 && *r.p == '\n');
  free(json);
}

/* Returns false when the text is not valid hex (the tool stops there). */
static bool check_hex(const uint8_t *text, size_t len, size_t small_cap, size_t *out_len) {
  size_t cap = inspect_hex_max_bytes(len);
  FUZZ_CHECK(cap == len / 2);
  ref_hex_result want = ref_parse_hex(text, len, ref_bytes, cap);
  inspect_hex_error err;
  memset(&err, 0, sizeof err);
  size_t got_len = (size_t)-1;
  inspect_hex_status s = inspect_parse_hex((const char *)text, len, hex_bytes, cap, &got_len, &err);
  FUZZ_CHECK(s == want.status);
  if (s != INSPECT_HEX_OK) {
    FUZZ_CHECK(got_len == (size_t)-1);
    FUZZ_CHECK(err.status == s && err.offset == want.offset && err.line == want.line &&
               err.column == want.column);
    FUZZ_CHECK(s != INSPECT_HEX_BAD_CHARACTER || err.character == want.character);
    size_t message_len = 0;
    char *message = write_full(write_hex_error, &err, &message_len);
    char offset[32];
    snprintf(offset, sizeof offset, "%zu", err.offset);
    FUZZ_CHECK(message_len > 0 && strstr(message, offset) != NULL);
    check_writer_contract(write_hex_error, &err, message, message_len, small_cap);
    free(message);
    return false;
  }
  FUZZ_CHECK(got_len == want.len && memcmp(hex_bytes, ref_bytes, got_len) == 0);
  if (got_len > 0) {
    /* One byte short: reported at the first digit of the byte that does not fit. */
    ref_hex_result short_want = ref_parse_hex(text, len, ref_bytes, got_len - 1);
    size_t short_len = (size_t)-1;
    s = inspect_parse_hex((const char *)text, len, hex_bytes, got_len - 1, &short_len, &err);
    FUZZ_CHECK(s == INSPECT_HEX_CAPACITY && short_want.status == INSPECT_HEX_CAPACITY);
    FUZZ_CHECK(short_len == (size_t)-1 && err.offset == short_want.offset &&
               err.line == short_want.line && err.column == short_want.column);
    /* Parse again at full capacity: the short call may have overwritten a prefix. */
    FUZZ_CHECK(inspect_parse_hex((const char *)text, len, hex_bytes, cap, &got_len, NULL) ==
               INSPECT_HEX_OK);
  }
  size_t unused = 0;
  FUZZ_CHECK(inspect_parse_hex(NULL, 1, hex_bytes, cap, &unused, &err) ==
             INSPECT_HEX_NULL_ARGUMENT);
  FUZZ_CHECK(inspect_parse_hex((const char *)text, len, hex_bytes, cap, NULL, &err) ==
             INSPECT_HEX_NULL_ARGUMENT);
  *out_len = got_len;
  return true;
}

/* The verdict CLI-INPUT-1 / CLI-INPUT-2 require, from the reference decoder. */
static ref_verdict expected_verdict(const uint8_t *in, size_t len, inspect_input_kind kind) {
  static ref_fields scratch[HURRAY_BUFFER_TABLE_MAX_HANDLES];
  size_t count = 0;
  if (kind == INSPECT_INPUT_TABLE) {
    return ref_decode_table(in, len, HURRAY_BUFFER_TABLE_MAX_HANDLES, true, scratch, &count);
  }
  if (len < 16) {
    return ref_fail(HURRAY_ERR_TRUNCATED, len, 16, 0);
  }
  ref_verdict v = ref_decode_handle(in, 0, scratch);
  if (v.status == HURRAY_OK && len > 16) {
    return ref_fail(HURRAY_ERR_TRAILING_BYTES, len, 16, 0);
  }
  return v;
}

static void check_analysis(const uint8_t *in, size_t len, inspect_input_kind kind) {
  memset(&result, 0xA5, sizeof result);
  hurray_status s = inspect_analyze(in, len, kind, &result);
  FUZZ_CHECK(s == result.status);
  FUZZ_CHECK(ref_verdict_matches(expected_verdict(in, len, kind), s, &result.error));
  FUZZ_CHECK(result.kind == kind && result.input_len == len);

  size_t complete;
  size_t first;
  if (kind == INSPECT_INPUT_TABLE) {
    FUZZ_CHECK(result.has_count == (len >= 1));
    if (len >= 1) {
      FUZZ_CHECK(result.count == in[0] && result.expected_len == 1 + 16 * (size_t)in[0]);
    } else {
      FUZZ_CHECK(result.expected_len == 0);
    }
    size_t present = len >= 1 ? (len - 1) / 16 : 0;
    complete = len >= 1 ? (in[0] < present ? in[0] : present) : 0;
    first = len >= 1 ? 1 : 0;
  } else {
    FUZZ_CHECK(result.expected_len == 16);
    complete = len >= 16 ? 1 : 0;
    first = 0;
  }
  FUZZ_CHECK(result.handle_count == complete);
  for (size_t i = 0; i < complete; i++) {
    const inspect_handle_view *view = &result.handles[i];
    const uint8_t *bytes = in + first + 16 * i;
    FUZZ_CHECK(view->offset == first + 16 * i && memcmp(view->bytes, bytes, 16) == 0);
    ref_fields f = ref_read_fields(bytes);
    FUZZ_CHECK(view->fields.byte_size == f.byte_size && view->fields.alignment == f.alignment &&
               view->fields.device_tag == f.device_tag && view->fields.sync_mode == f.sync_mode &&
               view->fields.memory_class == f.memory_class && view->reserved == bytes[15]);
    ref_fields decoded;
    ref_verdict want = ref_decode_handle(bytes, i, &decoded);
    FUZZ_CHECK(ref_verdict_matches(want, view->status, &view->error));
  }
  size_t end_of_handles = first + 16 * complete;
  FUZZ_CHECK(result.extra_offset == end_of_handles && result.extra_len == len - end_of_handles);
  size_t kept = result.extra_len < INSPECT_EXTRA_BYTES_KEPT ? result.extra_len
                                                            : INSPECT_EXTRA_BYTES_KEPT;
  FUZZ_CHECK(kept == 0 || memcmp(result.extra_bytes, in + end_of_handles, kept) == 0);
  if (result.extra_len > 0) {
    bool all_declared = kind == INSPECT_INPUT_TABLE ? complete == in[0] : complete == 1;
    FUZZ_CHECK(result.extra_is_trailing == all_declared);
  }
  if (s == HURRAY_OK) {
    FUZZ_CHECK(result.message[0] == '\0');
  } else if (kind == INSPECT_INPUT_HANDLE && s == HURRAY_ERR_TRAILING_BYTES) {
    /* CLI-INPUT-2: the tool's own wording, naming a handle and both sizes. */
    char sizes[64];
    snprintf(sizes, sizeof sizes, "exactly 16 bytes, the input is %zu", len);
    FUZZ_CHECK(strstr(result.message, sizes) != NULL && strstr(result.message, "table") == NULL);
  } else {
    char message[sizeof result.message];
    hurray_error_format(&result.error, message, sizeof message);
    FUZZ_CHECK(strcmp(message, result.message) == 0);
  }
}

static void check_reports(size_t small_cap) {
  size_t text_len = 0;
  char *text = write_full(write_text, &result, &text_len);
  FUZZ_CHECK(text_len > 0);
  if (result.status != HURRAY_OK) {
    FUZZ_CHECK(strstr(text, result.message) != NULL);
  }
  check_writer_contract(write_text, &result, text, text_len, small_cap);
  free(text);

  read_json_document(write_json, &result, small_cap);
  FUZZ_CHECK(facts.valid == (result.status == HURRAY_OK ? 1 : 0));
  FUZZ_CHECK(facts.has_handles && facts.handles == result.handle_count);
  for (size_t i = 0; i < result.handle_count; i++) {
    FUZZ_CHECK(facts.byte_size[i] == result.handles[i].fields.byte_size);
    FUZZ_CHECK(facts.device_tag_byte[i] == result.handles[i].fields.device_tag);
  }
  if (result.status == HURRAY_OK) {
    FUZZ_CHECK(facts.error == 0);
  } else {
    const char *name = hurray_status_name(result.status);
    FUZZ_CHECK(facts.error == 1 && facts.numbers_seen == 7);
    FUZZ_CHECK(facts.status_len == strlen(name) &&
               memcmp(facts.status, name, facts.status_len) == 0);
    FUZZ_CHECK(facts.value == result.error.value && facts.expected == result.error.expected &&
               facts.index == result.error.index);
    FUZZ_CHECK(facts.message_len == strlen(result.message) &&
               memcmp(facts.message, result.message, facts.message_len) == 0);
  }
}

/* CLI-JSON-2: any bytes become a JSON string that reads back as the same
 * text, each byte of invalid UTF-8 replaced by U+FFFD. */
static void check_json_string(const uint8_t *text, size_t len, size_t small_cap) {
  size_t n = inspect_json_write_string((const char *)text, len, NULL, 0);
  char *out = malloc(n + 1);
  FUZZ_CHECK(out != NULL);
  FUZZ_CHECK(inspect_json_write_string((const char *)text, len, out, n + 1) == n);
  FUZZ_CHECK(strlen(out) == n);
  char *small = malloc(small_cap > 0 ? small_cap : 1);
  FUZZ_CHECK(small != NULL);
  FUZZ_CHECK(inspect_json_write_string((const char *)text, len, small, small_cap) == n);
  if (small_cap > 0) {
    size_t kept = n < small_cap ? n : small_cap - 1;
    FUZZ_CHECK(strlen(small) == kept && memcmp(small, out, kept) == 0);
  }
  free(small);

  uint8_t *want = malloc(3 * len + 1);
  uint8_t *got = malloc(4 * n + 1);
  FUZZ_CHECK(want != NULL && got != NULL);
  size_t want_len = 0;
  for (size_t i = 0; i < len;) {
    size_t seq = utf8_sequence(text + i, len - i);
    if (seq == 0) {
      want_len += utf8_put(0xFFFD, want + want_len);
      i++;
    } else {
      memcpy(want + want_len, text + i, seq);
      want_len += seq;
      i += seq;
    }
  }
  json_reader r = {out, out + n, 0};
  size_t got_len = 0;
  FUZZ_CHECK(json_string(&r, got, &got_len) && r.p == r.end);
  FUZZ_CHECK(got_len == want_len && memcmp(got, want, got_len) == 0);
  free(want);
  free(got);
  free(out);
}

/* CLI-OUT-2: any bytes as a name come out printable: no control byte, no
 * DEL, valid UTF-8 with no C1 control, every backslash starting an escape;
 * CLI-JSON-3: a failure carrying that name as its message is one JSON
 * object and a newline. */
static size_t write_name(const void *ctx, char *buf, size_t cap) {
  const struct {
    const uint8_t *p;
    size_t n;
  } *name = ctx;
  return inspect_escape_name((const char *)name->p, name->n, buf, cap);
}

static size_t write_failure(const void *ctx, char *buf, size_t cap) {
  return inspect_write_json_failure(ctx, buf, cap);
}

static void check_name_escape(const uint8_t *text, size_t len, size_t small_cap) {
  struct {
    const uint8_t *p;
    size_t n;
  } name = {text, len};
  size_t n = 0;
  char *out = write_full(write_name, &name, &n);
  check_writer_contract(write_name, &name, out, n, small_cap);
  const uint8_t *o = (const uint8_t *)out;
  for (size_t i = 0; i < n;) {
    FUZZ_CHECK(o[i] >= 0x20 && o[i] != 0x7F);
    if (o[i] == '\\') {
      FUZZ_CHECK(i + 1 < n && (o[i + 1] == '\\' || o[i + 1] == 'x'));
      i += o[i + 1] == 'x' ? 4 : 2;
      continue;
    }
    size_t seq = utf8_sequence(o + i, n - i);
    FUZZ_CHECK(seq > 0);
    FUZZ_CHECK(!(seq == 2 && o[i] == 0xC2 && o[i + 1] < 0xA0)); /* U+0080..U+009F */
    i += seq;
  }
  inspect_failure failure = {"INPUT", len, (len & 1u) != 0, len, len + 1, out};
  read_json_document(write_failure, &failure, small_cap);
  FUZZ_CHECK(facts.valid == 0 && facts.has_handles && facts.handles == 0 && facts.error == 1);
  FUZZ_CHECK(facts.numbers_seen == 7 && facts.value == len);
  FUZZ_CHECK(facts.message_len == n && memcmp(facts.message, out, n) == 0);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) {
    return 0;
  }
  uint8_t flags = data[0];
  const uint8_t *body = data + 1;
  size_t body_len = size - 1;
  if (body_len > sizeof hex_bytes) {
    return 0; /* the tool refuses inputs this large long before (CLI-INPUT-3) */
  }
  bool hex = (flags & 1u) != 0;
  inspect_input_kind kind = (flags & 2u) != 0 ? INSPECT_INPUT_HANDLE : INSPECT_INPUT_TABLE;
  size_t small_cap = flags >> 2;
  const uint8_t *bytes = body;
  size_t bytes_len = body_len;
  if (hex) {
    if (!check_hex(body, body_len, small_cap, &bytes_len)) {
      return 0;
    }
    bytes = hex_bytes;
  }
  /* An exact-size copy: a read past the input is a read past the block. */
  uint8_t *input = malloc(bytes_len > 0 ? bytes_len : 1);
  FUZZ_CHECK(input != NULL);
  memcpy(input, bytes, bytes_len);
  check_analysis(bytes_len > 0 ? input : NULL, bytes_len, kind);
  check_reports(small_cap);
  free(input);
  if (body_len <= 512) {
    check_json_string(body, body_len, small_cap);
  }
  if (body_len <= 128) {
    check_name_escape(body, body_len, small_cap);
  }
  return 0;
}

FUZZ_ORACLE_END
