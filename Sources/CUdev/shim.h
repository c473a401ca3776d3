// libudev (SplashKMS): the drm subsystem's hotplug events, after udev has handled them, so an
// output connected while the splash is up shows it (libudev1 is on every Debian system).
#include <libudev.h>
