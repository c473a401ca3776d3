// pango over cairo (SplashDraw): the theme's texts laid out and drawn in its font (HarfBuzz shaping,
// FreeType rasterising, fontconfig finding the font: as Plymouth's label plugin does).
#include <pango/pangocairo.h>
