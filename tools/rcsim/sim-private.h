/* rcsim internals shared by sim.c (engine, media, CBR) and tcp.c. */
#ifndef __RCSIM_SIM_PRIVATE_H__
#define __RCSIM_SIM_PRIVATE_H__

#include "sim.h"
#include "rc-pacer.h"

G_BEGIN_DECLS

/* TCP segment: 1448 payload bytes + IPv4 (20) + TCP with the timestamp
 * option (32) = 1500, the Ethernet MTU; a pure ACK is the 52 header bytes. */
#define SIM_TCP_MSS 1448
#define SIM_TCP_HDR 52

typedef struct _SimFlow SimFlow;

typedef enum
{
  SIM_PKT_MEDIA = 0,
  SIM_PKT_FEC,
  SIM_PKT_FEEDBACK,
  SIM_PKT_TCP_DATA,
  SIM_PKT_TCP_ACK,
  SIM_PKT_CBR,
  SIM_PKT_RTCP_SR,              /* media sender's report, data direction */
  SIM_PKT_RTCP_RR,              /* media receiver's report, return direction */
} SimPktKind;

/* One packet in flight: the `data` pointer the links carry. */
typedef struct
{
  SimPktKind kind;
  SimFlow *flow;
  guint wire_size;              /* bytes the link serializes */
  guint rtp_size;               /* media: RTP bytes (controller, pacer) */
  guint64 seq;                  /* media: transport seq; TCP data: segment;
                                 * TCP ACK: cumulative ack; CBR: index */
  GstClockTime queued;          /* media: entered the pacer */
  GstClockTime sent;            /* entered the link */
  GstClockTime ts_echo;         /* TCP ACK: send time of the segment acked */
  guint64 sack;                 /* TCP ACK: the out-of-order segment that
                                 * triggered it (RFC 2018 sec. 4: the first
                                 * SACK block), G_MAXUINT64 if none */
  guint32 gen;                  /* TCP: transfer (connection) generation */
  guint64 frame;                /* media: the frame slot it belongs to */
  GstBuffer *rtp;               /* media and FEC with an fecenc in the
                                 * flow: the RTP packet itself */
  guint64 rtp_index;            /* media with `rtp`: its MediaState.rtp_log
                                 * index */
  GArray *results;              /* feedback: RcPacketResult */
  GstBuffer *rtcp;              /* RTCP RR: the compound packet */
} SimPkt;

typedef void (*SimEventFunc) (Sim * sim, gpointer obj, guint64 arg);

typedef struct _MediaState MediaState;
typedef struct _TcpState TcpState;

struct _SimFlow
{
  guint id;
  const SimFlowConfig *cfg;
  Sim *sim;
  RcLink *data_link, *ret_link;
  guint data_idx, ret_idx;
  guint data_overhead, ret_overhead;    /* IP/UDP bytes per RTP/RTCP packet */
  GRand *rand;
  GstClockTime start, stop;     /* stop clipped to the run */

  MediaState *media;
  TcpState *tcp;
  guint64 cbr_next;
};

/* Engine services. */
void sim_schedule (Sim * sim, GstClockTime t, SimEventFunc fn, gpointer obj,
    guint64 arg);
GstClockTime sim_now (Sim * sim);
/* Hands a data packet (media, FEC, TCP data, CBR) to the flow's data link,
 * or a control packet (feedback, ACK) to its return link, and tells the
 * metrics. FALSE: tail-dropped and freed. */
gboolean sim_send (Sim * sim, SimPkt * p);
SimPkt *sim_pkt_new (SimFlow * f, SimPktKind kind, guint wire_size);
void sim_pkt_free (SimPkt * p);
/* Uniform (0, 1], never 0, for inverse-transform sampling. */
gdouble sim_rand_open (GRand * r);

/* tcp.c */
void sim_tcp_init (Sim * sim, SimFlow * f);
void sim_tcp_free (SimFlow * f);
/* TRUE: the segment arrived for the first time (it counts as goodput). */
gboolean sim_tcp_on_data (Sim * sim, SimFlow * f, SimPkt * p);
void sim_tcp_on_ack (Sim * sim, SimFlow * f, SimPkt * p);
gboolean sim_tcp_active (SimFlow * f, GstClockTime t);
void sim_tcp_sample (SimFlow * f, SimMetricsSample * s);

G_END_DECLS
#endif
