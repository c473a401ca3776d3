// What sid's Swift runtime for arm64 calls and Debian 12's C and C++ libraries lack, linked into
// every arm64 binary beside the runtime (scripts/arm64/build.sh; docs/packaging.md, "arm64").
// sid's runtime was built against glibc 2.41 and libstdc++ 14; the target, like Raspberry Pi OS
// bookworm, has glibc 2.36 and libstdc++ 12. Without these the binaries would need
// GLIBC_2.38 and GLIBCXX_3.4.32, and would not start there.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ios>

extern "C" {

// C23's strto* and scanf (glibc 2.38) differ from C99's only in reading "0b" binary numbers,
// which nothing in the runtime writes.
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }

int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int read = vsscanf(s, format, arguments);
    va_end(arguments);
    return read;
}

// BSD's strlcpy and strlcat (glibc 2.38): the length of what they tried to make.
size_t strlcpy(char *dest, const char *src, size_t size) {
    size_t length = strlen(src);
    if (size > 0) {
        size_t n = length < size - 1 ? length : size - 1;
        memcpy(dest, src, n);
        dest[n] = '\0';
    }
    return length;
}

size_t strlcat(char *dest, const char *src, size_t size) {
    size_t used = strnlen(dest, size);
    if (used == size) return size + strlen(src);
    return used + strlcpy(dest + used, src, size - used);
}

}  // extern "C"

// libstdc++ 13's headers call this where libstdc++ 12's constructed std::ios_base::Init in each
// file that includes <iostream>: the standard streams are made before their first use.
namespace std {
void ios_base_library_init() { static ios_base::Init init; }
}  // namespace std
