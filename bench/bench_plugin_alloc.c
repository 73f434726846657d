/*
 * What the plugin path costs: allocate + free through a loaded plugin
 * (hurray_plugin_allocate / hurray_plugin_buffer_free, PL-ALLOC-1..5)
 * against the same vendor calls made directly, measured in the same run:
 *   cpu:    posix_memalign + free              vs the cpu plugin, standard class
 *   opencl: clCreateBuffer + clReleaseMemObject vs the opencl plugin, standard
 *           class (the first OpenCL device; PoCL here)
 * at several sizes. Each figure is the best (lowest) mean of several
 * repetitions: on a shared machine interference only adds time. For OpenCL a
 * control row times the same direct calls in a second, identical context:
 * its ratio shows how much two identical call sequences differ on the
 * runtime itself, the floor under which the plugin's ratio means nothing.
 *
 * Usage: bench_plugin_alloc PLUGIN_DIR [repetitions] [iterations]
 *   PLUGIN_DIR holds cpu/ and opencl/ (the build's plugins/ folder).
 * SPDX-License-Identifier: Apache-2.0
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdbool.h>
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hurray/plugin.h"

#include "bench_build.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct bench_config {
  int repetitions;
  int iterations;
} bench_config;

/* ---- CPU ---------------------------------------------------------------- */

/* The floor under any path that refuses a racing double free (PL-LIFE-3):
 * with `with_cas`, one uncontended compare-and-swap per buffer on top of the
 * direct calls, the one atomic read-modify-write the plugin path keeps. */
static _Atomic(unsigned) floor_word;

static double direct_cpu(size_t size, int iterations, bool with_cas) {
  double t0 = now_ns();
  for (int i = 0; i < iterations; i++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, size) != 0) {
      fprintf(stderr, "posix_memalign failed\n");
      exit(2);
    }
    /* Touch one byte so the allocation cannot be elided. */
    ((volatile unsigned char *)p)[0] = 1;
    if (with_cas) {
      unsigned expected = atomic_load_explicit(&floor_word, memory_order_relaxed);
      (void)atomic_compare_exchange_strong_explicit(&floor_word, &expected, expected + 1u,
                                                    memory_order_acq_rel, memory_order_acquire);
    }
    free(p);
  }
  return (now_ns() - t0) / iterations;
}

static double through_plugin(hurray_plugin *plugin, size_t size, int iterations, bool touch) {
  double t0 = now_ns();
  for (int i = 0; i < iterations; i++) {
    hurray_plugin_buffer *buffer = NULL;
    hurray_error err;
    if (hurray_plugin_allocate(plugin, 0, size, 64, HURRAY_MEMORY_STANDARD, &buffer, &err) !=
        HURRAY_OK) {
      fprintf(stderr, "plugin allocate failed: %s\n", err.detail);
      exit(2);
    }
    if (touch) {
      ((volatile unsigned char *)hurray_plugin_buffer_allocation(buffer)->host_address)[0] = 1;
    }
    hurray_plugin_buffer_free(buffer);
  }
  return (now_ns() - t0) / iterations;
}

/* ---- OpenCL, called directly through the same ICD loader ---------------- */

typedef struct direct_opencl {
  cl_int(CL_API_CALL *clGetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
  cl_int(CL_API_CALL *clGetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *,
                                      cl_uint *);
  cl_context(CL_API_CALL *clCreateContext)(
      const cl_context_properties *, cl_uint, const cl_device_id *,
      void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *);
  cl_int(CL_API_CALL *clReleaseContext)(cl_context);
  cl_command_queue(CL_API_CALL *clCreateCommandQueueWithProperties)(cl_context, cl_device_id,
                                                                    const cl_queue_properties *,
                                                                    cl_int *);
  cl_int(CL_API_CALL *clReleaseCommandQueue)(cl_command_queue);
  cl_mem(CL_API_CALL *clCreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
  cl_int(CL_API_CALL *clReleaseMemObject)(cl_mem);
  void *library;
  cl_context context;
  cl_command_queue queue;
  /* A second, identical context: the control that shows how far two sets of
   * the same direct calls differ on this runtime (PoCL: noticeably). */
  cl_context control_context;
  cl_command_queue control_queue;
} direct_opencl;

static bool direct_opencl_open(direct_opencl *cl) {
  cl->library = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (cl->library == NULL) {
    return false;
  }
  void *symbols[8] = {dlsym(cl->library, "clGetPlatformIDs"),
                      dlsym(cl->library, "clGetDeviceIDs"),
                      dlsym(cl->library, "clCreateContext"),
                      dlsym(cl->library, "clReleaseContext"),
                      dlsym(cl->library, "clCreateBuffer"),
                      dlsym(cl->library, "clReleaseMemObject"),
                      dlsym(cl->library, "clCreateCommandQueueWithProperties"),
                      dlsym(cl->library, "clReleaseCommandQueue")};
  for (int i = 0; i < 8; i++) {
    if (symbols[i] == NULL) {
      return false;
    }
  }
  memcpy(&cl->clGetPlatformIDs, &symbols[0], sizeof symbols[0]);
  memcpy(&cl->clGetDeviceIDs, &symbols[1], sizeof symbols[1]);
  memcpy(&cl->clCreateContext, &symbols[2], sizeof symbols[2]);
  memcpy(&cl->clReleaseContext, &symbols[3], sizeof symbols[3]);
  memcpy(&cl->clCreateBuffer, &symbols[4], sizeof symbols[4]);
  memcpy(&cl->clReleaseMemObject, &symbols[5], sizeof symbols[5]);
  memcpy(&cl->clCreateCommandQueueWithProperties, &symbols[6], sizeof symbols[6]);
  memcpy(&cl->clReleaseCommandQueue, &symbols[7], sizeof symbols[7]);
  cl_platform_id platform;
  cl_uint n = 0;
  if (cl->clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0u) {
    return false;
  }
  cl_device_id device;
  if (cl->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0u) {
    return false;
  }
  cl_int rc;
  /* The same set-up the plugin has: a context and an in-order queue. */
  cl->context = cl->clCreateContext(NULL, 1, &device, NULL, NULL, &rc);
  cl->control_context = cl->clCreateContext(NULL, 1, &device, NULL, NULL, &rc);
  if (cl->context == NULL || cl->control_context == NULL) {
    return false;
  }
  cl->queue = cl->clCreateCommandQueueWithProperties(cl->context, device, NULL, &rc);
  cl->control_queue =
      cl->clCreateCommandQueueWithProperties(cl->control_context, device, NULL, &rc);
  return cl->queue != NULL && cl->control_queue != NULL;
}

static double direct_opencl_alloc(const direct_opencl *cl, cl_context context, size_t size,
                                  int iterations) {
  double t0 = now_ns();
  for (int i = 0; i < iterations; i++) {
    cl_int rc;
    cl_mem mem = cl->clCreateBuffer(context, CL_MEM_READ_WRITE, size, NULL, &rc);
    if (mem == NULL) {
      fprintf(stderr, "clCreateBuffer failed: %d\n", (int)rc);
      exit(2);
    }
    cl->clReleaseMemObject(mem);
  }
  return (now_ns() - t0) / iterations;
}

/* ---- Driver ------------------------------------------------------------- */

typedef double (*measure_fn)(const void *ctx, size_t size, int iterations);

typedef struct pair_ctx {
  hurray_plugin *plugin;
  const direct_opencl *cl;
  bool touch;
} pair_ctx;

static double measure_direct_cpu(const void *ctx, size_t size, int iterations) {
  (void)ctx;
  return direct_cpu(size, iterations, false);
}
static double measure_direct_cpu_with_cas(const void *ctx, size_t size, int iterations) {
  (void)ctx;
  return direct_cpu(size, iterations, true);
}
static double measure_plugin(const void *ctx, size_t size, int iterations) {
  const pair_ctx *p = ctx;
  return through_plugin(p->plugin, size, iterations, p->touch);
}
static double measure_direct_opencl(const void *ctx, size_t size, int iterations) {
  const pair_ctx *p = ctx;
  return direct_opencl_alloc(p->cl, p->cl->context, size, iterations);
}
static double measure_control_opencl(const void *ctx, size_t size, int iterations) {
  const pair_ctx *p = ctx;
  return direct_opencl_alloc(p->cl, p->cl->control_context, size, iterations);
}

/* Alternates direct and plugin runs so drift hits both; keeps each best. */
static void compare(const char *label, size_t size, const bench_config *config, measure_fn direct,
                    measure_fn plugin, const pair_ctx *ctx) {
  double best_direct = 1e300;
  double best_plugin = 1e300;
  direct(ctx, size, config->iterations / 10 + 1); /* warm-up */
  plugin(ctx, size, config->iterations / 10 + 1);
  /* Each repetition alternates ten short blocks of each, so that slow drift
   * in the allocator's or runtime's state reaches both sides alike. */
  int block = config->iterations / 10 > 0 ? config->iterations / 10 : 1;
  for (int r = 0; r < config->repetitions; r++) {
    double d = 0.0;
    double p = 0.0;
    for (int b = 0; b < 10; b++) {
      d += direct(ctx, size, block) / 10.0;
      p += plugin(ctx, size, block) / 10.0;
    }
    best_direct = d < best_direct ? d : best_direct;
    best_plugin = p < best_plugin ? p : best_plugin;
  }
  printf(
      "%-7s %9zu B   direct %10.1f ns   plugin %10.1f ns   ratio %.3f   overhead %+6.1f%%   "
      "(+%.1f ns)\n",
      label, size, best_direct, best_plugin, best_plugin / best_direct,
      (best_plugin / best_direct - 1.0) * 100.0, best_plugin - best_direct);
}

/* compare() at each buffer size the benchmark reports. */
static void compare_sizes(const char *label, const bench_config *config, measure_fn direct,
                          measure_fn plugin, const pair_ctx *ctx) {
  static const size_t sizes[] = {4096, 65536, 1u << 20, 16u << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    compare(label, sizes[i], config, direct, plugin, ctx);
  }
}

static hurray_plugin *load(hurray_plugin_registry *registry, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/hurray-plugin-%s.so", dir, name, name);
  hurray_plugin *plugin = NULL;
  hurray_error err;
  if (hurray_plugin_load(registry, path, 0, &plugin, &err) != HURRAY_OK) {
    fprintf(stderr, "cannot load %s: %s\n", path, err.detail);
    return NULL;
  }
  if (hurray_plugin_device_count(plugin) == 0u) {
    char reason[256];
    hurray_plugin_unavailable_reason(plugin, reason, sizeof reason);
    printf("%s: no device (%s); skipped\n", name, reason);
    return NULL;
  }
  return plugin;
}

int main(int argc, char **argv) {
  bench_print_build("bench_plugin_alloc");
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN_DIR [repetitions] [iterations]\n", argv[0]);
    return 2;
  }
  bench_config config = {argc > 2 ? atoi(argv[2]) : 15, argc > 3 ? atoi(argv[3]) : 20000};
  if (config.repetitions < 1 || config.iterations < 1) {
    fprintf(stderr, "repetitions and iterations must be positive\n");
    return 2;
  }
  hurray_plugin_registry *registry = NULL;
  if (hurray_plugin_registry_create(&registry, NULL) != HURRAY_OK) {
    return 2;
  }
  printf("allocate + free of one buffer, best mean of %d x %d\n", config.repetitions,
         config.iterations);
  hurray_plugin *cpu = load(registry, argv[1], "cpu");
  if (cpu != NULL) {
    pair_ctx ctx = {cpu, NULL, true};
    compare_sizes("cpu", &config, measure_direct_cpu, measure_plugin, &ctx);
    printf(
        "floor: the direct calls plus the one compare-and-swap per buffer that refusing a "
        "racing double free needs (PL-LIFE-3), in the \"plugin\" column\n");
    compare_sizes("floor", &config, measure_direct_cpu, measure_direct_cpu_with_cas, &ctx);
  }
  hurray_plugin *opencl = load(registry, argv[1], "opencl");
  direct_opencl cl;
  memset(&cl, 0, sizeof cl);
  if (opencl != NULL) {
    if (!direct_opencl_open(&cl)) {
      printf("opencl: direct calls unavailable; skipped\n");
    } else {
      pair_ctx ctx = {opencl, &cl, false};
      compare_sizes("opencl", &config, measure_direct_opencl, measure_plugin, &ctx);
      printf(
          "control: the same direct calls in a second, identical context (the \"plugin\" "
          "column); its ratio is the run-to-run spread of this runtime\n");
      compare_sizes("control", &config, measure_direct_opencl, measure_control_opencl, &ctx);
      cl.clReleaseCommandQueue(cl.control_queue);
      cl.clReleaseContext(cl.control_context);
      cl.clReleaseCommandQueue(cl.queue);
      cl.clReleaseContext(cl.context);
    }
  }
  hurray_plugin_registry_destroy(registry);
  return 0;
}
