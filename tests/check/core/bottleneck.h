/* A small deterministic bottleneck model in virtual time, for the core
 * tests: paced frame sources driven by controllers, one FIFO tail-drop
 * queue, propagation delay, optional delay noise that never reorders, and a
 * receiver that sends per-packet feedback every 50 ms over its own return
 * delay. The full link model and simulator come with rcsim. */
#ifndef __BOTTLENECK_H__
#define __BOTTLENECK_H__

#include "rc-controller.h"

#define BN_MAX_FLOWS 4

typedef struct
{
  gdouble capacity_bps;
  GstClockTime prop_delay;      /* one way, each direction */
  GstClockTime queue_limit;     /* in time at the current capacity */
  GstClockTime noise_mean;      /* uniform in [0, 2 mean], no reordering */
  GstClockTime feedback_interval;
  gdouble recv_skew_ppm;        /* receiver clock runs fast by this much */
  guint32 seed;
} BnLinkConfig;

typedef struct
{
  GstClockTime start, stop;
  /* results over the measurement window */
  guint64 rx_bytes, tx_packets, rx_packets, dropped;
  gdouble qdelay_sum;           /* s, over received packets */
  gdouble delta_sum;            /* the controller's own view, s */
  gdouble rate_sum;             /* target, integrated (bit) */
  guint64 rate_samples;
} BnFlowResult;

typedef struct _Bn Bn;

Bn *bn_new (const BnLinkConfig * link);
void bn_free (Bn * bn);
/* Adds a flow run by `ctrl` (owned by the caller) between start and stop. */
guint bn_add_flow (Bn * bn, RcController * ctrl, GstClockTime start,
    GstClockTime stop);
void bn_set_capacity (Bn * bn, gdouble bps);
/* The source produces at most `bps` whatever the target (0: no limit),
 * like an encoder on static content. */
void bn_set_app_limit (Bn * bn, guint flow, gdouble bps);
/* Runs to `until`; results accumulate only inside [from, until]. */
void bn_run (Bn * bn, GstClockTime from, GstClockTime until);
const BnFlowResult *bn_result (Bn * bn, guint flow);
void bn_reset_results (Bn * bn);
GstClockTime bn_now (Bn * bn);

#endif
