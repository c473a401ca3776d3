// librsvg (SplashDraw): SVG logos drawn onto cairo at any size.
#include <librsvg/rsvg.h>
