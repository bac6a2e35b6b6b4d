/* R^3CP^+, the receiver's side (seed 004 sec. 2-3), core: once per control
 * period the receiver forecasts loss and RTT with RLS, and asks the sender
 * for a rate by Table 1 (sent as an RFC 5104 TMMBR). The sender's side is
 * the `r3cp` controller in rc-r3cp.c, which follows the requests. */
#ifndef __RC_R3CP_H__
#define __RC_R3CP_H__

#include <gst/gst.h>
#include "rc-rls.h"

G_BEGIN_DECLS

typedef struct
{
  guint memory;                 /* M_loss = M_rtt: RLS taps */
  gdouble lambda;               /* RLS forgetting factor */
  gdouble p_low, p_high;        /* Unloaded < p_low <= Loaded < p_high */
  gdouble inc_big, inc_small;   /* Delta_inc, delta_inc: packets per RTT */
  gdouble dec_mild, dec_strong; /* delta_dec, Delta_dec: factors */
  guint packet_bytes;           /* the MSS of the increases */
  guint64 min_bps, start_bps, max_bps;
} RcR3cpConfig;

void rc_r3cp_config_init (RcR3cpConfig * c);

typedef enum
{
  RC_R3CP_UNLOADED,
  RC_R3CP_LOADED,
  RC_R3CP_CONGESTED,
} RcR3cpState;

typedef struct
{
  RcR3cpConfig cfg;
  RcRls loss, rtt;
  gdouble rho;                  /* the requested rate, bit/s */
  gdouble desired;              /* lambda-hat_n, bit/s */
  gdouble p, p_hat;             /* measured, forecast loss */
  gdouble rtt_s, rtt_hat_s;     /* measured, forecast RTT (s) */
  RcR3cpState now, forecast;
  guint64 periods;
} RcR3cpRecv;

void rc_r3cp_recv_init (RcR3cpRecv * r, const RcR3cpConfig * cfg);

/* One control period ended: `p` its packet loss fraction, `recv_bps` the
 * receive rate in it, `rtt` an RTT measured in it (NONE if none). Returns
 * the rate to request. */
gdouble rc_r3cp_recv_period (RcR3cpRecv * r, gdouble p, gdouble recv_bps,
    GstClockTime rtt);

/* The next control period's length: the forecast RTT, at least `floor`. */
GstClockTime rc_r3cp_recv_period_length (RcR3cpRecv * r, GstClockTime floor);

const gchar *rc_r3cp_state_name (RcR3cpState s);

G_END_DECLS
#endif
