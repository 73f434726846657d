/*
 * Stands in for tests/net when UCX was not found at configure time: the
 * network transport was not built, so its tests cannot run (exit 77: SKIP).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

int main(void) {
  printf(
      "SKIP: the network transport was not built: UCX (Debian libucx-dev) was not found "
      "when meson configured this build\n");
  return 77;
}
