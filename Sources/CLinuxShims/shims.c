#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>
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

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

int splashd_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int splashd_set_child_subreaper(int on) {
    return prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)(on ? 1 : 0), 0UL, 0UL, 0UL);
}

int splashd_is_child_subreaper(void) {
    int on = 0;
    if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&on, 0UL, 0UL, 0UL) != 0) {
        return -1;
    }
    return on != 0;
}

int splashd_signalfd_termination(void) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    int fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) return -1;
    int error = pthread_sigmask(SIG_BLOCK, &signals, NULL);
    if (error != 0) {
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

int splashd_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
