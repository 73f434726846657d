/*
 * The harness of the vendor plugin tests: the plugin under test with its
 * stand-in runtime, and the helpers the tests and the importers share.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vendor_test.h"

extern char **environ;

const vendor_case *the_case;
const char *plugin_path;
const char *stand_in_path;
hurray_plugin_registry *registry;

hurray_plugin *load_with_stand_in(void) {
  setenv(the_case->stand_in_env, stand_in_path, 1);
  hurray_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hurray_plugin_registry_create(&registry, &err), HURRAY_OK);
  hurray_plugin *plugin = NULL;
  hurray_status status = hurray_plugin_load(registry, plugin_path, 0, &plugin, &err);
  ck_assert_msg(status == HURRAY_OK, "load %s: %s", plugin_path, err.detail);
  ck_assert_ptr_nonnull(plugin);
  return plugin;
}

void unload_registry(void) {
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
}

void reason_of(const hurray_plugin *plugin, char *buf, size_t cap) {
  size_t n = hurray_plugin_unavailable_reason(plugin, buf, cap);
  ck_assert_uint_lt(n, cap);
}

void *hold_stand_in(void) {
  void *handle = dlopen(stand_in_path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(handle != NULL, "%s", dlerror());
  return handle;
}

long live_objects(void *stand_in) {
  long (*count)(void);
  void *symbol = dlsym(stand_in, "hurray_fake_live_objects");
  ck_assert_ptr_nonnull(symbol);
  memcpy(&count, &symbol, sizeof symbol);
  return count();
}

bool offers(const hurray_plugin_device_info *info, hurray_memory_class memory_class,
            uint32_t *flags) {
  for (uint32_t i = 0; i < info->memory_class_count; i++) {
    if (info->memory_classes[i].memory_class == memory_class) {
      *flags = info->memory_classes[i].flags;
      return true;
    }
  }
  return false;
}

hurray_plugin_device_info describe(const hurray_plugin *plugin, uint32_t index) {
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  hurray_error err;
  hurray_status status = hurray_plugin_describe_device(plugin, index, &info, &err);
  ck_assert_msg(status == HURRAY_OK, "describe: %s", err.detail);
  return info;
}

uint32_t expected_native_type(hurray_device_tag tag) {
  switch (tag) {
    case HURRAY_DEVICE_CUDA: return HURRAY_NATIVE_EVENT_CU_EVENT;
    case HURRAY_DEVICE_ROCM: return HURRAY_NATIVE_EVENT_HIP_EVENT;
    case HURRAY_DEVICE_LEVEL_ZERO: return HURRAY_NATIVE_EVENT_ZE_EVENT;
    case HURRAY_DEVICE_METAL: return HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
    default: return HURRAY_NATIVE_EVENT_NONE;
  }
}

int spawn_importer(const char *role, pid_t *child) {
  int pair[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  posix_spawn_file_actions_t actions;
  ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
  /* The importer's end survives exec as descriptor 100 (dup2 clears
   * close-on-exec; 100 is never pair[1] here, where dup2 would do nothing). */
  ck_assert_int_ne(pair[1], 100);
  ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, pair[1], 100), 0);
  char program[] = "/proc/self/exe";
  char descriptor[] = "100";
  char *importer = strdup(role);
  char *name = strdup(the_case->name);
  char *plugin_file = strdup(plugin_path);
  char *stand_in_file = strdup(stand_in_path);
  ck_assert(importer != NULL && name != NULL && plugin_file != NULL && stand_in_file != NULL);
  char *argv[] = {program, name, plugin_file, stand_in_file, importer, descriptor, NULL};
  ck_assert_int_eq(posix_spawn(child, program, &actions, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  free(importer);
  free(name);
  free(plugin_file);
  free(stand_in_file);
  close(pair[1]);
  return pair[0];
}

bool importer_load(hurray_plugin_registry **own, hurray_plugin **plugin, void **stand_in,
                   long (**live)(void)) {
  setenv(the_case->stand_in_env, stand_in_path, 1);
  hurray_error err;
  *own = NULL;
  *plugin = NULL;
  *stand_in = NULL;
  *live = NULL;
  if (hurray_plugin_registry_create(own, &err) != HURRAY_OK ||
      hurray_plugin_load(*own, plugin_path, 0, plugin, &err) != HURRAY_OK ||
      hurray_plugin_device_count(*plugin) == 0 ||
      (*stand_in = dlopen(stand_in_path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    hurray_plugin_registry_destroy(*own);
    return false;
  }
  void *symbol = dlsym(*stand_in, "hurray_fake_live_objects");
  if (symbol != NULL) {
    memcpy(live, &symbol, sizeof symbol);
  }
  return true;
}

int importer_reply(int socket_fd, unsigned char step) {
  (void)!write(socket_fd, &step, 1);
  close(socket_fd);
  return step;
}
