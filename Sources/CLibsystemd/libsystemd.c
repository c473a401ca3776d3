#define _GNU_SOURCE
#include <pthread.h>
#include "libsystemd.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;
static char failure[200];

static void load(void) {
    handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(failure, sizeof failure, "cannot load libsystemd.so.0: %s", dlerror());
}

void *splashd_libsystemd_handle(int *loaded, char *err, size_t err_length) {
    pthread_once(&once, load);
    if (!handle) {
        snprintf(err, err_length, "%s", failure);
        *loaded = -ELIBACC;
    }
    return handle;
}
