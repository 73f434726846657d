/*
 * The plugin loader's file side for the plugin_host fuzz target: the path
 * a caller gives and the files a search finds are hostile input too
 * (specs/plugin-abi.md PL-LOAD-1..4, PL-ENTRY-4, PL-SEARCH-1..3). A private
 * folder under /tmp (made once per process, 0700, /tmp being root's and
 * sticky, PL-LOAD-3) holds what a hostile file system offers: an empty
 * file, a shared object without the entry symbol (a link to libm), a file
 * and a folder others may write, a folder named like a plugin; and the
 * files fuzz/hostile_loader.c loads (linked/: the seam's dlopen stand-ins,
 * fuzz/fault_seam.h; a file and a folder stat says another user owns). The input
 * picks paths, HURRAY_PLUGIN_PATH values and names; the oracle is the
 * rules' verdict, a registry left as it was, and every candidate reported.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1 /* dlinfo, RTLD_DI_LINKMAP */

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_seam.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"

FUZZ_ORACLE_BEGIN

static char folder[64];
static bool made;

static void put_file(const char *name, mode_t mode) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  FILE *f = fopen(path, "w");
  FUZZ_CHECK(f != NULL);
  fclose(f);
  FUZZ_CHECK(chmod(path, mode) == 0);
}

static const char *const made_files[] = {
    "hurray-plugin-empty.so",
    "hurray-plugin-writable.so",
    "hurray-plugin-libm.so",
    "open/hurray-plugin-inside.so",
};
/* fuzz/hostile_loader.c's: empty files, but what stat and dlopen say of
 * them is the seam's. */
static const char *const loader_files[] = {
    "hurray-plugin-" FAULT_FOREIGN_MARK ".so",
    FAULT_FOREIGN_MARK "-dir/hurray-plugin-inside.so",
    "linked/" FAULT_FILE_SELF,
    "linked/" FAULT_FILE_DATA,
    "linked/" FAULT_FILE_BORROWED,
};
static const char *const made_dirs[] = {"hurray-plugin-dir.so", "open", FAULT_FOREIGN_MARK "-dir",
                                        "linked", ""};

/* The folder goes when the process ends. */
static void remove_folder(void) {
  char path[256];
  for (size_t i = 0; i < sizeof made_files / sizeof made_files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", folder, made_files[i]);
    (void)unlink(path);
  }
  for (size_t i = 0; i < sizeof loader_files / sizeof loader_files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", folder, loader_files[i]);
    (void)unlink(path);
  }
  for (size_t i = 0; i < sizeof made_dirs / sizeof made_dirs[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", folder, made_dirs[i]);
    (void)rmdir(path);
  }
}

/* The folder, once: what each kind of candidate is named. */
static void make_folder(void) {
  if (made) {
    return;
  }
  snprintf(folder, sizeof folder, "/tmp/hurray-fuzz-plugins-XXXXXX");
  FUZZ_CHECK(mkdtemp(folder) != NULL);
  atexit(remove_folder);
  put_file("hurray-plugin-empty.so", 0644);
  put_file("hurray-plugin-writable.so", 0644);
  char path[256];
  snprintf(path, sizeof path, "%s/hurray-plugin-writable.so", folder);
  FUZZ_CHECK(chmod(path, 0666) == 0); /* others may write it (PL-LOAD-2) */
  snprintf(path, sizeof path, "%s/hurray-plugin-dir.so", folder);
  FUZZ_CHECK(mkdir(path, 0755) == 0);
  snprintf(path, sizeof path, "%s/open", folder);
  FUZZ_CHECK(mkdir(path, 0700) == 0 && chmod(path, 0777) == 0); /* PL-LOAD-3 */
  snprintf(path, sizeof path, "%s/open/hurray-plugin-inside.so", folder);
  FILE *f = fopen(path, "w");
  FUZZ_CHECK(f != NULL);
  fclose(f);
  snprintf(path, sizeof path, "%s/" FAULT_FOREIGN_MARK "-dir", folder);
  FUZZ_CHECK(mkdir(path, 0755) == 0);
  snprintf(path, sizeof path, "%s/linked", folder);
  FUZZ_CHECK(mkdir(path, 0755) == 0);
  for (size_t i = 0; i < sizeof loader_files / sizeof loader_files[0]; i++) {
    put_file(loader_files[i], 0644);
  }
  /* A real shared object without the entry symbol: libm, through a link. */
  void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  struct link_map *map = NULL;
  if (libm != NULL && dlinfo(libm, RTLD_DI_LINKMAP, &map) == 0 && map != NULL) {
    snprintf(path, sizeof path, "%s/hurray-plugin-libm.so", folder);
    FUZZ_CHECK(symlink(map->l_name, path) == 0);
  }
  if (libm != NULL) {
    dlclose(libm);
  }
  made = true;
}

typedef struct candidates {
  int reported;
  int loaded;
} candidates;

void hostile_check_candidate(const char *path, hurray_status status, const hurray_error *err,
                             const hurray_plugin *plugin) {
  FUZZ_CHECK(path != NULL && (uint32_t)status < (uint32_t)HURRAY_STATUS_COUNT);
  FUZZ_CHECK((status == HURRAY_OK) == (plugin != NULL) && (status == HURRAY_OK) == (err == NULL));
  if (err != NULL) {
    FUZZ_CHECK(err->status == status && memchr(err->detail, '\0', sizeof err->detail) != NULL);
  }
}

static void report(void *ctx, const char *path, hurray_status status, const hurray_error *err,
                   hurray_plugin *plugin) {
  candidates *c = ctx;
  hostile_check_candidate(path, status, err, plugin);
  c->reported++;
  c->loaded += status == HURRAY_OK;
}

void hostile_files_op(hostile_source *in) {
  make_folder();
  uint8_t what = hostile_u8(in);
  if (what >= 0xE0u) {
    hostile_loader_op(in, what, folder);
    return;
  }
  hurray_plugin_registry *registry = NULL;
  FUZZ_CHECK(hurray_plugin_registry_create(&registry, NULL) == HURRAY_OK);
  hurray_error err;
  memset(&err, 0xAA, sizeof err);
  char path[256];
  static const struct {
    const char *name;
    hurray_status want;
    const char *reason;
  } files[] = {
      {"hurray-plugin-empty.so", HURRAY_ERR_PLUGIN_LOAD_FAILED, "dlopen"},
      {"hurray-plugin-libm.so", HURRAY_ERR_PLUGIN_LOAD_FAILED, "no entry symbol"},
      {"hurray-plugin-writable.so", HURRAY_ERR_PLUGIN_UNSAFE_PATH, "writable by others"},
      {"hurray-plugin-dir.so", HURRAY_ERR_PLUGIN_UNSAFE_PATH, "not a regular file"},
      {"open/hurray-plugin-inside.so", HURRAY_ERR_PLUGIN_UNSAFE_PATH, "writable by others"},
      {"hurray-plugin-missing.so", HURRAY_ERR_PLUGIN_LOAD_FAILED, "No such file"},
  };
  switch (what % 4u) {
    case 0: { /* PL-LOAD-1..4, PL-ENTRY-4: one path, refused as the rules say */
      size_t pick = hostile_u8(in) % (sizeof files / sizeof files[0] + 1u);
      hurray_status want = HURRAY_ERR_PLUGIN_UNSAFE_PATH;
      const char *reason = "relative plugin path refused";
      if (pick < sizeof files / sizeof files[0]) {
        snprintf(path, sizeof path, "%s/%s", folder, files[pick].name);
        want = files[pick].want;
        reason = files[pick].reason;
      } else {
        snprintf(path, sizeof path, "%s", files[0].name); /* relative */
      }
      hurray_plugin *plugin = NULL;
      hurray_status s = hurray_plugin_load(registry, path, hostile_u8(in) & 1u, &plugin, &err);
      FUZZ_CHECK(s == want && plugin == NULL && err.status == s);
      FUZZ_CHECK(strstr(err.detail, reason) != NULL); /* PL-LOAD-6: the reason... */
      /* ...and the file: as given, or as it resolved (a link's target) */
      const char *slash = strrchr(path, '/');
      char resolved[4096];
      const char *target = realpath(path, resolved) != NULL ? strrchr(resolved, '/') + 1 : "";
      FUZZ_CHECK(strstr(err.detail, slash != NULL ? slash + 1 : path) != NULL ||
                 (target[0] != '\0' && strstr(err.detail, target) != NULL));
      break;
    }
    case 1: { /* PL-SEARCH-1..3: every candidate of every folder reported */
      uint8_t shape = hostile_u8(in);
      snprintf(path, sizeof path, "%s%s:%s%s%s", (shape & 1u) != 0u ? "relative/dir:" : "", folder,
               (shape & 2u) != 0u ? ":" : "", (shape & 4u) != 0u ? folder : "/nonexistent",
               (shape & 8u) != 0u ? "/open" : "");
      setenv(HURRAY_PLUGIN_PATH_ENV, path, 1);
      candidates c = {0, 0};
      size_t loaded = hurray_plugin_discover(registry, report, &c);
      FUZZ_CHECK(loaded == (size_t)c.loaded && c.loaded == 0);
      /* the folder's three or four candidates (+1: the unsafe relative entry) */
      FUZZ_CHECK(c.reported >= 3 + ((shape & 1u) != 0u ? 1 : 0));
      char whole[1024];
      char part[256];
      size_t n = hurray_plugin_search_path(whole, sizeof whole);
      size_t cap = 1u + hostile_u8(in);
      FUZZ_CHECK(n == strlen(whole) && hurray_plugin_search_path(part, cap) == n);
      FUZZ_CHECK(strlen(part) == (n < cap ? n : cap - 1u)); /* snprintf-style */
      unsetenv(HURRAY_PLUGIN_PATH_ENV);
      break;
    }
    case 2: { /* a name: found in the path, or not, or not a name at all */
      static const char *const names[] = {"empty", "libm", "nosuch", "Bad/Name", "", "dir"};
      const char *name = names[hostile_u8(in) % (sizeof names / sizeof names[0])];
      snprintf(path, sizeof path, "%s%s", (what & 0x10u) != 0u ? "relative:" : "", folder);
      setenv(HURRAY_PLUGIN_PATH_ENV, path, 1);
      hurray_plugin *plugin = NULL;
      hurray_status s = hurray_plugin_load_by_name(registry, name, 0, &plugin, &err);
      unsetenv(HURRAY_PLUGIN_PATH_ENV);
      FUZZ_CHECK(s != HURRAY_OK && plugin == NULL && err.status == s);
      FUZZ_CHECK(memchr(err.detail, '\0', sizeof err.detail) != NULL);
      if (strcmp(name, "Bad/Name") == 0 || name[0] == '\0') {
        FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT);
      }
      break;
    }
    default: /* NULL arguments and flags nobody defined */
      FUZZ_CHECK(hurray_plugin_load(NULL, "/x", 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT);
      FUZZ_CHECK(hurray_plugin_load(registry, NULL, 0, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
                 err.index == 1u);
      FUZZ_CHECK(hurray_plugin_load_by_name(registry, NULL, 0, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT);
      snprintf(path, sizeof path, "%s/%s", folder, files[1].name);
      FUZZ_CHECK(hurray_plugin_load(registry, path, 0x8u, NULL, &err) ==
                 HURRAY_ERR_INVALID_ARGUMENT);
      FUZZ_CHECK(hurray_plugin_discover(NULL, report, NULL) == 0u);
      break;
  }
  FUZZ_CHECK(hurray_plugin_registry_count(registry) == 0u); /* nothing stays (PL-LOAD-6) */
  hurray_plugin_registry_destroy(registry);
}

FUZZ_ORACLE_END
