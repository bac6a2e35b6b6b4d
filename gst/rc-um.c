/* The fixed-parameter UM baseline (seed 000 eq. 6, sec. VII-A), core.
 *
 * Delay-based utility maximization: R += k2 (k0 - delta R) dT with fixed
 * k0 and k2, so it settles where the delay measure delta = k0 / R (sec.
 * V-A, eq. 11) whatever the path. The paper compares URCP with it using
 * k0 = 16000 bits and k2 = 0.6 (sec. VII-A, item 5).
 *
 * It runs on URCP's engine with the adaptation off: the same delay measure
 * (eq. 4), the same start-up (sec. VI-A; the paper does not say how its UM
 * starts, and eq. 6 alone would take over a minute from 300 kbit/s to
 * 1 Mbit/s), the same loss instance with the same fixed k0 and k2, and no
 * learning of R^MAX, delta^MIN or the inherent loss after start-up.
 */
#include "rc-urcp-private.h"

/* URCP sec. VII-A (UM baseline): k0 = 16000 bits, k2 = 0.6. */
#define DEFAULT_K0 16000.0
#define DEFAULT_K2 0.6

extern const RcControllerInfo rc_um_info;

/* The paper's k0 and k2 (sec. VII-A), named for users as what they do. */
static GParamSpec **
um_params (guint * n)
{
  static GParamSpec *specs[2];

  if (g_once_init_enter (&specs[1])) {
    specs[0] = g_param_spec_ref_sink (g_param_spec_double ("operating-point", "Operating point",
            "Operating point (bits): the rate settles where the queueing "
            "delay times the rate equals this", 1.0, 1e9, DEFAULT_K0,
            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
    g_once_init_leave (&specs[1], g_param_spec_ref_sink
        (g_param_spec_double ("gain", "Gain",
                "Gain (1/s^2): how fast the rate moves towards the "
                "operating point", 1e-6, 1e6, DEFAULT_K2,
                G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  }
  *n = G_N_ELEMENTS (specs);
  return specs;
}

static RcController *
um_create (const RcRateLimits * limits, const GstStructure * params)
{
  Urcp *u = rc_urcp_engine_new (limits);

  u->adapt = FALSE;
  u->fixed_k0 = rc_controller_param_double (&rc_um_info, params, "operating-point");
  u->fixed_k2 = rc_controller_param_double (&rc_um_info, params, "gain");
  return &u->parent;
}

const RcControllerInfo rc_um_info = {
  "um",
  "UM: delay-based utility maximization with fixed parameters (baseline)",
  um_params,
  um_create,
};
