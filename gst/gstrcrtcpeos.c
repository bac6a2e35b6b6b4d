/* The EOS guard a sending rtpbin 1.22 needs (docs/fec.md, "EOS and rtpbin
 * 1.22"). Glue: pad probes on rtpbin's send pads; used by ratecontrolbin
 * and by the pipeline tests (compiled into them). See gstrcrtcpeos.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/rtp/gstrtcpbuffer.h>
#include "gstrcrtcpeos.h"

/* rtpsession pushes EOS on send_rtcp_src after a BYE only if, at that
 * moment, GST_PAD_IS_EOS (send_rtp_sink); GstPad sets that flag when the
 * event function has returned, and the event function is where the BYE is
 * scheduled (for fewer than 50 members, at once: the RTCP thread wakes and
 * may send it first). Once the BYE is out, its sources are gone and no
 * later report asks again. Fixed in GStreamer 1.24 (gst-plugins-good
 * commit 2e4fd325e7, "rtpsession: fix a race condition during the EOS
 * event"). */
struct _GstRcRtcpEosGuard
{
  GMutex lock;
  GstPad *rtp_src, *rtcp_src;
  gulong rtp_probe, rtcp_probe;
  /* SSRC -> TRUE while it has sent RTP since its last BYE */
  GHashTable *ssrcs;
  gboolean rtp_eos;             /* EOS passed send_rtp_src */
  gboolean bye_seen;            /* a BYE passed send_rtcp_src */
  gboolean byes_done;           /* ... and then every SSRC said BYE */
  gboolean forwarded;           /* our EOS was taken downstream */
  gboolean rtcp_eos;            /* rtpsession's EOS passed send_rtcp_src */
};

static void
guard_saw_rtp (GstRcRtcpEosGuard * g, GstBuffer * buf)
{
  guint8 h[12];

  if (gst_buffer_extract (buf, 0, h, sizeof (h)) != sizeof (h) ||
      (h[0] & 0xc0) != 0x80)
    return;
  g_hash_table_insert (g->ssrcs, GUINT_TO_POINTER (GST_READ_UINT32_BE (h +
              8)), GINT_TO_POINTER (TRUE));
}

static gboolean
guard_saw_rtp_list (GstBuffer ** buf, guint idx, gpointer g)
{
  guard_saw_rtp (g, *buf);
  return TRUE;
}

static GstPadProbeReturn
guard_rtp_probe (GstPad * pad, GstPadProbeInfo * info, GstRcRtcpEosGuard * g)
{
  g_mutex_lock (&g->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    guard_saw_rtp (g, GST_PAD_PROBE_INFO_BUFFER (info));
  else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        guard_saw_rtp_list, g);
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g->rtp_eos = TRUE;
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_STREAM_START) {
    /* A new stream (the pipeline played again): a new EOS to guard. */
    g_hash_table_remove_all (g->ssrcs);
    g->rtp_eos = g->bye_seen = g->byes_done = g->forwarded = g->rtcp_eos =
        FALSE;
  }
  g_mutex_unlock (&g->lock);
  return GST_PAD_PROBE_OK;
}

/* Called when the push of the last BYE has returned (the BYE is out), on
 * the RTCP thread. An EOS pushed on the pad itself would wait for this
 * probe to end: it goes to the peer. */
static GstPadProbeReturn
guard_idle (GstPad * pad, GstPadProbeInfo * info, GstRcRtcpEosGuard * g)
{
  GstPad *peer = gst_pad_get_peer (pad);
  gboolean ok = FALSE;

  if (peer) {
    ok = gst_pad_send_event (peer, gst_event_new_eos ());
    gst_object_unref (peer);
  }
  g_mutex_lock (&g->lock);
  g->forwarded = ok;
  g_mutex_unlock (&g->lock);
  return GST_PAD_PROBE_REMOVE;
}

/* Marks the SSRCs of the BYE packets in `buf`. */
static void
guard_saw_rtcp (GstRcRtcpEosGuard * g, GstBuffer * buf)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  gboolean more;

  if (!gst_rtcp_buffer_validate_reduced (buf) ||
      !gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return;
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &p); more;
      more = gst_rtcp_packet_move_to_next (&p)) {
    guint i, n;

    if (gst_rtcp_packet_get_type (&p) != GST_RTCP_TYPE_BYE)
      continue;
    g->bye_seen = TRUE;
    n = gst_rtcp_packet_bye_get_ssrc_count (&p);
    for (i = 0; i < n; i++) {
      gpointer key = GUINT_TO_POINTER (gst_rtcp_packet_bye_get_nth_ssrc (&p,
              i));
      if (g_hash_table_contains (g->ssrcs, key))
        g_hash_table_insert (g->ssrcs, key, GINT_TO_POINTER (FALSE));
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
}

static gboolean
guard_all_bye (GstRcRtcpEosGuard * g)
{
  GHashTableIter it;
  gpointer sending;

  g_hash_table_iter_init (&it, g->ssrcs);
  while (g_hash_table_iter_next (&it, NULL, &sending))
    if (GPOINTER_TO_INT (sending))
      return FALSE;
  /* EOS before any RTP left (a slow encoder): rtpsession still says BYE
   * for its internal source and can still lose the EOS. */
  return g_hash_table_size (g->ssrcs) > 0 || g->bye_seen;
}

static GstPadProbeReturn
guard_rtcp_probe (GstPad * pad, GstPadProbeInfo * info, GstRcRtcpEosGuard * g)
{
  gboolean last_bye = FALSE;

  g_mutex_lock (&g->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    guard_saw_rtcp (g, GST_PAD_PROBE_INFO_BUFFER (info));
    /* rtpsession's own test: every internal source has sent its BYE. */
    if (g->rtp_eos && !g->byes_done && guard_all_bye (g))
      last_bye = g->byes_done = TRUE;
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_EOS) {
    g->rtcp_eos = TRUE;
  }
  g_mutex_unlock (&g->lock);
  /* The pad is pushing this BYE, so the idle probe runs once it is out. */
  if (last_bye)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_IDLE,
        (GstPadProbeCallback) guard_idle, g, NULL);
  return GST_PAD_PROBE_OK;
}

GstRcRtcpEosGuard *
gst_rc_rtcp_eos_guard_new (GstElement * rtpbin, guint session)
{
  GstRcRtcpEosGuard *g = g_new0 (GstRcRtcpEosGuard, 1);
  gchar *name;

  g_mutex_init (&g->lock);
  g->ssrcs = g_hash_table_new (NULL, NULL);
  name = g_strdup_printf ("send_rtp_src_%u", session);
  g->rtp_src = gst_element_get_static_pad (rtpbin, name);
  g_free (name);
  name = g_strdup_printf ("send_rtcp_src_%u", session);
  g->rtcp_src = gst_element_get_static_pad (rtpbin, name);
  g_free (name);
  if (!g->rtp_src || !g->rtcp_src) {
    gst_clear_object (&g->rtp_src);
    gst_clear_object (&g->rtcp_src);
    g_hash_table_unref (g->ssrcs);
    g_mutex_clear (&g->lock);
    g_free (g);
    return NULL;
  }
  g->rtp_probe = gst_pad_add_probe (g->rtp_src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) guard_rtp_probe, g, NULL);
  g->rtcp_probe = gst_pad_add_probe (g->rtcp_src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) guard_rtcp_probe, g, NULL);
  return g;
}

gchar *
gst_rc_rtcp_eos_guard_describe (GstRcRtcpEosGuard * g)
{
  gchar *s;

  g_mutex_lock (&g->lock);
  s = g_strdup_printf ("EOS through send_rtp_src: %s; then every SSRC's "
      "BYE (%u SSRCs): %s; guard's EOS taken: %s; rtpsession's EOS through "
      "send_rtcp_src: %s", g->rtp_eos ? "yes" : "no",
      g_hash_table_size (g->ssrcs), g->byes_done ? "yes" : "no",
      g->forwarded ? "yes" : "no", g->rtcp_eos ? "yes" : "no");
  g_mutex_unlock (&g->lock);
  return s;
}

void
gst_rc_rtcp_eos_guard_free (GstRcRtcpEosGuard * g)
{
  gst_pad_remove_probe (g->rtp_src, g->rtp_probe);
  gst_pad_remove_probe (g->rtcp_src, g->rtcp_probe);
  gst_object_unref (g->rtp_src);
  gst_object_unref (g->rtcp_src);
  g_hash_table_unref (g->ssrcs);
  g_mutex_clear (&g->lock);
  g_free (g);
}
