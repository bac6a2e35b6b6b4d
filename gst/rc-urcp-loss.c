/* URCP extension: epsilon^MIN as the measured inherent loss (core).
 *
 * epsilon^MIN is the inherent loss (eq. 2) that the loss instance must not
 * treat as congestion. Eq. 15 (min of 5 s averages) does not work for loss:
 * at the 0.1-2 % bursty loss of sec. II and tens of packets per second a
 * 5 s window holds one or two loss events, so its minimum drops to 0 within
 * seconds; epsilon^MIN then sits below the inherent loss, the case sec.
 * VII-B says cannot be corrected and costs rate quadratically (the loss
 * instance held WiMAX and HSPA+ down). Instead epsilon^MIN is the loss rate
 * of the packets reported while the delay instance governs the rate (and
 * during start-up before any loss is confirmed): a drop-tail queue does not
 * overflow while the delay instance holds it near delta^MIN, so that loss
 * is inherent by eq. 2's definition. Laplace's rule of succession, (lost +
 * 1) / (packets + 2), makes a short history err high, the side eq. 15 and
 * sec. VII-B say is cheap.
 */
#include <math.h>
#include "rc-urcp-private.h"

/* The counts decay with this time constant, long enough to hold ~15 loss
 * bursts at WiMAX's 1.85 % and 45 packets/s. */
#define LOSS_NOISE_HORIZON_S 60.0

/* Count reported packets towards the inherent loss estimate. */
void
rc_urcp_loss_noise_add (Urcp * u, gdouble pkts, gdouble lost,
    GstClockTime now)
{
  if (GST_CLOCK_TIME_IS_VALID (u->noise_decayed) && now > u->noise_decayed) {
    gdouble f = exp (-(gdouble) (now - u->noise_decayed) / GST_SECOND /
        LOSS_NOISE_HORIZON_S);
    u->noise_pkts *= f;
    u->noise_lost *= f;
  }
  u->noise_decayed = now;
  u->noise_pkts += pkts;
  u->noise_lost += lost;
}

gdouble
rc_urcp_loss_noise (Urcp * u)
{
  return MAX ((u->noise_lost + 1) / (u->noise_pkts + 2), URCP_LOSS_MIN_FLOOR);
}
