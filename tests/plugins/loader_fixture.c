/*
 * See loader_fixture.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "loader_fixture.h"

#include <check.h>
#include <stdio.h>

hurray_plugin_registry *registry;

const char *broken_dir;

void registry_setup(void) {
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, NULL), HURRAY_OK);
}

void registry_teardown(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
}

bool loader_fixture_arguments(int argc, char **argv, int count, const char *usage) {
  if (argc < count + 1) {
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    return false;
  }
  broken_dir = argv[1];
  return true;
}

const char *broken_plugin_path(const char *name, char *path, size_t cap) {
  snprintf(path, cap, "%s/hurray-plugin-broken-%s.so", broken_dir, name);
  return path;
}
