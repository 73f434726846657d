/*
 * A consumer's shared object (say, a language extension) that links all of
 * libhurray.a, built with -fvisibility=hidden and HURRAY_STATIC: it must
 * export its own entry point and none of libhurray's symbols (VER-SYM-1).
 * check_symbols.py loads it and calls the entry point.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hurray/hurray.h"

/* The one symbol this object means to export. */
__attribute__((visibility("default"))) int static_consumer_run(void);

int static_consumer_run(void) {
  hurray_error err;
  if (hurray_init_check(&err) != HURRAY_OK) {
    return 1;
  }
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  if (hurray_handoff_destroy(&handoff, &err) != HURRAY_OK) {
    return 2;
  }
  hurray_plugin_registry *registry = NULL;
  if (hurray_plugin_registry_create(&registry, &err) != HURRAY_OK) {
    return 3;
  }
  hurray_plugin_registry_destroy(registry);
  return 0;
}
