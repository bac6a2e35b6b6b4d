/* rcsim's video encoders; see encoder.h and docs/encoders.md. */
#include <math.h>
#include <string.h>
#include "encoder.h"

/* synthetic: the encoder's rate-control buffer, 300 ms as urcpsender sets
 * vp8enc up, so a key frame's excess is paid back over ~300 ms. */
#define VBV_TIME 0.3
/* synthetic: a skipped or static frame still costs some bytes. */
#define MIN_FRAME_BYTES 50
/* calibrated: how much credit (frame budgets) an encoder that under-spent
 * may carry into later frames; libvpx caps its buffer level at its maximum
 * (urcpsender: 300 ms, 9 frames at 30 fps). */
#define MAX_CREDIT_BUDGETS 9.0
#define MAX_DELAY SIM_ENCODER_MAX_DELAY

struct _SimEncoder
{
  SimEncoderConfig cfg;
  GRand *rand;
  gdouble rate;                 /* bit/s the encoder aims at */
  guint64 frames;               /* frame slots so far */
  /* synthetic */
  gdouble vbuf;                 /* bytes produced beyond the rate */
  GstClockTime next_key;
  /* calibrated */
  gdouble targets[MAX_DELAY + 1];       /* the last targets, a ring */
  gdouble credit;               /* bits earned and not spent (< 0: over) */
  gdouble key_debt;             /* bits of the last key frame's excess still
                                 * to pay back */
  gdouble key_pay;              /* bits paid back per frame */
  gdouble pixels;
};

/* Mean-1 lognormal factor of spread `sigma` (Box-Muller). */
static gdouble
lognormal (GRand * r, gdouble sigma)
{
  gdouble n;

  if (sigma <= 0)
    return 1.0;
  n = sqrt (-2.0 * log (1.0 - g_rand_double (r))) *
      cos (2 * G_PI * g_rand_double (r));
  return exp (sigma * n - sigma * sigma / 2);
}

SimEncoder *
sim_encoder_new (const SimEncoderConfig * cfg, GRand * rand, gdouble start)
{
  SimEncoder *e = g_new0 (SimEncoder, 1);
  guint i;

  e->cfg = *cfg;
  e->rand = rand;
  e->rate = start;
  e->pixels = (gdouble) cfg->width * cfg->height;
  for (i = 0; i <= MAX_DELAY; i++)
    e->targets[i] = start;
  return e;
}

void
sim_encoder_free (SimEncoder * e)
{
  g_free (e);
}

/* A calibrated model's content ceiling, bit/s at the source's size. */
static gdouble
model_ceiling (SimEncoder * e)
{
  return e->cfg.model->ceiling_bpp * e->pixels * e->cfg.fps;
}

gdouble
sim_encoder_rate (SimEncoder * e)
{
  return e->cfg.model ? MIN (e->rate, model_ceiling (e)) : e->rate;
}

/* The model rcsim started with: RFC 8867 sec. 4's ~100 ms to follow a new
 * target as a first-order lag, lognormal sizes, key frames by time. */
static guint
synthetic_frame (SimEncoder * e, GstClockTime t, gdouble target,
    gboolean force_key, gboolean * key)
{
  const SimEncoderConfig *c = &e->cfg;
  gdouble dt = 1.0 / c->fps, budget, size, noise;

  if (c->lag > 0)
    e->rate += (target - e->rate) * (1 - exp (-dt * GST_SECOND / c->lag));
  else
    e->rate = target;
  budget = e->rate / 8 * dt;
  noise = lognormal (e->rand, c->frame_noise);
  *key = e->frames == 0 || force_key || (c->key_interval > 0 &&
      t >= e->next_key);
  if (*key) {
    e->next_key = t + c->key_interval;
    e->vbuf = 0;
  }
  size = budget * noise * (*key ? MAX (c->key_factor, 1.0) : 1.0);
  /* Rate control: what earlier frames overspent is taken back over the
   * buffer time, so the mean stays at the encoder's rate. */
  if (!*key)
    size -= e->vbuf / MAX (1.0, VBV_TIME * c->fps);
  size = MAX (size, MAX (MIN_FRAME_BYTES, 0.1 * budget));
  e->vbuf += size - budget;
  return (guint) llround (size);
}

/* A calibrated model (encoder.h). Bits throughout. */
static guint
model_frame (SimEncoder * e, gdouble target, gboolean force_key,
    gboolean * key)
{
  const SimEncoderModel *m = e->cfg.model;
  gdouble fps = e->cfg.fps, nominal, earn, size, floor_bits, ceiling;
  gdouble up, down;
  guint i;

  /* The target as the encoder sees it: a rise `delay` frames late, a cut
   * `delay_down` frames late. */
  for (i = MAX_DELAY; i > 0; i--)
    e->targets[i] = e->targets[i - 1];
  e->targets[0] = target;
  up = e->targets[MIN (m->delay, MAX_DELAY)];
  down = e->targets[MIN (m->delay_down, MAX_DELAY)];
  if (down < e->rate)
    e->rate += (down - e->rate) * m->gain_down;
  else if (up > e->rate)
    e->rate += (up - e->rate) * m->gain_up;
  /* What the buffer earns: the target in force for the encoder. */
  target = down < e->rate ? down : up;

  /* The rate-control buffer earns the (delayed) target, as libvpx's
   * buffer fills at the configured bandwidth, while the frames follow the
   * encoder's lagging rate: after a cut the encoder over-spends for a
   * while and then pays it back with small or dropped frames. */
  ceiling = model_ceiling (e);
  nominal = MIN (e->rate, ceiling) / fps;
  earn = MIN (target, ceiling) / fps;
  floor_bits = m->floor_bpp * e->pixels;
  e->credit = MIN (e->credit + earn, MAX_CREDIT_BUDGETS * earn);

  *key = e->frames == 0 || force_key || (m->key_interval > 0 &&
      e->frames % m->key_interval == 0);
  if (!*key && e->credit < -m->drop * earn)
    return 0;                   /* dropped: too far over its rate */
  if (*key) {
    size = MIN (m->key_factor * nominal, m->key_max_bpp * e->pixels);
  } else {
    gdouble pay = MIN (e->key_debt, e->key_pay);
    size = nominal * lognormal (e->rand, m->sigma) +
        MIN (e->credit, 0) / MAX (m->payback, 1.0) - pay;
    e->key_debt -= pay;
  }
  size = MAX (size, floor_bits);
  /* A key frame's excess over the budget is paid back in two parts: a
   * share (key_charge) through the credit, within a few frames and by
   * dropping frames if need be, which is what vp8enc does at low rates
   * (at 250-600 kbit/s the next frames are a third to half their size, or
   * dropped); and a share (key_slow) evenly over key_payback frames apart
   * from the credit, what it does from ~0.9 Mbit/s on (the next frames 5-10
   * % smaller, for 20-60 frames; docs/encoders.md). */
  if (*key)
    e->key_debt = 0;            /* a new key frame: the last one is done */
  if (*key && size > nominal) {
    e->credit -= nominal + m->key_charge * (size - nominal);
    e->key_debt = m->key_slow * (size - nominal);
    e->key_pay = e->key_debt / MAX (m->key_payback, 1.0);
  } else {
    e->credit -= size;
  }
  return (guint) MAX (llround (size / 8), 1);
}

guint
sim_encoder_frame (SimEncoder * e, GstClockTime t, gdouble target_bps,
    gboolean force_key, gboolean * key)
{
  guint bytes = e->cfg.model ? model_frame (e, target_bps, force_key, key) :
      synthetic_frame (e, t, target_bps, force_key, key);

  e->frames++;
  return bytes;
}
