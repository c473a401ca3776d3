#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include "CLinuxShims.h"

int splashd_memfd_create_sealable(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int splashd_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}
