/* URCP internals shared by its files and by UM (core).
 *
 *   rc-urcp.c          Table I: estimates (eqs. 14, 15), parameters
 *                      (eqs. 16, 17), rate (eq. 18), over the delay and
 *                      loss signals (sec. VI-E); feedback intake, decision,
 *                      stats; the `urcp` registry entry
 *   rc-urcp-startup.c  sec. VI-A start-up: low-rate phase, slow-start ramp,
 *                      with our noise-robust exit tests
 *   rc-urcp-probe.c    our extension: re-probing R^MAX when no standing
 *                      queue shows (sec. VII-B says only re-probing can
 *                      correct an under-estimate)
 *   rc-urcp-loss.c     our extension: epsilon^MIN as the measured inherent
 *                      loss instead of eq. 15
 *   rc-urcp-overload.c our extension: R^MAX lowered after a capacity fall,
 *                      from what the path delivers under overload
 *   rc-urcp-compete.c  our extension: following loss as TCP's CUBIC does
 *                      while a flow that fills the buffer shares the path
 *   rc-um.c            the fixed-parameter UM baseline (eq. 6): this engine
 *                      with fixed k0 and k2 and no adaptation
 *   rc-vtum.c          seed 001's variable-threshold UM: this engine's
 *                      delay measure and start-up, its own rate law
 */
#ifndef __RC_URCP_PRIVATE_H__
#define __RC_URCP_PRIVATE_H__

#include "rc-controller.h"
#include "rc-owd.h"
#include "rc-window.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (rc_urcp_debug);

/* Sliding window for R^AVE, delta^AVE and epsilon^AVE. The paper gives no
 * length, only that these move on a slower timescale than R (sec. VI-A).
 * 5 s is about 50 RTTs on the 100 ms paths of its Table II and long enough
 * that the minimum of delta^AVE (eq. 15) is not the minimum of noise. */
#define URCP_WINDOW_SPAN (5 * GST_SECOND)
#define URCP_WINDOW_MAX_SAMPLES 32768
/* Estimates (eqs. 14, 15) only learn from a window holding at least this
 * much history, so a half-empty window's average does not set an extreme. */
#define URCP_WINDOW_MIN_AGE (URCP_WINDOW_SPAN / 2)

/* Application-limited cap: no rate may exceed 1.5 x the larger of R^MAX and
 * the rate actually sent, the same bound GCC puts on its estimate against
 * the received rate (draft-ietf-rmcat-gcc-02 sec. 5.5). Keeps R from
 * climbing without bound while the encoder is idle. */
#define URCP_APP_LIMIT_FACTOR 1.5

/* Eq. 16's R^MAX in the delay instance is (1 - this) R^MAX, so eq. 19's
 * operating point at delta^AVE = delta^MIN is that share of R^MAX (why:
 * rc-urcp.c). */
#define URCP_DELAY_HEADROOM 0.05

/* The low-rate phase lasts at least this long (vtum sets its own). */
#define URCP_LOW_MIN_TIME (1 * GST_SECOND)

/* The low-rate phase and the standing-queue detector estimate the noise
 * against the lower envelope of the delay: each sample's lowest neighbour
 * within +-250 ms. A plain mean would also count a queue that other flows
 * are building (a late joiner on a full link then takes delta^MIN = their
 * queue, holds a standing queue and starves them); noise moves fast, a
 * queue moves slowly, and the local lower envelope follows the queue but
 * not the noise. */
#define URCP_ENVELOPE_HALF (250 * GST_MSECOND)

/* Loss noise floor: half the 1 % uncorrected loss at which URCP sec. I says
 * video degrades. Without a floor a loss-free path gives k0 = 0 for the loss
 * instance and it could never rise. */
#define URCP_LOSS_MIN_FLOOR 0.005

/* The ramp's delay test: median of the newest packets (rc-urcp-startup.c). */
#define URCP_RAMP_DELAY_PKTS 10
/* Ring of packet pairs for the bottleneck's rate (rc-urcp-probe.c). */
#define URCP_DISP_RING 256
/* Ring of raw OWD samples for the standing-queue detector (rc-urcp-probe.c). */
#define URCP_ENV_RING 16384

typedef enum
{
  URCP_STARTUP_LOW = 0,         /* sec. VI-A: low-rate phase, learn delta^MIN */
  URCP_STARTUP_RAMP,            /* sec. VI-A: slow-start ramp, learn R^MAX */
  URCP_STEADY,                  /* Table I */
  URCP_PROBE_RAMP,              /* the start-up ramp again, from steady state
                                 * when the path has room (rc-urcp-probe.c) */
} UrcpPhase;

/* One congestion signal's three-stage adaptation (Table I). */
typedef struct
{
  const gchar *signal;          /* "delay" or "loss", for logs */
  gdouble floor;                /* lowest sig_min allowed */
  gdouble rate;                 /* R, bit/s */
  gdouble rmax;                 /* R^MAX */
  gdouble rave;                 /* R^AVE */
  gdouble sig_min;              /* delta^MIN (s) or epsilon^MIN */
  gdouble sig_ave;              /* delta^AVE or epsilon^AVE */
  gdouble k0, k2;
  RcAvgWindow rate_win, sig_win;
} UrcpInstance;

typedef struct
{
  GstClockTime ts;              /* send time */
  gdouble delta;                /* s */
  gdouble raw;                  /* raw OWD - raw0, s (rc-urcp-probe.c); in
                                 * a pair, the send gap per bit (s) */
  guint size;                   /* bytes (rc_urcp_env_full_size) */
} UrcpSample;

/* A start-up packet for the delivery test (rc-urcp-startup.c). */
typedef struct
{
  GstClockTime send_ts;
  GstClockTime recv_ts;         /* receiver clock; NONE if lost */
  gdouble delta;                /* s; meaningless if lost */
  guint size;
  gboolean lost;
} UrcpPkt;

/* Start-up packets kept for the delivery test: 2 s at 10 Mbit/s. */
#define URCP_PKT_RING 2048
/* Steady-state packets for the overload test (rc-urcp-overload.c): its 1 s
 * at 40 Mbit/s; beyond that the span shrinks, the test still holds. */
#define URCP_OV_RING 4096

/* The competing-flow detector (rc-urcp-compete.c): 1 s buckets of the
 * queue's peak, and the newest overflow-loss events. */
#define URCP_CQ_BUCKETS 10
#define URCP_CQ_EVENTS 8
#define URCP_CQ_LOWS 256

/* rc-vtum.c's state. */
typedef struct _Vtum Vtum;

typedef struct
{
  RcController parent;

  /* configuration */
  gboolean adapt;               /* FALSE: the fixed-parameter UM baseline */
  gboolean capped;              /* the session sends below our rate */
  gdouble beta, m;              /* URCP: sec. VI-B, sec. VI-C */
  gdouble fixed_k0, fixed_k2;   /* UM: eq. 6 */
  Vtum *vtum;                   /* vtum: its rate law replaces Table I */
  GstClockTime low_min_time;    /* least time in the low-rate phase */

  UrcpPhase phase;
  const gchar *reason;
  gdouble rate;                 /* decided media rate = min of instances */

  UrcpInstance delay, loss;
  RcOwd owd;

  /* standing-queue detector and R^MAX probe (rc-urcp-probe.c): raw OWD
   * samples by send time; indices count samples ever added */
  UrcpSample *ebuf;
  guint64 *edq;                 /* monotonic deque of sample indices */
  guint64 n_added, n_done, n_right, dq_head, dq_tail;
  RcAvgWindow env_win;          /* each sample's envelope, s */
  RcAvgWindow env2_win;         /* its square, for env_se */
  RcAvgWindow envs_win;         /* each sample's envelope, newest second */
  gdouble env_se;               /* standard error of env_win's mean */
  gint64 raw0;                  /* first raw OWD, ns */
  gboolean have_raw0;
  gdouble env_floor;            /* lowest env_win mean; G_MAXDOUBLE: none */
  guint env_size;               /* the largest packet seen, bytes */
  gboolean probe_pending;
  gdouble rmax_before, probe_env, probe_se, probe_rave, probe_rate;
  GstClockTime probe_at, next_probe, probe_wait;
  guint probes, probes_failed, probe_ramps;
  /* the bottleneck's rate from the receive spacing of packets sent faster
   * than it (rc-urcp-probe.c) */
  GstClockTime disp_send, disp_recv;    /* the last received packet's */
  guint disp_size;
  UrcpSample *disp;             /* pairs: ts = when reported, delta = receive
                                 * gap per bit (s), raw = send gap per bit,
                                 * ring of URCP_DISP_RING */
  guint64 n_disp;
  /* pairs of one frame, as the pacer spaced them (sent faster than
   * SELFQ_PAIR_FACTOR x our send rate), the same layout: their receive
   * rate serves the self-queue (rc-urcp.c) */
  UrcpSample *fpairs;
  guint64 n_fpairs;

  /* overload test (rc-urcp-overload.c): reported packets, send order */
  UrcpPkt *ov;
  guint64 ov_head, ov_tail;
  guint overload_cuts;
  /* after an overload cut, the rate held while the queue drains */
  gboolean draining;
  GstClockTime drain_until;
  gdouble drain_restart;

  /* competing with a buffer-filling flow (rc-urcp-compete.c); raw OWD
   * in s, as the envelope's */
  gboolean competing;
  guint competitor_episodes;
  gboolean cq_have_floor;
  gdouble cq_floor;             /* lowest raw OWD */
  gdouble cq_peak[URCP_CQ_BUCKETS];     /* < 0: empty */
  guint64 cq_peak_sec[URCP_CQ_BUCKETS];
  GstClockTime cq_events[URCP_CQ_EVENTS];       /* newest first */
  gdouble cq_lows[URCP_CQ_LOWS];        /* each message's lowest queue */
  GstClockTime cq_lows_t[URCP_CQ_LOWS];
  guint64 cq_n_lows;
  guint cq_n_events;
  GstClockTime cq_last_event, cq_last_cut, cq_drained_since;
  /* CUBIC's growth while competing, from cq_last_cut: W_max and the
   * window at the last cut (packets), K (s) */
  gdouble cq_wmax, cq_wlast, cq_k;

  RcRateMeter sent_meter;       /* everything we sent */
  RcAvgWindow loss_short;       /* 0/1 per reported packet */

  GstClockTime rtt_min, rtt_last, rtt_avg;      /* rtt_avg: EWMA 1/8 */
  guint64 feedback_count, packets_acked, packets_lost;
  guint64 owd_resets, bad_packets;

  /* start-up (rc-urcp-startup.c) */
  GstClockTime first_sent;
  GstClockTime phase_start;
  GArray *low;                  /* UrcpSample, in feedback order */
  gdouble ramp_ref;             /* delay level when the ramp began, s */
  GstClockTime ramp_limited_since;
  GstClockTime ramp_max_since;  /* the ramp reached max-bitrate */
  GstClockTime last_ramp_step;
  gdouble ramp_delays[URCP_RAMP_DELAY_PKTS];    /* newest delta, ring */
  guint ramp_n_delays;
  gdouble ramp_noise_max;       /* largest such median in the low phase */
  GstClockTime ramp_loss_since; /* a lossy batch paused the ramp */
  guint ramp_check_pkts, ramp_check_lost;       /* reported since then */
  gdouble ramp_pend_pkts, ramp_pend_lost;       /* the same and that batch */
  /* the delivery test (rc-urcp-startup.c): reported start-up packets */
  UrcpPkt *pkts;                /* ring of URCP_PKT_RING */
  gdouble *rmax_deltas;         /* URCP_PKT_RING, ramp_rmax's scratch */
  guint64 n_pkts;
  guint64 ramp_first_pkt;       /* n_pkts when the probe ramp began */
  gdouble ramp_rmax_floor;      /* the least R^MAX it ends with, bit/s */
  GstClockTime low_ignore_before;       /* drain after a start rate too high */
  GstClockTime low_since;       /* the low phase's first send time counted */
  guint low_restarts;

  /* inherent loss (rc-urcp-loss.c) */
  gdouble noise_pkts, noise_lost;
  GstClockTime noise_decayed;

  /* timing */
  GstClockTime last_update;
  GstClockTime fb_newest_send;  /* newest send time any feedback reported */
  GstClockTime last_loss;       /* when feedback last reported one of ours
                                 * lost (EXCESS_LOSS_FREE, rc-urcp.c) */
  GstClockTime last_feedback;
  GstClockTime fb_interval_avg;
  gdouble mean_pkt_bytes;
  /* our packets, as sent, through a virtual bottleneck (SELF_QUEUE_LOAD,
   * rc-urcp.c): its backlog (bits) after the newest one, and when */
  gdouble selfq_bits;
  GstClockTime selfq_t;
  RcAvgWindow selfq_win;        /* each packet's wait there, s */
  gdouble selfq_delivery;       /* the frames' pairs' receive rate, bit/s;
                                 * 0: not read */
  gboolean selfq_delivery_agreed;       /* and the pairs agree on it */
} Urcp;

/* rc-urcp.c */
extern const RcControllerInfo rc_urcp_info;
extern const RcControllerClass rc_urcp_class;
/* The engine behind `urcp` and `um`. */
Urcp *rc_urcp_engine_new (const RcRateLimits * limits);
gdouble rc_urcp_clamp_rate (Urcp * u, gdouble r);
gdouble rc_urcp_rtt_min_s (Urcp * u);
gdouble rc_urcp_delta_floor (Urcp * u);
gdouble rc_urcp_sent_bps (Urcp * u, GstClockTime now);
void rc_urcp_set_phase (Urcp * u, UrcpPhase p, const gchar * reason);
const gchar *rc_urcp_phase_name (UrcpPhase p);
/* The engine's counters and measurements every controller on it reports
 * (loss-rate, rtt, rtt-min, skew-ppm, feedback-count, packets-acked,
 * packets-lost, owd-resets), set on `st`. */
void rc_urcp_engine_stats (Urcp * u, GstStructure * st);

/* rc-urcp-startup.c */
/* A reported packet during start-up: `delta` for a received one, lost
 * ones too (for the delivery test), and `raw` (raw OWD) for a received
 * one. */
void rc_urcp_startup_sample (Urcp * u, const RcPacketResult * p,
    gdouble delta, gdouble raw);
/* One feedback message during start-up; see the definition. */
void rc_urcp_startup_step (Urcp * u, gdouble mean_delta, guint n_recv,
    guint n_pkts, guint n_lost, gdouble loss, gdouble pkts, gdouble lost,
    GstClockTime now);

/* From steady state: the start-up ramp again, from the current rate, with
 * delta^MIN and the inherent loss kept. */
void rc_urcp_probe_ramp (Urcp * u, GstClockTime now, gdouble rmax_floor);

/* rc-urcp-probe.c */
void rc_urcp_probe_init (Urcp * u);
void rc_urcp_probe_clear (Urcp * u);
/* Receiver clock jumped: forget the raw OWD history. */
void rc_urcp_probe_reset (Urcp * u);
void rc_urcp_env_add_sample (Urcp * u, GstClockTime ts, gdouble raw,
    guint size, GstClockTime now);
/* TRUE if a packet of `size` bytes is one the envelope is made of, the
 * largest seen being `largest`. */
gboolean rc_urcp_env_full_size (guint size, guint largest);
void rc_urcp_env_floor_add (Urcp * u, gdouble env);
/* With every delay sample once the R^AVE window is old enough. */
void rc_urcp_rmax_probe (Urcp * u, GstClockTime now, gdouble sent);
/* The rate our frames' packets left the bottleneck at over the R^AVE
 * window, bit/s; 0 without enough pairs. `agreed`, if not NULL: whether
 * the bottleneck squeezed the pairs (PAIRS_SQUEEZED) and their receive
 * gaps agree (PAIRS_SPREAD_MAX), as where a clean bottleneck slower than
 * our pacer serves them one after the other. */
gdouble rc_urcp_frame_delivery_bps (Urcp * u, GstClockTime now,
    gboolean * agreed);
void rc_urcp_disp_sample (Urcp * u, const RcPacketResult * p,
    gdouble sent_bps, GstClockTime now);
gdouble rc_urcp_ramp_ceiling (Urcp * u, GstClockTime since);
gdouble rc_urcp_startup_pairs_bps (Urcp * u, GstClockTime since);
gdouble rc_urcp_bottleneck_bps (Urcp * u, GstClockTime now);
/* Queue above the envelope's floor, s (for stats). */
gdouble rc_urcp_standing_queue (Urcp * u);

/* rc-vtum.c (only when u->vtum is set) */
/* The low phase's packets (sorted by send time), the congestion-free set;
 * n 0 with RTCP-only feedback. */
void rc_vtum_learn (Urcp * u, const UrcpSample * x, guint n);
/* One delay sample in steady state, s. */
void rc_vtum_sample (Urcp * u, gdouble delta);
/* A packet reported lost in steady state. */
void rc_vtum_lost (Urcp * u);
/* RTCP-only feedback: a report's fraction lost. */
void rc_vtum_report_loss (Urcp * u, gdouble fraction_lost);
/* The rate after one feedback message's samples, `dt` s since the last. */
void rc_vtum_update (Urcp * u, gdouble dt, gdouble sent_bps);

/* rc-urcp-overload.c: R^MAX lowered when the path delivers far less than
 * is sent (URCP only: not UM, not vtum) */
void rc_urcp_overload_init (Urcp * u);
void rc_urcp_overload_clear (Urcp * u);
void rc_urcp_overload_reset (Urcp * u);
void rc_urcp_overload_sample (Urcp * u, const RcPacketResult * p,
    gdouble delta);
void rc_urcp_overload_check (Urcp * u, GstClockTime now);
gboolean rc_urcp_overload_draining (Urcp * u, gdouble mean_delta,
    guint n_recv, GstClockTime now);

/* rc-urcp-compete.c (URCP only: not UM, not vtum) */
void rc_urcp_compete_reset (Urcp * u);
/* After a steady-state feedback message: the lowest and highest raw OWD of
 * its received packets (s), their count, its lost ones, `dt` s since the
 * last update. While u->competing it sets the rate. */
void rc_urcp_compete_step (Urcp * u, gdouble raw_lo, gdouble raw_hi,
    guint n_recv, guint n_lost, gdouble dt, GstClockTime now);

/* rc-urcp-loss.c */
void rc_urcp_loss_noise_add (Urcp * u, gdouble pkts, gdouble lost,
    GstClockTime now);
gdouble rc_urcp_loss_noise (Urcp * u);

G_END_DECLS
#endif
