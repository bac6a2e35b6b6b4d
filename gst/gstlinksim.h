#ifndef __GST_LINK_SIM_H__
#define __GST_LINK_SIM_H__

#include <gst/gst.h>
#include "rc-link-keys.h"

G_BEGIN_DECLS

#define GST_TYPE_LINK_SIM (gst_link_sim_get_type ())
G_DECLARE_FINAL_TYPE (GstLinkSim, gst_link_sim, GST, LINK_SIM, GstElement);

/* The sink_%u pads: one flow each, with its own propagation delay. */
#define GST_TYPE_LINK_SIM_PAD (gst_link_sim_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstLinkSimPad, gst_link_sim_pad, GST, LINK_SIM_PAD,
    GstPad);

#define GST_TYPE_LINK_SIM_NOISE (gst_link_sim_noise_get_type ())
GType gst_link_sim_noise_get_type (void);
#define GST_TYPE_LINK_SIM_LOSS (gst_link_sim_loss_get_type ())
GType gst_link_sim_loss_get_type (void);
#define GST_TYPE_LINK_SIM_DELIVERY (gst_link_sim_delivery_get_type ())
GType gst_link_sim_delivery_get_type (void);

typedef struct _GstLinkSimFlow GstLinkSimFlow;

struct _GstLinkSimPad
{
  GstPad parent;
  gint64 delay;                 /* ns; -1: the element's delay (pad lock) */
};

struct _GstLinkSim
{
  GstElement parent;

  /* properties (object lock) */
  RcLinkConfig settings;        /* the link key table's properties except
                                 * the strings (never owns steps, a trace
                                 * or loss episodes) */
  gchar *text[RC_LINK_N_KEYS];  /* the STRING rows' values (schedule,
                                 * trace-file, loss-episodes); NULL: unset */
  gboolean timestamp;

  /* running state (object lock) */
  RcLink *link;
  GPtrArray *flows;             /* GstLinkSimFlow, one per sink_N/src_N pair */
  GstLinkSimFlow *by_core[RC_LINK_MAX_FLOWS];
  gboolean running;             /* the task may run */
  gboolean playing;             /* the clock runs: packets may leave */
  GstClockTime paused_now;      /* running time while not playing */
  GstClockID clock_id;          /* the task's wait, if waiting */
  GstClockTime wait_time;
  GCond cond;                   /* wakes the task when not on the clock */

  GstTask *task;
  GRecMutex task_lock;
};

G_END_DECLS
#endif
