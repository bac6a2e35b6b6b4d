/* rtpbin 1.22 can lose the EOS of send_rtcp_src_%u, so a sender's
 * pipeline never posts EOS (docs/fec.md, "EOS and rtpbin 1.22"; fixed in
 * GStreamer 1.24). The guard does what rtpsession should: once every SSRC
 * that left on send_rtp_src_%u has said BYE after the EOS went out there,
 * it sends EOS into the element linked to send_rtcp_src_%u. Where
 * rtpsession does send it, that second EOS is refused. Make it once
 * rtpbin's send pads of `session` exist (NULL if they do not). */
#ifndef __GST_RC_RTCP_EOS_H__
#define __GST_RC_RTCP_EOS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstRcRtcpEosGuard GstRcRtcpEosGuard;
GstRcRtcpEosGuard *gst_rc_rtcp_eos_guard_new (GstElement * rtpbin,
    guint session);
/* Where the EOS got to, for a message (free it). */
gchar *gst_rc_rtcp_eos_guard_describe (GstRcRtcpEosGuard * g);
void gst_rc_rtcp_eos_guard_free (GstRcRtcpEosGuard * g);

G_END_DECLS
#endif
