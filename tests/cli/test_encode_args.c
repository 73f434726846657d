/*
 * hurray-inspect's command line and encode mode (specs/cli.md CLI-ENC-1..4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "check_main.h"

static inspect_options options;
static char message[512];

/* inspect_parse_arguments() takes argv as main() gets it (mutable strings);
 * the literals are copied so -Wwrite-strings holds. */
#define PARSE(...)                                                            \
  parse_vector((const char *const[]){"hurray-inspect", __VA_ARGS__},          \
               sizeof((const char *const[]){"hurray-inspect", __VA_ARGS__}) / \
                   sizeof(const char *))

static bool parse_vector(const char *const args[], size_t argc) {
  static char storage[32][64];
  char *argv[33];
  ck_assert_uint_le(argc, 32);
  for (size_t i = 0; i < argc; i++) {
    ck_assert_uint_lt(strlen(args[i]), sizeof storage[i]);
    strcpy(storage[i], args[i]);
    argv[i] = storage[i];
  }
  argv[argc] = NULL;
  message[0] = '\0';
  return inspect_parse_arguments((int)argc, argv, &options, message, sizeof message);
}

START_TEST(test_inspect_options) {
  ck_assert(PARSE("--hex", "--json", "--handle", "file.hex"));
  ck_assert_int_eq(options.command, INSPECT_COMMAND_INSPECT);
  ck_assert(options.hex && options.json);
  ck_assert_int_eq(options.kind, INSPECT_INPUT_HANDLE);
  ck_assert_str_eq(options.path, "file.hex");
  ck_assert(PARSE("-"));
  ck_assert_str_eq(options.path, "-");
  ck_assert_int_eq(options.kind, INSPECT_INPUT_TABLE);
  ck_assert(PARSE("--", "--json"));
  ck_assert_str_eq(options.path, "--json");
  ck_assert(!options.json);
  ck_assert(PARSE("--json", "-h"));
  ck_assert_int_eq(options.command, INSPECT_COMMAND_HELP);
  ck_assert(PARSE("--version"));
  ck_assert_int_eq(options.command, INSPECT_COMMAND_VERSION);
}
END_TEST

START_TEST(test_inspect_usage_errors) {
  ck_assert(!PARSE("--bogus"));
  ck_assert_ptr_nonnull(strstr(message, "--bogus"));
  ck_assert(!PARSE("a", "b"));
  ck_assert_ptr_nonnull(strstr(message, "'b'"));
  ck_assert(!PARSE("--size", "4"));
  ck_assert_ptr_nonnull(strstr(message, "--size"));
  ck_assert(!PARSE("--json=yes"));
  ck_assert_ptr_nonnull(strstr(message, "--json=yes"));
}
END_TEST

/* Checks the fields encode parsed for its handle `index`. */
static void assert_encoded(size_t index, uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                           uint8_t sync_mode, uint8_t memory_class) {
  const hurray_buffer_handle *h = &options.handles[index].fields;
  ck_assert_uint_eq(h->byte_size, byte_size);
  ck_assert_uint_eq(h->alignment, alignment);
  ck_assert_uint_eq(h->device_tag, device_tag);
  ck_assert_uint_eq(h->sync_mode, sync_mode);
  ck_assert_uint_eq(h->memory_class, memory_class);
}

START_TEST(test_encode_defaults_and_groups) {
  /* CLI-ENC-1: --size starts a handle; defaults 64, cpu, producer_synced, standard. */
  ck_assert(PARSE("encode", "--size", "16", "--size=0x100", "--align=4096", "--device", "cuda",
                  "--sync", "event", "--class", "unified"));
  ck_assert_int_eq(options.command, INSPECT_COMMAND_ENCODE);
  ck_assert_uint_eq(options.handle_count, 2);
  assert_encoded(0, 16, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_MEMORY_STANDARD);
  assert_encoded(1, 256, 4096, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, HURRAY_MEMORY_UNIFIED);
}
END_TEST

START_TEST(test_encode_usage_errors) {
  ck_assert(!PARSE("encode", "--align", "64"));
  ck_assert_ptr_nonnull(strstr(message, "--size"));
  ck_assert(!PARSE("encode", "--size", "1", "--device", "cuda", "--device", "rocm"));
  ck_assert_ptr_nonnull(strstr(message, "twice"));
  ck_assert(!PARSE("encode", "--size", "-1"));
  ck_assert(!PARSE("encode", "--size", "18446744073709551616")); /* 2^64 */
  ck_assert(PARSE("encode", "--size", "18446744073709551615"));
  ck_assert(!PARSE("encode", "--size", "1", "--align", "4294967296")); /* 2^32 */
  ck_assert_ptr_nonnull(strstr(message, "4294967296"));
  ck_assert(!PARSE("encode", "--size", "1", "--device", "gpu"));
  ck_assert_ptr_nonnull(strstr(message, "'gpu'"));
  ck_assert(!PARSE("encode", "--size", "1", "--class", "256"));
  ck_assert(!PARSE("encode", "--size"));
  ck_assert_ptr_nonnull(strstr(message, "needs a value"));
  ck_assert(!PARSE("encode", "file"));
  ck_assert(!PARSE("encode", "--hex"));
  ck_assert(!PARSE("encode", "--handle", "--size", "1", "--size", "2"));
  ck_assert(!PARSE("encode", "--handle"));
}
END_TEST

START_TEST(test_value_names) {
  /* BP-DEV-1, BP-SYNC-1, BP-MEM-1 names; bytes as numbers; no ambiguous names. */
  static const char *devices[] = {"cpu",    "cuda",    "rocm",       "metal", "vulkan",
                                  "webgpu", "hexagon", "level_zero", "opencl"};
  for (unsigned i = 0; i < 9u; i++) {
    uint8_t b = 0xAA;
    ck_assert(inspect_parse_device_tag(devices[i], &b));
    ck_assert_uint_eq(b, i);
  }
  static const char *classes[] = {"standard", "host_pinned", "unified", "peer"};
  for (unsigned i = 0; i < 4u; i++) {
    uint8_t b = 0xAA;
    ck_assert(inspect_parse_memory_class(classes[i], &b));
    ck_assert_uint_eq(b, i);
  }
  static const char *modes[] = {"producer_synced", "event", "consumer_stream"};
  for (unsigned i = 0; i < 3u; i++) {
    uint8_t b = 0xAA;
    ck_assert(inspect_parse_sync_mode(modes[i], &b));
    ck_assert_uint_eq(b, i);
  }
  uint8_t b = 0;
  ck_assert(inspect_parse_device_tag("0xF0", &b));
  ck_assert_uint_eq(b, 0xF0);
  ck_assert(inspect_parse_device_tag("255", &b));
  ck_assert_uint_eq(b, 255);
  ck_assert(!inspect_parse_device_tag("private", &b));
  ck_assert(!inspect_parse_device_tag("reserved", &b));
  ck_assert(!inspect_parse_device_tag("CUDA", &b));
  ck_assert(!inspect_parse_device_tag("0x", &b));
  ck_assert(!inspect_parse_device_tag("", &b));
  ck_assert(!inspect_parse_sync_mode("0x100", &b));
}
END_TEST

/* Encodes, parses the hex back and analyses it: CLI-ENC-4 says --hex reads it. */
static hurray_status encode_and_read_back(inspect_result *r) {
  char text[16384];
  size_t len = 0;
  hurray_error err;
  hurray_status status = inspect_encode(&options, text, sizeof text, &len, &err);
  ck_assert_int_eq(status, HURRAY_OK);
  ck_assert_uint_eq(len, strlen(text));
  uint8_t bytes[8192];
  size_t n = 0;
  ck_assert_int_eq(inspect_parse_hex(text, len, bytes, sizeof bytes, &n, NULL), INSPECT_HEX_OK);
  return inspect_analyze(bytes, n, options.kind, r);
}

START_TEST(test_encode_round_trip) {
  static inspect_result r;
  ck_assert(PARSE("encode", "--size", "1048576", "--align", "4096", "--device", "cuda", "--sync",
                  "event", "--size", "1024", "--align", "256", "--device", "cuda", "--size", "0",
                  "--align", "1", "--device", "1"));
  ck_assert_int_eq(encode_and_read_back(&r), HURRAY_OK);
  ck_assert_uint_eq(r.input_len, 1u + 16u * 3u);
  ck_assert_uint_eq(r.handle_count, 3);
  ck_assert_uint_eq(r.handles[0].fields.byte_size, 1048576);
  ck_assert_uint_eq(r.handles[0].fields.alignment, 4096);
  ck_assert_uint_eq(r.handles[0].fields.sync_mode, HURRAY_SYNC_EVENT);
  ck_assert_uint_eq(r.handles[1].fields.alignment, 256);
  ck_assert_uint_eq(r.handles[2].fields.byte_size, 0);
  ck_assert_uint_eq(r.handles[2].fields.alignment, 1);

  ck_assert(PARSE("encode", "--handle", "--size", "64", "--device", "0xF4", "--class", "0xF4"));
  ck_assert_int_eq(encode_and_read_back(&r), HURRAY_OK);
  ck_assert_uint_eq(r.input_len, 16);
  ck_assert_uint_eq(r.handles[0].fields.device_tag, 0xF4);
  ck_assert_uint_eq(r.handles[0].fields.memory_class, 0xF4);
}
END_TEST

START_TEST(test_encode_hex_layout) {
  /* CLI-ENC-4: count byte on its own line, then 16 bytes a line, BP-WIRE-1 layout. */
  ck_assert(PARSE("encode", "--size", "0x0102", "--align", "128", "--device", "vulkan"));
  char text[256];
  size_t len = 0;
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, NULL), HURRAY_OK);
  ck_assert_str_eq(text, "01\n02 01 00 00 00 00 00 00 80 00 00 00 04 00 00 00\n");
  options.raw_output = true;
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, NULL), HURRAY_OK);
  ck_assert_uint_eq(len, 17);
  const uint8_t want[17] = {1, 2, 1, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 4, 0, 0, 0};
  ck_assert_mem_eq(text, want, sizeof want);
}
END_TEST

START_TEST(test_encode_rejections) {
  /* CLI-ENC-3: libhurray decides, with its payload. */
  hurray_error err;
  char text[1024];
  size_t len = 0;
  ck_assert(PARSE("encode", "--size", "64", "--sync", "event"));
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err),
                   HURRAY_ERR_INVALID_SYNC_MODE); /* BP-SYNC-2 */
  ck_assert(PARSE("encode", "--size", "64", "--size", "64", "--align", "48"));
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err),
                   HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO); /* BP-ALIGN-1 */
  ck_assert_uint_eq(err.index, 1);
  ck_assert_uint_eq(err.value, 48);
  ck_assert(PARSE("encode", "--size", "64", "--device", "cuda", "--size", "64", "--device", "cuda",
                  "--class", "host_pinned"));
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err),
                   HURRAY_ERR_MEMORY_CLASS_MISMATCH); /* BP-COLOC-2 */
  ck_assert_uint_eq(err.index, 1);
  ck_assert(PARSE("encode", "--handle", "--size", "64", "--device", "0x09"));
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err),
                   HURRAY_ERR_RESERVED_DEVICE_TAG); /* BP-DEV-2 */
  ck_assert_uint_eq(err.value, 0x09);
  ck_assert(PARSE("encode"));
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err),
                   HURRAY_ERR_EMPTY_BUFFER_LIST); /* BP-TABLE-3 */
  ck_assert(PARSE("encode", "--size", "64"));
  ck_assert_int_eq(inspect_encode(&options, text, 10, &len, &err), HURRAY_ERR_CAPACITY);
}
END_TEST

START_TEST(test_unknown_and_misplaced_options) {
  /* CLI-OPT-1: an unknown option is named as unknown, in either mode. */
  ck_assert(!PARSE("-x"));
  ck_assert_str_eq(message, "unknown option '-x'");
  ck_assert(!PARSE("--bogus=1"));
  ck_assert_str_eq(message, "unknown option '--bogus=1'");
  ck_assert(!PARSE("encode", "--size", "1", "-x"));
  ck_assert_str_eq(message, "unknown option '-x'");
  /* A known option in the wrong mode says which mode it belongs to. */
  ck_assert(!PARSE("--size", "4"));
  ck_assert_ptr_nonnull(strstr(message, "'--size' belongs to encode"));
  ck_assert(!PARSE("--raw"));
  ck_assert_ptr_nonnull(strstr(message, "'--raw' belongs to encode"));
  ck_assert(!PARSE("encode", "--json"));
  ck_assert_ptr_nonnull(strstr(message, "'--json' is not an encode option"));
}
END_TEST

START_TEST(test_arguments_escaped_in_messages) {
  /* CLI-OUT-2: a value from the command line cannot drive the terminal. */
  ck_assert(!PARSE("-\x1b[2J"));
  ck_assert_str_eq(message, "unknown option '-\\x1B[2J'");
  ck_assert(!PARSE("a", "b\rc"));
  ck_assert_str_eq(message, "more than one input file given ('b\\x0Dc')");
  ck_assert(!PARSE("encode", "--size", "1", "--device",
                   "\xe2\x80\xae"
                   "cuda"));
  ck_assert_ptr_nonnull(strstr(message, "'\\xE2\\x80\\xAEcuda'"));
}
END_TEST

START_TEST(test_encode_more_handles_than_a_table_holds) {
  /* BP-TABLE-1 through libhurray (CLI-ENC-3): 256 handles parse, and the
   * encoder rejects the count (CAPACITY, value 256, expected 255), exit 1. */
  enum { handles = 256 };
  static char *argv[2 + 2 * handles + 2];
  static char size_flag[] = "--size";
  static char size_value[] = "64";
  static char program[] = "hurray-inspect";
  static char encode[] = "encode";
  static char device_flag[] = "--device";
  static char bad_device[] = "gpu";
  int argc = 0;
  argv[argc++] = program;
  argv[argc++] = encode;
  for (int i = 0; i < handles; i++) {
    argv[argc++] = size_flag;
    argv[argc++] = size_value;
  }
  ck_assert(inspect_parse_arguments(argc, argv, &options, message, sizeof message));
  ck_assert_uint_eq(options.handle_count, 256);
  char text[64];
  size_t len = 0;
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(inspect_encode(&options, text, sizeof text, &len, &err), HURRAY_ERR_CAPACITY);
  ck_assert_uint_eq(err.value, 256);
  ck_assert_uint_eq(err.expected, 255);
  char why[256];
  inspect_encode_error_format(&options, &err, why, sizeof why);
  ck_assert_str_eq(why,
                   "256 handles given; a buffer table holds at most 255, its count is one "
                   "byte (BP-TABLE-1)");
  /* Values of handles past the limit are still checked as usage. */
  argv[argc++] = device_flag;
  argv[argc++] = bad_device;
  ck_assert(!inspect_parse_arguments(argc, argv, &options, message, sizeof message));
  ck_assert_ptr_nonnull(strstr(message, "'gpu'"));
  /* 255 is a table. */
  ck_assert(inspect_parse_arguments(2 + 2 * 255, argv, &options, message, sizeof message));
  static char out[16384];
  ck_assert_int_eq(inspect_encode(&options, out, sizeof out, &len, &err), HURRAY_OK);
}
END_TEST

static Suite *encode_suite(void) {
  Suite *s = suite_create("cli_encode_args");
  TCase *a = tcase_create("arguments");
  tcase_add_test(a, test_inspect_options);
  tcase_add_test(a, test_inspect_usage_errors);
  tcase_add_test(a, test_encode_defaults_and_groups);
  tcase_add_test(a, test_encode_usage_errors);
  tcase_add_test(a, test_value_names);
  tcase_add_test(a, test_unknown_and_misplaced_options);
  tcase_add_test(a, test_arguments_escaped_in_messages);
  suite_add_tcase(s, a);
  TCase *e = tcase_create("encode");
  tcase_add_test(e, test_encode_round_trip);
  tcase_add_test(e, test_encode_hex_layout);
  tcase_add_test(e, test_encode_rejections);
  tcase_add_test(e, test_encode_more_handles_than_a_table_holds);
  suite_add_tcase(s, e);
  return s;
}

int main(void) { return hurray_check_run(encode_suite()); }
