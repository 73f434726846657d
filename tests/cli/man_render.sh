#!/bin/sh
# The manual pages render without a warning (groff -ww), and every option a
# tool's --help lists is documented in its page (specs/cli.md CLI-MAN-1).
# Usage: man_render.sh PAGE BINARY [PAGE BINARY ...]
# Exit 77 (meson: skipped) with the reason when groff is not installed.
# SPDX-License-Identifier: Apache-2.0
set -u
if ! command -v groff >/dev/null 2>&1; then
  echo "SKIP: groff is not installed (tools/install-deps test installs groff-base)"
  exit 77
fi
status=0
while [ $# -ge 2 ]; do
  page=$1
  binary=$2
  shift 2
  warnings=$(groff -man -ww -z -Tutf8 "$page" 2>&1)
  if [ $? -ne 0 ] || [ -n "$warnings" ]; then
    echo "FAIL: $page: groff warnings:"
    echo "$warnings"
    status=1
  fi
  rendered=$(groff -man -Tutf8 -P-cbou "$page" 2>/dev/null)
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS"; do
    if ! printf '%s\n' "$rendered" | grep -q "^$section\$"; then
      echo "FAIL: $page: no $section section"
      status=1
    fi
  done
  for option in $("$binary" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    # roff writes each '-' of an option as '\-'.
    escaped=$(printf '%s' "$option" | sed 's/-/\\-/g')
    if ! grep -qF -- "$escaped" "$page"; then
      echo "FAIL: $page: $option (in $binary --help) is not documented"
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "ok: $page"
done
exit $status
