/* Small helpers the real-pipeline tests share: UDP port hand-over between
 * two pipelines (udpsrc port=0 binds in READY) and failing on a bus error. */
#ifndef __PIPELINE_UTIL_H__
#define __PIPELINE_UTIL_H__

#include <gst/check/gstcheck.h>

/* The port the element called `name` in `pipeline` is bound to. */
gint pipeline_bound_port (GstElement * pipeline, const gchar * name);
void pipeline_set_port (GstElement * pipeline, const gchar * name, gint port);
/* Fails the test on any ERROR message waiting on the pipeline's bus. */
void pipeline_check_no_error (GstElement * pipeline);

#endif
