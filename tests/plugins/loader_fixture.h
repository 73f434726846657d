/*
 * What the loader's test programs (test_plugin_loader, test_plugin_hostile)
 * share: their first argument, the directory the variants of
 * broken_plugin.c were built in, and their checked fixture, an empty
 * plugin registry for each test, destroyed after it with whatever the test
 * loaded into it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_PLUGINS_LOADER_FIXTURE_H
#define HURRAY_TESTS_PLUGINS_LOADER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "hurray/plugin.h"

/* The current test's registry; NULL between tests. */
extern hurray_plugin_registry *registry;

/* The checked fixture's two halves (hurray_check_case). */
void registry_setup(void);
void registry_teardown(void);

/* The broken plugins' directory, set by loader_fixture_arguments. */
extern const char *broken_dir;

/* Takes the program's arguments, `count` of them at least, the first being
 * broken_dir; false, with "usage: PROGRAM `usage`" printed, where there are
 * fewer. */
bool loader_fixture_arguments(int argc, char **argv, int count, const char *usage);

/* `path`, set to the broken plugin variant `name` (hurray-plugin-broken-NAME.so). */
const char *broken_plugin_path(const char *name, char *path, size_t cap);

#endif
