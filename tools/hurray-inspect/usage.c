/*
 * The --help text. docs/cli.md and hurray-inspect.1 are its long forms; keep
 * the three in step (tests/cli/man_render.sh checks every option is in the
 * manual page).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "cli.h"

void inspect_print_usage(FILE *stream) {
  fputs(
      "Usage: hurray-inspect [--handle] [--hex] [--json] [FILE|-]\n"
      "       hurray-inspect encode [--handle] [--raw] --size N [--align N] [--device D]\n"
      "                             [--sync S] [--class C] [--size N ...]\n"
      "\n"
      "Inspects a Hurray buffer table (the default) or one 16-byte buffer handle,\n"
      "as libhurray decodes it, and shows field by field why it is accepted or\n"
      "rejected. Reads FILE, or standard input when FILE is '-' or absent.\n"
      "\n"
      "  --handle   the input is one handle (exactly 16 bytes), not a table\n"
      "  --hex      the input is hex text: two digits per byte, whitespace ignored,\n"
      "             '#' comments to end of line (CR, LF or CRLF), no 0x prefixes\n"
      "  --json     print one JSON object instead of the annotated table, on every\n"
      "             exit: {\"valid\", \"handles\": [...], \"error\": {...} or null}\n"
      "  --allow-empty-table  a table of count 0 (the single byte 00) is valid, as\n"
      "             for a composite head (layout 0x0B) whose bytes are its partitions'\n"
      "  -h, --help print this help;  --version  print the library version\n"
      "\n"
      "A table must be the whole input: count byte, count handles, nothing after\n"
      "(TRAILING_BYTES), all handles on one device and memory class.\n"
      "\n"
      "encode builds handles and prints them as hex text that --hex reads back\n"
      "(a table unless --handle; --raw prints the bytes instead). --size starts a\n"
      "handle; the other flags set fields of the latest one, defaults:\n"
      "  --align 64  --device cpu  --sync producer_synced  --class standard\n"
      "Numbers are decimal or 0x hex. Names:\n"
      "  device: cpu cuda rocm metal vulkan webgpu hexagon level_zero opencl,\n"
      "          or a byte (private tags 0xF0..0xFE)\n"
      "  sync:   producer_synced event consumer_stream, or a byte\n"
      "  class:  standard host_pinned unified peer, or a byte (private 0xF0..0xFE)\n"
      "encode refuses (exit 1, with libhurray's message) anything a reader would\n"
      "reject.\n"
      "\n"
      "Exit status: 0 valid, 1 rejected by the protocol, 2 usage or I/O error.\n"
      "Example:\n"
      "  hurray-inspect encode --size 4096 --align 4096 --device cuda --sync event \\\n"
      "      | hurray-inspect --hex\n",
      stream);
}
