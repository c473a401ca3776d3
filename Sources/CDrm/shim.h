// libdrm (SplashKMS): the kernel's mode setting — connectors, modes, CRTCs, dumb buffers, page
// flips on the vertical blank, DRM master.
#include <xf86drm.h>
#include <xf86drmMode.h>
