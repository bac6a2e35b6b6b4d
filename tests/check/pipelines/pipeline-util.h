/* Small helpers the real-pipeline tests share: UDP port hand-over between
 * two pipelines (udpsrc port=0 binds in READY), failing on a bus error,
 * and the EOS guard a sending rtpbin 1.22 needs. */
#ifndef __PIPELINE_UTIL_H__
#define __PIPELINE_UTIL_H__

#include <gst/check/gstcheck.h>

/* The port the element called `name` in `pipeline` is bound to. */
gint pipeline_bound_port (GstElement * pipeline, const gchar * name);
void pipeline_set_port (GstElement * pipeline, const gchar * name, gint port);
/* Fails the test on any ERROR message waiting on the pipeline's bus. */
void pipeline_check_no_error (GstElement * pipeline);

/* What an application must do for rtpbin 1.22, which can lose the EOS of
 * send_rtcp_src_%u (docs/fec.md, "EOS and rtpbin 1.22"): once every SSRC
 * that left on send_rtp_src_%u has said BYE after the EOS went out there,
 * the guard sends EOS into the element linked to send_rtcp_src_%u, as
 * rtpsession would have. Where rtpsession does send it, that second EOS is
 * refused. Make it once rtpbin's send pads of `session` exist. */
typedef struct _RtcpEosGuard RtcpEosGuard;
RtcpEosGuard *rtcp_eos_guard_new (GstElement * rtpbin, guint session);
/* Where the EOS got to, for a failure message (free it). */
gchar *rtcp_eos_guard_describe (RtcpEosGuard * g);
void rtcp_eos_guard_free (RtcpEosGuard * g);

#endif
