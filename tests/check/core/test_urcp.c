/* URCP, UM and vtum (the controllers on URCP's engine) in rcsim's world: the sender session, link model and
 * synthetic encoder that `rcsim` runs, driven from scenario text, with the
 * controller's state read on the way. */
#include <gst/check/gstcheck.h>
#include "rc-controller.h"
#include "sim.h"

#define S GST_SECOND

/* A clean path: `capacity` bit/s, 50 ms each way, a 300 ms drop-tail queue
 * (RFC 8867 sec. 5), one media flow with `flow_keys` added. The source is
 * rcsim's synthetic encoder, not the calibrated default: these tests check
 * the controller's mechanics (operating point, start-up, re-probing) on a
 * source that does what it is told; how the controller fares with a real
 * encoder's lags and bursts is for the benchmarks (docs/results.md). */
/* startup-heavy-tail.ini's delay noise: Pareto, shape 1.5, mean 20 ms, at
 * most 500 ms, a new value every 20 ms, held in order. */
#define HEAVY_TAIL_NOISE "noise-distribution=pareto\nnoise-mean=20000000\n" \
    "noise-shape=1.5\nnoise-max=500000000\nnoise-interval=20000000"

static gchar *
clean_link (const gchar * capacity, const gchar * link_keys,
    const gchar * flow_keys, gdouble duration_s)
{
  return g_strdup_printf ("[scenario]\nduration=%g\n"
      "[link]\ncapacity=%s\nqueue-limit-ms=300\ndelay=50000000\n%s\n"
      "[flow:video]\nkind=media\nencoder=synthetic\n%s\n", duration_s,
      capacity, link_keys ? link_keys : "", flow_keys ? flow_keys : "");
}

static Sim *
sim_from_text (gchar * text, guint32 seed, SimScenario ** scen)
{
  GError *err = NULL;

  *scen = sim_scenario_load_data (text, "test", NULL, &err);
  fail_unless (*scen != NULL, "scenario: %s", err ? err->message : "?");
  g_free (text);
  return sim_new (*scen, seed);
}

static void
sim_done (Sim * sim, SimScenario * scen)
{
  sim_free (sim);
  sim_scenario_free (scen);
}

static gdouble
stat_double (Sim * sim, guint flow, const gchar * field)
{
  GstStructure *s = rc_sender_get_stats (sim_flow_sender (sim, flow),
      sim_get_time (sim));
  gdouble v = 0;
  fail_unless (gst_structure_get_double (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return v;
}

/* A time field (ns) in ms. */
static gdouble
stat_ms (Sim * sim, guint flow, const gchar * field)
{
  GstStructure *s = rc_sender_get_stats (sim_flow_sender (sim, flow),
      sim_get_time (sim));
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return (gdouble) v / GST_MSECOND;
}

static guint
stat_uint (Sim * sim, guint flow, const gchar * field)
{
  GstStructure *s = rc_sender_get_stats (sim_flow_sender (sim, flow),
      sim_get_time (sim));
  guint v = 0;
  fail_unless (gst_structure_get_uint (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return v;
}

static gboolean
is_steady (Sim * sim, guint flow)
{
  return g_str_equal (rc_sender_get_decision (sim_flow_sender (sim,
              flow)).phase, "steady");
}

/* Runs in 1 ms steps until flow 0 is steady or `limit`. */
static GstClockTime
run_until_steady (Sim * sim, GstClockTime limit)
{
  while (!is_steady (sim, 0) && sim_get_time (sim) < limit)
    sim_run_until (sim, sim_get_time (sim) + GST_MSECOND);
  return sim_get_time (sim);
}

static SimWindow
window (Sim * sim, guint flow, GstClockTime from, GstClockTime to)
{
  SimWindow w;
  sim_flow_window (sim, flow, from, to, &w);
  return w;
}

/* One media flow, `flow_keys` added, on a 50 ms path with a 300 ms queue
 * and 28 bytes of overhead a packet; `link_keys` (freed here) say the rest. */
static Sim *
path_50ms (gdouble duration_s, gchar * link_keys, const gchar * flow_keys,
    guint seed, SimScenario ** scen)
{
  gchar *text = g_strdup_printf ("[scenario]\nduration=%g\n"
      "[link]\nqueue-limit-ms=300\noverhead=28\n%s\n"
      "[flow:video]\nkind=media\ndelay-ms=50\n%s\n", duration_s, link_keys,
      flow_keys);

  g_free (link_keys);
  return sim_from_text (text, seed, scen);
}

/* The capacity rises from 1 Mbit/s to `to` at 30 s, delivered as
 * `delivery` (docs/scenarios.md); 40 s. */
static Sim *
capacity_rise (guint to, const gchar * delivery, guint seed,
    SimScenario ** scen)
{
  return path_50ms (40, g_strdup_printf ("capacity=1000000\n"
          "schedule=0:1000000,30:%u\ndelivery=%s", to, delivery), "", seed,
      scen);
}

/* `capacity` bit/s delivered as the kernel bench's tbf does
 * (start-of-slot); 60 s. */
static Sim *
tbf_link (guint capacity, const gchar * flow_keys, guint seed,
    SimScenario ** scen)
{
  return path_50ms (60, g_strdup_printf ("capacity=%u\n"
          "delivery=start-of-slot", capacity), flow_keys, seed, scen);
}

/* rcsim's noisy-ethernet link (seed 000's rate-limited Ethernet: 9.1 Mbit/s,
 * a 10 ms buffer, 0.5 ms mean exponential delay noise, each packet
 * serialized), one media flow of vp8enc's model at 1280x720 on a 50 ms
 * path. */
static Sim *
noisy_ethernet (gdouble duration_s, guint seed, SimScenario ** scen)
{
  return sim_from_text (g_strdup_printf ("[scenario]\nduration=%g\n"
          "[link]\ncapacity=9100000\nqueue-limit-ms=10\noverhead=28\n"
          "noise-distribution=exponential\nnoise-mean=500000\n"
          "noise-max=5000000\nnoise-interval=20000000\n"
          "[flow:video]\nkind=media\ndelay-ms=50\nresolution=1280x720\n",
          duration_s), seed, scen);
}

/* A 1200-byte media packet sent to `c` at `sent`, and its result in `r`:
 * received at `recv`. */
static void
sent_received (RcController * c, RcPacketResult * r, guint64 seq,
    GstClockTime sent, GstClockTime recv)
{
  rc_controller_on_packet_sent (c, seq, 1200, FALSE, sent);
  r->seq = seq;
  r->send_ts = sent;
  r->recv_ts = recv;
  r->size = 1200;
  r->pt = -1;
  r->is_fec = FALSE;
  r->lost = FALSE;
}

/* Clean 1 Mbit/s, 50 ms one-way, measured over 60-120 s, on both ways a
 * link delivers (docs/scenarios.md, `delivery`): mean queueing delay under
 * 30 ms, no loss, and no clock skew read where there is none.
 *
 * Utilization: >= 90 % where the packet arrives at the start of its slot,
 * as behind the kernel bench's tbf (the real pipeline, and the calibrated
 * case); >= 85 % on a link that serializes each packet, where URCP gets
 * 89 %. There the test asked 90 % until 2026-11-28 and got it from a
 * phantom skew: the delay base's skew estimate read the start-up's short
 * packets (less serialization) as a receiver clock running 140 ppm fast,
 * the base climbed with it and delta under-read the queue, so the rate ran
 * deeper (rc-owd.c). With the skew at 0 the rate is where eq. 19 puts it
 * for this R^MAX: the start-up's R^MAX is 891 kbit/s of the 978 the link
 * carries (its newest arrivals reach back to before the queue formed), and
 * one probe raises it to the 978 the packet pairs read. Until the
 * standing-queue envelope was taken of full-size packets only (2026-11-28)
 * no probe ran (85 %): the start rate's short packets set its floor 5-6 ms
 * below what full ones show, and, counted from 0.75 of the largest, this
 * encoder's frame tails still 2.0 ms against a 1.9 ms limit. */
GST_START_TEST (test_urcp_clean_link_converges)
{
  const struct
  {
    const gchar *keys;
    gdouble min_util;
  } links[] = {
    {"delivery=start-of-slot", 0.90},
    {"delivery=end-of-slot", 0.85},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (links); i++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("1000000", links[i].keys, NULL,
            120), 1, &scen);
    SimWindow w;

    sim_run_until (sim, 120 * S);
    w = window (sim, 0, 60 * S, 120 * S);
    GST_INFO ("clean 1 Mbit/s, %s: goodput %.0f bit/s, mean qdelay %.1f ms",
        links[i].keys, w.goodput_bps, w.qdelay_mean_ms);
    fail_unless (w.goodput_bps >= links[i].min_util * 1e6, "%s: goodput %.0f",
        links[i].keys, w.goodput_bps);
    fail_unless (w.goodput_bps <= 1.0e6, "%s: goodput %.0f above capacity",
        links[i].keys, w.goodput_bps);
    fail_unless (stat_double (sim, 0, "skew-ppm") == 0, "%s: skew %.1f ppm "
        "on a drift-free path", links[i].keys,
        stat_double (sim, 0, "skew-ppm"));
    fail_unless (w.qdelay_mean_ms < 30.0, "%s: mean queueing delay %.1f ms",
        links[i].keys, w.qdelay_mean_ms);
    fail_unless_equals_int (w.lost_pkts, 0);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* The re-probe's standing-queue envelope on a link that serializes each
 * packet (rcsim's default delivery, as DSL, Wi-Fi and linksim): the
 * noisy-ethernet profile (9.1 Mbit/s, 0.5 ms mean delay noise), vp8enc's
 * model at 1280x720, seeds 1-2. Its floor and its samples are of full-size
 * packets, so the gate reads no standing queue where none stands, and
 * URCP probes. Before 2026-11-28 the floor came from the start rate's
 * small packets, a full packet's service time below what full ones show:
 * the gate read 0.58-0.74 ms against a limit of about 0.2 ms, and no probe
 * ran in 120 s (rc-urcp-probe.c). */
GST_START_TEST (test_urcp_serialized_link_probes)
{
  guint seed;

  for (seed = 1; seed <= 2; seed++) {
    SimScenario *scen;
    Sim *sim = noisy_ethernet (60, seed, &scen);
    gdouble queue, limit;

    sim_run_until (sim, 60 * S);
    queue = stat_ms (sim, 0, "standing-queue");
    limit = 0.2 * stat_ms (sim, 0, "delay-noise");
    GST_INFO ("seed %u, serialized 9.1 Mbit/s: standing queue %.2f ms "
        "(limit %.2f), %u probes", seed, queue, limit,
        stat_uint (sim, 0, "probes"));
    fail_unless (queue < limit, "seed %u: standing queue %.2f ms read, "
        "limit %.2f", seed, queue, limit);
    fail_unless (stat_uint (sim, 0, "probes") >= 1, "seed %u: no probe",
        seed);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* A probe ramp starts only if the rate itself followed the probe up, not
 * R^AVE alone, which lags the rate and rises for a window after any cut:
 * cbr-cross-traffic (2 Mbit/s, 500 kbit/s of CBR from 30 s to 90 s),
 * vp8enc's model, seeds 1-3: no probe ramp while the CBR shares the link.
 * With R^AVE alone, each seed ramped once beside the CBR, a probe begun
 * while R^AVE still recovered from the CBR's arrival (the queue rose to
 * 162 ms on seed 1; rc-urcp-probe.c). */
GST_START_TEST (test_urcp_no_probe_ramp_on_lagging_rave)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (g_strdup ("[scenario]\nduration=90\n"
            "[link]\ncapacity=2000000\nqueue-limit-ms=300\noverhead=28\n"
            "[flow:video]\nkind=media\ndelay-ms=50\n"
            "[flow:cbr]\nkind=cbr\nrate=500000\npacket-size=1200\n"
            "start=30\nstop=90\ndelay-ms=50\n"), seed, &scen);
    guint before;

    sim_run_until (sim, 30 * S);
    before = stat_uint (sim, 0, "probe-ramps");
    sim_run_until (sim, 90 * S);
    GST_INFO ("seed %u, beside 500 kbit/s CBR: %u probes, %u probe ramps "
        "(%u before it)", seed, stat_uint (sim, 0, "probes"),
        stat_uint (sim, 0, "probe-ramps"), before);
    fail_unless_equals_int (stat_uint (sim, 0, "probe-ramps"), before);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* 150 kbit/s behind a token-bucket shaper (delivery=start-of-slot, as the
 * kernel bench's tbf), vp8enc's model, seeds 1-3: probes run, but none
 * starts a probe ramp, since the packet pairs read the bottleneck within
 * DISP_SEND_FACTOR of R^MAX; and nothing is lost after the start-up. Before
 * 2026-11-28 a probe kept at the bottleneck's rate ramped to five times the
 * link on every seed, in rcsim and on the kernel bench alike (rcsim: loss
 * 2.4 %, p95 207 ms; rc-urcp-probe.c). */
GST_START_TEST (test_urcp_no_probe_ramp_at_the_bottleneck)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = tbf_link (150000, "", seed, &scen);
    SimWindow w;

    sim_run_until (sim, 60 * S);
    w = window (sim, 0, 10 * S, 60 * S);
    GST_INFO ("seed %u, 150 kbit/s: %u probes, %u probe ramps, %" G_GUINT64_FORMAT
        " packets lost after 10 s", seed, stat_uint (sim, 0, "probes"),
        stat_uint (sim, 0, "probe-ramps"), w.lost_pkts);
    fail_unless (stat_uint (sim, 0, "probes") >= 1, "seed %u: no probe", seed);
    fail_unless_equals_int (stat_uint (sim, 0, "probe-ramps"), 0);
    fail_unless_equals_int (w.lost_pkts, 0);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* A probe ramp stops at the bottleneck's rate that its packet pairs read
 * (rc-urcp-startup.c): after the capacity doubles from 1 to 2 Mbit/s, on
 * both ways a link delivers, seeds 1-3, the target peaks at most 1.45
 * times the new capacity (1.22-1.36; without the ceiling 1.56-1.68), no
 * packet is lost, and R^MAX is within 6 % of the link's RTP rate (0.957-
 * 0.984: the pairs read a little low; without, 0.983-1.005). Not at low
 * rates: at 0.1 -> 0.2 Mbit/s the ramp's own pairs are too few
 * (DISP_MIN_PAIRS) before its delay test ends it. Ended there, the rate
 * restarts at eq. 19's operating point (RAMP_CEILING_RESTART), so 5-10 s
 * after the rise the goodput is within issue 10's 10 % of the link's RTP
 * rate (0.912-0.966; restarted at 85 % of R^MAX, 0.873-0.897). */
GST_START_TEST (test_urcp_probe_ramp_ceiling)
{
  static const gchar *deliveries[] = { "end-of-slot", "start-of-slot" };
  guint seed, d;

  for (d = 0; d < G_N_ELEMENTS (deliveries); d++) {
    for (seed = 1; seed <= 3; seed++) {
      SimScenario *scen;
      Sim *sim = capacity_rise (2000000, deliveries[d], seed, &scen);
      RcSender *snd = sim_flow_sender (sim, 0);
      /* the link's RTP rate: 1200-byte packets and 28 bytes of overhead */
      gdouble rtp = 2e6 * 1200 / 1228, peak = 0, rmax;
      guint ramps;
      SimWindow w, late;

      sim_run_until (sim, 30 * S);
      ramps = stat_uint (sim, 0, "probe-ramps");
      while (sim_get_time (sim) < 40 * S) {
        sim_run_until (sim, sim_get_time (sim) + 10 * GST_MSECOND);
        peak = MAX (peak, (gdouble) rc_sender_get_target (snd));
      }
      w = window (sim, 0, 30 * S, 40 * S);
      late = window (sim, 0, 35 * S, 40 * S);
      rmax = stat_uint (sim, 0, "capacity");
      GST_INFO ("%s, seed %u: %u probe ramp(s) after the rise, peak target "
          "%.2fx the capacity, R^MAX %.0f (%.3f of the RTP rate), %"
          G_GUINT64_FORMAT " lost, goodput 35-40 s %.3f of the RTP rate",
          deliveries[d], seed, stat_uint (sim, 0, "probe-ramps") - ramps,
          peak / 2e6, rmax, rmax / rtp, w.lost_pkts, late.goodput_bps / rtp);
      fail_unless (stat_uint (sim, 0, "probe-ramps") > ramps,
          "%s, seed %u: no probe ramp", deliveries[d], seed);
      fail_unless (peak <= 1.45 * 2e6, "%s, seed %u: peak target %.0f",
          deliveries[d], seed, peak);
      fail_unless (fabs (rmax / rtp - 1) <= 0.06, "%s, seed %u: R^MAX %.0f",
          deliveries[d], seed, rmax);
      fail_unless_equals_int (w.lost_pkts, 0);
      fail_unless (late.goodput_bps >= 0.9 * rtp, "%s, seed %u: goodput "
          "35-40 s %.0f", deliveries[d], seed, late.goodput_bps);
      sim_done (sim, scen);
    }
  }
}

GST_END_TEST;

/* Our frames' queue at a clean 4 Mbit/s link, the calibrated vp8enc model
 * at 1280x720, the kernel's delivery, seeds 1-3. Paced at 1.5x the rate a
 * frame queued behind itself there, and eq. 19 read that queue as
 * congestion: the goodput balanced at 0.89 of the link's RTP rate. Eq. 16's
 * delta^MIN no lower than that queue (SELF_QUEUE_LOAD, rc-urcp.c) made it
 * 0.930-0.932 with a mean queueing delay of 6.7 ms; the pacer near the
 * frames' delivery rate (PACE_NEAR_DELIVERY) leaves no such queue: over
 * 30-60 s the goodput is at least 0.97 of the RTP rate (0.994-1.002) with
 * a mean queueing delay under 6 ms (4.5-4.6) and nothing lost, and the
 * `self-queue` reads less than one packet's service time at R^MAX
 * (0.21-0.24 ms against 2.5). */
GST_START_TEST (test_urcp_self_queue)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = tbf_link (4000000, "resolution=1280x720", seed, &scen);
    /* full-size packets: 1200 bytes and 28 bytes of overhead */
    gdouble rtp = 4e6 * 1200 / 1228, selfq, pkt;
    SimWindow w;

    sim_run_until (sim, 60 * S);
    w = window (sim, 0, 30 * S, 60 * S);
    selfq = stat_ms (sim, 0, "self-queue");
    pkt = 1200 * 8 * 1000.0 / stat_uint (sim, 0, "capacity");
    GST_INFO ("seed %u, 4 Mbit/s: goodput %.3f of the RTP rate, mean qdelay "
        "%.1f ms, self-queue %.2f ms (one packet at R^MAX %.2f ms), %"
        G_GUINT64_FORMAT " lost", seed, w.goodput_bps / rtp, w.qdelay_mean_ms,
        selfq, pkt, w.lost_pkts);
    fail_unless (w.goodput_bps >= 0.97 * rtp, "seed %u: goodput %.3f of the "
        "RTP rate", seed, w.goodput_bps / rtp);
    fail_unless (w.qdelay_mean_ms < 6.0, "seed %u: mean queueing delay "
        "%.1f ms", seed, w.qdelay_mean_ms);
    fail_unless (selfq < pkt, "seed %u: self-queue %.2f ms, one packet "
        "%.2f ms", seed, selfq, pkt);
    fail_unless_equals_int (w.lost_pkts, 0);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* The self-queue is served at the rate our frames' packets leave the
 * bottleneck where that is below R^MAX (rc_urcp_frame_delivery_bps): on
 * noisy-ethernet's link (9.1 Mbit/s, a 10 ms buffer, exponential noise of
 * 0.5 ms mean after the queue), seeds 1-3, probes hold R^MAX above 1.5x
 * the capacity, where a queue served at R^MAX reads nothing. Over 60-90 s
 * the goodput is at least 0.90 of the link's RTP rate (0.944-0.955; served
 * at R^MAX and paced at 1.5x the rate, as before 2026-11-29, 0.836-0.840,
 * and the test fails), the self-queue is read, and at most 0.15 % of the
 * packets are lost: the frames' peaks overflow the buffer now and then, and
 * after each eq. 16 goes without the self-queue for 30 s (12-26 of about
 * 26000; 24-32 at 0.953-0.963 of the RTP rate since ramp_rmax's span starts
 * at a packet that was not held, which moved the probes' readings). The
 * fault this guards against lost 1.34 % (rc-urcp.c, SELF_QUEUE_LOAD's "Why
 * not after a loss"). */
GST_START_TEST (test_urcp_self_queue_above_capacity)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = noisy_ethernet (90, seed, &scen);
    gdouble rtp = 9.1e6 * 1200 / 1228, rmax, selfq;
    SimWindow w;

    sim_run_until (sim, 90 * S);
    w = window (sim, 0, 60 * S, 90 * S);
    rmax = stat_uint (sim, 0, "capacity");
    selfq = stat_ms (sim, 0, "self-queue");
    GST_INFO ("seed %u, 9.1 Mbit/s: goodput %.3f of the RTP rate, R^MAX "
        "%.2fx the link, self-queue %.2f ms, %" G_GUINT64_FORMAT " of %"
        G_GUINT64_FORMAT " lost", seed, w.goodput_bps / rtp, rmax / 9.1e6,
        selfq, w.lost_pkts, w.sent_pkts);
    fail_unless (rmax > 1.5 * 9.1e6, "seed %u: R^MAX %.0f, not the case "
        "this tests", seed, rmax);
    fail_unless (w.goodput_bps >= 0.90 * rtp, "seed %u: goodput %.3f of the "
        "RTP rate", seed, w.goodput_bps / rtp);
    fail_unless (selfq > 0, "seed %u: no self-queue", seed);
    fail_unless (w.lost_pkts * 10000 <= 15 * w.sent_pkts, "seed %u: %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " lost", seed, w.lost_pkts,
        w.sent_pkts);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* The pacer sampled each second from `from` to `to` s (exclusive): never
 * below 1.1x the target (PACE_OVER_RATE, rc-urcp.c); returns the number of
 * samples with the pacer at or below `limit` bit/s. Runs on to `to` and
 * fills *w with flow 0's window over [from, to). */
static guint
pacer_samples (Sim * sim, guint seed, guint from, guint to, gdouble limit,
    SimWindow * w)
{
  guint t, capped = 0;

  for (t = from; t < to; t++) {
    gdouble pace, target;

    sim_run_until (sim, t * S);
    pace = stat_uint (sim, 0, "pacing-bitrate");
    target = stat_uint (sim, 0, "target-bitrate");
    fail_unless (pace >= 1.1 * target - 1, "seed %u, %u s: pacer %.0f, "
        "target %.0f", seed, t, pace, target);
    capped += pace <= limit;
  }
  sim_run_until (sim, to * S);
  *w = window (sim, 0, from * S, to * S);
  return capped;
}

/* Where a probe holds R^MAX above the bottleneck, the pacer sends a frame no
 * faster than 1.2x the rate our frames' packets leave it at (PACE_OVER_-
 * DELIVERY, rc-urcp.c), not at 1.5x the rate: noisy-ethernet's link, seeds
 * 1-3, sampled each second over 60-90 s. At least half the samples have
 * the pacer within 1.25x the link's RTP rate (20-21 of 30; the others fall
 * in probes, which run uncapped; without the cap none), none below 1.1x the
 * target, and the mean queueing delay is under 5 ms (4.5-4.6; without the
 * cap 5.5-5.6, and the test fails). */
GST_START_TEST (test_urcp_pacer_capped_above_capacity)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = noisy_ethernet (90, seed, &scen);
    gdouble rtp = 9.1e6 * 1200 / 1228;
    guint n = 90 - 60;
    SimWindow w;
    guint capped = pacer_samples (sim, seed, 60, 90, 1.25 * rtp, &w);

    GST_INFO ("seed %u, 9.1 Mbit/s: pacer within 1.25x the RTP rate in %u "
        "of %u samples, mean qdelay %.1f ms, goodput %.3f of the RTP rate",
        seed, capped, n, w.qdelay_mean_ms, w.goodput_bps / rtp);
    fail_unless (capped * 2 >= n, "seed %u: capped in %u of %u", seed,
        capped, n);
    fail_unless (w.qdelay_mean_ms < 5.0, "seed %u: mean queueing delay %.1f "
        "ms", seed, w.qdelay_mean_ms);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* Where the frames' pairs agree on the rate they leave the bottleneck at,
 * the pacer sends a frame's packets after its first pair no faster than
 * 1.05x that rate (PACE_NEAR_DELIVERY, rc-urcp.c), not at 1.5x the target:
 * a clean 1 Mbit/s link on a 50 ms path, the calibrated vp8enc model,
 * seeds 1-3, sampled each second over 30-60 s. The pacer is within 1.1x
 * the link's RTP rate in at least two thirds of the samples (30 of 30;
 * without the cap none), never below 1.1x the target; the goodput is at
 * least 0.955 of the RTP rate with a mean queueing delay under 20 ms, issue
 * 10's bound at 1 Mbit/s (1.008-1.010 and 14.7-15.8 ms; without the cap,
 * seed 1, 1.014 and 16.1 ms). Until the delay base was taken per packet
 * size (rc-owd.c, 2026-11-29) eq. 19 balanced lower on this serializing
 * link, and there the cap gained more: 0.963-0.980 and 10.9-11.2 ms against
 * 0.939-0.954 and 12.8-13.0 without. The queueing delay counts each
 * packet's own 9.8 ms on the link (docs/metrics.md). Each
 * frame's first pair, which reads the delivery rate, keeps the pacer's
 * 1.5x: sent at 1.05x, no pair is read and the cap lapses within a
 * window. */
GST_START_TEST (test_urcp_pacer_near_delivery)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = path_50ms (60, g_strdup ("capacity=1000000"), "", seed,
        &scen);
    gdouble rtp = 1e6 * 1200 / 1228;
    guint n = 60 - 30;
    SimWindow w;
    guint capped = pacer_samples (sim, seed, 30, 60, 1.1 * rtp, &w);

    GST_INFO ("seed %u, 1 Mbit/s: pacer within 1.1x the RTP rate in %u of "
        "%u samples, goodput %.3f of the RTP rate, mean qdelay %.1f ms", seed,
        capped, n, w.goodput_bps / rtp, w.qdelay_mean_ms);
    fail_unless (capped * 3 >= n * 2, "seed %u: capped in %u of %u", seed,
        capped, n);
    fail_unless (w.goodput_bps >= 0.955 * rtp, "seed %u: goodput %.3f of the "
        "RTP rate", seed, w.goodput_bps / rtp);
    fail_unless (w.qdelay_mean_ms < 20.0, "seed %u: mean queueing delay "
        "%.1f ms", seed, w.qdelay_mean_ms);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* Sec. VI-A: start-up learns delta^MIN from a low-rate phase and R^MAX from
 * a ramp, and starts k0 at R^MAX delta^MIN (eq. 13). Checked on a link with
 * 10 ms mean delay noise, where the right delta^MIN is known. Also reports
 * how long start-up takes on the 1 Mbit/s, 50 ms path. */
GST_START_TEST (test_urcp_startup_estimates)
{
  SimScenario *scen;
  /* One message per feedback packet: the run stops after the event in
   * which start-up ended, and a frame's message after it in the same
   * packet would already have moved k0 by eq. 16. */
  Sim *sim = sim_from_text (clean_link ("1000000",
          "noise-distribution=uniform\nnoise-mean=10000000",
          "feedback-messages=interval", 20), 1, &scen);
  GstClockTime t;
  gdouble rmax, dmin, k0;

  t = run_until_steady (sim, 10 * S);
  fail_unless (is_steady (sim, 0), "start-up did not finish in 10 s");
  rmax = stat_uint (sim, 0, "capacity");
  dmin = stat_ms (sim, 0, "delay-noise");
  k0 = stat_double (sim, 0, "operating-point");
  GST_INFO ("start-up on 1 Mbit/s, 50 ms, 10 ms noise: %.2f s, R^MAX %.0f, "
      "delta^MIN %.2f ms, k0 %.0f", (gdouble) t / S, rmax, dmin, k0);
  fail_unless (t < 4 * S, "start-up took %.2f s", (gdouble) t / S);
  /* Noise is uniform in [0, 20] ms: mean 10 ms. */
  fail_unless (dmin >= 7.0 && dmin <= 13.0, "delta^MIN %.2f ms", dmin);
  fail_unless (rmax >= 0.85e6 && rmax <= 1.15e6, "R^MAX %.0f", rmax);
  fail_unless (fabs (k0 - rmax * dmin / 1000) <= 0.01 * k0,
      "k0 %.0f is not R^MAX delta^MIN = %.0f (eq. 13)", k0, rmax * dmin / 1000);
  sim_done (sim, scen);

  /* And the start-up time on the clean path, for the docs. */
  sim = sim_from_text (clean_link ("1000000", NULL, NULL, 20), 1, &scen);
  t = run_until_steady (sim, 10 * S);
  GST_INFO ("start-up on clean 1 Mbit/s, 50 ms: %.2f s", (gdouble) t / S);
  fail_unless (is_steady (sim, 0) && t < 4 * S);
  sim_done (sim, scen);
}

GST_END_TEST;

/* A start rate above the capacity (300 kbit/s, the default, on 150 kbit/s):
 * the low-rate phase sees that the path does not carry its rate and starts
 * over lower, so it neither takes the queue it built for delay noise nor
 * the overflow for inherent loss. Before that check, delta^MIN came out at
 * 81 ms, the loss noise at 35 %, R^MAX 23 % above the link, and the queue
 * stood at 250 ms with 7 % loss for the rest of the run. */
GST_START_TEST (test_urcp_start_above_capacity)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("150000", NULL, NULL, 60), 1, &scen);
  SimWindow w;
  gdouble rmax, noise;

  run_until_steady (sim, 15 * S);
  fail_unless (is_steady (sim, 0), "start-up did not finish in 15 s");
  rmax = stat_uint (sim, 0, "capacity");
  noise = stat_double (sim, 0, "loss-noise");
  GST_INFO ("150 kbit/s from 300 kbit/s: R^MAX %.0f, delta^MIN %.1f ms, "
      "loss noise %.3f", rmax, stat_ms (sim, 0, "delay-noise"), noise);
  fail_unless (rmax >= 0.8 * 150000 && rmax <= 1.1 * 150000, "R^MAX %.0f",
      rmax);
  fail_unless (noise < 0.05, "inherent loss learned as %.3f", noise);
  sim_run_until (sim, 60 * S);
  w = window (sim, 0, 20 * S, 60 * S);
  GST_INFO ("150 kbit/s, 20-60 s: goodput %.0f, qdelay %.1f ms, lost %u",
      w.goodput_bps, w.qdelay_mean_ms, (guint) w.lost_pkts);
  fail_unless (w.goodput_bps >= 0.8 * 150000, "goodput %.0f", w.goodput_bps);
  fail_unless (w.qdelay_mean_ms < 150, "queueing delay %.1f ms",
      w.qdelay_mean_ms);
  fail_unless_equals_int (w.lost_pkts, 0);
  sim_done (sim, scen);
}

GST_END_TEST;

/* A max-bitrate above the capacity (3 Mbit/s on 2.5, 50 ms one way): the
 * start-up ramp reaches it before its delay test hears of the queue. It
 * must hold there until what it sent is reported, and R^MAX must be what
 * the path carries. Before, the ramp ended at once with R^MAX at
 * max-bitrate, 1.23x the link's RTP rate, which eq. 14 never lowers. And a
 * link faster than max-bitrate (4 Mbit/s, max-bitrate 2): the ramp holds
 * there without a sign of congestion and ends with R^MAX at max-bitrate, as
 * before. */
static gdouble
rmax_after_startup (const gchar * capacity, const gchar * max_bps,
    guint seed, gchar ** reason)
{
  SimScenario *scen;
  Sim *sim = path_50ms (20, g_strdup_printf ("capacity=%s", capacity),
      max_bps, seed, &scen);
  gdouble rmax;

  run_until_steady (sim, 15 * S);
  fail_unless (is_steady (sim, 0), "start-up did not finish in 15 s");
  rmax = stat_uint (sim, 0, "capacity");
  *reason = g_strdup (rc_sender_get_decision (sim_flow_sender (sim,
              0)).reason);
  GST_INFO ("%s bit/s, %s, seed %u: R^MAX %.0f at %.1f s (%s)", capacity,
      max_bps, seed, rmax, (gdouble) sim_get_time (sim) / S, *reason);
  sim_done (sim, scen);
  return rmax;
}

GST_START_TEST (test_urcp_ramp_at_max_bitrate)
{
  const gdouble rtp = 2.5e6 * 1200 / 1228;
  guint seed;

  for (seed = 1; seed <= 4; seed++) {
    gchar *reason;
    gdouble rmax = rmax_after_startup ("2500000", "max-bitrate=3000000",
        seed, &reason);

    fail_unless (rmax >= 0.97 * rtp && rmax <= 1.02 * rtp,
        "seed %u: R^MAX %.0f with the link's RTP rate at %.0f", seed, rmax,
        rtp);
    g_free (reason);
    rmax = rmax_after_startup ("4000000", "max-bitrate=2000000", seed,
        &reason);
    fail_unless_equals_int ((gint) rmax, 2000000);
    fail_unless (strstr (reason, "max-bitrate") != NULL, "%s", reason);
    g_free (reason);
  }
}

GST_END_TEST;

/* The low phase's delivery test must not read a delay-noise spike for a
 * queue (rc-urcp-startup.c, LOW_RISE_MID). Driven directly: 300 kbit/s in
 * 1200-byte packets on a path far faster, 50 ms one way, and one spike of
 * 350 ms that holds the packets behind it in order (the shape linksim's
 * Pareto noise gave on the kernel bench), just before the delivery test
 * looks. The rate must stay at the start rate until the ramp. */
GST_START_TEST (test_urcp_low_phase_noise_spike)
{
  RcRateLimits lim;
  GError *err = NULL;
  RcController *c;
  RcPacketResult r[8];
  GstClockTime t, last_recv = 0, owd = 50 * GST_MSECOND;
  guint64 seq = 0;
  gboolean ramped = FALSE;

  rc_rate_limits_init (&lim);
  c = rc_controller_new (rc_controller_lookup ("urcp"), &lim, NULL, &err);
  fail_unless (c != NULL);
  /* a packet every 32 ms, feedback every 100 ms */
  for (t = 0; t < 3 * S && !ramped; t += 100 * GST_MSECOND) {
    RcFeedback fb = { 0 };
    RcDecision d;
    guint n = 0;
    GstClockTime p;
    for (p = t; p < t + 100 * GST_MSECOND; p += 32 * GST_MSECOND) {
      /* the spike: sent 1.0-1.1 s, 350 ms more; in order, so later
       * packets wait for it */
      GstClockTime extra = p >= S && p < S + 100 * GST_MSECOND ?
          350 * GST_MSECOND : 0;
      last_recv = MAX (p + owd + extra, last_recv + 1);
      sent_received (c, &r[n++], seq++, p, last_recv);
    }
    fb.packets = r;
    fb.n_packets = n;
    rc_controller_on_feedback (c, &fb, last_recv);
    d = rc_controller_get_decision (c);
    ramped = g_str_equal (d.phase, "startup-ramp");
    if (!ramped)
      fail_unless (d.media_bps == 300000, "at %" GST_TIME_FORMAT ": %"
          G_GUINT64_FORMAT " bit/s (%s)", GST_TIME_ARGS (t), d.media_bps,
          d.reason);
  }
  fail_unless (ramped, "never left the low phase");
  rc_controller_free (c);
}

GST_END_TEST;

/* Heavy-tailed delay noise (Pareto, shape 1.5, up to 500 ms, late packets
 * holding those behind): a spike releases its packets at once, and R^MAX
 * read over a window of the receiver's clock could start far above the
 * link (5 Mbit/s on 2 Mbit/s on one seed, with 40 % loss for the rest of
 * the run). R^MAX is bounded by the rate the same packets were sent at,
 * which holds only while the ramp has not overshot: on seed 3 the ramp
 * reached 4.5 Mbit/s, a hold released 40 packets at once, and the newest
 * 250 ms of the receiver's clock, which began at one of the held packets,
 * read 2.77 Mbit/s (1.39x; seed 19 2.49). A 400 ms window held every seed
 * within 1.07x but cost 3-5 points on noisy-hspa, cellular-trace and 5.1
 * (rcsim, 6 seeds). The window now starts at a packet that was not held
 * (no more delayed than the median of those after it; ramp_rmax in
 * rc-urcp-startup.c): seeds 3 and 19 read 1.96 and 1.99 Mbit/s.
 *
 * That test is itself a draw from the noise, so the statement is over 100
 * seeds: none reads more than 1.25x the link, and at most 5 of them more
 * than 1.05x. This test took seeds 1-20 and "none above 1.05x" until the
 * delay base was taken per packet size (rc-owd.c, 2026-11-29), which moved
 * which packet passes the median test on 14 seeds of 200 (seed 12: 0.99 ->
 * 1.075x). Over seeds 1-100 the readings above 1.05x were 2 before that
 * change (highest 1.075x) and are 4 (highest 1.104x); over 1-200, 5 and 7,
 * the highest 1.189x in both. */
GST_START_TEST (test_urcp_rmax_heavy_tail)
{
  guint seed, high = 0;
  gdouble top = 0;

  for (seed = 1; seed <= 100; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("2000000", HEAVY_TAIL_NOISE, NULL,
            15), seed, &scen);
    gdouble rmax;

    run_until_steady (sim, 15 * S);
    rmax = stat_uint (sim, 0, "capacity");
    GST_INFO ("seed %u: R^MAX %.0f", seed, rmax);
    if (is_steady (sim, 0)) {
      fail_unless (rmax <= 1.25 * 2e6, "seed %u: R^MAX %.0f on a 2 Mbit/s "
          "link", seed, rmax);
      high += rmax > 1.05 * 2e6;
      top = MAX (top, rmax);
    }
    sim_done (sim, scen);
  }
  GST_INFO ("%u of 100 seeds above 1.05x, the highest %.3fx", high,
      top / 2e6);
  fail_unless (high <= 5, "%u seeds of 100 read R^MAX above 1.05x the link",
      high);
}

GST_END_TEST;

/* The capacity steps up 8x (0.5 -> 4 Mbit/s at 20 s). Eq. 18 climbs at
 * about R^MAX / (M x loop delay) per second and probes raise R^MAX 10 % per
 * window, which took the rate from 0.37 to 0.96 Mbit/s in 40 s. A probe the
 * rate followed with no standing queue now starts the probe ramp: within
 * 15 s of the step the flow gets 75 % of the new capacity. */
GST_START_TEST (test_urcp_probe_ramp)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("500000",
          "schedule=0:500000,20:4000000", NULL, 45), 1, &scen);
  SimWindow w;

  sim_run_until (sim, 45 * S);
  w = window (sim, 0, 35 * S, 45 * S);
  GST_INFO ("0.5 -> 4 Mbit/s at 20 s: goodput 35-45 s %.0f bit/s, qdelay "
      "%.1f ms, %u probe ramp(s)", w.goodput_bps, w.qdelay_mean_ms,
      stat_uint (sim, 0, "probe-ramps"));
  fail_unless (w.goodput_bps >= 0.75 * 4e6, "goodput %.0f", w.goodput_bps);
  fail_unless (stat_uint (sim, 0, "probe-ramps") >= 1);
  sim_done (sim, scen);
}

GST_END_TEST;

/* RFC 8867 sec. 5.1's rise (1 -> 2.5 Mbit/s, here at 30 s), on both ways
 * a link delivers, seeds 1-3: the probe ramp starts within 5 s of the rise,
 * and the flow gets 70 % of the new capacity 5-10 s after it (74-79 %). Until
 * 2026-11-28 the ramp came 7-8 s after the rise, in rcsim and on the kernel
 * bench alike: 2.5-3 s for the standing-queue gate's 5 s window and the
 * bottleneck reading to let go of the old link, and a probe's 5 s window
 * before it was kept (rc-urcp-probe.c). */
GST_START_TEST (test_urcp_room_after_capacity_rise)
{
  static const gchar *deliveries[] = { "end-of-slot", "start-of-slot" };
  guint seed, d;

  for (d = 0; d < G_N_ELEMENTS (deliveries); d++) {
    for (seed = 1; seed <= 3; seed++) {
      SimScenario *scen;
      Sim *sim = capacity_rise (2500000, deliveries[d], seed, &scen);
      guint before, after;
      SimWindow w;

      sim_run_until (sim, 30 * S);
      before = stat_uint (sim, 0, "probe-ramps");
      sim_run_until (sim, 35 * S);
      after = stat_uint (sim, 0, "probe-ramps");
      sim_run_until (sim, 40 * S);
      w = window (sim, 0, 35 * S, 40 * S);
      GST_INFO ("%s, seed %u: %u probe ramp(s) 30-35 s, goodput 35-40 s "
          "%.0f bit/s", deliveries[d], seed, after - before, w.goodput_bps);
      fail_unless (after > before, "%s, seed %u: no probe ramp within 5 s",
          deliveries[d], seed);
      fail_unless (w.goodput_bps >= 0.7 * 2.5e6, "%s, seed %u: goodput %.0f",
          deliveries[d], seed, w.goodput_bps);
      sim_done (sim, scen);
    }
  }
}

GST_END_TEST;

/* RFC 8867 sec. 5.3's schedules (forward 2 -> 1 -> 0.5 -> 2 Mbit/s at
 * 20/40/60 s, the reverse link carrying the forward flow's feedback at
 * 0.8 Mbit/s from 35 to 70 s, a media flow each way): after the forward
 * capacity returns to 2 Mbit/s, the forward flow probes up to it. Its
 * delta^MIN is the floor (one packet at an R^MAX of ~0.5 Mbit/s, ~17 ms)
 * while delta^AVE is ~1 ms on the emptied link; the probe judged against
 * the unfloored delta^AVE failed on a 0.4 ms rise of the envelope, and the
 * doubled waits held the flow at ~0.66 Mbit/s to the end (three seeds). */
GST_START_TEST (test_urcp_probe_after_capacity_returns)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (g_strdup ("[scenario]\nduration=100\n"
            "[link]\ncapacity=2000000\nqueue-limit-ms=300\noverhead=28\n"
            "schedule=0:2000000,20:1000000,40:500000,60:2000000\n"
            "[reverse]\ncapacity=2000000\nqueue-limit-ms=300\n"
            "overhead=28\nschedule=0:2000000,35:800000,70:2000000\n"
            "[flow:fwd]\nkind=media\ndirection=forward\ndelay-ms=50\n"
            "[flow:rev]\nkind=media\ndirection=reverse\ndelay-ms=50\n"),
        seed, &scen);
    SimWindow w;

    sim_run_until (sim, 100 * S);
    w = window (sim, 0, 70 * S, 100 * S);
    GST_INFO ("seed %u: forward goodput 70-100 s %.0f bit/s, %u probes, "
        "%u failed", seed, w.goodput_bps, stat_uint (sim, 0, "probes"),
        stat_uint (sim, 0, "probes-failed"));
    fail_unless (w.goodput_bps >= 0.6 * 2e6, "seed %u: goodput %.0f", seed,
        w.goodput_bps);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* Capacity halves at 60 s: the rate follows it down without standing loss
 * or a standing queue. */
GST_START_TEST (test_urcp_capacity_halves)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("1000000",
          "schedule=0:1000000,60:500000", NULL, 120), 1, &scen);
  SimWindow w;
  gdouble loss;

  sim_run_until (sim, 120 * S);
  w = window (sim, 0, 90 * S, 120 * S);
  loss = w.sent_pkts ? (gdouble) w.lost_pkts / w.sent_pkts : 0;
  GST_INFO ("after halving: goodput %.0f, qdelay %.1f ms, loss %.4f",
      w.goodput_bps, w.qdelay_mean_ms, loss);
  fail_unless (w.goodput_bps >= 0.85 * 0.5e6, "goodput %.0f", w.goodput_bps);
  /* One packet takes 20 ms to serialise at 500 kbit/s. */
  fail_unless (w.qdelay_mean_ms < 50.0, "mean queueing delay %.1f ms",
      w.qdelay_mean_ms);
  fail_unless (loss < 0.01, "loss %.4f", loss);
  sim_done (sim, scen);
}

GST_END_TEST;

/* Capacity 4 -> 1 Mbit/s after a probe ramp took R^MAX to the 4 Mbit/s:
 * the overload test (rc-urcp-overload.c) brings R^MAX down to what the
 * path delivers, and the queue does not swing through its 300 ms limit
 * for the 20 s at 1 Mbit/s (without the test: ~150 ms mean, 25-300 ms
 * every ~4 s). A 2 s outage on a constant link is no fall: no cut. */
GST_START_TEST (test_urcp_capacity_falls)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("500000",
          "schedule=0:500000,20:4000000,60:1000000", NULL, 80), 1, &scen);
  SimWindow w;
  guint rmax;

  sim_run_until (sim, 59 * S);
  rmax = stat_uint (sim, 0, "capacity");
  fail_unless (rmax > 3000000, "R^MAX %u before the fall", rmax);
  fail_unless_equals_int (stat_uint (sim, 0, "overload-cuts"), 0);
  sim_run_until (sim, 80 * S);
  rmax = stat_uint (sim, 0, "capacity");
  w = window (sim, 0, 65 * S, 80 * S);
  GST_INFO ("4 -> 1 Mbit/s: R^MAX %u, %u cut(s); 65-80 s goodput %.0f, "
      "qdelay %.1f ms", rmax, stat_uint (sim, 0, "overload-cuts"),
      w.goodput_bps, w.qdelay_mean_ms);
  fail_unless (stat_uint (sim, 0, "overload-cuts") >= 1);
  fail_unless (rmax < 1500000, "R^MAX %u after the fall", rmax);
  fail_unless (w.qdelay_mean_ms < 50.0, "mean queueing delay %.1f ms",
      w.qdelay_mean_ms);
  fail_unless (w.goodput_bps >= 0.6e6, "goodput %.0f", w.goodput_bps);
  sim_done (sim, scen);

  sim = sim_from_text (clean_link ("1000000",
          "schedule=0:1000000,30:0,32:1000000", NULL, 45), 1, &scen);
  sim_run_until (sim, 45 * S);
  fail_unless_equals_int (stat_uint (sim, 0, "overload-cuts"), 0);
  sim_done (sim, scen);
}

GST_END_TEST;

/* A 4x fall after a full link (RFC 8867 5.1's 2.5 -> 0.6 Mbit/s): one cut
 * to what the path delivers now, the queue drained, and no second cut by
 * eq. 18 on top of it. Before (rcsim, 5.1 seed 1): a first cut to the
 * overload span's mean (1.08 Mbit/s, half of it from before the fall), a
 * second one 0.8 s later, the 300 ms queue full for 2 s in between; with
 * the first cut right, eq. 18 then read the draining queue and took the
 * rate to 0.42 of the capacity, where it climbed back for 20 s. */
GST_START_TEST (test_urcp_capacity_fall_drains)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("2500000",
            "schedule=0:2500000,30:600000", NULL, 45), seed, &scen);
    SimWindow fall, after;
    gdouble loss, low = G_MAXDOUBLE;
    GstClockTime t;
    guint rmax;

    sim_run_until (sim, 30 * S);
    fail_unless_equals_int (stat_uint (sim, 0, "overload-cuts"), 0);
    for (t = 30 * S; t < 40 * S; t += 100 * GST_MSECOND) {
      sim_run_until (sim, t);
      /* past the drain (at most 3 s) */
      if (t >= 34 * S)
        low = MIN (low, (gdouble) rc_sender_get_decision (sim_flow_sender
                (sim, 0)).media_bps);
    }
    rmax = stat_uint (sim, 0, "capacity");
    sim_run_until (sim, 45 * S);
    fall = window (sim, 0, 30 * S, 35 * S);
    after = window (sim, 0, 35 * S, 45 * S);
    loss = fall.sent_pkts ? (gdouble) fall.lost_pkts / fall.sent_pkts : 0;
    GST_INFO ("seed %u: %u cut(s), R^MAX %u; 30-35 s loss %.3f; lowest "
        "target 34-40 s %.0f; 35-45 s goodput %.0f, qdelay %.1f ms", seed,
        stat_uint (sim, 0, "overload-cuts"), rmax, loss, low,
        after.goodput_bps, after.qdelay_mean_ms);
    fail_unless_equals_int (stat_uint (sim, 0, "overload-cuts"), 1);
    /* 0.6 Mbit/s carries about 0.585 of RTP */
    fail_unless (rmax > 0.5e6 && rmax < 0.66e6, "seed %u: R^MAX %u", seed,
        rmax);
    fail_unless (low >= 0.75 * 0.6e6, "seed %u: target down to %.0f", seed,
        low);
    fail_unless (after.goodput_bps >= 0.75 * 0.6e6, "seed %u: goodput %.0f",
        seed, after.goodput_bps);
    fail_unless (after.qdelay_mean_ms < 50.0, "seed %u: qdelay %.1f ms",
        seed, after.qdelay_mean_ms);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* The overload cut reads what the path gives now from the newest arrivals
 * behind the standing queue (rc-urcp-overload.c): their bytes but the first
 * to arrive's over their receive span. The capacity halves from 2 to
 * 1 Mbit/s at 20 s (the calibrated vp8enc model, 28 bytes of overhead a
 * packet), seeds 1-8: where the test cut, R^MAX after it is within 2.5 % of
 * the link's RTP rate (0.996-0.999). Counting all but the newest instead,
 * seed 3 read 1.035, and RFC 8867 5.3's seeds 0.95 where 0.99 was right.
 * Seed 5 sends below 0.83 of the old capacity when it falls, so what
 * arrives stays above 0.6 of what is sent and no cut is made, as before
 * the fix; at least 6 of the 8 must cut. */
GST_START_TEST (test_urcp_overload_reads_the_link)
{
  guint seed, cut = 0;

  for (seed = 1; seed <= 8; seed++) {
    SimScenario *scen;
    Sim *sim = path_50ms (30, g_strdup ("capacity=2000000\n"
            "schedule=0:2000000,20:1000000"), "", seed, &scen);
    gdouble rtp = 1e6 * 1200 / 1228, rmax;
    guint cuts;

    sim_run_until (sim, 30 * S);
    rmax = stat_uint (sim, 0, "capacity");
    cuts = stat_uint (sim, 0, "overload-cuts");
    GST_INFO ("seed %u: %u cut(s), R^MAX %.0f (%.3f of the RTP rate)", seed,
        cuts, rmax, rmax / rtp);
    fail_unless (cuts <= 1, "seed %u: %u cuts", seed, cuts);
    if (cuts == 1) {
      fail_unless (fabs (rmax / rtp - 1) <= 0.025, "seed %u: R^MAX %.0f",
          seed, rmax);
      cut++;
    }
    sim_done (sim, scen);
  }
  fail_unless (cut >= 6, "%u of 8 seeds cut", cut);
}

GST_END_TEST;

/* Heavy-tailed delay noise holds a packet and those behind it in order, then
 * releases them together: over the overload test's span the receive span
 * grows by the hold while the same bytes arrive. Read whole, one hold of
 * 0.4 s looked like a path delivering 0.24 of what was sent, and R^MAX was
 * cut to that (rcsim, 2 Mbit/s with Pareto noise for 120 s: seeds 3 and
 * 9-14, and 16, cut once each). The capacity never changes here, so there
 * must be no cut. */
GST_START_TEST (test_urcp_no_overload_cut_on_noise_hold)
{
  guint seed;

  for (seed = 9; seed <= 14; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("2000000", HEAVY_TAIL_NOISE, NULL,
            120), seed, &scen);

    sim_run_until (sim, 120 * S);
    GST_INFO ("seed %u: %u overload cut(s), R^MAX %u", seed,
        stat_uint (sim, 0, "overload-cuts"), stat_uint (sim, 0, "capacity"));
    fail_unless_equals_int (stat_uint (sim, 0, "overload-cuts"), 0);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

static gdouble
jain (const gdouble * x, guint n)
{
  gdouble s = 0, s2 = 0;
  guint i;
  for (i = 0; i < n; i++) {
    s += x[i];
    s2 += x[i] * x[i];
  }
  return s2 > 0 ? s * s / (n * s2) : 0;
}

/* Two flows (`flow_keys` plus count=2) that start together on a clean
 * `capacity` link for 120 s: the Jain index of their goodput over the
 * second minute, and their total in *total. */
static gdouble
two_flows_jain_seed (const gchar * capacity, const gchar * flow_keys,
    guint32 seed, gdouble * total)
{
  SimScenario *scen;
  gchar *keys = g_strdup_printf ("%s\ncount=2", flow_keys);
  Sim *sim = sim_from_text (clean_link (capacity, NULL, keys, 120), seed,
      &scen);
  SimWindow w0, w1;
  gdouble x[2], j;

  g_free (keys);
  sim_run_until (sim, 120 * S);
  w0 = window (sim, 0, 60 * S, 120 * S);
  w1 = window (sim, 1, 60 * S, 120 * S);
  x[0] = w0.goodput_bps;
  x[1] = w1.goodput_bps;
  j = jain (x, 2);
  GST_INFO ("two flows (%s): %.0f + %.0f bit/s, Jain %.3f, qdelay "
      "%.1f/%.1f ms", flow_keys, x[0], x[1], j, w0.qdelay_mean_ms,
      w1.qdelay_mean_ms);
  *total = x[0] + x[1];
  sim_done (sim, scen);
  return j;
}

static gdouble
two_flows_jain (const gchar * capacity, const gchar * flow_keys,
    gdouble * total)
{
  return two_flows_jain_seed (capacity, flow_keys, 1, total);
}

/* RFC 8867 5.5's shape (five flows of 10, 25, 50, 100 and 150 ms one way
 * joining 10 s apart on 4 Mbit/s): Jain over the last 150 s of 300. Each
 * joiner's start-up ramp ends where the shared queue starts to grow, and
 * its R^MAX is its share at that moment; with eq. 16's beta term
 * unbounded the flows already there answer that queue at eq. 18's slowest
 * (EXCESS_MAX_DELTAS in rc-urcp.c): over seeds 1-6 the index was 0.958
 * on average here, 0.907 on seed 4 (the 50 ms flow at 1.3 Mbit/s, the
 * others at 0.63-0.71); with the bound 0.988, none under 0.977. With the
 * pacer near the frames' delivery rate (PACE_NEAR_DELIVERY), which paces
 * a flow while it is alone and so moves what each joiner meets, 0.980
 * (0.967-0.992); over seeds 1-24 the index went 0.991 -> 0.986. */
GST_START_TEST (test_urcp_rtt_fairness)
{
  static const guint delay_ms[] = { 10, 25, 50, 100, 150 };
  gdouble sum = 0;
  guint seed;

  for (seed = 1; seed <= 6; seed++) {
    GString *text = g_string_new ("[scenario]\nduration=300\n[link]\n"
        "capacity=4000000\nqueue-limit-ms=300\n");
    SimScenario *scen;
    Sim *sim;
    gdouble x[G_N_ELEMENTS (delay_ms)], j;
    guint i;

    for (i = 0; i < G_N_ELEMENTS (delay_ms); i++)
      g_string_append_printf (text, "[flow:video-%u]\nkind=media\n"
          "encoder=synthetic\nstart=%u\ndelay-ms=%u\n", i, 10 * i,
          delay_ms[i]);
    sim = sim_from_text (g_string_free (text, FALSE), seed, &scen);
    sim_run_until (sim, 300 * S);
    for (i = 0; i < G_N_ELEMENTS (delay_ms); i++)
      x[i] = window (sim, i, 150 * S, 300 * S).goodput_bps;
    j = jain (x, G_N_ELEMENTS (delay_ms));
    GST_INFO ("seed %u: %.0f / %.0f / %.0f / %.0f / %.0f bit/s, Jain %.3f",
        seed, x[0], x[1], x[2], x[3], x[4], j);
    fail_unless (j >= 0.95, "seed %u: Jain index %.3f", seed, j);
    sum += j;
    sim_done (sim, scen);
  }
  fail_unless (sum / 6 >= 0.975, "mean Jain index %.3f", sum / 6);
}

GST_END_TEST;

/* Two URCP flows starting together share the link fairly (sec. VI-D). */
GST_START_TEST (test_urcp_two_flows_fair)
{
  gdouble total, j = two_flows_jain ("1000000", "", &total);

  fail_unless (j >= 0.95, "Jain index %.3f", j);
  fail_unless (total >= 0.85e6, "total %.0f", total);
}

GST_END_TEST;

/* UM with fixed k0 operates where eq. 18 balances: delta = k0 / R (sec.
 * V-A), whatever the capacity. */
GST_START_TEST (test_um_operating_point)
{
  static const gchar *caps[] = { "500000", "1000000" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link (caps[i], NULL, "controller=um",
            120), 1, &scen);
    SimWindow w;
    gdouble delta_ms = 0, expect_ms;
    guint k;

    sim_run_until (sim, 60 * S);
    /* UM with k2 = 0.6 swings slowly around its operating point, so the
     * balance holds on average: average delta^AVE over twelve back-to-back
     * 5 s windows (the window's span) against the mean rate. */
    for (k = 1; k <= 12; k++) {
      sim_run_until (sim, (60 + 5 * k) * S);
      delta_ms += stat_ms (sim, 0, "queueing-delay") / 12;
    }
    w = window (sim, 0, 60 * S, 120 * S);
    expect_ms = 16000.0 / w.target_mean_bps * 1000;
    GST_INFO ("UM at %s bit/s capacity: R %.0f, delta %.1f ms, k0/R %.1f ms",
        caps[i], w.target_mean_bps, delta_ms, expect_ms);
    fail_unless (fabs (delta_ms - expect_ms) <= 0.35 * expect_ms,
        "delta %.1f ms vs k0/R %.1f ms", delta_ms, expect_ms);
    fail_unless_equals_float (stat_double (sim, 0, "operating-point"), 16000.0);
    fail_unless_equals_float (stat_double (sim, 0, "gain"), 0.6);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* UM's parameters are its own: set through the scenario key um-operating-point they
 * move the operating point (delta = k0 / R). */
GST_START_TEST (test_um_parameter)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("1000000", NULL,
          "controller=um\num-operating-point=8000", 60), 1, &scen);

  sim_run_until (sim, 30 * S);
  fail_unless_equals_float (stat_double (sim, 0, "operating-point"), 8000.0);
  sim_done (sim, scen);
}

GST_END_TEST;

/* vtum (seed 001 sec. V-A): the congestion threshold comes from the delay
 * noise of the congestion-free set (the start-rate phase): on a clean link
 * it is the floor, on a link with delay noise it is above most of the
 * noise (the set's 95 % quantile, times 1.2). Exponential noise with a
 * 20 ms mean has its 95 % quantile at 60 ms. */
GST_START_TEST (test_vtum_threshold_from_noise)
{
  static const gchar *noise[] = { "",
    "noise-distribution=exponential\nnoise-mean=20000000\n"
        "noise-max=300000000\nnoise-interval=10000000"
  };
  gdouble thr[2];
  guint i;

  for (i = 0; i < 2; i++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("2000000", noise[i],
            "controller=vtum", 20), 1, &scen);

    run_until_steady (sim, 20 * S);
    fail_unless (is_steady (sim, 0));
    thr[i] = stat_ms (sim, 0, "delay-threshold");
    GST_INFO ("%s link: threshold %.1f ms (noise quantile %.1f ms, %u "
        "packets)", i ? "noisy" : "clean", thr[i],
        stat_ms (sim, 0, "noise-threshold"), stat_uint (sim, 0,
            "noise-samples"));
    /* learning-time 2 s at 300 kbit/s */
    fail_unless (stat_uint (sim, 0, "noise-samples") >= 40);
    sim_done (sim, scen);
  }
  fail_unless (thr[0] == 10.0, "clean threshold %.1f ms, not the floor",
      thr[0]);
  fail_unless (thr[1] >= 40.0 && thr[1] <= 150.0, "noisy threshold %.1f ms",
      thr[1]);
}

GST_END_TEST;

/* vtum holds the queueing delay at its threshold whatever the rate (sec.
 * V-B: "the delay does not increase when the transmission rate drops"),
 * where UM's delay is k0 / R (test_um_operating_point): at 0.5 and
 * 1 Mbit/s with the threshold set to 40 ms (threshold-min), the mean
 * queueing delay is about 40 ms on both, and the link stays full. */
GST_START_TEST (test_vtum_delay_at_threshold)
{
  static const gchar *caps[] = { "500000", "1000000" };
  gdouble qd[2];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link (caps[i], NULL,
            "controller=vtum\nvtum-threshold-min=0.040", 120), 1, &scen);
    SimWindow w;
    gdouble cap = g_ascii_strtod (caps[i], NULL);

    sim_run_until (sim, 120 * S);
    w = window (sim, 0, 60 * S, 120 * S);
    qd[i] = w.qdelay_mean_ms;
    GST_INFO ("vtum at %s bit/s: goodput %.0f, qdelay %.1f ms, threshold "
        "%.1f ms", caps[i], w.goodput_bps, qd[i], stat_ms (sim, 0,
            "delay-threshold"));
    fail_unless_equals_float (stat_ms (sim, 0, "delay-threshold"), 40.0);
    fail_unless (w.goodput_bps >= 0.9 * cap, "goodput %.0f of %.0f",
        w.goodput_bps, cap);
    fail_unless (qd[i] >= 20.0 && qd[i] <= 60.0, "qdelay %.1f ms", qd[i]);
    sim_done (sim, scen);
  }
  /* UM's would double from 1 to 0.5 Mbit/s. */
  fail_unless (qd[0] <= 1.4 * qd[1], "qdelay %.1f ms at 0.5 Mbit/s, %.1f ms "
      "at 1 Mbit/s", qd[0], qd[1]);
}

GST_END_TEST;

/* A buffer shallower than the threshold never shows delay above it: the
 * loss guard (ours, rc-vtum.c) must stop the rise. 2 Mbit/s with a 15 ms
 * buffer (six packets): without the guard vtum lost a third of its packets
 * (1 % with it). */
GST_START_TEST (test_vtum_loss_guard)
{
  SimScenario *scen;
  gchar *text = clean_link ("2000000", NULL, "controller=vtum", 90);
  gchar *shallow, **parts;
  Sim *sim;
  SimWindow w;
  GstStructure *st;
  guint64 votes = 0;

  /* clean_link's queue is 300 ms: make it 15 ms */
  parts = g_strsplit (text, "queue-limit-ms=300", -1);
  shallow = g_strjoinv ("queue-limit-ms=15", parts);
  g_strfreev (parts);
  g_free (text);
  sim = sim_from_text (shallow, 1, &scen);
  sim_run_until (sim, 90 * S);
  w = window (sim, 0, 30 * S, 90 * S);
  st = rc_sender_get_stats (sim_flow_sender (sim, 0), sim_get_time (sim));
  fail_unless (gst_structure_get_uint64 (st, "loss-votes", &votes));
  gst_structure_free (st);
  GST_INFO ("15 ms buffer: goodput %.0f, %" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT " packets lost, %" G_GUINT64_FORMAT " loss votes",
      w.goodput_bps, w.lost_pkts, w.sent_pkts, votes);
  fail_unless (votes > 0);
  fail_unless (w.lost_pkts <= 0.02 * w.sent_pkts, "%" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " packets lost", w.lost_pkts, w.sent_pkts);
  fail_unless (w.goodput_bps >= 0.6e6, "goodput %.0f", w.goodput_bps);
  sim_done (sim, scen);
}

GST_END_TEST;

/* eq. 2 is AIMD: two vtum flows that start together and learn the same
 * threshold converge to equal shares (sec. V-B, Fig. 22). Which flow's
 * start-up draws the better threshold is a lottery, so over three seeds;
 * and 120 s is not enough for every draw to even out. This test took seed
 * 1 alone until the session gathered the frames of a feedback packet into
 * one message; seeds 1-3 gave Jain 0.99, 0.70, 0.90 (mean 0.863) with
 * per-frame messages, and give 0.91, 0.99, 0.94 (mean 0.946) gathered. */
GST_START_TEST (test_vtum_two_flows_fair)
{
  gdouble total, j = 0, sum = 0;
  guint32 seed;

  for (seed = 1; seed <= 3; seed++) {
    j += two_flows_jain_seed ("2000000", "controller=vtum", seed, &total) / 3;
    sum += total / 3;
  }
  fail_unless (j >= 0.93, "mean Jain index %.3f", j);
  fail_unless (sum >= 0.8 * 2e6, "mean total %.0f", sum);
}

GST_END_TEST;

/* An application-limited source must not inflate R^MAX, and the target may
 * not run away above 1.5x what is actually sent or known. */
GST_START_TEST (test_urcp_app_limited)
{
  SimScenario *scen;
  Sim *sim = sim_from_text (clean_link ("2000000", NULL,
          "app-limit=0:400000", 120), 1, &scen);
  gdouble rmax_before, rmax_after, target, sent;

  sim_run_until (sim, 60 * S);
  rmax_before = stat_uint (sim, 0, "capacity");
  sim_run_until (sim, 120 * S);
  rmax_after = stat_uint (sim, 0, "capacity");
  target = rc_sender_get_decision (sim_flow_sender (sim, 0)).media_bps;
  sent = stat_uint (sim, 0, "send-bitrate");
  GST_INFO ("app-limited at 400 kbit/s on 2 Mbit/s: R^MAX %.0f -> %.0f, "
      "target %.0f, sending %.0f", rmax_before, rmax_after, target, sent);
  /* R^MAX reflects what was sent (400k, frames vary, read over a 250 ms
   * window), never the 2 Mbit/s the encoder could not fill, and it did not
   * grow during the 60 s of idling. */
  fail_unless (rmax_after <= 1.25 * 400e3, "R^MAX %.0f", rmax_after);
  fail_unless_equals_float (rmax_after, rmax_before);
  /* The cap (URCP_APP_LIMIT_FACTOR) applies the send rate of the last
   * feedback; the session's meter, read now, is up to a per cent off it
   * (frames vary; 416.6 against 417.8 kbit/s). */
  fail_unless (target <= 1.02 * 1.5 * MAX (rmax_after, MAX (sent, 400e3)),
      "target %.0f ran away", target);
  sim_done (sim, scen);
}

GST_END_TEST;

/* R^MAX learned far too low (the source was application-limited at
 * 300 kbit/s through start-up and for 20 s after) is re-probed once the
 * source can send more: eq. 14 alone only raises R^MAX when R^AVE exceeds
 * it, which the operating point of eq. 19 never reaches. Checked over five
 * seeds (frame sizes and 5 ms mean delay noise differ), 60-120 s. */
GST_START_TEST (test_urcp_rmax_reprobe)
{
  guint seed;

  for (seed = 1; seed <= 5; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("1000000",
            "noise-distribution=uniform\nnoise-mean=5000000",
            "app-limit=0:300000,20:0", 120), seed, &scen);
    gdouble rmax0;
    SimWindow w;

    sim_run_until (sim, 20 * S);
    rmax0 = stat_uint (sim, 0, "capacity");
    sim_run_until (sim, 120 * S);
    w = window (sim, 0, 60 * S, 120 * S);
    GST_INFO ("seed %u: R^MAX %.0f at 20 s, %u at 120 s after %u probes; "
        "goodput %.0f bit/s, qdelay %.1f ms", seed, rmax0,
        stat_uint (sim, 0, "capacity"), stat_uint (sim, 0, "probes"),
        w.goodput_bps, w.qdelay_mean_ms);
    fail_unless (rmax0 < 0.6e6, "seed %u: R^MAX %.0f was not learned low",
        seed, rmax0);
    fail_unless (stat_uint (sim, 0, "capacity") > 0.8e6,
        "seed %u: R^MAX %u not re-probed", seed,
        stat_uint (sim, 0, "capacity"));
    fail_unless (w.qdelay_mean_ms < 40.0, "seed %u: mean queueing delay "
        "%.1f ms", seed, w.qdelay_mean_ms);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* The bottleneck's rate from packet pairs (rc-urcp-probe.c), the bound of
 * R^MAX's probes, reads the link: on 1 Mbit/s without propagation delay
 * (the kernel bench's set-up; 28 bytes of overhead on the ~1200-byte
 * packets, so 0.977 Mbit/s of RTP) within 1.5 % of its RTP rate, every 5 s
 * from 30 to 120 s, on three seeds; on 4 Mbit/s with the rate capped at
 * 1 Mbit/s (pairs sent at 1.5x the rate do not queue) at least 1.2 R^MAX,
 * so that it bounds no probe. That the bound keeps a probe from being kept
 * above the link is seen on the kernel bench only: in rcsim no probe is
 * kept above it with or without the bound (docs/results.md). */
static void
check_bottleneck_reading (const gchar * capacity, const gchar * flow_keys,
    gdouble lo, gdouble hi, gboolean above_rmax)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (g_strdup_printf ("[scenario]\nduration=120\n"
            "[link]\ncapacity=%s\nqueue-limit-ms=300\noverhead=28\n"
            "[flow:video]\nkind=media\n%s\n", capacity, flow_keys), seed,
        &scen);
    guint t, n = 0;

    for (t = 30; t <= 120; t += 5) {
      gdouble cap, rmax;

      sim_run_until (sim, t * S);
      cap = stat_uint (sim, 0, "bottleneck-rate");
      rmax = stat_uint (sim, 0, "capacity");
      if (cap == 0)
        continue;
      n++;
      GST_INFO ("%s: seed %u, %u s: bottleneck %.0f, R^MAX %.0f", capacity,
          seed, t, cap, rmax);
      if (above_rmax)
        fail_unless (cap >= 1.2 * rmax, "seed %u, %u s: bottleneck %.0f "
            "bit/s bounds R^MAX %.0f", seed, t, cap, rmax);
      else
        fail_unless (cap >= lo && cap <= hi, "seed %u, %u s: bottleneck "
            "%.0f bit/s", seed, t, cap);
    }
    fail_unless (n >= 15, "seed %u: the bottleneck was read %u times of 19",
        seed, n);
    sim_done (sim, scen);
  }
}

GST_START_TEST (test_urcp_bottleneck_reading)
{
  const gdouble rtp = 1e6 * 1200 / 1228;

  check_bottleneck_reading ("1000000", "", 0.985 * rtp, 1.015 * rtp, FALSE);
  check_bottleneck_reading ("4000000", "max-bitrate=1000000", 0, 0, TRUE);
}

GST_END_TEST;

/* Receiver clock 100 ppm fast (a cheap crystal's error): over 5 minutes
 * that is 30 ms of phantom delay if OWD_min were all-time. URCP keeps the
 * link full without a standing queue, on three seeds. The skew estimate
 * sees a fast clock (its mean over the last minute above 50 ppm), but how
 * exactly it reads 100 ppm under load is not asserted here: on this path it
 * wanders between about 30 and 250 ppm within a minute on every seed (the
 * "phantom skew" of docs/urcpsender.md, known limits); its accuracy on
 * clean input is test_owd_drift in test_primitives.c. */
GST_START_TEST (test_urcp_clock_drift)
{
  guint seed;

  for (seed = 1; seed <= 3; seed++) {
    SimScenario *scen;
    Sim *sim = sim_from_text (clean_link ("1000000", NULL,
            "clock-skew-ppm=100", 300), seed, &scen);
    SimWindow w;
    gdouble skew = 0;
    guint k;

    sim_run_until (sim, 240 * S);
    for (k = 1; k <= 12; k++) {
      sim_run_until (sim, (240 + 5 * k) * S);
      skew += stat_double (sim, 0, "skew-ppm") / 12;
    }
    w = window (sim, 0, 240 * S, 300 * S);
    GST_INFO ("seed %u, 100 ppm drift: goodput %.0f, qdelay %.1f ms, skew "
        "estimate %.1f ppm (mean of the last minute)", seed, w.goodput_bps,
        w.qdelay_mean_ms, skew);
    fail_unless (w.goodput_bps >= 0.85e6, "seed %u: goodput %.0f", seed,
        w.goodput_bps);
    fail_unless (w.qdelay_mean_ms < 30.0, "seed %u: qdelay %.1f ms", seed,
        w.qdelay_mean_ms);
    fail_unless (skew > 50, "seed %u: skew %.1f ppm", seed, skew);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

/* A controller `name` starting at 300 kbit/s, up to `max_bps` (0: the
 * default). */
static RcController *
controller_at_300k (const gchar * name, guint64 max_bps)
{
  const RcControllerInfo *info = rc_controller_lookup (name);
  RcRateLimits limits;
  GError *err = NULL;
  RcController *c;

  fail_unless (info != NULL);
  rc_rate_limits_init (&limits);
  limits.start_bps = 300000;
  if (max_bps)
    limits.max_bps = max_bps;
  c = rc_controller_new (info, &limits, NULL, &err);
  fail_unless (c != NULL, "%s", err ? err->message : "?");
  return c;
}

/* A stock rtpbin receiver's first TWCC feedback comes with its first RTCP
 * packet, 1.25-3.75 s after the start, and reports every packet sent until
 * then. URCP's low-rate phase counts those packets' send times: 2 s of
 * them end it at that first feedback. UM keeps the paper's phase, timed
 * from the first feedback. */
static const gchar *
after_late_first_feedback (const gchar * name)
{
  RcController *c = controller_at_300k (name, 0);
  RcPacketResult r[80];
  RcFeedback fb = { 0 };
  const gchar *phase;
  guint i, n = 0;

  /* 300 kbit/s of 1200-byte packets for 2 s: 31 a second */
  for (i = 0; i < 62; i++) {
    GstClockTime sent = i * GST_SECOND / 31;
    /* 20 ms, and +-1 ms of noise */
    sent_received (c, &r[n++], i, sent,
        sent + 20 * GST_MSECOND + (i % 3) * GST_MSECOND);
  }
  fb.packets = r;
  fb.n_packets = n;
  rc_controller_on_feedback (c, &fb, 2050 * GST_MSECOND);
  phase = rc_controller_get_decision (c).phase;
  rc_controller_free (c);
  return phase;
}

GST_START_TEST (test_urcp_low_phase_by_send_time)
{
  /* the decision's phase names are static strings */
  fail_unless_equals_string (after_late_first_feedback ("urcp"),
      "startup-ramp");
  fail_unless_equals_string (after_late_first_feedback ("um"),
      "startup-low");
}

GST_END_TEST;

/* The same low phase as after_late_first_feedback, reported as a stock
 * rtpbin receiver reports it: in two transport-wide messages at the same
 * instant. The first already spans the phase, which ends there; the second
 * holds packets sent before the ramp began, the newest ten of them behind
 * a 200 ms delay spike. The ramp must not end on them. */
GST_START_TEST (test_urcp_ramp_judges_its_own_packets)
{
  RcController *c = controller_at_300k ("urcp", 0);
  RcPacketResult r[62];
  RcFeedback fb = { 0 };
  guint i;

  for (i = 0; i < 62; i++) {
    GstClockTime sent = i * GST_SECOND / 31;
    sent_received (c, &r[i], i, sent, sent + 20 * GST_MSECOND +
        (i % 3) * GST_MSECOND + (i >= 52 ? 200 * GST_MSECOND : 0));
  }
  fb.packets = r;
  fb.n_packets = 41;
  rc_controller_on_feedback (c, &fb, 2300 * GST_MSECOND);
  fail_unless_equals_string (rc_controller_get_decision (c).phase,
      "startup-ramp");
  fb.packets = r + 41;
  fb.n_packets = 21;
  rc_controller_on_feedback (c, &fb, 2300 * GST_MSECOND);
  fail_unless_equals_string (rc_controller_get_decision (c).phase,
      "startup-ramp");
  rc_controller_free (c);
}

GST_END_TEST;

/* Sends `rate` bit/s of 1200-byte packets from *t to `until` (indices
 * from *seq on) and hands URCP an RTCP receiver report at `until`: no
 * loss, a 20 ms RTT. */
static void
rr_only_period (RcController * c, gdouble rate, GstClockTime * t,
    GstClockTime until, guint64 * seq)
{
  GstClockTime gap = (GstClockTime) (1200 * 8 / rate * GST_SECOND);
  RcReportBlock b = { 0 };
  RcFeedback fb = { 0 };

  for (; *t < until; *t += gap)
    rc_controller_on_packet_sent (c, (*seq)++, 1200, FALSE, *t);
  *t = until;
  b.kind = RC_REPORT_RR;
  b.rr.rtt = 20 * GST_MSECOND;
  b.rr.jitter = GST_CLOCK_TIME_NONE;
  fb.reports = &b;
  fb.n_reports = 1;
  rc_controller_on_feedback (c, &fb, until);
}

/* The session caps what is sent (a recovery after missing feedback, or
 * the circuit breaker's floor) while URCP's start-up ramp runs on RTCP
 * receiver reports: the rate not sent is no encoder failing to fill it,
 * so the ramp holds rather than ending "application-limited" at 85 % of
 * its rate (which broke the 90 %-in-5 s promise after a breaker reset in
 * pipelines/urcp_pipeline); it doubles again once the cap is gone. */
GST_START_TEST (test_urcp_ramp_held_while_capped)
{
  RcController *c = controller_at_300k ("urcp", 0);
  GstClockTime t = 0;
  guint64 seq = 0;
  gdouble before;
  guint i;

  /* The low phase ends at the third report. */
  for (i = 1; i <= 3; i++)
    rr_only_period (c, 300000, &t, i * 1500 * GST_MSECOND, &seq);
  fail_unless_equals_string (rc_controller_get_decision (c).phase,
      "startup-ramp");
  before = rc_controller_get_decision (c).media_bps;

  /* Capped at 50 kbit/s for 4 s, reports every second. */
  rc_controller_set_capped (c, TRUE, t);
  for (i = 1; i <= 4; i++)
    rr_only_period (c, 50000, &t, t + GST_SECOND, &seq);
  fail_unless_equals_string (rc_controller_get_decision (c).phase,
      "startup-ramp");
  fail_unless_equals_uint64 (rc_controller_get_decision (c).media_bps,
      (guint64) before);

  /* The cap is gone and the encoder follows: the ramp goes on. */
  rc_controller_set_capped (c, FALSE, t);
  for (i = 1; i <= 2; i++)
    rr_only_period (c, rc_controller_get_decision (c).media_bps, &t,
        t + GST_SECOND, &seq);
  fail_unless (rc_controller_get_decision (c).media_bps >= 2 * before,
      "the ramp did not go on: %" G_GUINT64_FORMAT " after %.0f",
      rc_controller_get_decision (c).media_bps, before);
  rc_controller_free (c);
}

GST_END_TEST;

/* URCP in a closed loop with a path whose delay differs between frames:
 * each 66 ms the receiver reports two frames, the older one's packets 30 ms
 * later than the newer one's (as when a delay spike drains). `split`: each
 * frame is a message of its own, both handed over at the same instant, as
 * a stock rtpbin receiver sends them in one RTCP packet; else one message.
 * Returns the mean rate asked for over 40-60 s. */
static gdouble
rate_with_feedback (gboolean split)
{
  RcController *c = controller_at_300k ("urcp", 1000000);
  RcPacketResult r[64];
  RcFeedback fb = { 0 };
  GstClockTime t;
  guint64 seq = 0;
  gdouble sum = 0;
  guint n_sum = 0;

  for (t = 0; t < 60 * GST_SECOND; t += 66 * GST_MSECOND) {
    gdouble rate = (gdouble) rc_controller_get_decision (c).media_bps;
    guint per_frame = MAX (1, (guint) (rate * 0.033 / 9600 + 0.5));
    guint f, k, n = 0, first_of_newer = 0;
    GstClockTime now = t + 66 * GST_MSECOND + 60 * GST_MSECOND;

    per_frame = MIN (per_frame, G_N_ELEMENTS (r) / 2);
    for (f = 0; f < 2; f++) {
      if (f == 1)
        first_of_newer = n;
      for (k = 0; k < per_frame; k++) {
        GstClockTime sent = t + f * 33 * GST_MSECOND + k * GST_MSECOND;
        sent_received (c, &r[n], seq++, sent, sent + 20 * GST_MSECOND +
            (f == 0 ? 30 * GST_MSECOND : 0));
        n++;
      }
    }
    fb.packets = r;
    fb.n_packets = split ? first_of_newer : n;
    rc_controller_on_feedback (c, &fb, now);
    if (split) {
      fb.packets = r + first_of_newer;
      fb.n_packets = n - first_of_newer;
      rc_controller_on_feedback (c, &fb, now);
    }
    rc_controller_on_tick (c, now);
    if (t >= 40 * GST_SECOND) {
      sum += (gdouble) rc_controller_get_decision (c).media_bps;
      n_sum++;
    }
  }
  fail_unless_equals_string (rc_controller_get_decision (c).phase, "steady");
  rc_controller_free (c);
  return sum / n_sum;
}

/* Eq. 18 integrates the delay over the send time the packets cover, the
 * mean delta^AVE holds: how the receiver cuts its feedback into messages
 * does not move the balance. Timed by the messages' arrivals, the older
 * frame of each pair got the whole gap (its 30 ms as the delay of the
 * path) and the rate settled at under a third (252 against 882 kbit/s). */
GST_START_TEST (test_urcp_feedback_split)
{
  gdouble one = rate_with_feedback (FALSE);
  gdouble split = rate_with_feedback (TRUE);

  GST_INFO ("one message per cycle: %.0f bit/s; one per frame: %.0f bit/s",
      one, split);
  fail_unless (one > 800000, "one message: %.0f bit/s", one);
  fail_unless (fabs (split - one) < 0.05 * one, "%.0f vs %.0f bit/s", split,
      one);
}

GST_END_TEST;

static gboolean
stat_bool (Sim * sim, guint flow, const gchar * field)
{
  GstStructure *s = rc_sender_get_stats (sim_flow_sender (sim, flow),
      sim_get_time (sim));
  gboolean v = FALSE;
  fail_unless (gst_structure_get_boolean (s, field, &v), "no field %s",
      field);
  gst_structure_free (s);
  return v;
}

/* A CUBIC flow joins the media flow at 20 s on 2 Mbit/s (300 ms drop-tail
 * queue) and leaves at 80 s (rc-urcp-compete.c). While it runs, URCP must
 * see it and hold at least 60 % of its fair share (Table I alone kept
 * about 26 %, its queue read as congestion); once it has left, URCP must
 * be back on the delay (Table I) with the queue near empty. Under
 * HSPA-like Pareto noise and random loss, with no other flow, it must
 * never take noise for such a flow. */
GST_START_TEST (test_urcp_tcp_competitor)
{
  SimScenario *scen;
  Sim *sim;
  SimWindow w, tcp;
  guint32 seed;

  sim = sim_from_text (g_strdup ("[scenario]\nduration=120\n"
          "[link]\ncapacity=2000000\nqueue-limit-ms=300\n"
          "[flow:video]\nkind=media\nencoder=synthetic\ndelay-ms=50\n"
          "[flow:tcp]\nkind=tcp\ncc=cubic\nstart=20\nstop=80\n"
          "delay-ms=50\n"), 1, &scen);
  sim_run_until (sim, 15 * S);
  fail_if (stat_bool (sim, 0, "competing"));
  sim_run_until (sim, 80 * S);
  w = window (sim, 0, 40 * S, 80 * S);
  tcp = window (sim, 1, 40 * S, 80 * S);
  GST_INFO ("with CUBIC: %.0f bit/s against its %.0f of 2 Mbit/s, "
      "competing %d, %u episode(s)", w.goodput_bps, tcp.goodput_bps,
      stat_bool (sim, 0, "competing"),
      stat_uint (sim, 0, "competitor-episodes"));
  fail_unless (stat_bool (sim, 0, "competing"));
  /* about its fair share (1 Mbit/s), and not much more: it grows as
   * CUBIC does while competing */
  fail_unless (w.goodput_bps >= 0.8 * 1e6, "goodput %.0f", w.goodput_bps);
  fail_unless (tcp.goodput_bps >= 0.7 * 1e6, "TCP's goodput %.0f",
      tcp.goodput_bps);
  sim_run_until (sim, 120 * S);
  w = window (sim, 0, 100 * S, 120 * S);
  GST_INFO ("after CUBIC left: %.0f bit/s, qdelay %.1f ms, competing %d",
      w.goodput_bps, w.qdelay_mean_ms, stat_bool (sim, 0, "competing"));
  fail_if (stat_bool (sim, 0, "competing"));
  fail_unless (w.qdelay_mean_ms < 30.0, "qdelay %.1f ms", w.qdelay_mean_ms);
  sim_done (sim, scen);

  for (seed = 1; seed <= 3; seed++) {
    sim = sim_from_text (clean_link ("1550000", "noise-distribution=pareto\n"
            "noise-mean=18000000\nnoise-shape=2.5\nnoise-max=350000000\n"
            "noise-interval=20000000\nloss-rate=0.0037", NULL, 120), seed,
        &scen);
    sim_run_until (sim, 120 * S);
    fail_unless_equals_int (stat_uint (sim, 0, "competitor-episodes"), 0);
    sim_done (sim, scen);
  }
}

GST_END_TEST;

static Suite *
urcp_suite (void)
{
  Suite *s = suite_create ("urcp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_urcp_clean_link_converges);
  tcase_add_test (tc, test_urcp_serialized_link_probes);
  tcase_add_test (tc, test_urcp_no_probe_ramp_on_lagging_rave);
  tcase_add_test (tc, test_urcp_no_probe_ramp_at_the_bottleneck);
  tcase_add_test (tc, test_urcp_startup_estimates);
  tcase_add_test (tc, test_urcp_start_above_capacity);
  tcase_add_test (tc, test_urcp_ramp_at_max_bitrate);
  tcase_add_test (tc, test_urcp_low_phase_noise_spike);
  tcase_add_test (tc, test_urcp_rmax_heavy_tail);
  tcase_add_test (tc, test_urcp_probe_ramp);
  tcase_add_test (tc, test_urcp_probe_ramp_ceiling);
  tcase_add_test (tc, test_urcp_self_queue);
  tcase_add_test (tc, test_urcp_self_queue_above_capacity);
  tcase_add_test (tc, test_urcp_pacer_capped_above_capacity);
  tcase_add_test (tc, test_urcp_pacer_near_delivery);
  tcase_add_test (tc, test_urcp_room_after_capacity_rise);
  tcase_add_test (tc, test_urcp_probe_after_capacity_returns);
  tcase_add_test (tc, test_urcp_capacity_halves);
  tcase_add_test (tc, test_urcp_capacity_falls);
  tcase_add_test (tc, test_urcp_capacity_fall_drains);
  tcase_add_test (tc, test_urcp_overload_reads_the_link);
  tcase_add_test (tc, test_urcp_no_overload_cut_on_noise_hold);
  tcase_add_test (tc, test_urcp_two_flows_fair);
  tcase_add_test (tc, test_urcp_rtt_fairness);
  tcase_add_test (tc, test_um_operating_point);
  tcase_add_test (tc, test_um_parameter);
  tcase_add_test (tc, test_vtum_threshold_from_noise);
  tcase_add_test (tc, test_vtum_delay_at_threshold);
  tcase_add_test (tc, test_vtum_loss_guard);
  tcase_add_test (tc, test_vtum_two_flows_fair);
  tcase_add_test (tc, test_urcp_app_limited);
  tcase_add_test (tc, test_urcp_clock_drift);
  tcase_add_test (tc, test_urcp_rmax_reprobe);
  tcase_add_test (tc, test_urcp_bottleneck_reading);
  tcase_add_test (tc, test_urcp_low_phase_by_send_time);
  tcase_add_test (tc, test_urcp_tcp_competitor);
  tcase_add_test (tc, test_urcp_ramp_judges_its_own_packets);
  tcase_add_test (tc, test_urcp_ramp_held_while_capped);
  tcase_add_test (tc, test_urcp_feedback_split);
  return s;
}

GST_CHECK_MAIN (urcp);
