#ifndef __GST_URCP_SENDER_H__
#define __GST_URCP_SENDER_H__

#include <gst/gst.h>
#include "rc-controller.h"
#include "rc-pacer.h"
#include "rc-twcc.h"

G_BEGIN_DECLS

#define GST_TYPE_URCP_SENDER (gst_urcp_sender_get_type ())
G_DECLARE_FINAL_TYPE (GstUrcpSender, gst_urcp_sender, GST, URCP_SENDER,
    GstElement);

#define GST_TYPE_URCP_CONTROLLER (gst_urcp_controller_get_type ())
GType gst_urcp_controller_get_type (void);

typedef struct
{
  GstMiniObject *obj;           /* GstBuffer or serialized GstEvent */
  GstClockTime arrival;         /* running time it was queued */
  guint size;
} GstUrcpQueued;

struct _GstUrcpSender
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (object lock) */
  RcConfig cfg;
  gboolean pacing;
  GstClockTime max_queue_time;
  GstElement *encoder_prop;     /* set by the user */
  gboolean configure_encoder;

  /* controller, pacer and queue (ctrl_lock) */
  GMutex ctrl_lock;
  GCond queue_cond;
  RcController *ctrl;
  RcPacer pacer;
  GQueue queue;
  guint64 queued_bytes;
  gboolean flushing;
  GstFlowReturn srcresult;
  GstClockID clock_id;
  guint64 sent_seq;
  RcSeqUnwrap twcc_unwrap;
  GArray *results;              /* scratch for parsing */
  GstClockTime first_push;
  GstClockTime last_twcc, last_rr;
  gboolean warned_no_feedback;
  gboolean warned_no_twcc_caps;
  guint64 twcc_events, twcc_rejected, rr_reports;
  guint32 ssrc;
  gboolean have_ssrc;
  gint clock_rate;
  guint64 target_bps;           /* last published */
  GstClockTime last_encoder_set;

  /* encoder (ctrl_lock) */
  GstElement *encoder;          /* found or given; ref held */
  gboolean encoder_searched;
  const struct _GstRcEncoderInfo *encoder_info;

  /* RTCP fallback */
  GObject *rtp_session;
  gulong rtcp_handler;
};

G_END_DECLS
#endif
