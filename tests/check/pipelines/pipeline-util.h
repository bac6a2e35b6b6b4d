/* Small helpers the real-pipeline tests share: UDP port hand-over between
 * two pipelines (udpsrc port=0 binds in READY), failing on a bus error,
 * and the EOS guard a sending rtpbin 1.22 needs. */
#ifndef __PIPELINE_UTIL_H__
#define __PIPELINE_UTIL_H__

#include <gst/check/gstcheck.h>

/* The port the element called `name` in `pipeline` is bound to. */
gint pipeline_bound_port (GstElement * pipeline, const gchar * name);
void pipeline_set_port (GstElement * pipeline, const gchar * name, gint port);
/* Both to READY (udpsrc port=0 binds there), then the sender's rtp_out and
 * rtcp_out to the receiver's rtp_src and rtcp_src, and the receiver's
 * rtcp_back to the sender's rtcp_in. */
void pipeline_pair_ports (GstElement * send, GstElement * recv);
/* Fails the test on any ERROR message waiting on the pipeline's bus. */
void pipeline_check_no_error (GstElement * pipeline);

/* What an application must do for rtpbin 1.22 (the plugin's own guard,
 * gst/gstrcrtcpeos.c, compiled into these tests). */
#include "gstrcrtcpeos.h"
typedef GstRcRtcpEosGuard RtcpEosGuard;
#define rtcp_eos_guard_new gst_rc_rtcp_eos_guard_new
#define rtcp_eos_guard_describe gst_rc_rtcp_eos_guard_describe
#define rtcp_eos_guard_free gst_rc_rtcp_eos_guard_free

#endif
