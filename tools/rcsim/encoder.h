/* rcsim's video encoders: what a media flow's source emits, frame by frame,
 * for the target the sender session hands it (RC_SENDER_SET_ENCODER).
 *
 * Two kinds. `synthetic`: frames around the target with a first-order lag
 * and lognormal spread (RFC 8867 sec. 4's ~100 ms to follow a new target),
 * the model rcsim started with. Calibrated models: one per (encoder,
 * content), fitted to recordings of the real encoder set up as urcpsender
 * sets it up (tools/encrec, data/encoders/, scripts/fit_encoders.py,
 * docs/encoders.md): frames that follow the target after a delay with
 * different speeds up and down, a rate-control credit that earns the
 * target and pays back what the frames over-spent (after a cut: smaller
 * frames, then dropped ones, once the encoder has caught up),
 * a content ceiling and floor that scale with the picture's pixels, key
 * frames at the encoder's default interval, their size a multiple of the
 * budget up to a content-given largest size.
 *
 * Nothing here reads a clock; randomness comes from the caller's GRand. */
#ifndef __RCSIM_ENCODER_H__
#define __RCSIM_ENCODER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* A calibrated model's parameters (per frame, at the recordings' 30 fps). */
typedef struct
{
  const gchar *encoder;         /* "vp8enc" */
  const gchar *content;         /* "scroll", "snow", "scenes", "ball" */
  guint key_interval;           /* frames between key frames */
  gdouble key_factor;           /* key frame size / the frame budget */
  guint delay;                  /* frames before a higher target takes effect */
  guint delay_down;             /* frames before a lower one does: the real
                                 * encoder holds its rate a while after a
                                 * cut, then falls */
  gdouble gain_up, gain_down;   /* per frame: how far the rate moves toward
                                 * the (delayed) target, rising and falling */
  gdouble sigma;                /* lognormal spread of a frame's size */
  gdouble payback;              /* frames over which over-spending is paid
                                 * back by smaller frames */
  gdouble drop;                 /* a frame is dropped while the encoder has
                                 * over-spent more than this many frame
                                 * budgets */
  gdouble floor_bpp;            /* smallest frame, bits per pixel */
  gdouble ceiling_bpp;          /* largest frame budget, bits per pixel: the
                                 * content cannot use a higher rate */
  gdouble key_max_bpp;          /* largest key frame, bits per pixel: a key
                                 * frame is key_factor budgets up to this
                                 * (vp8enc on scroll: ~11.5 KB at 640x480 for
                                 * any target from 0.6 to 2 Mbit/s) */
  gdouble key_charge;           /* fraction of a key frame's excess over the
                                 * budget that the frames after it pay back
                                 * through the credit (payback, drop) */
  gdouble key_slow;             /* and the fraction they pay back evenly
                                 * over key_payback frames */
  gdouble key_payback;          /* frames (vp8enc scroll: ~10 with
                                 * urcpsender's 100 ms optimal buffer) */
} SimEncoderModel;

/* The calibrated models, and one by encoder and content (NULL if none). */
const SimEncoderModel *sim_encoder_models (guint * n);
const SimEncoderModel *sim_encoder_model_lookup (const gchar * encoder,
    const gchar * content);

/* encoder=synthetic's defaults (docs/scenarios.md). RFC 8867 sec. 4: a
 * live encoder needs about 100 ms to follow a new target. Key frames 3x a
 * frame's budget, on the low side of "several times larger": a real-time
 * CBR encoder's rate control limits intra frames. Size spread 0.115, the
 * sigma of a uniform +-20 %. */
#define SIM_SYNTHETIC_LAG (100 * GST_MSECOND)
#define SIM_SYNTHETIC_KEY_INTERVAL (10 * GST_SECOND)
#define SIM_SYNTHETIC_KEY_FACTOR 3.0
#define SIM_SYNTHETIC_FRAME_NOISE 0.115
/* The longest delay a calibrated model may have, frames. */
#define SIM_ENCODER_MAX_DELAY 16

/* A source as a scenario describes it. */
typedef struct
{
  const SimEncoderModel *model; /* NULL: synthetic */
  gdouble fps;
  guint width, height;
  /* synthetic only */
  GstClockTime key_interval;    /* 0: only the first frame is a key frame */
  gdouble key_factor;
  gdouble frame_noise;          /* sigma of the lognormal size factor */
  GstClockTime lag;             /* first-order time constant */
} SimEncoderConfig;

typedef struct _SimEncoder SimEncoder;

SimEncoder *sim_encoder_new (const SimEncoderConfig * cfg, GRand * rand,
    gdouble start_bps);
void sim_encoder_free (SimEncoder * e);
/* One frame slot at time `t` with `target_bps` in force; `force_key`
 * after a pause. Returns the frame's bytes, 0 if the encoder dropped it;
 * *key tells a key frame. */
guint sim_encoder_frame (SimEncoder * e, GstClockTime t, gdouble target_bps,
    gboolean force_key, gboolean * key);
/* The rate the encoder aims at now, bit/s (a calibrated model's within its
 * content's ceiling). */
gdouble sim_encoder_rate (SimEncoder * e);

G_END_DECLS
#endif
