#!/usr/bin/env bash
# The CUDA plugin on a real NVIDIA GPU: runs the plugin's Check tests (against
# the stand-in runtime) and tests/gpu/cuda_gpu_check (against the system's
# libcuda.so.1): allocation in every memory class the device offers, an event
# handoff between two streams, and the IPC capability report. Prints what it
# verified. Without an NVIDIA GPU it prints SKIP and why, and exits 77.
#
# Usage: tests/gpu/cuda-check.sh [build-dir]   (default: build/gcc, set up if missing)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/gcc}

if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU here (no /dev/nvidiactl, nvidia-smi finds none)"
  exit 77
fi
if ! ldconfig -p | grep -q 'libcuda\.so\.1 '; then
  echo "SKIP: an NVIDIA device node exists but the driver library libcuda.so.1 is not installed"
  exit 77
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L

if [ ! -d "$build" ]; then
  meson setup "$build" >/dev/null || exit 1
fi
ninja -C "$build" >/dev/null || exit 1
plugin="$PWD/$build/plugins/cuda/hurray-plugin-cuda.so"
check="$build/tests/plugins_vendor/cuda_gpu_check"
if [ ! -f "$plugin" ] || [ ! -x "$check" ]; then
  echo "FAIL: the cuda plugin or cuda_gpu_check was not built (is cuda.h installed?)"
  exit 1
fi

echo "== CUDA plugin tests (stand-in runtime)"
meson test -C "$build" --print-errorlogs vendor-plugin-cuda || exit 1
echo "== CUDA plugin on the real GPU"
"$check" "$plugin"
