#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include "CLinuxShims.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

int splashd_memfd_create_sealable(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int splashd_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

int splashd_madvise_pageout(void *address, size_t length) {
    return madvise(address, length, MADV_PAGEOUT);
}

int splashd_malloc_trim(void) {
    return malloc_trim(0);
}
