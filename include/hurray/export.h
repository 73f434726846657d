/*
 * Symbol visibility and call-site checking for libhurray's public API
 * (specs/versioning.md VER-SYM-1..3, docs/versioning.md).
 *
 * HURRAY_API marks every public declaration.
 *  - Shared library (the default): the library is built with
 *    -fvisibility=hidden and a version script, and only declarations marked
 *    HURRAY_API are exported, with default visibility.
 *  - Static library: define HURRAY_STATIC (-DHURRAY_STATIC, before including
 *    any libhurray header) when compiling code that links libhurray.a.
 *    HURRAY_API then gives the declarations hidden visibility, and
 *    libhurray.a is itself built with HURRAY_STATIC, so a shared object that
 *    links the archive (a plugin, a Python extension) exports none of
 *    libhurray's symbols, whatever its own visibility flags: its users get
 *    no second copy of the library interposed on the real one. A program
 *    defining HURRAY_STATIC cannot link the shared library (the linker
 *    refuses a hidden reference to a symbol of another object), so a mixed
 *    build is caught at link time.
 *
 * HURRAY_NODISCARD marks every function returning a hurray_status: ignoring
 * the status is almost always a bug (a refused offer leaves the buffer
 * with the producer). Compilers warn when the result is dropped. GCC warns
 * even through a cast to void; to drop a status deliberately, test it
 * (`if (status != HURRAY_OK) { ... }`) or keep it in a variable and cast
 * the variable to void. Define HURRAY_NO_WARN_UNUSED to turn the warning
 * off (for code that cannot be changed).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_EXPORT_H
#define HURRAY_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#if defined(HURRAY_STATIC)
#define HURRAY_API __attribute__((visibility("hidden")))
#else
#define HURRAY_API __attribute__((visibility("default")))
#endif
#else
#define HURRAY_API
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(HURRAY_NO_WARN_UNUSED)
#define HURRAY_NODISCARD __attribute__((warn_unused_result))
#else
#define HURRAY_NODISCARD
#endif

#endif /* HURRAY_EXPORT_H */
