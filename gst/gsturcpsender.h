#ifndef __GST_URCP_SENDER_H__
#define __GST_URCP_SENDER_H__

#include <gst/gst.h>
#include "rc-sender.h"

G_BEGIN_DECLS

#define GST_TYPE_URCP_SENDER (gst_urcp_sender_get_type ())
G_DECLARE_FINAL_TYPE (GstUrcpSender, gst_urcp_sender, GST, URCP_SENDER,
    GstElement);

/* The `controller` property: one value per registered controller (the
 * registry's order), nick = its name. */
#define GST_TYPE_URCP_CONTROLLER (gst_urcp_controller_get_type ())
GType gst_urcp_controller_get_type (void);

struct _GstUrcpSender
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (object lock); cfg.params holds every controller's
   * parameters as "<controller>-<parameter>" fields */
  RcSenderConfig cfg;
  GstElement *encoder_prop;     /* set by the user */
  gboolean configure_encoder;
  guint temporal_layers;

  /* the sender session and the streaming state (ctrl_lock) */
  GMutex ctrl_lock;
  GCond queue_cond;
  GCond space_cond;             /* the pacing queue fell below its bound */
  RcSender *sender;             /* items: GstBuffer or serialized GstEvent */
  GArray *actions;              /* scratch: RcSenderAction */
  gboolean flushing;
  GstFlowReturn srcresult;
  GstClockID clock_id;
  GstClockID fb_clock_id;       /* wakes the session for gathered feedback */
  GstClockTime fb_clock_due;
  gboolean warned_no_twcc_caps;
  gchar *unknown_encoder;       /* (ctrl_lock) an encoder found but not
                                 * driven, to be said on the bus */
  gint clock_rate;              /* from caps, for RR jitter */
  gint media_pt;                /* from caps; -1 unknown */
  guint32 media_ssrc;           /* from caps or the first media packet */
  gboolean have_media_ssrc;
  gboolean media_vp8;           /* from caps: encoding-name VP8, whose
                                 * payload marks droppable frames */
  /* Selective transmission (ctrl_lock): media packets dropped so far, taken
   * off the sequence numbers of those sent after, so the receiver sees no
   * gap (and counts no loss) where frames were dropped on purpose. */
  guint16 seq_shift;
  gboolean seen_fec;            /* repair packets upstream cover the original
                                 * sequence numbers: no selection */

  /* encoder (ctrl_lock); enc_lock serialises setting it, so the last
   * target set is the session's latest */
  GMutex enc_lock;
  GstElement *encoder;          /* found or given; ref held */
  gboolean encoder_searched;
  const struct _GstRcEncoderInfo *encoder_info;

  /* Discovery. The encoder and the RTP session are looked for at
   * READY->PAUSED, again when a pad of ours is relinked or new caps come
   * (`rediscover`, atomic bits), and, while one is missing, once a second
   * at a buffer (`next_discovery`, ctrl_lock): rtpbin and webrtcbin may
   * link an aux sender only when the stream starts. */
  gint rediscover;
  GstClockTime next_discovery;
  gboolean warned_no_encoder;   /* (ctrl_lock) said on the bus once */
  gboolean warned_unknown_encoder;
  gboolean warned_feedback;     /* (ctrl_lock) the controller's
                                 * feedback_problem said on the bus */
  gboolean post_no_encoder;     /* (ctrl_lock) to be said on the bus */

  /* RTCP fallback (ctrl_lock) */
  GObject *rtp_session;
  gchar *rtp_session_name;      /* its rtpsession element's, for stats */
  gulong rtcp_handler;
  gulong sending_handler;       /* on-sending-rtcp: DLRR answers */
  /* RFC 3611 RRTRs to answer with a DLRR in our next RTCP (ctrl_lock):
   * RcReportBlock of kind DLRR, dlrr.dlrr holding no value yet; the
   * arrival running time of each in rrtr_at */
  GArray *rrtr;
  GArray *rrtr_at;
  gulong ssrc_active_handler;
  GArray *reports;              /* scratch: RcReportBlock (RTCP thread) */
  GArray *pending_reports;      /* parsed, waiting for rtpsession's RTT */
};

G_END_DECLS
#endif
