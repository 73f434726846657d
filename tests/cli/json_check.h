/*
 * A strict JSON syntax checker (RFC 8259) for the tests: the CLI's JSON must
 * parse, so the tests check it with a parser written independently of the
 * writer.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_JSON_CHECK_H
#define HURRAY_TESTS_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/** True when text[0..len) is exactly one JSON value, optionally surrounded by
 *  whitespace. Strings must be valid UTF-8 with no raw control characters. */
bool json_check_document(const char *text, size_t len);

#endif
