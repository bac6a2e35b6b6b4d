/* ratecontrolbin: encoder, payloader, fecenc, urcpsender and rtpbin with
 * UDP in and out, for one-line use. Glue only: the elements inside do the
 * work. */
#ifndef __GST_RATE_CONTROL_BIN_H__
#define __GST_RATE_CONTROL_BIN_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_RATE_CONTROL_BIN (gst_rate_control_bin_get_type ())
G_DECLARE_FINAL_TYPE (GstRateControlBin, gst_rate_control_bin, GST,
    RATE_CONTROL_BIN, GstBin);

struct _GstRateControlBin
{
  GstBin parent;
  GstPad *sinkpad;

  /* properties (object lock) */
  gchar *encoder_name;
  gchar *host;
  gint port, rtcp_port, rtcp_recv_port;

  /* children (fixed after init, but the encoder and payloader, which
   * NULL->READY replaces when the encoder property changed) */
  GstElement *convert, *encoder, *payloader, *rtpcaps, *fecenc, *sender;
  GstElement *rtpbin, *rtpsink, *rtcpsink, *rtcpsrc;
  gchar *built_encoder;
  struct _GstRcRtcpEosGuard *eos_guard;
};

GST_ELEMENT_REGISTER_DECLARE (ratecontrolbin);

G_END_DECLS
#endif
