/* rcsim metrics: every number of docs/metrics.md, computed in one place
 * for a simulation (sim.c feeds it as the run goes) and for a packet log
 * (pktlog.c: `rcsim --from-log`, which rtsim runs on what it measured at
 * a real linksim).
 *
 * What goes in: every packet that entered one of the two links (forward:
 * [link]; reverse: [reverse] or the uncongested return path) with its flow,
 * kind, bytes on the wire and entry time, and then its fate: dropped at the
 * queue, or departure and arrival times, lost after the queue or delivered,
 * and whether it counts as goodput. A simulation also samples, at each
 * bin's start, what only it knows: whether a flow is demanding, the media
 * sender's target, encoder and pacing rates and controller stats, the TCP
 * window, and the queue delay of each link. Capacities (per bin, and over
 * the utilization window) come from the scenario's link configuration.
 *
 * Times are ns from the start of the run in the feeder's timebase (virtual
 * time, or a real pipeline's running time); nothing here reads a clock. */
#ifndef __RCSIM_METRICS_H__
#define __RCSIM_METRICS_H__

#include <gst/gst.h>
#include "scenario.h"

G_BEGIN_DECLS

/* Time-series bin of --csv and of the convergence and fairness metrics. */
#define SIM_BIN (200 * GST_MSECOND)

typedef enum
{
  SIM_LINK_FORWARD = 0,         /* [link] */
  SIM_LINK_REVERSE = 1,         /* [reverse], or the uncongested return path */
} SimLinkId;

typedef enum
{
  SIM_METRICS_MEDIA = 0,        /* RTP media */
  SIM_METRICS_FEC,              /* FEC repair and probe packets */
  SIM_METRICS_CONTROL,          /* feedback, RTCP, TCP ACKs: not data */
  SIM_METRICS_TCP,              /* TCP data segment */
  SIM_METRICS_CBR,              /* constant-rate cross traffic */
} SimMetricsKind;

typedef enum
{
  SIM_FATE_DROPPED = 0,         /* tail-dropped by the queue at `entry` */
  SIM_FATE_LOST,                /* left the queue at `departed`, lost after */
  SIM_FATE_DELIVERED,           /* left at `departed`, arrived at `arrival` */
} SimFate;

/* One packet on one link. */
typedef struct
{
  SimLinkId link;
  guint flow;                   /* index in the scenario's flow order */
  SimMetricsKind kind;
  guint size;                   /* bytes on the wire */
  GstClockTime entry;           /* entered the queue */
  SimFate fate;
  GstClockTime departed;        /* LOST, DELIVERED: end of serialization */
  GstClockTime arrival;         /* DELIVERED: at the far end */
  gboolean goodput;             /* DELIVERED data that is useful: media,
                                 * CBR, a TCP segment's first copy */
  gboolean has_capture;         /* media: `capture` is known */
  GstClockTime capture;         /* media: its frame's capture time, the
                                 * frame's key (docs/metrics.md, `frames`) */
} SimMetricsPacket;

/* What a simulation knows of a flow at a bin's start. */
typedef struct
{
  gboolean active;              /* demanding (docs/metrics.md, Bins) */
  /* media, while the flow runs (stats NULL: not sampled) */
  gdouble target_bps, encoder_bps, pacing_bps;
  const GstStructure *stats;    /* rc_sender_get_stats() */
  /* tcp */
  gdouble cwnd, srtt_ms;
} SimMetricsSample;

typedef enum
{
  /* A simulation: it samples every flow and link at every bin start
   * (sim_metrics_sample, sim_metrics_sample_queue); the CSV has the media
   * and TCP state columns. */
  SIM_METRICS_SIMULATED = 0,
  /* A packet log: a flow is demanding from its start to its stop outside
   * its pauses (short TCP: in the bins in which it sends data), a link's
   * queue delay at t is how long after t the last packet queued before t
   * left, and the CSV has no state columns but a media flow's target where
   * the log has it. */
  SIM_METRICS_LOGGED,
} SimMetricsSource;

typedef struct _SimMetrics SimMetrics;

/* `scen` must outlive the metrics; its duration is the run's. */
SimMetrics *sim_metrics_new (const SimScenario * scen, guint32 seed,
    SimMetricsSource source);
void sim_metrics_free (SimMetrics * m);
/* Labels every media flow with this controller instead of the
 * scenario's (rtsim runs peers the registry does not have: gcc, none). */
void sim_metrics_set_controller (SimMetrics * m, const gchar * name);
/* Flow `flow` did not run (rtsim: TCP flows): it is left out of every
 * metric and of the output. Before any packet of it. */
void sim_metrics_skip_flow (SimMetrics * m, guint flow);

/* The packet entered its link's queue at p->entry (its fate is not read):
 * it counts toward the flow's send rate. */
void sim_metrics_enter (SimMetrics * m, const SimMetricsPacket * p);
/* What became of an entered packet (p->fate). Once per packet; a packet
 * still in the link at the end never leaves. */
void sim_metrics_leave (SimMetrics * m, const SimMetricsPacket * p);
/* Logged only: media flow `flow`'s controller target was `bps` from `t`
 * on (a runner's sample of its element); any order. Its CSV then has a
 * target_kbps column, each bin's the last logged at its start. */
void sim_metrics_log_target (SimMetrics * m, guint flow, GstClockTime t,
    gdouble bps);
/* Simulated only: bin `bin`'s start. */
void sim_metrics_sample (SimMetrics * m, guint flow, guint bin,
    const SimMetricsSample * s);
void sim_metrics_sample_queue (SimMetrics * m, SimLinkId link, guint bin,
    GstClockTime queue_delay);
/* After the last packet, before the output; once. */
void sim_metrics_finish (SimMetrics * m);
/* Simulated: media packets of `flow` that repair packets rebuilt, for
 * loss_post; before sim_metrics_finish(). */
void sim_metrics_set_repaired (SimMetrics * m, guint flow, guint64 repaired);
/* Media frames that lost a packet before repair (`hit`), and of those the
 * ones FEC made whole (FFRE = recovered / hit); before
 * sim_metrics_finish(). */
void sim_metrics_set_fec_frames (SimMetrics * m, guint flow, guint64 hit,
    guint64 recovered);

/* Propagation delay of `flow`'s packets on `link`: its delay-ms on the link
 * its data takes, its return-delay-ms on the other. */
GstClockTime sim_metrics_prop_delay (SimMetrics * m, guint flow,
    SimLinkId link);
/* The link the flow's data takes. */
SimLinkId sim_metrics_data_link (SimMetrics * m, guint flow);

/* One flow over [from, to) of the run so far, from the bins: rates by
 * departure from the bottleneck, drops by entry. */
typedef struct
{
  gdouble goodput_bps;
  gdouble qdelay_mean_ms;       /* over the packets delivered; 0 if none */
  guint64 sent_pkts, delivered_pkts, lost_pkts;
  gdouble target_mean_bps;      /* media: the session's target at each bin
                                 * start, averaged */
} SimWindow;

void sim_metrics_flow_window (SimMetrics * m, guint flow, GstClockTime from,
    GstClockTime to, SimWindow * out);

/* Output, after sim_metrics_finish. */
void sim_metrics_write_json (SimMetrics * m, GString * out);
void sim_metrics_write_table (SimMetrics * m, GString * out);
gboolean sim_metrics_write_csv (SimMetrics * m, const gchar * dir,
    GError ** error);

G_END_DECLS
#endif
