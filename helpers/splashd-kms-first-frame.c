/*
 * splashd-kms-first-frame: the first frame from power-on in milliseconds, then the renderer.
 *
 *   splashd-kms-first-frame RENDERER [ARGUMENT...]
 *   splashd-kms-first-frame --condition [PID-FILE]
 *
 * The first form shows the first-frame cache's pictures (the theme's still view that splashd-kms
 * drew last time, per output size and turn) on the outputs its index names, then becomes the
 * renderer: execv(RENDERER, [RENDERER, ARGUMENT...]) in the same process, with the DRM device
 * still open and the framebuffers on screen. The renderer adopts the device
 * (SPLASHD_KMS_FIRST_FRAMES="FD FB,FB...") and lets the framebuffers go once its own frames
 * replaced them. Whatever is missing or stale (no cache, an index written for other arguments or
 * another theme, another output, a torn file, no device) costs only the shortcut: the renderer
 * starts as it would have, and the reason is one line on standard error.
 *
 * It is C on the C library alone (the kernel's DRM interface through ioctl, no libdrm), so it
 * starts before the Swift renderer's 47 libraries are mapped: docs/renderer-kms.md,
 * "From power-on".
 *
 * The second form is the unit's ExecCondition: exit 1 (the unit is skipped) while the renderer
 * the initramfs started carries on (its PID file names a live process whose command line starts
 * with '@' and whose name starts with "splashd-kms"), else 0; as `splashd-kms condition`, without
 * the Swift runtime's start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <endian.h>

#include <drm.h>
#include <drm_mode.h>

#define INDEX_NAME "first-frames"
#define INDEX_MAGIC "splashd-kms first frames 1"
#define HEADER_LENGTH 48
#define MAX_OUTPUTS 8
#define MAX_SIDE 8192

static const char *program = "splashd-kms-first-frame";

/* One line on standard error (the journal, under the unit). Control characters (a path's, an
 * output's name as the index has them) are written escaped, \xNN: one line stays one line. */
static void say(const char *format, ...) {
    char line[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    fprintf(stderr, "%s: ", program);
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
}

/* FNV-1a as FirstFrameCache counts it: eight bytes (a little-endian word) a step, then the tail a
 * byte a step. A run of calls equals one over the whole when every call but the last is given a
 * multiple of eight bytes. */
static uint64_t fnv(const void *bytes, size_t length, uint64_t hash) {
    const unsigned char *p = bytes;
    size_t words = length / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t word;
        memcpy(&word, p + i * 8, 8);
        hash = (hash ^ le64toh(word)) * 0x100000001b3ULL;
    }
    for (size_t i = words * 8; i < length; i++) hash = (hash ^ p[i]) * 0x100000001b3ULL;
    return hash;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

/* The renderer's arguments as FirstFrameIndex.argumentsHash makes it: the FNV-1a above of each
 * one's bytes then a NUL, all in a row. */
static uint64_t arguments_hash(char *const *arguments, int count) {
    size_t length = 0;
    for (int i = 0; i < count; i++) length += strlen(arguments[i]) + 1;
    char *all = malloc(length + 1);
    if (!all) return 0;
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        size_t one = strlen(arguments[i]) + 1;
        memcpy(all + at, arguments[i], one);
        at += one;
    }
    uint64_t hash = fnv(all, length, FNV_OFFSET);
    free(all);
    return hash;
}

/* The value of --NAME VALUE or --NAME=VALUE among the renderer's arguments, or NULL. */
static const char *option(char *const *arguments, int count, const char *name) {
    size_t length = strlen(name);
    for (int i = 0; i < count; i++) {
        if (strncmp(arguments[i], name, length) != 0) continue;
        if (arguments[i][length] == '=') return arguments[i] + length + 1;
        if (arguments[i][length] == 0 && i + 1 < count) return arguments[i + 1];
    }
    return NULL;
}

static int drm(int fd, unsigned long request, void *argument) {
    int result;
    do result = ioctl(fd, request, argument);
    while (result == -1 && (errno == EINTR || errno == EAGAIN));
    return result;
}

static double since_start(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    double boot = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    char stat[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return -1;
    stat[n] = 0;
    /* Field 22 (start time in ticks), counted after the name's closing parenthesis. */
    char *p = strrchr(stat, ')');
    if (!p) return -1;
    for (int field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
    if (!p) return -1;
    return boot - strtod(p + 1, NULL) / (double)sysconf(_SC_CLK_TCK);
}

/* --- the index ------------------------------------------------------------------------------ */

struct output {
    char name[64];
    uint32_t width, height;
    char file[128];
};

struct index {
    uint64_t arguments;
    int has_arguments;
    struct output outputs[MAX_OUTPUTS];
    int count;
};

static const char *parse_index(char *text, const char *path, struct index *index, char *why, size_t why_length);

/* `text` as a number in `base` (10 or 16) of at most `max`, into *value: 1, or 0 when it is not
 * one. Digits only: no sign, space, prefix or anything after them, and no wrapping (strtoul took
 * 4294967360 and, cast to 32 bits, made it 64). */
static int number_at_most(const char *text, unsigned base, uint64_t max, uint64_t *value) {
    uint64_t result = 0;
    if (!*text) return 0;
    for (const char *p = text; *p; p++) {
        unsigned digit;
        if (*p >= '0' && *p <= '9') digit = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') digit = (unsigned)(*p - 'a') + 10;
        else return 0;
        if (result > (max - digit) / base) return 0;
        result = result * base + digit;
    }
    *value = result;
    return 1;
}

/* Copies `text` into `field` (of `size` bytes, its NUL included): 1, or 0 when it does not fit
 * whole (a name cut short would name another output or another file). */
static int copy_whole(char *field, size_t size, const char *text) {
    size_t length = strlen(text);
    if (length >= size) return 0;
    memcpy(field, text, length + 1);
    return 1;
}

/* Reads CACHE/first-frames: NULL when it answers, else why not (written into `why`). */
static const char *read_index(const char *directory, struct index *index, char *why, size_t why_length) {
    char path[4096];
    snprintf(path, sizeof path, "%s/" INDEX_NAME, directory);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_length, "no index (%s: %s)", path, strerror(errno));
        return why;
    }
    struct stat st;
    static char text[65536];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= (off_t)sizeof text) {
        close(fd);
        snprintf(why, why_length, "%s is not an index", path);
        return why;
    }
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length != st.st_size) {
        snprintf(why, why_length, "%s cannot be read whole", path);
        return why;
    }
    text[length] = 0;
    return parse_index(text, path, index, why, why_length);
}

/* The index's text (NUL-terminated, changed in place): NULL when it answers, else why not. The
 * theme files it names are looked at (stat, access); nothing else is touched. */
static const char *parse_index(char *text, const char *path, struct index *index, char *why, size_t why_length) {
    memset(index, 0, sizeof *index);
    char *line = text, *next;
    int number = 0;
    for (; *line; line = next) {
        next = strchr(line, '\n');
        if (!next) {
            snprintf(why, why_length, "%s is cut short", path);
            return why;
        }
        *next++ = 0;
        number++;
        if (number == 1) {
            if (strcmp(line, INDEX_MAGIC) != 0) {
                snprintf(why, why_length, "%s is of another format", path);
                return why;
            }
            continue;
        }
        char *fields[6];
        int count = 0;
        for (char *f = line; f && count < 6; count++) {
            fields[count] = f;
            f = strchr(f, '\t');
            if (f) *f++ = 0;
        }
        if (count == 2 && strcmp(fields[0], "arguments") == 0) {
            if (!number_at_most(fields[1], 16, UINT64_MAX, &index->arguments)) {
                snprintf(why, why_length, "%s: line %d: the arguments' hash %s is not 1 to 16 hex digits", path, number,
                         fields[1]);
                return why;
            }
            index->has_arguments = 1;
        } else if (count == 5 && strcmp(fields[0], "output") == 0 && index->count < MAX_OUTPUTS) {
            struct output *o = &index->outputs[index->count++];
            uint64_t width = 0, height = 0;
            if (!number_at_most(fields[2], 10, MAX_SIDE, &width) || !number_at_most(fields[3], 10, MAX_SIDE, &height) ||
                !width || !height) {
                snprintf(why, why_length, "%s: line %d is not an output: its size %sx%s is not two numbers from 1 to %d",
                         path, number, fields[2], fields[3], MAX_SIDE);
                return why;
            }
            o->width = (uint32_t)width;
            o->height = (uint32_t)height;
            if (!copy_whole(o->name, sizeof o->name, fields[1])) {
                snprintf(why, why_length, "%s: line %d is not an output: its name is %zu bytes, more than %zu", path,
                         number, strlen(fields[1]), sizeof o->name - 1);
                return why;
            }
            if (!copy_whole(o->file, sizeof o->file, fields[4])) {
                snprintf(why, why_length, "%s: line %d is not an output: its file's name is %zu bytes, more than %zu",
                         path, number, strlen(fields[4]), sizeof o->file - 1);
                return why;
            }
            if (!*o->file || strchr(o->file, '/')) {
                snprintf(why, why_length, "%s: line %d is not an output", path, number);
                return why;
            }
        } else if (count == 4 && strcmp(fields[0], "file") == 0) {
            /* A theme file as it was: its size and modification time (ns). */
            uint64_t size = 0, modified = 0;
            if (!number_at_most(fields[1], 10, UINT64_MAX, &size) || !number_at_most(fields[2], 10, UINT64_MAX, &modified)) {
                snprintf(why, why_length, "%s: line %d: the size %s or the time %s is not a number", path, number,
                         fields[1], fields[2]);
                return why;
            }
            struct stat now;
            if (stat(fields[3], &now) != 0 || (uint64_t)now.st_size != size ||
                (uint64_t)now.st_mtim.tv_sec * 1000000000ULL + (uint64_t)now.st_mtim.tv_nsec != modified) {
                snprintf(why, why_length, "the theme changed (%s)", fields[3]);
                return why;
            }
        } else if (count == 2 && strcmp(fields[0], "absent") == 0) {
            /* A file whose coming would change the picture (/etc/splashd/theme/theme.toml). */
            if (access(fields[1], F_OK) == 0) {
                snprintf(why, why_length, "the theme changed (%s appeared)", fields[1]);
                return why;
            }
        } else {
            snprintf(why, why_length, "%s: line %d is not understood", path, number);
            return why;
        }
    }
    if (number == 0 || !index->has_arguments || index->count == 0) {
        snprintf(why, why_length, "%s names no output", path);
        return why;
    }
    return NULL;
}

/* --- the device ----------------------------------------------------------------------------- */

static const char *connector_type(uint32_t type) {
    static const char *names[] = {"Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS",
                                  "Component", "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI",
                                  "DPI", "Writeback", "SPI", "USB"};
    return type < sizeof names / sizeof names[0] ? names[type] : "Unknown";
}

struct target {
    uint32_t connector, crtc;
    struct drm_mode_modeinfo mode;
};

/* The connector named `name`, connected, driven by a CRTC that scans out width × height now. */
static const char *find_target(int fd, const struct drm_mode_card_res *resources, const uint32_t *connectors,
                               const struct output *output, struct target *target, char *why, size_t why_length) {
    for (uint32_t i = 0; i < resources->count_connectors; i++) {
        /* One mode slot: the kernel then answers from what it knows, without probing the
         * connector again (as libdrm's drmModeGetConnectorCurrent). */
        struct drm_mode_modeinfo one;
        struct drm_mode_get_connector c = {.connector_id = connectors[i], .count_modes = 1,
                                           .modes_ptr = (uint64_t)(uintptr_t)&one};
        if (drm(fd, DRM_IOCTL_MODE_GETCONNECTOR, &c) != 0) continue;
        char name[64];
        snprintf(name, sizeof name, "%s-%u", connector_type(c.connector_type), c.connector_type_id);
        if (strcmp(name, output->name) != 0) continue;
        if (c.connection != 1) {
            snprintf(why, why_length, "%s is not connected", name);
            return why;
        }
        if (!c.encoder_id) {
            snprintf(why, why_length, "%s is not driven (no encoder)", name);
            return why;
        }
        struct drm_mode_get_encoder e = {.encoder_id = c.encoder_id};
        if (drm(fd, DRM_IOCTL_MODE_GETENCODER, &e) != 0 || !e.crtc_id) {
            snprintf(why, why_length, "%s is not driven (no CRTC)", name);
            return why;
        }
        struct drm_mode_crtc crtc = {.crtc_id = e.crtc_id};
        if (drm(fd, DRM_IOCTL_MODE_GETCRTC, &crtc) != 0 || !crtc.mode_valid) {
            snprintf(why, why_length, "%s's CRTC scans out nothing", name);
            return why;
        }
        if (crtc.mode.hdisplay != output->width || crtc.mode.vdisplay != output->height) {
            snprintf(why, why_length, "%s scans out %ux%u, not %ux%u", name, crtc.mode.hdisplay, crtc.mode.vdisplay,
                     output->width, output->height);
            return why;
        }
        target->connector = c.connector_id;
        target->crtc = e.crtc_id;
        target->mode = crtc.mode;
        return NULL;
    }
    snprintf(why, why_length, "no output %s", output->name);
    return why;
}

static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The cached picture for `output` in a framebuffer (its id in *framebuffer); NULL, or why not. */
static const char *load_picture(int fd, const char *directory, const struct output *output, uint32_t *framebuffer,
                                char *why, size_t why_length) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, output->file);
    int file = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (file < 0) {
        snprintf(why, why_length, "%s: %s", path, strerror(errno));
        return why;
    }
    const char *result = why;
    unsigned char header[HEADER_LENGTH];
    struct stat st;
    uint64_t row = (uint64_t)output->width * 4, length = row * output->height;
    if (fstat(file, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != HEADER_LENGTH + length ||
        pread(file, header, sizeof header, 0) != (ssize_t)sizeof header || memcmp(header, "SPLKFF01", 8) != 0 ||
        le32(header + 16) != output->width || le32(header + 20) != output->height || le32(header + 28) != 0 ||
        le64(header + 32) != length) {
        snprintf(why, why_length, "%s is not a picture of %ux%u", path, output->width, output->height);
        close(file);
        return why;
    }
    struct drm_mode_create_dumb dumb = {.width = output->width, .height = output->height, .bpp = 32};
    if (drm(fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb) != 0) {
        snprintf(why, why_length, "no buffer of %ux%u: %s", output->width, output->height, strerror(errno));
        close(file);
        return why;
    }
    struct drm_mode_map_dumb map = {.handle = dumb.handle};
    unsigned char *pixels = MAP_FAILED;
    if (drm(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) == 0)
        pixels = mmap(NULL, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
    if (pixels == MAP_FAILED) {
        snprintf(why, why_length, "cannot map a buffer: %s", strerror(errno));
        goto done;
    }
    /* Read in rows through memory of our own (a buffer's mapping may be slow to read back), the
     * checksum counted on the way: a file torn by a power cut is a miss, never a picture. */
    static unsigned char chunk[1 << 16];
    uint64_t hash = FNV_OFFSET, done = 0;
    while (done < length) {
        size_t want = length - done < sizeof chunk ? (size_t)(length - done) : sizeof chunk;
        /* Whole chunks (a multiple of eight bytes) for the checksum's steps. */
        size_t filled = 0;
        while (filled < want) {
            ssize_t n = pread(file, chunk + filled, want - filled, (off_t)(HEADER_LENGTH + done + filled));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                snprintf(why, why_length, "%s: %s", path, n < 0 ? strerror(errno) : "cut short");
                goto unmap;
            }
            filled += (size_t)n;
        }
        ssize_t got = (ssize_t)filled;
        hash = fnv(chunk, (size_t)got, hash);
        /* Into the buffer, row by row (its pitch may be wider than the picture's rows). */
        for (uint64_t at = done; at < done + (uint64_t)got;) {
            uint64_t y = at / row, x = at % row, take = row - x;
            if (take > done + (uint64_t)got - at) take = done + (uint64_t)got - at;
            memcpy(pixels + y * dumb.pitch + x, chunk + (at - done), take);
            at += take;
        }
        done += (uint64_t)got;
    }
    if (hash != le64(header + 40)) {
        snprintf(why, why_length, "%s is torn (its checksum)", path);
        goto unmap;
    }
    struct drm_mode_fb_cmd fb = {.width = output->width, .height = output->height, .pitch = dumb.pitch, .bpp = 32,
                                 .depth = 24, .handle = dumb.handle};
    if (drm(fd, DRM_IOCTL_MODE_ADDFB, &fb) != 0) {
        snprintf(why, why_length, "no framebuffer: %s", strerror(errno));
        goto unmap;
    }
    *framebuffer = fb.fb_id;
    result = NULL;
unmap:
    munmap(pixels, dumb.size);
done:
    /* The framebuffer holds the buffer: the handle is not needed any more. */
    {
        struct drm_gem_close close_handle = {.handle = dumb.handle};
        drm(fd, DRM_IOCTL_GEM_CLOSE, &close_handle);
    }
    close(file);
    return result;
}

/* --- what it does --------------------------------------------------------------------------- */

/* Shows the cached pictures; the device's descriptor (master, frames on screen) or -1. */
static int show(char *const *arguments, int count, char *framebuffers, size_t framebuffers_length) {
    char why[4352];
    const char *directory = option(arguments, count, "--cache-dir");
    if (!directory) return -1;
    const char *device = option(arguments, count, "--device");
    if (!device) device = "/dev/dri/card0";
    struct index index;
    if (read_index(directory, &index, why, sizeof why)) {
        say("no first frame from the cache: %s", why);
        return -1;
    }
    if (index.arguments != arguments_hash(arguments, count)) {
        say("no first frame from the cache: it was drawn for other arguments");
        return -1;
    }
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        say("no first frame from the cache: cannot open %s: %s", device, strerror(errno));
        return -1;
    }
    struct drm_mode_card_res resources = {0};
    uint32_t connectors[64], crtcs[64];
    if (drm(fd, DRM_IOCTL_MODE_GETRESOURCES, &resources) != 0 || resources.count_connectors > 64 || resources.count_crtcs > 64) {
        say("no first frame from the cache: %s is not a mode-setting device", device);
        close(fd);
        return -1;
    }
    struct drm_mode_card_res listed = {.connector_id_ptr = (uint64_t)(uintptr_t)connectors,
                                       .count_connectors = resources.count_connectors,
                                       .crtc_id_ptr = (uint64_t)(uintptr_t)crtcs, .count_crtcs = resources.count_crtcs};
    if (drm(fd, DRM_IOCTL_MODE_GETRESOURCES, &listed) != 0 || listed.count_connectors > resources.count_connectors) {
        say("no first frame from the cache: %s's outputs cannot be read", device);
        close(fd);
        return -1;
    }
    framebuffers[0] = 0;
    int shown = 0;
    for (int i = 0; i < index.count; i++) {
        const struct output *output = &index.outputs[i];
        struct target target;
        uint32_t framebuffer = 0;
        if (find_target(fd, &listed, connectors, output, &target, why, sizeof why) ||
            load_picture(fd, directory, output, &framebuffer, why, sizeof why)) {
            say("%s: no first frame from the cache: %s", output->name, why);
            continue;
        }
        /* The mode the output already has: no mode set (the kernel's atomic helpers see the same
         * mode and only replace the picture). */
        struct drm_mode_crtc set = {.crtc_id = target.crtc, .fb_id = framebuffer, .mode = target.mode, .mode_valid = 1,
                                    .set_connectors_ptr = (uint64_t)(uintptr_t)&target.connector, .count_connectors = 1};
        if (drm(fd, DRM_IOCTL_MODE_SETCRTC, &set) != 0) {
            say("%s: no first frame from the cache: %s", output->name, strerror(errno));
            drm(fd, DRM_IOCTL_MODE_RMFB, &framebuffer);
            continue;
        }
        size_t used = strlen(framebuffers);
        snprintf(framebuffers + used, framebuffers_length - used, "%s%u", shown ? "," : "", framebuffer);
        shown++;
        say("%s (%ux%u): the first frame from the cache, %.3f s after the process started", output->name,
            output->width, output->height, since_start());
    }
    if (!shown) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The unit's ExecCondition: 1 while the initramfs's renderer carries on, else 0. */
static int condition(const char *pid_file) {
    char text[64], path[64], line[16];
    int fd = open(pid_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    char *end;
    long pid = strtol(text, &end, 10);
    while (*end == '\n' || *end == ' ') end++;
    if (pid <= 1 || *end) return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    n = read(fd, line, 1);
    close(fd);
    if (n != 1 || line[0] != '@') return 0;
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n < 11 || strncmp(line, "splashd-kms", 11) != 0) return 0;
    printf("the renderer the initramfs started (PID %ld) has the display: no second one\n", pid);
    return 1;
}

#ifndef SPLASHD_FIRST_FRAME_NO_MAIN
int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--condition") == 0)
        return condition(argc >= 3 ? argv[2] : "/run/splashd-kms/initramfs.pid");
    if (argc < 2 || argv[1][0] != '/') {
        fprintf(stderr, "usage: %s RENDERER [ARGUMENT...]  (RENDERER an absolute path)\n"
                        "       %s --condition [PID-FILE]\n", program, program);
        return 2;
    }
    char framebuffers[MAX_OUTPUTS * 12] = "";
    /* A subcommand (check, wait, …) draws nothing: only the renderer's run does. */
    int runs = argc == 2 || argv[2][0] == '-' || strcmp(argv[2], "run") == 0;
    int fd = runs ? show(argv + 2, argc - 2, framebuffers, sizeof framebuffers) : -1;
    unsetenv("SPLASHD_KMS_FIRST_FRAMES");
    if (fd >= 0) {
        char value[sizeof framebuffers + 16];
        snprintf(value, sizeof value, "%d %s", fd, framebuffers);
        /* The descriptor outlives the exec: the framebuffers are its, and stay on screen. */
        fcntl(fd, F_SETFD, 0);
        setenv("SPLASHD_KMS_FIRST_FRAMES", value, 1);
    }
    fflush(stderr);
    execv(argv[1], argv + 1);
    say("cannot run %s: %s", argv[1], strerror(errno));
    return 127;
}
#endif
