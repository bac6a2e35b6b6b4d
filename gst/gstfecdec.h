#ifndef __GST_FEC_DEC_H__
#define __GST_FEC_DEC_H__

#include <gst/gst.h>
#include "rc-fec-dec.h"

G_BEGIN_DECLS

#define GST_TYPE_FEC_DEC (gst_fec_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFecDec, gst_fec_dec, GST, FEC_DEC, GstElement);

typedef struct _GstFecDecTap GstFecDecTap;

struct _GstFecDec
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (object lock) */
  RcFecDecoderConfig cfg;

  /* object lock */
  RcFecDecoder *dec;            /* own decoder (placed before a jitterbuffer) */
  GstFecDecTap *tap;            /* shared decoder (placed after one) */
  RcFecDecoderStats tap_stats;  /* the shared decoder's, when it was left */
  gboolean have_tap_stats;
  guint64 recovered_pushed;
  guint next_fec_pad;

  /* sink pad streaming thread only */
  GPtrArray *out;               /* scratch: recovered packets */
  GstSegment segment;
  gboolean placed;              /* placement looked up */
  gboolean have_last;           /* after a jitterbuffer: last seq passed on */
  guint16 last_seq;
  guint32 last_ssrc;
  guint8 last_pt;
  gboolean filled_lost;         /* the last loss announced was pushed */

  gint src_ready;               /* atomic: sticky events are on the src pad */

  /* rtpbin's fec-decoders slot (object lock): the SSRC demuxer above,
   * watched for SSRCs rtpbin could not link here */
  GstElement *slot_demux;
  gulong slot_sig;
  guint32 slot_ssrc;            /* the one SSRC rtpbin linked here */
};

G_END_DECLS
#endif
