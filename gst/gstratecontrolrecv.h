/* ratecontrolrecv: udpsrc, rtpbin (TWCC feedback, jitterbuffer, fecdec),
 * depayloader and decoder, for one-line use; ratecontrolbin's peer. */
#ifndef __GST_RATE_CONTROL_RECV_H__
#define __GST_RATE_CONTROL_RECV_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_RATE_CONTROL_RECV (gst_rate_control_recv_get_type ())
G_DECLARE_FINAL_TYPE (GstRateControlRecv, gst_rate_control_recv, GST,
    RATE_CONTROL_RECV, GstBin);

struct _GstRateControlRecv
{
  GstBin parent;
  GstPad *srcpad;

  /* properties (object lock) */
  gint port, rtcp_port, sender_rtcp_port, pt, fec_pt, fec_format, latency;
  gchar *sender_host, *encoding_name;
  gboolean decode;

  GstElement *rtpsrc, *rtcpsrc, *rtpbin, *rtcpsink;
  GstElement *depay;            /* built at NULL->READY */

  /* the reports rcreceiver adds (properties, object lock) */
  gboolean post_repair, receiver_reports, adapt_rtcp_interval, r3cp;
  GstElement *report;           /* rcreceiver */
  GstElement *fecdec;           /* the one made for rtpbin (a ref), NULL
                                 * until then or without FEC (object lock) */
};

GST_ELEMENT_REGISTER_DECLARE (ratecontrolrecv);

G_END_DECLS
#endif
