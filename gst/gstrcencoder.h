/* The video encoders a rate controller drives: which property takes the
 * bitrate and in which unit, how to find the encoder upstream of an RTP
 * element, how to set it up for real-time rate following and how to hand
 * it a target. Glue (it handles GstElements and pads), shared by
 * urcpsender and ratecontrolbin. */
#ifndef __GST_RC_ENCODER_H__
#define __GST_RC_ENCODER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Which set-up gst_rc_encoder_configure() applies. */
typedef enum
{
  GST_RC_ENCODER_SETUP_NONE,    /* bitrate only */
  GST_RC_ENCODER_SETUP_VPX,     /* end-usage=cbr, deadline 1, 150 ms buffer,
                                 * frame dropping */
  GST_RC_ENCODER_SETUP_OPENH264,        /* rate-control=bitrate */
  GST_RC_ENCODER_SETUP_X264,    /* pass=cbr */
} GstRcEncoderSetup;

typedef struct _GstRcEncoderInfo
{
  const gchar *factory;
  const gchar *property;        /* takes the bitrate */
  guint divisor;                /* 1: bit/s, 1000: kbit/s */
  GstRcEncoderSetup setup;
  const gchar *encoding_name;   /* RTP encoding-name, NULL: no RTP
                                 * payloader in GStreamer 1.22 */
  const gchar *payloader;
} GstRcEncoderInfo;

/* The table row of `factory_name`, or NULL. */
const GstRcEncoderInfo *gst_rc_encoder_info_lookup (const gchar * factory_name);

/* The whole table; its length goes to `n_infos`. */
const GstRcEncoderInfo *gst_rc_encoder_info_list (guint * n_infos);

/* The row for `enc`'s factory, if `enc` has that row's property; else NULL. */
const GstRcEncoderInfo *gst_rc_encoder_info_for (GstElement * enc);

/* The real element pad linked to `pad`, crossing ghost and proxy pads both
 * ways. Returns a ref or NULL. */
GstPad *gst_rc_linked_element_pad (GstPad * pad);

/* TRUE stops a walk at `e`. */
typedef gboolean (*GstRcVisit) (GstElement * e, gpointer data);

/* From `start`, the elements linked on its side (upstream from a sink pad,
 * downstream from a src pad), through bins and on through each element's
 * first pad of the same direction, up to 10 elements; `visit` sees each.
 * Returns the element `visit` stopped at (a ref), or NULL. */
GstElement *gst_rc_walk_linked (GstPad * start, GstRcVisit visit,
    gpointer data);

/* An rtpsession element: it has an "internal-session" object that emits
 * on-receiving-rtcp (rtpsession in rtpbin or webrtcbin, or a subclass).
 * A GstRcVisit; `unused` is ignored. */
gboolean gst_rc_is_rtp_session (GstElement * e, gpointer unused);

/* The first video encoder (klass with Encoder and Video) upstream of
 * `sinkpad`, walking through single-input elements and bins. Returns a ref
 * or NULL. */
GstElement *gst_rc_encoder_find_upstream (GstPad * sinkpad);

/* The RTP session (rtpsession's "internal-session" object, which emits
 * on-receiving-rtcp) of the first rtpsession element downstream of
 * `srcpad`, through bins (rtpbin, webrtcbin, aux-sender bins) and
 * single-output elements (fecenc in fec-encoders, funnels). Returns a ref
 * or NULL; the rtpsession element (a ref) goes to `element` if not NULL. */
GObject *gst_rc_rtp_session_find_downstream (GstPad * srcpad,
    GstElement ** element);

/* A pad probe that only looks at buffers: `fn` sees the probe's buffer, or
 * each buffer of its buffer list, in order; anything else is skipped. */
typedef void (*GstRcBufferFunc) (gpointer data, GstBuffer * buf);
void gst_rc_probe_foreach_buffer (GstPadProbeInfo * info,
    GstRcBufferFunc fn, gpointer data);

/* Sets `enc` up for following a changing target in real time, as
 * info->setup says; logs what it did (category rcencoder). */
void gst_rc_encoder_configure (GstElement * enc, const GstRcEncoderInfo * info);

/* Makes `enc` code two temporal layers: every other frame references only
 * the base layer and is referenced by nothing, so the RTP payload marks it
 * droppable (VP8: RFC 7741's N bit) and a sender may drop it (rc-select.h).
 * vp8enc only (vp9enc's RTP payloader in 1.22 marks no layers); call it
 * before the encoder starts. FALSE, nothing changed, for another encoder. */
gboolean gst_rc_encoder_set_temporal_layers (GstElement * enc,
    const GstRcEncoderInfo * info);

/* Sets `enc`'s bitrate property to `bps` in its unit, clamped into the
 * property's range; with temporal layers, the layers' targets too. */
void gst_rc_encoder_set_bitrate (GstElement * enc,
    const GstRcEncoderInfo * info, guint64 bps);

/* A new `factory` element named `name` added to `bin` (ratecontrolbin,
 * ratecontrolrecv), or NULL, logged, if it is not installed. */
GstElement *gst_rc_bin_add_new (GstBin * bin, const gchar * factory,
    const gchar * name);

G_END_DECLS
#endif
