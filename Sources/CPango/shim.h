// pango over cairo (SplashDraw): the theme's texts laid out and drawn in its font (HarfBuzz shaping,
// FreeType rasterising, fontconfig finding the font: as Plymouth's label plugin does). fontconfig
// also takes a theme's own font file (font_file) as an application font.
#include <sys/syscall.h>
#include <unistd.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <fontconfig/fontconfig.h>

// An anonymous memory file (memfd_create, close-on-exec: MFD_CLOEXEC is 1) for a font's bytes.
// Through syscall(2): glibc declares memfd_create only with _GNU_SOURCE, which would change
// the system headers' definitions in this module against Glibc's and the other C modules'.
static inline int splash_font_memfd(void) { return (int)syscall(SYS_memfd_create, "splashd-font", 1u); }
