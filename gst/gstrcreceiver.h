/* rcreceiver: the receiving side's measurements for the receiver-assisted
 * controllers (discards, playout delay, post-repair loss), sent as standard
 * RTCP through the rtpbin session it sits behind, which also takes its
 * report interval (C-NADU Algorithm 1). */
#ifndef __GST_RC_RECEIVER_H__
#define __GST_RC_RECEIVER_H__

#include <gst/gst.h>
#include "rc-receiver.h"

G_BEGIN_DECLS

#define GST_TYPE_RC_RECEIVER (gst_rc_receiver_get_type ())
G_DECLARE_FINAL_TYPE (GstRcReceiver, gst_rc_receiver, GST, RC_RECEIVER,
    GstElement);

struct _GstRcReceiver
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  GMutex lock;                  /* everything below */
  /* properties */
  gint latency_ms;              /* -1: the jitterbuffer's */
  gboolean adapt_interval, discard_reports, nadu_reports, post_repair;
  gdouble gamma_bpr, rtcp_share;
  guint max_interval_ms, min_interval_ms;
  gboolean r3cp;
  guint r3cp_memory;
  gdouble r3cp_lambda, r3cp_p_low, r3cp_p_high;

  RcReceiver *rx;               /* made at the first packet */
  GstClockTime latency;         /* what rx uses */
  /* found upstream, at the first packet (and again a second later while
   * the session is missing) */
  gboolean searched;
  GstClockTime next_search;
  GstPad *arrival_pad;          /* the jitterbuffer's sink pad: arrivals */
  gulong arrival_probe;
  GstElement *fecdec;           /* its "recovered" count, for RFC 7509 */
  GObject *session;             /* rtpsession's internal session */
  gulong rtcp_handler, recv_handler;
  gboolean warned_no_session;
  GstClockTime set_interval;    /* last given to the session */

  guint64 reports_sent, discard_sent, nadu_sent, post_repair_sent;
};

GST_ELEMENT_REGISTER_DECLARE (rcreceiver);

G_END_DECLS
#endif
