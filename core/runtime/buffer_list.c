/*
 * Buffer lists: the owned buffers of one tensor (HO-LIST-1..6).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "handoff_internal.h"
#include "hurray/handoff.h"
#include "hurray/plugin_support.h"

/* A live list carries LIST_LIVE; while destroy runs the callbacks it carries
 * LIST_DESTROYING, and just before the memory is freed LIST_DEAD (HO-LIST-5). */
#define LIST_LIVE 0x4C495354u       /* "LIST" */
#define LIST_DESTROYING 0x44455354u /* "DEST" */
#define LIST_DEAD 0xDEADDEADu

typedef struct list_entry {
  hurray_buffer_handle handle;
  void *data;
  hurray_buffer_release_fn release;
  void *release_ctx;
} list_entry;

struct hurray_buffer_list {
  uint32_t magic;
  size_t count;
  size_t capacity;
  list_entry *entries;
};

static hurray_status fail(hurray_error *err, hurray_status status, uint64_t value,
                          uint64_t expected, size_t index) {
  return hurray_support_fail(err, status, value, expected, index, NULL);
}

static hurray_status check_list(const hurray_buffer_list *list, hurray_error *err) {
  if (list == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  if (list->magic == LIST_DESTROYING || list->magic == LIST_DEAD) {
    /* value: no handoff operation, so the message does not name one. */
    return fail(err, HURRAY_ERR_USE_AFTER_DESTROY, HURRAY_HANDOFF_OP_COUNT, 0, 0);
  }
  if (list->magic != LIST_LIVE) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, list->magic, LIST_LIVE, 0);
  }
  return HURRAY_OK;
}

hurray_status hurray_buffer_list_create(hurray_buffer_list **out, hurray_error *err) {
  if (out == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0);
  }
  hurray_buffer_list *list = malloc(sizeof *list);
  if (list == NULL) {
    return fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *list, 0, 0);
  }
  list->magic = LIST_LIVE;
  list->count = 0;
  list->capacity = 0;
  list->entries = NULL;
  *out = list;
  return HURRAY_OK;
}

/* Makes room for one more entry; the list is unchanged on failure. */
static hurray_status reserve_one(hurray_buffer_list *list, hurray_error *err) {
  if (list->count < list->capacity) {
    return HURRAY_OK;
  }
  size_t capacity = list->capacity == 0u ? 4u : list->capacity * 2u;
  if (capacity > HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    capacity = HURRAY_BUFFER_TABLE_MAX_HANDLES;
  }
  list_entry *grown = realloc(list->entries, capacity * sizeof *grown);
  if (grown == NULL) {
    return fail(err, HURRAY_ERR_OUT_OF_MEMORY, capacity * sizeof *grown, 0, 0);
  }
  list->entries = grown;
  list->capacity = capacity;
  return HURRAY_OK;
}

/* Colocation with the first entry (BP-COLOC-2), the 255-entry limit, and the
 * memory for one more entry: everything that can refuse an append. */
static hurray_status make_room_for(hurray_buffer_list *list, const hurray_buffer_handle *handle,
                                   hurray_error *err) {
  const size_t position = list->count;
  if (position > 0u) {
    const hurray_buffer_handle *first = &list->entries[0].handle;
    if (handle->device_tag != first->device_tag) {
      return fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, handle->device_tag, first->device_tag,
                  position);
    }
    if (handle->memory_class != first->memory_class) {
      return fail(err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, handle->memory_class, first->memory_class,
                  position);
    }
  }
  if (position >= HURRAY_BUFFER_TABLE_MAX_HANDLES) {
    return fail(err, HURRAY_ERR_CAPACITY, position + 1u, HURRAY_BUFFER_TABLE_MAX_HANDLES, 0);
  }
  return reserve_one(list, err);
}

/* Cannot fail: make_room_for succeeded first. */
static void append(hurray_buffer_list *list, const hurray_buffer_handle *handle, void *data,
                   hurray_buffer_release_fn release, void *release_ctx) {
  list_entry *entry = &list->entries[list->count];
  entry->handle = *handle;
  entry->data = data;
  entry->release = release;
  entry->release_ctx = release_ctx;
  list->count++;
}

hurray_status hurray_buffer_list_push(hurray_buffer_list *list, const hurray_buffer_handle *handle,
                                      void *data, hurray_buffer_release_fn release,
                                      void *release_ctx, hurray_error *err) {
  hurray_status status = check_list(list, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (handle == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
  }
  if (release == NULL) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3);
  }
  const size_t position = list->count;
  status = hurray_buffer_handle_validate(handle, err);
  if (status != HURRAY_OK) {
    if (err != NULL) {
      err->index = position;
    }
    return status;
  }
  if (data == NULL && handle->byte_size != 0u) {
    return fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 2);
  }
  status = make_room_for(list, handle, err);
  if (status != HURRAY_OK) {
    return status;
  }
  append(list, handle, data, release, release_ctx);
  return HURRAY_OK;
}

hurray_status hurray_buffer_list_push_handoff(hurray_buffer_list *list, hurray_handoff *handoff,
                                              hurray_error *err) {
  hurray_status status = check_list(list, err);
  if (status != HURRAY_OK) {
    return status;
  }
  handoff_owned_buffer owned;
  status = hurray_internal_handoff_transfer_peek(handoff, &owned, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* Every check that can refuse comes before the step that cannot be undone. */
  status = make_room_for(list, &owned.handle, err);
  if (status != HURRAY_OK) {
    return status;
  }
  status = hurray_internal_handoff_transfer_commit(handoff, err);
  if (status != HURRAY_OK) {
    return status; /* another thread released it first; the room stays for later */
  }
  append(list, &owned.handle, owned.data, owned.release, owned.release_ctx);
  return HURRAY_OK;
}

size_t hurray_buffer_list_count(const hurray_buffer_list *list) {
  if (list == NULL || list->magic != LIST_LIVE) {
    return 0u;
  }
  return list->count;
}

hurray_status hurray_buffer_list_borrow(const hurray_buffer_list *list, size_t index,
                                        hurray_buffer_handle *out_handle, void **out_data,
                                        hurray_error *err) {
  hurray_status status = check_list(list, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (index >= list->count) {
    return fail(err, HURRAY_ERR_INVALID_ARGUMENT, index, list->count, 1);
  }
  if (out_handle != NULL) {
    *out_handle = list->entries[index].handle;
  }
  if (out_data != NULL) {
    *out_data = list->entries[index].data;
  }
  return HURRAY_OK;
}

void hurray_buffer_list_destroy(hurray_buffer_list **list_ptr) {
  if (list_ptr == NULL || *list_ptr == NULL) {
    return;
  }
  hurray_buffer_list *list = *list_ptr;
  *list_ptr = NULL;
  /* A callback destroying the list again through another copy of the
   * pointer finds it already being destroyed: nothing more to do. */
  if (list->magic != LIST_LIVE) {
    return;
  }
  list->magic = LIST_DESTROYING;
  for (size_t i = 0; i < list->count; i++) {
    list_entry *slot = &list->entries[i];
    const hurray_buffer_release_fn release = slot->release;
    void *const data = slot->data;
    void *const ctx = slot->release_ctx;
    /* HO-LIST-4: the slot is empty before its callback can re-enter. */
    slot->release = NULL;
    slot->data = NULL;
    slot->release_ctx = NULL;
    if (release != NULL) {
      release(data, ctx);
    }
  }
  free(list->entries);
  list->entries = NULL;
  list->count = 0;
  list->capacity = 0;
  list->magic = LIST_DEAD;
  free(list);
}
