# The fuzz targets, sourced by fuzz/run, fuzz/oss-fuzz-build.sh and tools/test.
# A target <name> is fuzz/fuzz_<name>.c plus fuzz/reference_decoder.c, linked
# with every source of libhurray (core/) and the extra sources listed below.
# SPDX-License-Identifier: Apache-2.0

HURRAY_FUZZ_TARGETS=(handle_decode table_decode dlpack dlpack_import error_format cli_input handoff plugin_table ipc_message ipc_api net_message)

# The sources of libhurray, relative to the repository root: the ones
# core/meson.build lists, so the fuzzers build exactly what the library does.
hurray_fuzz_library_sources() {
  grep -oE "'(proven|runtime)/[A-Za-z0-9_]+\.c'" core/meson.build | tr -d "'" | sed 's|^|core/|'
  # the shared support code (one error helper, PL-ERR-1) built into libhurray
  grep -oE "'\.\./plugins/common/[A-Za-z0-9_]+\.c'" core/meson.build | tr -d "'" | sed 's|^\.\./||'
}

# Sources a target needs besides libhurray.
hurray_fuzz_extra_sources() {
  case $1 in
    cli_input)
      # The memory-only part of hurray-inspect (tools/hurray-inspect/inspect.h).
      echo tools/hurray-inspect/hex_input.c tools/hurray-inspect/analyze.c \
        tools/hurray-inspect/report_text.c tools/hurray-inspect/json_writer.c \
        tools/hurray-inspect/text_sink.c
      ;;
    ipc_message)
      # The message writers the oracle re-encodes with (built into libhurray from ipc/).
      echo ipc/ipc_encode.c
      ;;
    net_message)
      # The message writers the oracle re-encodes with (built into libhurray from net/).
      echo net/net_encode.c
      ;;
    ipc_api)
      # The IPC transport, built into libhurray from ipc/ (Linux only).
      echo ipc/ipc_encode.c ipc/ipc_common.c ipc/ipc_consumer.c ipc/ipc_producer.c
      ;;
  esac
}

# Include directories a target needs besides include/.
hurray_fuzz_extra_includes() {
  case $1 in
    cli_input) echo -Itools/hurray-inspect ;;
  esac
}
