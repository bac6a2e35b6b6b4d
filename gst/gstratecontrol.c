/* Plugin entry: registers the rate-control elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

GST_ELEMENT_REGISTER_DECLARE (urcpsender);
GST_ELEMENT_REGISTER_DECLARE (fecenc);
GST_ELEMENT_REGISTER_DECLARE (fecdec);
GST_ELEMENT_REGISTER_DECLARE (linksim);
GST_ELEMENT_REGISTER_DECLARE (ratecontrolbin);
GST_ELEMENT_REGISTER_DECLARE (ratecontrolrecv);
GST_ELEMENT_REGISTER_DECLARE (rcreceiver);

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = GST_ELEMENT_REGISTER (urcpsender, plugin);

  ok &= GST_ELEMENT_REGISTER (fecenc, plugin);
  ok &= GST_ELEMENT_REGISTER (fecdec, plugin);
  ok &= GST_ELEMENT_REGISTER (linksim, plugin);
  ok &= GST_ELEMENT_REGISTER (ratecontrolbin, plugin);
  ok &= GST_ELEMENT_REGISTER (ratecontrolrecv, plugin);
  ok &= GST_ELEMENT_REGISTER (rcreceiver, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, ratecontrol,
    "Real-time video rate control over RTP (URCP and friends)",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
