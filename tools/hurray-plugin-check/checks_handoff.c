/*
 * `handoff` and `unload-with-buffers-held` (specs/cli.md CLI-CHK-2): a
 * plugin buffer handed from a producer to a consumer through the C ABI
 * handoff (hurray/handoff.h), as docs/vendor-guide.md shows it, and the
 * plugin outliving its unload while a consumer holds the buffer.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "conformance.h"

/* One handoff of a 4 KiB buffer on device d: producer_synced, or with a
 * plugin event recorded after the write (HO-PAY-6). The consumer accepts,
 * waits where there is an event, reads the producer's bytes, releases once;
 * the release frees the allocation exactly once (HO-OWN-1, HO-OWN-3). */
static void hand_over(conformance_run *run, uint32_t d, bool with_event) {
  hurray_plugin *plugin = conformance_plugin(run);
  const char *mode = with_event ? "event" : "producer_synced";
  hurray_error err;
  memset(&err, 0, sizeof err);
  size_t before = hurray_plugin_outstanding(plugin, NULL, NULL);
  hurray_plugin_buffer *buffer = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, d, 4096, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK, &err, "%s handoff: allocate(device %u, 4 KiB, standard)", mode, (unsigned)d);
  unsigned char data[4096];
  memset(data, with_event ? 0x3C : 0xC3, sizeof data);
  conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, data, sizeof data, &err),
                            HURRAY_OK, &err, "%s handoff: the producer's write", mode);
  hurray_buffer_handle handle = *hurray_plugin_buffer_handle(buffer);
  conformance_expect_eq(run, handle.sync_mode, HURRAY_SYNC_PRODUCER_SYNCED,
                        "the sync_mode of a plugin buffer's handle (BP-SYNC-4)");
  hurray_sync_payload sync = hurray_sync_payload_none();
  hurray_plugin_event *event = NULL;
  if (with_event) {
    conformance_expect_status(run, hurray_plugin_event_create(plugin, d, &event, &err), HURRAY_OK,
                              &err, "event handoff: event_create(device %u)", (unsigned)d);
    conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                              "event handoff: record_event after the write");
    handle.sync_mode = HURRAY_SYNC_EVENT;
    sync = hurray_sync_payload_event_of_kind(event, HURRAY_EVENT_KIND_PLUGIN, handle.device_tag,
                                             hurray_plugin_event_release_callback, NULL);
  }
  void *address = hurray_plugin_buffer_allocation(buffer)->address;
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(address, hurray_plugin_buffer_release_callback, buffer, sync);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  conformance_expect_status(run, hurray_handoff_offer(&handoff, &handle, &offer, &err), HURRAY_OK,
                            &err, "%s handoff: offer", mode);
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  conformance_expect_status(
      run, hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err),
      HURRAY_OK, &err, "%s handoff: accept", mode);
  CONFORM(run, accepted.data == address,
          "%s handoff: accept gave %p, the allocation's address is %p", mode, accepted.data,
          address);
  if (with_event) {
    CONFORM(run, accepted.event == event && accepted.event_kind == HURRAY_EVENT_KIND_PLUGIN,
            "event handoff: accept did not pass on the plugin event");
    /* The consumer's wait: a real wait through the plugin. */
    conformance_expect_status(
        run, hurray_plugin_event_wait(accepted.event, HURRAY_PLUGIN_WAIT_FOREVER, &err), HURRAY_OK,
        &err, "event handoff: the consumer's wait_event");
    conformance_expect_status(run, hurray_handoff_record_event_wait(&handoff, &err), HURRAY_OK,
                              &err, "event handoff: record_event_wait");
    conformance_expect_status(run, hurray_handoff_release_event(&handoff, &err), HURRAY_OK, &err,
                              "event handoff: release_event");
  }
  unsigned char back[4096];
  conformance_expect_status(run, hurray_plugin_buffer_read(buffer, 0, back, sizeof back, &err),
                            HURRAY_OK, &err, "%s handoff: the consumer's read", mode);
  CONFORM(run, memcmp(back, data, sizeof data) == 0,
          "%s handoff: the consumer read other bytes than the producer wrote", mode);
  conformance_expect_status(run, hurray_handoff_release(&handoff, &err), HURRAY_OK, &err,
                            "%s handoff: release", mode);
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, NULL, NULL), before,
                        "%s handoff: buffers and events outstanding after the release", mode);
  CONFORM(run, hurray_plugin_buffer_handle(buffer) == NULL,
          "%s handoff: the buffer is still live after the release freed it", mode);
  conformance_expect_status(run, hurray_handoff_release(&handoff, &err),
                            HURRAY_ERR_ALREADY_RELEASED, &err, "%s handoff: a second release",
                            mode);
  conformance_expect_status(run, hurray_handoff_destroy(&handoff, &err), HURRAY_OK, &err,
                            "%s handoff: destroy", mode);
}

/* Every device hands a buffer over producer_synced; where the plugin has
 * events, and the device is not the CPU (whose buffers are producer_synced
 * only, BP-SYNC-2), with a plugin event too. */
void conformance_check_handoff(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  bool events = hurray_plugin_supports_events(plugin) &&
                hurray_plugin_device_tag(plugin) != HURRAY_DEVICE_CPU;
  for (uint32_t d = 0; d < hurray_plugin_device_count(plugin); d++) {
    hand_over(run, d, false);
    if (events) {
      hand_over(run, d, true);
    }
  }
  conformance_note(run, "%s",
                   events ? "handed over producer_synced and with a plugin event"
                          : "handed over producer_synced (no event: the plugin has "
                            "none, or its device is the CPU)");
}

/* The sequence of issue 16: a producer hands a plugin buffer to a consumer,
 * unloads the plugin and destroys its registry; the consumer reads the
 * bytes and releases later. The plugin stays loaded until that release and
 * is closed by it (PL-LIFE-1, PL-LOAD-7); hurray_plugin_outstanding counts
 * what holds it (PL-LIFE-2). */
void conformance_check_unload_with_buffers_held(conformance_run *run) {
  hurray_plugin *plugin = conformance_plugin(run);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_plugin_buffer *buffer = NULL;
  conformance_expect_status(
      run, hurray_plugin_allocate(plugin, 0, 8192, 64, HURRAY_MEMORY_STANDARD, &buffer, &err),
      HURRAY_OK, &err, "allocate(device 0, 8 KiB, standard)");
  conformance_expect_status(run, hurray_plugin_buffer_write(buffer, 0, "held", 5, &err), HURRAY_OK,
                            &err, "copy_to_device");
  hurray_plugin_event *event = NULL;
  bool events = hurray_plugin_supports_events(plugin);
  if (events) {
    conformance_expect_status(run, hurray_plugin_event_create(plugin, 0, &event, &err), HURRAY_OK,
                              &err, "event_create(device 0)");
    conformance_expect_status(run, hurray_plugin_event_record(event, NULL, &err), HURRAY_OK, &err,
                              "record_event");
  }
  size_t buffers = 0;
  size_t live_events = 0;
  conformance_expect_eq(run, hurray_plugin_outstanding(plugin, &buffers, &live_events),
                        events ? 2u : 1u, "hurray_plugin_outstanding");
  conformance_expect_eq(run, buffers, 1, "buffers outstanding");
  conformance_expect_eq(run, live_events, events ? 1u : 0u, "events outstanding");

  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  const hurray_buffer_offer offer = hurray_buffer_offer_make(
      hurray_plugin_buffer_allocation(buffer)->address, hurray_plugin_buffer_release_callback,
      buffer, hurray_sync_payload_none());
  conformance_expect_status(
      run, hurray_handoff_offer(&handoff, hurray_plugin_buffer_handle(buffer), &offer, &err),
      HURRAY_OK, &err, "offer");
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  conformance_expect_status(
      run, hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err),
      HURRAY_OK, &err, "accept");

  char path[4096];
  snprintf(path, sizeof path, "%s", hurray_plugin_path(plugin));
  hurray_plugin_unload(plugin); /* the producer is done with the plugin */
  conformance_unload(run);
  CONFORM(run, conformance_file_is_mapped(path),
          "%s was closed by the unload while a buffer was held (PL-LIFE-1)", path);

  /* The consumer, later: the bytes are still there, the release works. */
  char bytes[5];
  conformance_expect_status(run, hurray_plugin_buffer_read(buffer, 0, bytes, sizeof bytes, &err),
                            HURRAY_OK, &err, "the consumer's read after the unload");
  CONFORM(run, memcmp(bytes, "held", 5) == 0, "the bytes changed after the unload");
  if (events) {
    hurray_plugin_event_release(event);
    CONFORM(run, conformance_file_is_mapped(path),
            "%s was closed by an event's release while a buffer was held (PL-LIFE-1)", path);
  }
  conformance_expect_status(run, hurray_handoff_release(&handoff, &err), HURRAY_OK, &err,
                            "the consumer's release after the unload");
  conformance_expect_status(run, hurray_handoff_destroy(&handoff, &err), HURRAY_OK, &err,
                            "destroy");
  CONFORM(run, !conformance_file_is_mapped(path),
          "%s is still mapped after the last release (PL-LOAD-7)", path);
}
