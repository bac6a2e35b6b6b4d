#ifndef __GST_FEC_ENC_H__
#define __GST_FEC_ENC_H__

#include <gst/gst.h>
#include "rc-fec-enc.h"

G_BEGIN_DECLS

#define GST_TYPE_FEC_ENC (gst_fec_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstFecEnc, gst_fec_enc, GST, FEC_ENC, GstElement);

#define GST_TYPE_FEC_MODE (gst_fec_mode_get_type ())
GType gst_fec_mode_get_type (void);
#define GST_TYPE_FEC_FORMAT (gst_fec_format_get_type ())
GType gst_fec_format_get_type (void);

/* Name of the custom event that sets a FEC bitrate (see the element
 * docs); field "bitrate" (guint, bit/s). */
#define GST_FEC_ENC_PROBE_EVENT "GstFecEncProbe"

struct _GstFecEnc
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties and codec (object lock) */
  RcFecEncoderConfig cfg;
  gboolean ssrc_set;            /* ssrc property given (else random) */
  RcFecEncoder *enc;
  RcFecProbe probe;             /* FEC bitrate asked for by event, media rate */
  RcRateMeter fec_rate;
  guint8 twcc_ext_id;           /* from caps */
  GstSegment segment;           /* streaming thread only */
  gboolean checked;             /* first packet's PT and SSRC checked */
  GPtrArray *out;               /* scratch: streaming thread only */
};

G_END_DECLS
#endif
