#ifndef __GST_FEC_DEC_H__
#define __GST_FEC_DEC_H__

#include <gst/gst.h>
#include "rc-fec.h"

G_BEGIN_DECLS

#define GST_TYPE_FEC_DEC (gst_fec_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFecDec, gst_fec_dec, GST, FEC_DEC, GstElement);

struct _GstFecDec
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (object lock) */
  RcFecDecoderConfig cfg;

  /* decoder (object lock) */
  RcFecDecoder *dec;
  GPtrArray *out;               /* scratch: recovered packets */
  GstSegment segment;           /* streaming thread only */
};

G_END_DECLS
#endif
