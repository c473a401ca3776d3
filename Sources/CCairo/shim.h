// cairo, the 2D drawing library (SplashDraw): the splash is drawn into its image surfaces, in
// memory for the tests and the benchmark, on a DRM buffer's memory for splashd-kms. PNG logos are
// read by cairo's own PNG reader.
#include <cairo.h>
