// pango over cairo (SplashDraw): the theme's texts laid out and drawn in its font (HarfBuzz shaping,
// FreeType rasterising, fontconfig finding the font: as Plymouth's label plugin does). fontconfig
// also takes a theme's own font file (font_file) as an application font.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <fontconfig/fontconfig.h>

// An anonymous memory file (memfd_create, close-on-exec) for a font's bytes.
static inline int splash_font_memfd(void) { return memfd_create("splashd-font", MFD_CLOEXEC); }
