/* XOR parity FEC encoder (core): media RTP packets in, RFC 8627 flexible
 * FEC or RFC 5109 ULPFEC repair packets out; and the probe arithmetic that
 * turns a requested FEC bitrate into the encoder's overhead. Sans-IO: no
 * pads, no clock; the probe is given the time with every call. */
#ifndef __RC_FEC_ENC_H__
#define __RC_FEC_ENC_H__

#include "rc-fec.h"
#include "rc-window.h"

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

/* -------------------------------------------------------------- probe */

/* Probe mode: a rate controller asks for a FEC bitrate to probe for
 * bandwidth with (FRACTaL, seed paper 002, sec. 3) and the encoder's
 * overhead follows the media rate: overhead = 100 * bitrate / media rate,
 * clamped to RC_FEC_PROBE_MIN_OVERHEAD .. RC_FEC_PROBE_MAX_OVERHEAD. The
 * caller applies the overhead these functions return (cfg.overhead and
 * rc_fec_encoder_set_overhead()); they never touch an encoder. */

/* The media rate is measured over the last second, like urcpsender's
 * meters. */
#define RC_FEC_PROBE_RATE_SPAN (1 * GST_SECOND)
/* The overhead is re-derived from the media rate this often: a few times
 * per controller update (every few hundred ms). */
#define RC_FEC_PROBE_UPDATE (100 * GST_MSECOND)
/* Percent. Kept above 0, which would stop FEC: every overhead under
 * 100/255 % already gives the longest groups the 8-bit L and D can
 * describe (RFC 8627 sec. 4.2.2), so the exact floor changes nothing on
 * the wire. */
#define RC_FEC_PROBE_MIN_OVERHEAD 0.1
/* Percent: one repair packet per media packet, the top of fecenc's
 * overhead property. */
#define RC_FEC_PROBE_MAX_OVERHEAD 100.0

typedef struct
{
  /* Media bytes sent; runs whether or not probing, so a request finds
   * the rate measured already (fecenc reads it for its stats too). */
  RcRateMeter media;
  guint bps;                    /* FEC bitrate asked for; 0: not probing */
  GstClockTime last_update;     /* when the overhead was last derived */
} RcFecProbe;

void rc_fec_probe_init (RcFecProbe * p);
void rc_fec_probe_clear (RcFecProbe * p);
/* A new stream: forgets the media measured and when the overhead was last
 * derived. A bitrate asked for stays in force. */
void rc_fec_probe_restart (RcFecProbe * p);
/* Counts `bytes` of media sent at `now` (0 counts as a sample too). */
void rc_fec_probe_add_media (RcFecProbe * p, GstClockTime now, guint bytes);
/* The overhead (percent) that sends `bps` of FEC over `media_bps` of
 * media, clamped; `media_bps` must be > 0. */
gdouble rc_fec_probe_overhead (guint bps, gdouble media_bps);
/* Asks for `bps` bit/s of FEC. TRUE if the overhead is to change, to
 * `*overhead`: 0 if `bps` is 0 (probing ends, no FEC), otherwise the value
 * derived at once from the media measured so far (as of its newest
 * sample), when there is media and the value differs from `current`
 * (the overhead in force). On TRUE, `*media_bps` (may be NULL) is the
 * media rate it was derived from, 0 when probing ends. */
gboolean rc_fec_probe_set_bitrate (RcFecProbe * p, guint bps,
    gdouble current, gdouble * overhead, gdouble * media_bps);
/* Ends probing and leaves the overhead as it is (one set by hand). */
void rc_fec_probe_stop (RcFecProbe * p);
/* While probing, at most every RC_FEC_PROBE_UPDATE (counted from the last
 * time there was media to derive from): derives the overhead from the
 * media rate at `now`. TRUE if it differs from `current`; then
 * `*overhead` and `*media_bps` (may be NULL) are set as for
 * rc_fec_probe_set_bitrate(). Without media (rate 0) nothing changes and
 * the next call tries again. */
gboolean rc_fec_probe_update (RcFecProbe * p, GstClockTime now,
    gdouble current, gdouble * overhead, gdouble * media_bps);

G_END_DECLS
#endif
