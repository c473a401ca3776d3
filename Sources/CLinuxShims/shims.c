#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
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

int splashd_random_nowait(void *buffer, size_t length) {
    // GRND_INSECURE and GRND_NONBLOCK by value: glibc's header names the first only since 2.33.
    static const unsigned int tries[] = {0x0004, 0x0001};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        ssize_t n = syscall(SYS_getrandom, buffer, length, tries[i]);
        if (n == (ssize_t)length) return 0;
        if (n >= 0) { errno = EIO; return -1; }
        if (errno != EINVAL) return -1;
    }
    return -1;
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

int splashd_uevent_socket(int buffer) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -1;
    // A burst (every device of a driver at once) fits; past the system's maximum it is what it is.
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = 1 };
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

long splashd_uevent_receive(int fd, void *buffer, size_t size) {
    struct sockaddr_nl sender;
    struct iovec part = { .iov_base = buffer, .iov_len = size };
    struct msghdr message = { .msg_name = &sender, .msg_namelen = sizeof sender, .msg_iov = &part, .msg_iovlen = 1 };
    ssize_t length = recvmsg(fd, &message, 0);
    if (length < 0) return -1;
    if (message.msg_namelen != sizeof sender || sender.nl_pid != 0) return 0;
    return (long)(length > (ssize_t)size ? (ssize_t)size : length);
}

int splashd_epoll_either(int first, int second) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    if (fd < 0) return -1;
    int watched[2] = { first, second };
    for (int i = 0; i < 2; i++) {
        struct epoll_event event = { .events = EPOLLIN, .data.fd = watched[i] };
        if (epoll_ctl(fd, EPOLL_CTL_ADD, watched[i], &event) < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
    }
    return fd;
}

static char new_root[4096];
static char new_root_ack[4096];

/// Async-signal-safe: only system calls, on buffers filled before the handler was set.
static void move_to_new_root(int signal) {
    (void)signal;
    int saved = errno;
    // The acknowledgement is made in the initramfs (where the script looks for it) and written
    // once the move is done.
    int ack = open(new_root_ack, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    const char *answer = "ok\n";
    if (chroot(new_root) != 0) {
        answer = errno == ENOENT ? "failed: no such directory\n" : errno == EPERM ? "failed: not permitted\n" : "failed\n";
    } else if (chdir("/") != 0) {
        answer = "failed: chdir\n";
    }
    if (ack >= 0) {
        ssize_t written = write(ack, answer, strlen(answer));
        (void)written;
        close(ack);
    }
    errno = saved;
}

int splashd_arm_new_root(const char *root, const char *ack) {
    if (strlen(root) >= sizeof new_root || strlen(ack) >= sizeof new_root_ack) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(new_root, root);
    strcpy(new_root_ack, ack);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = move_to_new_root;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(SIGUSR1, &action, NULL);
}
