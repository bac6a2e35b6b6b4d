/* RLS predictor (core). See rc-rls.h. The standard exponentially weighted
 * RLS recursion (Haykin, Adaptive Filter Theory, RLS algorithm), with the
 * tap vector u the M previous samples and the desired response the new
 * sample:
 *   k = P u / (lambda + u' P u)
 *   e = x - w' u
 *   w = w + k e
 *   P = (P - k u' P) / lambda */
#include <string.h>
#include "rc-rls.h"

void
rc_rls_init (RcRls * r, guint m, gdouble lambda, gdouble delta)
{
  guint i;

  memset (r, 0, sizeof (*r));
  r->m = CLAMP (m, 1, RC_RLS_MAX_M);
  r->lambda = lambda > 0 && lambda <= 1 ? lambda : 1.0;
  r->w[0] = 1.0;
  for (i = 0; i < r->m; i++)
    r->p[i * r->m + i] = delta;
}

gdouble
rc_rls_predict (const RcRls * r)
{
  gdouble y = 0;
  guint i;

  if (r->n == 0)
    return 0;
  if (r->n < r->m)
    return r->u[0];
  for (i = 0; i < r->m; i++)
    y += r->w[i] * r->u[i];
  return y;
}

gdouble
rc_rls_push (RcRls * r, gdouble x)
{
  const guint m = r->m;
  gdouble pu[RC_RLS_MAX_M], k[RC_RLS_MAX_M], upu = 0, e;
  guint i, j;

  if (r->n >= m) {
    /* pu = P u; u' P u */
    for (i = 0; i < m; i++) {
      pu[i] = 0;
      for (j = 0; j < m; j++)
        pu[i] += r->p[i * m + j] * r->u[j];
      upu += r->u[i] * pu[i];
    }
    e = x;
    for (i = 0; i < m; i++) {
      k[i] = pu[i] / (r->lambda + upu);
      e -= r->w[i] * r->u[i];
    }
    for (i = 0; i < m; i++)
      r->w[i] += k[i] * e;
    /* P is symmetric: u' P = (P u)' */
    for (i = 0; i < m; i++)
      for (j = 0; j < m; j++)
        r->p[i * m + j] = (r->p[i * m + j] - k[i] * pu[j]) / r->lambda;
  }
  memmove (r->u + 1, r->u, (m - 1) * sizeof (gdouble));
  r->u[0] = x;
  r->n++;
  return rc_rls_predict (r);
}
