/* XOR parity FEC encoder (core): media RTP packets in, RFC 8627 flexible
 * FEC or RFC 5109 ULPFEC repair packets out. Sans-IO: no pads, no clock. */
#ifndef __RC_FEC_ENC_H__
#define __RC_FEC_ENC_H__

#include "rc-fec.h"

G_BEGIN_DECLS

typedef enum
{
  RC_FEC_MODE_ROW = 0,          /* L consecutive packets (non-interleaved) */
  RC_FEC_MODE_COLUMN = 1,       /* every L-th packet over D rows */
  RC_FEC_MODE_2D = 2,           /* rows and columns of an L x D block */
  RC_FEC_MODE_FLEXIBLE = 3,     /* bit mask: groups closed at frame ends */
} RcFecMode;

typedef struct
{
  RcFecFormat format;
  RcFecMode mode;
  guint L;                      /* columns / row length, 1..255 */
  guint D;                      /* rows, 1..255 */
  /* Percentage of repair packets per media packet, or < 0 to use L and D
   * as given; 0 sends no FEC. See rc_fec_encoder_geometry(). */
  gdouble overhead;
  guint8 pt;                    /* payload type of repair packets */
  guint32 ssrc;                 /* flexfec: SSRC of the repair stream */
  guint16 seq_start;            /* flexfec: first repair sequence number */
  /* Header extension to carry in every repair packet (0: none), e.g. the
   * transport-wide-cc one so rtpsession numbers repair packets too. The
   * data is zeros of `ext_len` bytes; one-byte form unless `ext_two_byte`. */
  guint8 ext_id;
  guint8 ext_len;
  gboolean ext_two_byte;
} RcFecEncoderConfig;

typedef struct _RcFecEncoder RcFecEncoder;

typedef struct
{
  guint64 media_packets;        /* seen */
  guint64 media_protected;      /* covered by at least one repair packet */
  guint64 fec_packets;
  guint64 fec_bytes;            /* whole repair packets, RTP header included */
  guint64 media_bytes;
} RcFecEncoderStats;

void rc_fec_encoder_config_init (RcFecEncoderConfig * cfg);
RcFecEncoder *rc_fec_encoder_new (const RcFecEncoderConfig * cfg);
void rc_fec_encoder_free (RcFecEncoder * enc);
/* New settings; the group or block under way is finished first with the
 * old geometry (so a block never mixes two). */
void rc_fec_encoder_reconfigure (RcFecEncoder * enc,
    const RcFecEncoderConfig * cfg);
void rc_fec_encoder_set_overhead (RcFecEncoder * enc, gdouble overhead);
/* The L and D in force for `cfg`: overhead < 0 keeps L and D; > 0 picks
 * row L = 100/overhead, column D = 100/overhead (L kept), 2-D
 * L = D = 200/overhead, flexible group size 100/overhead, each clamped to
 * what the format can express. Returns FALSE if no FEC is to be sent. */
gboolean rc_fec_encoder_geometry (const RcFecEncoderConfig * cfg, guint * L,
    guint * D);

/* Feeds one media packet. For ULPFEC the packet may be replaced by a
 * writable copy with its sequence number moved past earlier repair
 * packets. Repair packets that are due after it are appended to `out`
 * (GstBuffer*, owned by the caller) in sending order. Returns FALSE if
 * `*media` is not a valid RTP packet (it is then passed on untouched). */
gboolean rc_fec_encoder_push (RcFecEncoder * enc, GstBuffer ** media,
    GPtrArray * out);
/* Protects what is pending (partial row, group or block) with flexible
 * masks, e.g. at EOS or when the stream pauses. */
void rc_fec_encoder_flush (RcFecEncoder * enc, GPtrArray * out);
void rc_fec_encoder_get_stats (RcFecEncoder * enc, RcFecEncoderStats * st);

G_END_DECLS
#endif
