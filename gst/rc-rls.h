/* Recursive-least-squares M-step linear predictor (core): the forecaster
 * of R^3CP^+ (seed 004 sec. 2, after Haykin, Adaptive Filter Theory). Each
 * new sample first corrects the weights with the error of its own
 * prediction, then the next sample is predicted from the newest M. */
#ifndef __RC_RLS_H__
#define __RC_RLS_H__

#include <glib.h>

G_BEGIN_DECLS

#define RC_RLS_MAX_M 16

typedef struct
{
  guint m;                      /* memory: taps */
  gdouble lambda;               /* forgetting factor, (0, 1] */
  gdouble w[RC_RLS_MAX_M];      /* weights */
  gdouble p[RC_RLS_MAX_M * RC_RLS_MAX_M];       /* inverse correlation */
  gdouble u[RC_RLS_MAX_M];      /* the newest M samples, newest first */
  guint n;                      /* samples seen */
} RcRls;

/* Memory `m` (1..RC_RLS_MAX_M), forgetting factor `lambda`; P starts as
 * `delta` x I (a large delta: little trust in the start weights). The
 * weights start as "the next is the last" (w = [1, 0, ...]). */
void rc_rls_init (RcRls * r, guint m, gdouble lambda, gdouble delta);

/* Takes sample x_n; returns the prediction of x_{n+1}. Until M samples
 * have been seen the prediction is the last sample. */
gdouble rc_rls_push (RcRls * r, gdouble x);

/* The last prediction (0 before any sample). */
gdouble rc_rls_predict (const RcRls * r);

G_END_DECLS
#endif
