# The fuzz targets, sourced by fuzz/run, fuzz/oss-fuzz-build.sh and tools/test.
# A target <name> is fuzz/fuzz_<name>.c plus fuzz/reference_decoder.c, linked
# with every source of libhurray (core/) and the extra sources listed below.
# SPDX-License-Identifier: Apache-2.0

HURRAY_FUZZ_TARGETS=(handle_decode table_decode dlpack dlpack_import dlpack_pair error_format cli_input handoff plugin_table ipc_message ipc_api net_message plugin_host net_receive)

# The sources of libhurray, relative to the repository root: the ones
# core/meson.build lists, so the fuzzers build exactly what the library does.
hurray_fuzz_library_sources() {
  grep -oE "'(proven|runtime)/[A-Za-z0-9_]+\.c'" core/meson.build | tr -d "'" | sed 's|^|core/|'
}

# The plugin whose answers come from the input (fuzz/hostile_plugin.h).
HURRAY_FUZZ_HOSTILE_PLUGIN="fuzz/hostile_plugin.c fuzz/hostile_devices.c fuzz/hostile_memory.c
  fuzz/hostile_events.c"

# Sources a target needs besides libhurray.
hurray_fuzz_extra_sources() {
  case $1 in
    cli_input)
      # The memory-only part of hurray-inspect (tools/hurray-inspect/inspect.h),
      # and the oracle's reference hex parser and JSON reader (fuzz/cli_readers.h).
      echo tools/hurray-inspect/hex_input.c tools/hurray-inspect/analyze.c \
        tools/hurray-inspect/report_text.c tools/hurray-inspect/json_writer.c \
        tools/hurray-inspect/text_sink.c fuzz/cli_hex_reference.c fuzz/cli_json_reader.c
      ;;
    handoff)
      # The oracle's HO-SM-2 table (fuzz/handoff_model.h).
      echo fuzz/handoff_model.c
      ;;
    ipc_message)
      # The message writers the oracle re-encodes with (built into libhurray from ipc/).
      echo ipc/ipc_encode.c
      ;;
    ipc_api)
      # The IPC transport, built into libhurray from ipc/ (Linux only).
      # The fault injection (fuzz/ipc_faults.h) and its rounds.
      echo ipc/ipc_encode.c ipc/ipc_common.c ipc/ipc_consumer.c ipc/ipc_producer.c ipc/ipc_share.c \
        $HURRAY_FUZZ_HOSTILE_PLUGIN fuzz/ipc_endpoints.c plugins/common/plugin_support.c \
        fuzz/ipc_faults.c fuzz/ipc_fault_rounds.c
      ;;
    plugin_host)
      # The harness's buffer and event operations, the plugin whose
      # answers come from the input, and the loader's files and faults
      # (fuzz/fault_seam.h).
      echo fuzz/plugin_host_buffers.c fuzz/plugin_host_events.c $HURRAY_FUZZ_HOSTILE_PLUGIN \
        fuzz/hostile_files.c fuzz/hostile_misuse.c fuzz/hostile_loader.c fuzz/fault_seam.c \
        plugins/common/plugin_support.c
      ;;
    net_receive)
      # The network transport, compiled against the UCX stand-in (no UCX needed).
      echo net/net.c net/net_ucx.c net/net_send.c net/net_receive.c net/landing_pool.c fuzz/fake_ucx.c \
        $HURRAY_FUZZ_HOSTILE_PLUGIN plugins/common/plugin_support.c
      ;;
  esac
}

# Link flags a target needs besides the engine's (fuzz/meson.build lists
# the same for the replay build).
# shellcheck disable=SC2086 # the IPC list is split into one word per call
hurray_fuzz_extra_link_flags() {
  case $1 in
    plugin_host)
      # The fault-injection seam (fuzz/fault_seam.h): these calls, from this
      # target's objects only, go through its wrappers; and the entry its
      # dlopen stand-in finds in the process (fuzz/hostile_loader.c).
      echo -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup \
        -Wl,--wrap=mmap,--wrap=mmap64,--wrap=munmap,--wrap=memfd_create \
        -Wl,--wrap=ftruncate,--wrap=ftruncate64,--wrap=fcntl,--wrap=fcntl64 \
        -Wl,--wrap=fstat,--wrap=fstat64,--wrap=stat,--wrap=stat64 \
        -Wl,--wrap=dlopen,--wrap=dlclose,--wrap=dlsym,--wrap=dlinfo,--wrap=dladdr1 \
        -Wl,--export-dynamic-symbol=hurray_plugin_entry \
        -Wl,--export-dynamic-symbol=hurray_fuzz_entry_data
      ;;
    ipc_api) echo "-Wl$(printf ',--wrap=%s' $HURRAY_FUZZ_IPC_WRAPPED)" ;;
  esac
}

# The largest input worth trying (libFuzzer -max_len), from the protocol's
# limits: the descriptor-count byte and an IPC message of up to
# HURRAY_IPC_MAX_MESSAGE_SIZE (8121) with room to exceed it; a network
# control message of up to HURRAY_NET_MAX_MESSAGE_SIZE (4105) likewise;
# scripts of records of up to 64 KiB (an oversize control message among
# them) for the transports; libFuzzer's default (4096) for the rest.
hurray_fuzz_max_len() {
  case $1 in
    ipc_message) echo 8300 ;;
    net_message) echo 4300 ;;
    ipc_api | net_receive) echo 20000 ;;
    *) echo 4096 ;;
  esac
}

# The calls the IPC transport makes that fuzz/ipc_faults.c wraps, so that
# the input can fail them (the fuzz targets only; fuzz/meson.build lists
# the same).
HURRAY_FUZZ_IPC_WRAPPED="socket bind listen accept4 connect poll getsockopt sendmsg recvmsg mmap
  memfd_create ftruncate fcntl mprotect fstat calloc"


# Include directories (and defines) a target needs besides include/.
hurray_fuzz_extra_includes() {
  case $1 in
    cli_input) echo -Itools/hurray-inspect ;;
    plugin_host | ipc_api) echo -Icore/runtime ;; # plugin_internal.h: the loader's seam
    net_receive)
      # fake_ucx/ucp/api/ucp.h stands in for UCX's header; net.c reads its clock.
      echo -Ifuzz/fake_ucx -Icore/runtime -Dclock_gettime=fake_ucx_clock_gettime \
        -Dnanosleep=fake_ucx_nanosleep
      ;;
  esac
}
