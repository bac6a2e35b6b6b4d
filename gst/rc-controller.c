/* Controller dispatch (core). */
#include "rc-controller.h"

/* URCP sec. VI-B: beta = 0.8; sec. VI-C: M = 100. */
#define DEFAULT_BETA 0.8
#define DEFAULT_M 100.0
/* Pacing factor: above 1 so a frame leaves faster than the average rate, but
 * well below libwebrtc's 2.5, because every burst that outruns the bottleneck
 * adds self-inflicted delay that URCP's delay measure then has to carry. */
#define DEFAULT_PACING_FACTOR 1.5

void
rc_config_init_defaults (RcConfig * cfg)
{
  cfg->kind = RC_CONTROLLER_URCP;
  cfg->min_bps = 50000;
  cfg->start_bps = 300000;
  cfg->max_bps = 20000000;
  cfg->beta = DEFAULT_BETA;
  cfg->m = DEFAULT_M;
  cfg->pacing_factor = DEFAULT_PACING_FACTOR;
}

RcController *
rc_controller_new (const RcConfig * cfg)
{
  g_return_val_if_fail (cfg != NULL, NULL);
  g_return_val_if_fail (cfg->min_bps <= cfg->max_bps, NULL);

  switch (cfg->kind) {
    case RC_CONTROLLER_URCP:
    case RC_CONTROLLER_UM:
      return rc_urcp_controller_new (cfg);
  }
  g_return_val_if_reached (NULL);
}

void
rc_controller_free (RcController * c)
{
  if (c)
    c->klass->free (c);
}

const gchar *
rc_controller_name (RcController * c)
{
  return c->klass->name;
}

void
rc_controller_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now)
{
  c->klass->on_feedback (c, fb, now);
}

void
rc_controller_on_packet_sent (RcController * c, guint64 seq, guint size,
    gboolean is_fec, GstClockTime now)
{
  c->klass->on_packet_sent (c, seq, size, is_fec, now);
}

void
rc_controller_on_tick (RcController * c, GstClockTime now)
{
  c->klass->on_tick (c, now);
}

RcDecision
rc_controller_get_decision (RcController * c)
{
  return c->klass->get_decision (c);
}

GstStructure *
rc_controller_get_stats (RcController * c)
{
  return c->klass->get_stats (c);
}

const gchar *
rc_state_to_string (RcState s)
{
  switch (s) {
    case RC_STATE_STARTUP_LOW:
      return "startup-low";
    case RC_STATE_STARTUP_RAMP:
      return "startup-ramp";
    case RC_STATE_STEADY:
      return "steady";
    case RC_STATE_HOLD:
      return "hold";
    case RC_STATE_BACKOFF:
      return "backoff";
  }
  return "unknown";
}

const gchar *
rc_controller_kind_to_string (RcControllerKind k)
{
  switch (k) {
    case RC_CONTROLLER_URCP:
      return "urcp";
    case RC_CONTROLLER_UM:
      return "um";
  }
  return "unknown";
}
