#ifndef SPLASHD_CLINUXSHIMS_H
#define SPLASHD_CLINUXSHIMS_H
// Linux calls that Swift's Glibc module does not declare (they need _GNU_SOURCE).

/// memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING): a descriptor, or -1 with errno set.
int splashd_memfd_create_sealable(const char *name);

/// Seals a memfd against shrinking, growing, writing and further seals: 0, or -1 with errno set.
int splashd_memfd_seal(int fd);

#endif
