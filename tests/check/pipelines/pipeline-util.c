/* See pipeline-util.h. */
#include "pipeline-util.h"

gint
pipeline_bound_port (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  gint port = 0;

  fail_unless (e != NULL, "no element '%s'", name);
  g_object_get (e, "port", &port, NULL);
  gst_object_unref (e);
  return port;
}

void
pipeline_set_port (GstElement * pipeline, const gchar * name, gint port)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element '%s'", name);
  g_object_set (e, "port", port, NULL);
  gst_object_unref (e);
}

void
pipeline_check_no_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err;
    gchar *dbg;
    gst_message_parse_error (m, &err, &dbg);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (m->src), err->message,
        dbg);
  }
  gst_object_unref (bus);
}

void
pipeline_pair_ports (GstElement * send, GstElement * recv)
{
  fail_unless (gst_element_set_state (recv, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (send, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  pipeline_set_port (send, "rtp_out", pipeline_bound_port (recv, "rtp_src"));
  pipeline_set_port (send, "rtcp_out", pipeline_bound_port (recv,
          "rtcp_src"));
  pipeline_set_port (recv, "rtcp_back", pipeline_bound_port (send,
          "rtcp_in"));
}
