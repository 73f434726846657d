/*
 * hurray._allocator: NumPy data-memory handlers (NEP 49) that allocate on an
 * alignment of the caller's choosing, so arrays allocated inside
 * hurray.aligned_allocator() are shared, not copied, by from_numpy
 * (specs/python.md PY-ALLOC-1..4).
 *
 * NumPy keeps the current handler in a context variable and stores the
 * handler in each array it allocates, freeing the array through that same
 * handler: this module supplies one handler capsule per alignment and lets
 * the Python side install and restore them.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sys/mman.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One per alignment, never freed: at interpreter exit arrays may be freed
 * after the module's cache and its capsules are gone, and NumPy still calls
 * this handler's free then. */
typedef struct {
  size_t alignment;
  atomic_ullong allocations;
  atomic_ullong frees;
} aligned_ctx;

static void *aligned_malloc(void *ctx, size_t size) {
  aligned_ctx *c = ctx;
  void *p = NULL;
  if (posix_memalign(&p, c->alignment, size == 0 ? 1 : size) != 0) {
    return NULL;
  }
  /* Large arrays ask for transparent huge pages, as NumPy's default
   * allocator does, so allocating for Hurray costs no more page faults. */
  if (size >= ((size_t)4 << 20)) {
    uintptr_t page_start = ((uintptr_t)p + 4095u) & ~(uintptr_t)4095u;
    size_t span = (size_t)((uintptr_t)p + size - page_start) & ~(size_t)4095u;
    (void)madvise((void *)page_start, span, MADV_HUGEPAGE);
  }
  atomic_fetch_add(&c->allocations, 1);
  return p;
}

static void *aligned_calloc(void *ctx, size_t nelem, size_t elsize) {
  size_t size;
  if (__builtin_mul_overflow(nelem, elsize, &size)) {
    return NULL;
  }
  void *p = aligned_malloc(ctx, size);
  if (p != NULL) {
    memset(p, 0, size);
  }
  return p;
}

static void aligned_free(void *ctx, void *ptr, size_t size) {
  (void)size;
  if (ptr != NULL) {
    atomic_fetch_add(&((aligned_ctx *)ctx)->frees, 1);
    free(ptr);
  }
}

/* realloc keeps the alignment: a new aligned block and a copy (glibc's
 * realloc would not keep it). malloc_usable_size bounds the old block. */
static void *aligned_realloc(void *ctx, void *ptr, size_t new_size) {
  void *fresh = aligned_malloc(ctx, new_size);
  if (fresh == NULL || ptr == NULL) {
    return fresh;
  }
  size_t old_size = malloc_usable_size(ptr);
  memcpy(fresh, ptr, old_size < new_size ? old_size : new_size);
  aligned_free(ctx, ptr, old_size);
  return fresh;
}

static PyObject *handlers; /* dict: alignment -> handler capsule */

static PyObject *handler_for(size_t alignment) {
  PyObject *key = PyLong_FromSize_t(alignment);
  if (key == NULL) {
    return NULL;
  }
  PyObject *cached = PyDict_GetItemWithError(handlers, key);
  if (cached != NULL || PyErr_Occurred()) {
    Py_DECREF(key);
    return cached == NULL ? NULL : Py_NewRef(cached);
  }
  aligned_ctx *ctx = calloc(1, sizeof *ctx);
  PyDataMem_Handler *h = calloc(1, sizeof *h);
  if (ctx == NULL || h == NULL) {
    free(ctx);
    free(h);
    Py_DECREF(key);
    return PyErr_NoMemory();
  }
  ctx->alignment = alignment;
  snprintf(h->name, sizeof h->name, "hurray_aligned_%zu", alignment);
  h->version = 1;
  h->allocator.ctx = ctx;
  h->allocator.malloc = aligned_malloc;
  h->allocator.calloc = aligned_calloc;
  h->allocator.realloc = aligned_realloc;
  h->allocator.free = aligned_free;
  PyObject *capsule = PyCapsule_New(h, "mem_handler", NULL);
  if (capsule == NULL) {
    free(ctx);
    free(h);
    Py_DECREF(key);
    return NULL;
  }
  int rc = PyDict_SetItem(handlers, key, capsule);
  Py_DECREF(key);
  if (rc < 0) {
    Py_DECREF(capsule);
    return NULL;
  }
  return capsule;
}

static int parse_alignment(PyObject *arg, size_t *out) {
  if (!PyLong_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "alignment must be an int, not %.100s", Py_TYPE(arg)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  /* 64 (BP-ALIGN-2) up to 1 GiB, a power of two (BP-ALIGN-1). */
  if (overflow != 0 || v < 64 || v > (1LL << 30) || (v & (v - 1)) != 0) {
    PyErr_Format(PyExc_ValueError,
                 "alignment %R must be a power of two from 64 (the minimum, BP-ALIGN-2) "
                 "to 2**30",
                 arg);
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

/* The handler capsule (a new reference) for the alignment a Python call
 * passed as its argument; NULL with the exception set. */
static PyObject *handler_for_arg(PyObject *arg) {
  size_t alignment;
  if (parse_alignment(arg, &alignment) < 0) {
    return NULL;
  }
  return handler_for(alignment);
}

/* install(alignment) -> the handler that was current (restore it later). */
static PyObject *mod_install(PyObject *mod, PyObject *arg) {
  (void)mod;
  PyObject *capsule = handler_for_arg(arg);
  if (capsule == NULL) {
    return NULL;
  }
  PyObject *previous = PyDataMem_SetHandler(capsule);
  Py_DECREF(capsule);
  return previous;
}

static PyObject *mod_restore(PyObject *mod, PyObject *arg) {
  (void)mod;
  if (!PyCapsule_IsValid(arg, "mem_handler")) {
    PyErr_SetString(PyExc_TypeError, "restore needs the handler install() returned");
    return NULL;
  }
  PyObject *replaced = PyDataMem_SetHandler(arg);
  if (replaced == NULL) {
    return NULL;
  }
  Py_DECREF(replaced);
  Py_RETURN_NONE;
}

/* stats(alignment) -> (allocations, frees) through that handler so far. */
static PyObject *mod_stats(PyObject *mod, PyObject *arg) {
  (void)mod;
  PyObject *capsule = handler_for_arg(arg);
  if (capsule == NULL) {
    return NULL;
  }
  PyDataMem_Handler *h = PyCapsule_GetPointer(capsule, "mem_handler");
  Py_DECREF(capsule);
  if (h == NULL) {
    return NULL;
  }
  aligned_ctx *c = h->allocator.ctx;
  return Py_BuildValue("(KK)", (unsigned long long)atomic_load(&c->allocations),
                       (unsigned long long)atomic_load(&c->frees));
}

static PyMethodDef methods[] = {
    {"install", mod_install, METH_O,
     "install(alignment) -> previous handler: makes an aligned NEP 49 handler current in "
     "this context"},
    {"restore", mod_restore, METH_O, "restore(handler): makes `handler` current again"},
    {"stats", mod_stats, METH_O, "stats(alignment) -> (allocations, frees)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hurray._allocator",
    .m_doc = "Aligned NumPy data-memory handlers (NEP 49).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__allocator(void);
PyMODINIT_FUNC PyInit__allocator(void) {
  import_array();
  handlers = PyDict_New();
  if (handlers == NULL) {
    return NULL;
  }
  return PyModule_Create(&module_def);
}
