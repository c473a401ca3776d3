/* The test app of the hand-off (test_kms.py): waits until it may take the display (in the VM,
 * without systemd: until DRM master is free; with APP_NOW set, it is started once it may and must
 * get master at once), takes DRM master, paints every connected output in
 * one colour, runs its "first frame drawn" command, and keeps the display.
 *
 *   app RRGGBB 'command'
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: app RRGGBB command\n"); return 64; }
    uint32_t colour = (uint32_t)strtoul(argv[1], NULL, 16);
    int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (fd < 0) { perror("open"); return 1; }
    if (getenv("APP_NOW")) {
        /* Started once it may take the display (after `splashd-kms wait`): master at once. */
        if (drmSetMaster(fd) != 0) { perror("app: DRM master is not free"); return 3; }
    } else {
        while (drmSetMaster(fd) != 0) usleep(2000); /* the renderer still holds the display */
    }
    drmModeRes *res = drmModeGetResources(fd);
    if (!res) { perror("resources"); return 1; }
    /* APP_OUTPUTS=N: only the first N outputs (an app that uses one display of two). */
    int most = getenv("APP_OUTPUTS") ? atoi(getenv("APP_OUTPUTS")) : res->count_connectors;
    int painted = 0;
    for (int i = 0; i < res->count_connectors && painted < most; i++) {
        drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
        if (!c || c->connection != DRM_MODE_CONNECTED || c->count_modes == 0 || !c->encoder_id) continue;
        drmModeEncoder *e = drmModeGetEncoder(fd, c->encoder_id);
        if (!e || !e->crtc_id) continue;
        drmModeModeInfo mode = c->modes[0];
        for (int m = 0; m < c->count_modes; m++)
            if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED) { mode = c->modes[m]; break; }
        uint32_t handle, pitch, fb; uint64_t size, offset;
        if (drmModeCreateDumbBuffer(fd, mode.hdisplay, mode.vdisplay, 32, 0, &handle, &pitch, &size)) { perror("dumb"); return 1; }
        if (drmModeAddFB(fd, mode.hdisplay, mode.vdisplay, 24, 32, pitch, handle, &fb)) { perror("addfb"); return 1; }
        if (drmModeMapDumbBuffer(fd, handle, &offset)) { perror("map"); return 1; }
        uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
        if (p == MAP_FAILED) { perror("mmap"); return 1; }
        for (uint32_t y = 0; y < mode.vdisplay; y++)
            for (uint32_t x = 0; x < mode.hdisplay; x++) ((uint32_t *)(p + y * pitch))[x] = colour;
        if (drmModeSetCrtc(fd, e->crtc_id, fb, 0, 0, &c->connector_id, 1, &mode)) { perror("setcrtc"); return 1; }
        painted++;
    }
    printf("app: painted %d outputs\n", painted);
    fflush(stdout);
    int status = system(argv[2]);
    printf("app: '%s' exited %d\n", argv[2], status);
    fflush(stdout);
    pause();
    return 0;
}
