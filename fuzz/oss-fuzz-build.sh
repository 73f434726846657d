#!/usr/bin/env bash
# Builds every fuzz target the way OSS-Fuzz and ClusterFuzzLite expect:
#   $CC, $CFLAGS           compiler and flags (sanitizers, coverage instrumentation)
#   $LIB_FUZZING_ENGINE    what provides main(): -fsanitize=fuzzer for libFuzzer,
#                          /usr/lib/afl/libAFLDriver.a for AFL++
#   $OUT                   where the binaries, <target>_seed_corpus.zip,
#                          <target>.dict and <target>.options (max_len) go
# In an OSS-Fuzz project's build.sh: `exec "$SRC/libhurray/fuzz/oss-fuzz-build.sh"`.
# fuzz/run and tools/test call it with local settings.
# SPDX-License-Identifier: Apache-2.0
set -euo pipefail
cd "$(dirname "$0")/.."

: "${CC:=clang}"
: "${CFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?set OUT to the output directory}"
mkdir -p "$OUT"
obj=${WORK:-$OUT}/obj-libhurray
mkdir -p "$obj"

# shellcheck source=fuzz/targets.sh
. fuzz/targets.sh

common=(-std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ifuzz)
# Each flag word of $CFLAGS is one argument.
read -r -a cflags <<<"$CFLAGS"
read -r -a engine <<<"$LIB_FUZZING_ENGINE"

compile() { # compile SOURCE OBJECT [extra flags...]
  local src=$1 o=$2
  shift 2
  "$CC" "${common[@]}" "${cflags[@]}" "$@" -c "$src" -o "$o"
}

library_objects=()
for src in $(hurray_fuzz_library_sources); do
  o="$obj/lib-$(echo "$src" | tr / _).o"
  compile "$src" "$o" &
  library_objects+=("$o")
done
wait
# An archive, so that each target links only the objects it uses.
rm -f "$obj/libhurray.a"
ar rcs "$obj/libhurray.a" "${library_objects[@]}"
compile fuzz/reference_decoder.c "$obj/reference_decoder.o"

built=()
for target in "${HURRAY_FUZZ_TARGETS[@]}"; do
  harness=fuzz/fuzz_$target.c
  [ -f "$harness" ] || continue
  objects=("$obj/reference_decoder.o")
  # shellcheck disable=SC2046
  for src in $(hurray_fuzz_extra_sources "$target"); do
    o="$obj/$target-$(echo "$src" | tr / _).o"
    compile "$src" "$o" $(hurray_fuzz_extra_includes "$target")
    objects+=("$o")
  done
  # shellcheck disable=SC2046
  compile "$harness" "$obj/fuzz_$target.o" $(hurray_fuzz_extra_includes "$target")
  # libFuzzer and libAFLDriver are C++: link with the C++ driver when the
  # engine is an archive ($CXX defaults to the C compiler's sibling).
  linker=$CC
  case $LIB_FUZZING_ENGINE in *.a*) linker=${CXX:-${CC/clang/clang++}} ;; esac
  # shellcheck disable=SC2046
  "$linker" "${cflags[@]}" "$obj/fuzz_$target.o" "${objects[@]}" "$obj/libhurray.a" "${engine[@]}" \
    $(hurray_fuzz_extra_link_flags "$target") -lpthread -ldl -o "$OUT/$target"
  if [ -f "fuzz/dict/$target.dict" ]; then
    cp "fuzz/dict/$target.dict" "$OUT/$target.dict"
  fi
  # libFuzzer's input limit from the protocol's message limits (fuzz/targets.sh).
  printf '[libfuzzer]\nmax_len = %s\n' "$(hurray_fuzz_max_len "$target")" >"$OUT/$target.options"
  if command -v zip >/dev/null; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    seeds=$(find "fuzz/corpus/$target" "fuzz/regressions/$target" -type f ! -name .gitkeep 2>/dev/null || true)
    if [ -n "$seeds" ]; then
      echo "$seeds" | zip -q -j -@ "$OUT/${target}_seed_corpus.zip"
    fi
  fi
  built+=("$target")
done
echo "built ${#built[@]} fuzz targets in $OUT: ${built[*]}"
