// libinput (SplashKMS): touch screens, pointers and keyboards, so the error view's Retry and
// Continue offline work with no compositor. Its path backend takes the /dev/input nodes.
#include <libinput.h>
#include <linux/input-event-codes.h>
