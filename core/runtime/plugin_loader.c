/*
 * Loading a plugin file: path safety, dlopen, the entry symbol, negotiation
 * and initialisation; the search path and discovery.
 * Rules: specs/plugin-abi.md PL-LOAD-1..7, PL-ENTRY-1..5, PL-NEG-1..5, PL-CALL-3..4,
 * PL-DEV-1..4, PL-REG-1..3, PL-SEARCH-1..3.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* dladdr1, dlinfo and RTLD_DI_LINKMAP: the entry-symbol origin check */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"

#ifndef HURRAY_PLUGIN_INSTALL_DIR
#define HURRAY_PLUGIN_INSTALL_DIR "/usr/local/lib/hurray/plugins"
#endif

const char *hurray_plugin_install_dir(void) { return HURRAY_PLUGIN_INSTALL_DIR; }

/* ------------------------------------------------------------------------ */
/* Path safety (PL-LOAD-1..3)                                               */
/* ------------------------------------------------------------------------ */

/* Whether someone other than the owner (and root) could change what `st`
 * describes. A sticky root-owned directory (/tmp) lets nobody replace
 * another user's entries, so it does not count as writable by others. */
static bool writable_by_others(const struct stat *st) {
  if ((st->st_mode & (S_IWGRP | S_IWOTH)) == 0) {
    return false;
  }
  return !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) != 0 && st->st_uid == 0);
}

static bool trusted_owner(const struct stat *st) {
  return st->st_uid == 0 || st->st_uid == geteuid();
}

/* Resolves `path` into `resolved` and checks the file and every directory
 * above it. */
static hurray_status check_path(const char *path, char resolved[PATH_MAX], hurray_error *err) {
  if (path[0] != '/') {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, 0, 0, 0, path,
                                 "relative plugin path refused (give an absolute path)");
  }
  if (realpath(path, resolved) == NULL) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, (uint64_t)errno, 0, 0, path,
                                 "%s", strerror(errno));
  }
  struct stat st;
  if (stat(resolved, &st) != 0) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, (uint64_t)errno, 0, 0,
                                 resolved, "%s", strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, st.st_mode, 0, 0, resolved,
                                 "not a regular file");
  }
  if (writable_by_others(&st)) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, st.st_mode & 07777u, 0, 0,
                                 resolved, "file is writable by others than its owner (mode %04o)",
                                 (unsigned)(st.st_mode & 07777u));
  }
  if (!trusted_owner(&st)) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, st.st_uid, geteuid(), 0,
                                 resolved, "owned by uid %u, neither root nor this user",
                                 (unsigned)st.st_uid);
  }
  /* Walk up: a directory others can write lets them swap the file. */
  char dir[PATH_MAX];
  memcpy(dir, resolved, strlen(resolved) + 1u);
  for (;;) {
    char *slash = strrchr(dir, '/');
    if (slash == NULL) {
      break;
    }
    if (slash == dir) {
      slash[1] = '\0'; /* "/" itself */
    } else {
      *slash = '\0';
    }
    if (stat(dir, &st) != 0) {
      return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, (uint64_t)errno, 0, 0,
                                   resolved, "directory %s: %s", dir, strerror(errno));
    }
    if (writable_by_others(&st)) {
      return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, st.st_mode & 07777u, 0, 0,
                                   resolved,
                                   "directory %s is writable by others than its owner (mode %04o)",
                                   dir, (unsigned)(st.st_mode & 07777u));
    }
    if (!trusted_owner(&st)) {
      return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, st.st_uid, geteuid(), 0,
                                   resolved,
                                   "directory %s is owned by uid %u, neither root nor "
                                   "this user",
                                   dir, (unsigned)st.st_uid);
    }
    if (strcmp(dir, "/") == 0) {
      break;
    }
  }
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                  */
/* ------------------------------------------------------------------------ */

/* PL-ENTRY-3: the entry symbol must be defined by the plugin file itself,
 * not by a library it pulled in (which dlsym on the handle also searches). */
static hurray_status check_entry_origin(void *library, void *symbol, const char *path,
                                        hurray_error *err) {
  struct link_map *plugin_map = NULL;
  if (dlinfo(library, RTLD_DI_LINKMAP, &plugin_map) != 0 || plugin_map == NULL) {
    const char *why = dlerror();
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0, path, "dlinfo: %s",
                                 why != NULL ? why : "no link map");
  }
  Dl_info info;
  struct link_map *symbol_map = NULL;
  if (dladdr1(symbol, &info, (void **)&symbol_map, RTLD_DL_LINKMAP) == 0 || symbol_map == NULL) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0, path,
                                 "dladdr cannot place the entry symbol in any library");
  }
  if (symbol_map != plugin_map) {
    /* The other library's file name only: the detail has room for one path. */
    const char *other = info.dli_fname != NULL ? info.dli_fname : "unknown";
    const char *slash = strrchr(other, '/');
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0, path,
                                 "entry symbol %s comes from another library (%s)",
                                 HURRAY_PLUGIN_ENTRY_SYMBOL, slash != NULL ? slash + 1 : other);
  }
  return HURRAY_OK;
}

/* PL-ENTRY-5: calling a data object as the entry would jump into its bytes,
 * so the symbol's ELF type is read before anything is called. */
static hurray_status check_entry_is_function(void *symbol, const char *path, hurray_error *err) {
  Dl_info info;
  void *symbol_entry = NULL;
  if (dladdr1(symbol, &info, &symbol_entry, RTLD_DL_SYMENT) == 0 || symbol_entry == NULL) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_INVALID, 0, STT_FUNC, 0, path,
                                 "the ELF type of entry symbol %s cannot be read",
                                 HURRAY_PLUGIN_ENTRY_SYMBOL);
  }
  const ElfW(Sym) *entry_symbol = symbol_entry;
  /* The low four bits of st_info, for 32- and 64-bit ELF alike. */
  unsigned type = (unsigned)(entry_symbol->st_info & 0xFu);
  if (type != STT_FUNC && type != STT_GNU_IFUNC) {
    const char *kind = type == STT_OBJECT ? "a data object"
                       : type == STT_TLS  ? "a thread-local object"
                                          : "not a function";
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_INVALID, type, STT_FUNC, 0, path,
                                 "entry symbol %s is %s (ELF symbol type %u), not a function",
                                 HURRAY_PLUGIN_ENTRY_SYMBOL, kind, type);
  }
  return HURRAY_OK;
}

static hurray_plugin *find_server(const hurray_plugin_registry *registry, hurray_device_tag tag) {
  for (hurray_plugin *p = registry->first; p != NULL; p = p->next) {
    if (p->serves_tag && p->table.device_tag == tag) {
      return p;
    }
  }
  return NULL;
}

/* Asks the plugin for its devices and validates each description
 * (PL-DEV-1..4). */
static hurray_status read_devices(hurray_plugin *plugin, hurray_error *err) {
  uint32_t count = 0;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  hurray_status status = hurray_plugin_call_result(
      NULL, "count_devices", plugin->table.count_devices(plugin->state, &count, &call_err),
      &call_err, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (count > HURRAY_PLUGIN_MAX_DEVICES) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, count, HURRAY_PLUGIN_MAX_DEVICES, 0,
                              "count_devices reported %u devices, more than %u", (unsigned)count,
                              HURRAY_PLUGIN_MAX_DEVICES);
  }
  if (count == 0u) {
    return HURRAY_OK;
  }
  plugin->devices = calloc(count, sizeof *plugin->devices);
  if (plugin->devices == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, count * sizeof *plugin->devices, 0, 0,
                              "device descriptions");
  }
  for (uint32_t i = 0; i < count; i++) {
    hurray_plugin_device_info *info = &plugin->devices[i];
    info->struct_size = sizeof *info;
    hurray_plugin_call_prepare(&call_err);
    status = hurray_plugin_call_result(
        NULL, "describe_device", plugin->table.describe_device(plugin->state, i, info, &call_err),
        &call_err, err);
    if (status == HURRAY_OK) {
      info->struct_size = sizeof *info;
      status = hurray_plugin_device_info_validate(info, plugin->table.device_tag, err);
    }
    /* PL-DEV-3: events that cross processes go through export_event; a
     * device claiming them from a plugin without it claims what no process
     * could use (BP-XPORT-3 would let an event buffer through for it). */
    if (status == HURRAY_OK && (info->ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u &&
        plugin->table.export_event == NULL) {
      status = hurray_plugin_fail(
          err, HURRAY_ERR_PLUGIN_INVALID, info->ipc_capabilities,
          info->ipc_capabilities & ~(uint32_t)HURRAY_IPC_EXPORTS_EVENTS, i,
          "device %u (%s) declares HURRAY_IPC_EXPORTS_EVENTS but the plugin has no export_event "
          "entry (PL-DEV-3)",
          (unsigned)i, info->name);
    }
    if (status != HURRAY_OK) {
      if (err != NULL) {
        err->index = i;
      }
      return status;
    }
  }
  plugin->device_count = count;
  return HURRAY_OK;
}

/* PL-LOAD-5 from the entry on: the table (PL-NEG, PL-TABLE), the duplicate
 * tag (PL-REG-1), init and the devices (PL-DEV), then the registry. On
 * failure the caller closes what `plugin` holds (PL-LOAD-6). */
static hurray_status adopt_entry(hurray_plugin_registry *registry, hurray_plugin *plugin,
                                 hurray_plugin_entry_fn entry, uint32_t flags, hurray_plugin **out,
                                 hurray_error *err) {
  hurray_status status;
  const hurray_plugin_table *table = entry(HURRAY_PLUGIN_ABI_VERSION);
  if (table == NULL) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_ABI_MISMATCH, 0, HURRAY_PLUGIN_ABI_VERSION,
                                 0, plugin->path, "the entry declined host ABI %u.%u",
                                 HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR);
  }
  /* PL-NEG-4: read no more than the plugin declares, nor more than we know. */
  uint32_t declared;
  memcpy(&declared, table, sizeof declared);
  size_t readable = declared < sizeof(hurray_plugin_table) ? declared : sizeof(hurray_plugin_table);
  if (readable < 2u * sizeof(uint32_t)) {
    readable = 2u * sizeof(uint32_t);
  }
  plugin->table.struct_size = sizeof plugin->table; /* the host's own view (PL-VER-5) */
  status =
      hurray_plugin_table_validate(table, readable, HURRAY_PLUGIN_ABI_VERSION, &plugin->table, err);
  if (status == HURRAY_OK) {
    status = hurray_plugin_table_check_strings(&plugin->table, err);
  }
  if (status != HURRAY_OK) {
    hurray_plugin_name_file(err, plugin->path);
    return status;
  }
  plugin->declared_struct_size = declared;

  /* PL-REG-1: one server per tag, unless the caller chooses the new one. */
  hurray_plugin *server = find_server(registry, plugin->table.device_tag);
  if (server != NULL && (flags & HURRAY_PLUGIN_LOAD_REPLACE_TAG) == 0u) {
    char tag[24];
    hurray_device_tag_display(plugin->table.device_tag, tag, sizeof tag);
    return hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_DUPLICATE_TAG, plugin->table.device_tag, 0,
                                 0, plugin->path, "tag %s already served by plugin %s (%s)", tag,
                                 server->table.name, server->path);
  }

  /* PL-CALL-3: the plugin fills an error of ours, never the caller's. */
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(NULL, "init", plugin->table.init(&plugin->state, &call_err),
                                     &call_err, err);
  if (status != HURRAY_OK) {
    hurray_plugin_name_file(err, plugin->path);
    return status;
  }
  status = read_devices(plugin, err);
  if (status != HURRAY_OK) {
    hurray_plugin_name_file(err, plugin->path);
    plugin->table.shutdown(plugin->state);
    return status;
  }
  atomic_init(&plugin->references, 1u); /* the registry's (PL-LIFE-1) */
  atomic_init(&plugin->live_events, 0u);
  atomic_init(&plugin->orphans, 0u);
  if (server != NULL) {
    server->serves_tag = false;
  }
  plugin->serves_tag = true;
  plugin->registry = registry;
  plugin->prev = registry->last;
  if (registry->last != NULL) {
    registry->last->next = plugin;
  } else {
    registry->first = plugin;
  }
  registry->last = plugin;
  registry->count++;
  if (out != NULL) {
    *out = plugin;
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_load_locked(hurray_plugin_registry *registry, const char *path,
                                        uint32_t flags, hurray_plugin **out, hurray_error *err) {
  /* Plugin entries always get an error to fill (plugin.h). */
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if ((flags & ~HURRAY_PLUGIN_LOAD_REPLACE_TAG) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0, 2,
                              "unknown hurray_plugin_load flags 0x%X", (unsigned)flags);
  }
  hurray_plugin *plugin = calloc(1, sizeof *plugin);
  if (plugin == NULL) {
    return hurray_plugin_fail_at(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *plugin, 0, 0, path,
                                 "plugin record");
  }
  hurray_status status = check_path(path, plugin->path, err);
  if (status != HURRAY_OK) {
    free(plugin);
    return status;
  }
  /* PL-LOAD-4: every symbol bound now (a missing one fails here, not in the
   * middle of a call later), and none of the plugin's leaks into the process. */
  dlerror();
  plugin->library = dlopen(plugin->path, RTLD_NOW | RTLD_LOCAL);
  if (plugin->library == NULL) {
    const char *why = dlerror();
    status = hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0, plugin->path,
                                   "dlopen: %s", why != NULL ? why : "unknown error");
    free(plugin);
    return status;
  }
  void *symbol = dlsym(plugin->library, HURRAY_PLUGIN_ENTRY_SYMBOL);
  if (symbol == NULL) {
    status = hurray_plugin_fail_at(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0, plugin->path,
                                   "no entry symbol %s", HURRAY_PLUGIN_ENTRY_SYMBOL);
    goto close;
  }
  status = check_entry_origin(plugin->library, symbol, plugin->path, err);
  if (status == HURRAY_OK) {
    status = check_entry_is_function(symbol, plugin->path, err);
  }
  if (status != HURRAY_OK) {
    goto close;
  }
  hurray_plugin_entry_fn entry;
  memcpy(&entry, &symbol, sizeof entry);
  status = adopt_entry(registry, plugin, entry, flags, out, err);
  if (status == HURRAY_OK) {
    return HURRAY_OK;
  }

close:
  /* PL-LOAD-6: nothing stays loaded after a refusal. */
  free(plugin->devices);
  if (plugin->library != NULL) {
    dlclose(plugin->library);
  }
  free(plugin);
  return status;
}

hurray_status hurray_plugin_load_linked(hurray_plugin_registry *registry, const char *name,
                                        hurray_plugin_entry_fn entry, uint32_t flags,
                                        hurray_plugin **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (registry == NULL || name == NULL || entry == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                              registry == NULL ? 0u : (name == NULL ? 1u : 2u),
                              "hurray_plugin_load_linked: NULL argument");
  }
  if ((flags & ~HURRAY_PLUGIN_LOAD_REPLACE_TAG) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0, 3,
                              "unknown hurray_plugin_load flags 0x%X", (unsigned)flags);
  }
  hurray_plugin *plugin = calloc(1, sizeof *plugin);
  if (plugin == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *plugin, 0, 0, "plugin record");
  }
  (void)snprintf(plugin->path, sizeof plugin->path, "%s", name);
  pthread_mutex_lock(&registry->lock);
  hurray_status status = adopt_entry(registry, plugin, entry, flags, out, err);
  pthread_mutex_unlock(&registry->lock);
  if (status != HURRAY_OK) {
    free(plugin->devices);
    free(plugin);
  }
  return status;
}

hurray_status hurray_plugin_load(hurray_plugin_registry *registry, const char *path, uint32_t flags,
                                 hurray_plugin **out, hurray_error *err) {
  if (registry == NULL || path == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, registry == NULL ? 0u : 1u,
                              "hurray_plugin_load: %s is NULL",
                              registry == NULL ? "registry" : "path");
  }
  pthread_mutex_lock(&registry->lock);
  hurray_status status = hurray_plugin_load_locked(registry, path, flags, out, err);
  pthread_mutex_unlock(&registry->lock);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Search path and discovery (PL-SEARCH-1..3)                               */
/* ------------------------------------------------------------------------ */

/* Calls visit(ctx, dir, length) for each search directory in order: the
 * non-empty entries of HURRAY_PLUGIN_PATH, then the install directory.
 * Stops early when visit returns false. */
typedef bool (*dir_visitor)(void *ctx, const char *dir, size_t length);

static void for_each_search_dir(dir_visitor visit, void *ctx) {
  const char *env = getenv(HURRAY_PLUGIN_PATH_ENV);
  if (env != NULL) {
    const char *p = env;
    while (*p != '\0') {
      const char *end = strchr(p, ':');
      size_t length = end != NULL ? (size_t)(end - p) : strlen(p);
      if (length > 0u && !visit(ctx, p, length)) {
        return;
      }
      if (end == NULL) {
        break;
      }
      p = end + 1;
    }
  }
  const char *installed = HURRAY_PLUGIN_INSTALL_DIR;
  visit(ctx, installed, strlen(installed));
}

typedef struct path_writer {
  char *buf;
  size_t cap;
  size_t length;
} path_writer;

static bool append_dir(void *ctx, const char *dir, size_t length) {
  path_writer *w = ctx;
  if (w->length > 0u) {
    if (w->length + 1u < w->cap) {
      w->buf[w->length] = ':';
    }
    w->length++;
  }
  for (size_t i = 0; i < length; i++, w->length++) {
    if (w->length + 1u < w->cap) {
      w->buf[w->length] = dir[i];
    }
  }
  if (w->cap > 0u) {
    w->buf[w->length < w->cap ? w->length : w->cap - 1u] = '\0';
  }
  return true;
}

size_t hurray_plugin_search_path(char *buf, size_t cap) {
  path_writer w = {buf, cap, 0};
  if (cap > 0u) {
    buf[0] = '\0';
  }
  for_each_search_dir(append_dir, &w);
  return w.length;
}

static bool is_plugin_file_name(const char *name) {
  size_t prefix = strlen(HURRAY_PLUGIN_FILE_PREFIX);
  size_t suffix = strlen(HURRAY_PLUGIN_FILE_SUFFIX);
  size_t n = strlen(name);
  return n > prefix + suffix && strncmp(name, HURRAY_PLUGIN_FILE_PREFIX, prefix) == 0 &&
         strcmp(name + n - suffix, HURRAY_PLUGIN_FILE_SUFFIX) == 0;
}

typedef struct discovery {
  hurray_plugin_registry *registry;
  hurray_plugin_discover_fn report;
  void *ctx;
  size_t loaded;
} discovery;

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool discover_dir(void *ctx, const char *dir_text, size_t length) {
  discovery *d = ctx;
  char dir[PATH_MAX];
  if (length >= sizeof dir) {
    return true;
  }
  memcpy(dir, dir_text, length);
  dir[length] = '\0';
  if (dir[0] != '/') {
    /* PL-SEARCH-2: a relative entry would depend on the working directory. */
    hurray_error e;
    hurray_plugin_fail(&e, HURRAY_ERR_PLUGIN_UNSAFE_PATH, 0, 0, 0,
                       "%s: relative directory in %s refused", dir, HURRAY_PLUGIN_PATH_ENV);
    if (d->report != NULL) {
      d->report(d->ctx, dir, e.status, &e, NULL);
    }
    return true;
  }
  DIR *stream = opendir(dir);
  if (stream == NULL) {
    return true; /* a directory that does not exist holds no plugin */
  }
  /* PL-SEARCH-3: every candidate, however many the directory holds. */
  char **names = NULL;
  size_t count = 0;
  size_t capacity = 0;
  bool out_of_memory = false;
  struct dirent *entry;
  while ((entry = readdir(stream)) != NULL) {
    if (!is_plugin_file_name(entry->d_name)) {
      continue;
    }
    if (count == capacity) {
      size_t grown = capacity == 0u ? 32u : capacity * 2u;
      char **bigger = realloc(names, grown * sizeof *names);
      if (bigger == NULL) {
        out_of_memory = true;
        break;
      }
      names = bigger;
      capacity = grown;
    }
    names[count] = strdup(entry->d_name);
    if (names[count] == NULL) {
      out_of_memory = true;
      break;
    }
    count++;
  }
  closedir(stream);
  if (out_of_memory && d->report != NULL) {
    /* Said, not silently dropped: the candidates listed so far still load. */
    hurray_error e;
    hurray_plugin_fail_at(&e, HURRAY_ERR_OUT_OF_MEMORY, count, 0, 0, dir,
                          "out of memory listing candidates after %zu of them", count);
    d->report(d->ctx, dir, e.status, &e, NULL);
  }
  if (count > 1u) {
    qsort(names, count, sizeof names[0], compare_names);
  }
  for (size_t i = 0; i < count; i++) {
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (n < 0 || (size_t)n >= sizeof path) {
      hurray_error too_long;
      hurray_plugin_fail_at(&too_long, HURRAY_ERR_PLUGIN_LOAD_FAILED, (uint64_t)strlen(dir), 0, 0,
                            names[i], "path longer than PATH_MAX (%d) in directory %s",
                            (int)PATH_MAX, dir);
      if (d->report != NULL) {
        d->report(d->ctx, names[i], too_long.status, &too_long, NULL);
      }
      free(names[i]);
      continue;
    }
    free(names[i]);
    hurray_error e;
    hurray_plugin *plugin = NULL;
    hurray_status status = hurray_plugin_load_locked(d->registry, path, 0, &plugin, &e);
    if (status == HURRAY_OK) {
      d->loaded++;
    }
    if (d->report != NULL) {
      d->report(d->ctx, path, status, status == HURRAY_OK ? NULL : &e,
                status == HURRAY_OK ? plugin : NULL);
    }
  }
  free(names);
  return true;
}

size_t hurray_plugin_discover(hurray_plugin_registry *registry, hurray_plugin_discover_fn report,
                              void *ctx) {
  if (registry == NULL) {
    return 0;
  }
  discovery d = {registry, report, ctx, 0};
  pthread_mutex_lock(&registry->lock);
  for_each_search_dir(discover_dir, &d);
  pthread_mutex_unlock(&registry->lock);
  return d.loaded;
}

typedef struct name_search {
  hurray_plugin_registry *registry;
  const char *name;
  uint32_t flags;
  hurray_plugin **out;
  hurray_error *err;
  hurray_status status;
  bool found;
  bool skipped_relative;
  char tried[HURRAY_ERROR_DETAIL_SIZE];
} name_search;

static bool search_dir_for_name(void *ctx, const char *dir, size_t length) {
  name_search *s = ctx;
  if (dir[0] != '/') {
    s->skipped_relative = true;
    return true;
  }
  char path[PATH_MAX];
  int n = snprintf(path, sizeof path, "%.*s/%s%s%s", (int)length, dir, HURRAY_PLUGIN_FILE_PREFIX,
                   s->name, HURRAY_PLUGIN_FILE_SUFFIX);
  if (n < 0 || (size_t)n >= sizeof path) {
    return true;
  }
  size_t used = strlen(s->tried);
  snprintf(s->tried + used, sizeof s->tried - used, "%s%.*s", used > 0u ? ":" : "", (int)length,
           dir);
  if (access(path, F_OK) != 0) {
    return true;
  }
  s->found = true;
  s->status = hurray_plugin_load_locked(s->registry, path, s->flags, s->out, s->err);
  return false;
}

hurray_status hurray_plugin_load_by_name(hurray_plugin_registry *registry, const char *name,
                                         uint32_t flags, hurray_plugin **out, hurray_error *err) {
  if (registry == NULL || name == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, registry == NULL ? 0u : 1u,
                              "hurray_plugin_load_by_name: %s is NULL",
                              registry == NULL ? "registry" : "name");
  }
  size_t n = strlen(name);
  bool ok = n > 0u && n <= HURRAY_PLUGIN_NAME_MAX;
  for (size_t i = 0; ok && i < n; i++) {
    char c = name[i];
    ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  }
  if (!ok) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, n, HURRAY_PLUGIN_NAME_MAX, 1,
                              "plugin name \"%.40s\" is not [a-z0-9_-]{1,31}", name);
  }
  name_search s = {registry, name, flags, out, err, HURRAY_OK, false, false, {0}};
  pthread_mutex_lock(&registry->lock);
  for_each_search_dir(search_dir_for_name, &s);
  pthread_mutex_unlock(&registry->lock);
  if (s.found) {
    return s.status;
  }
  /* PL-SEARCH-4: the advice before the list, so a cut detail keeps it. */
  if (s.skipped_relative) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_UNSAFE_PATH, 0, 0, 0,
                              "%s%s%s not found: put its directory, absolute, in %s "
                              "(relative entries were skipped; searched %s)",
                              HURRAY_PLUGIN_FILE_PREFIX, name, HURRAY_PLUGIN_FILE_SUFFIX,
                              HURRAY_PLUGIN_PATH_ENV, s.tried);
  }
  return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_LOAD_FAILED, 0, 0, 0,
                            "%s%s%s not found: put its directory in %s (searched %s)",
                            HURRAY_PLUGIN_FILE_PREFIX, name, HURRAY_PLUGIN_FILE_SUFFIX,
                            HURRAY_PLUGIN_PATH_ENV, s.tried);
}
