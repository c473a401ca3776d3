#ifndef SPLASHD_CLINUXSHIMS_H
#define SPLASHD_CLINUXSHIMS_H
// Linux calls that Swift's Glibc module does not declare (they need _GNU_SOURCE or newer headers).
#include <stddef.h>

/// memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): a descriptor, or -1 with errno set.
int splashd_memfd_create_sealable(const char *name);

/// Seals a memfd against shrinking, growing, writing and further seals: 0, or -1 with errno set.
int splashd_memfd_seal(int fd);

/// madvise(address, length, MADV_PAGEOUT) (Linux 5.4): reclaim the range's pages now. Pages
/// other processes map too are left alone by the kernel. 0, or -1 with errno set.
int splashd_madvise_pageout(void *address, size_t length);

/// malloc_trim(0): returns free heap memory to the system; 1 when some was released.
int splashd_malloc_trim(void);

/// renameat2(from, to, RENAME_NOREPLACE) (Linux 3.15): like rename(2), but fails with EEXIST
/// instead of replacing an existing `to`. 0, or -1 with errno set.
int splashd_rename_noreplace(const char *from, const char *to);

/// Fills `buffer` with the kernel's random numbers without ever waiting for them:
/// getrandom(GRND_INSECURE) (Linux 5.6), else getrandom(GRND_NONBLOCK), which fails (EAGAIN)
/// while the kernel has none yet. 0 when all `length` bytes came, or -1 with errno set.
int splashd_random_nowait(void *buffer, size_t length);

/// prctl(PR_SET_CHILD_SUBREAPER, on) (Linux 3.4): orphaned descendants are reparented to this
/// process instead of init, so it can find and reap them. 0, or -1 with errno set.
int splashd_set_child_subreaper(int on);

/// prctl(PR_GET_CHILD_SUBREAPER): 1 when this process is a child subreaper, 0 when not, -1 with
/// errno set on failure.
int splashd_is_child_subreaper(void);

/// Blocks SIGINT and SIGTERM in the calling thread and returns a signalfd (close-on-exec,
/// non-blocking) that becomes readable when one of them is pending, so a poll(2) loop can end
/// on them. A descriptor, or -1 with errno set (then the signals are not blocked).
int splashd_signalfd_termination(void);

/// pidfd_open(pid, 0) (Linux 5.3): a descriptor that polls readable when the process `pid` (a
/// child of this one) has ended. A descriptor (close-on-exec), or -1 with errno set.
int splashd_pidfd_open(int pid);

/// The renderer started in the initramfs (design §16): on SIGUSR1, moves this process into `root`
/// (the real root, mounted there by the initramfs: chroot(2) and chdir("/")) and then writes "ok"
/// (or "failed: REASON") into `ack`, a file created empty before the move, which the initramfs's
/// script waits for before it switches to the real root. Both strings are copied. 0, or -1 with
/// errno set (the signal's handler could not be set, or a string is too long).
int splashd_arm_new_root(const char *root, const char *ack);

/// A socket on the kernel's uevent netlink group (NETLINK_KOBJECT_UEVENT, group 1: what the
/// kernel says of devices, with or without udevd), close-on-exec and non-blocking, with a
/// receive buffer of `buffer` bytes where the system allows. A descriptor, or -1 with errno set.
int splashd_uevent_socket(int buffer);

/// Receives one message from such a socket into `buffer`: its length (cut to `size`); 0 for a
/// message another process sent (its sender's port id is not 0: only the kernel speaks for the
/// kernel), which is dropped; -1 with errno set (EAGAIN: none waiting).
long splashd_uevent_receive(int fd, void *buffer, size_t size);

/// An epoll descriptor (close-on-exec) that polls readable when `first` or `second` is readable,
/// so a poll(2) loop watches both as one. A descriptor, or -1 with errno set.
int splashd_epoll_either(int first, int second);

#endif
