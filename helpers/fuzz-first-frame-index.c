/*
 * libFuzzer target for splashd-kms-first-frame's index reader (parse_index): any bytes, as the
 * file `first-frames` could hold them after a power cut or worse. Built and run by scripts/fuzz.sh
 * (target first-frame-index) with clang's -fsanitize=fuzzer,address,undefined; the helper's source
 * is included whole, without its main.
 */
#define SPLASHD_FIRST_FRAME_NO_MAIN
#pragma clang diagnostic ignored "-Wunused-function"  /* show, condition: main's, not built here */
#include "splashd-kms-first-frame.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* As read_index hands it over: at most 64 KiB, NUL-terminated (a NUL inside ends it early). */
    static char text[65536];
    if (size >= sizeof text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    struct index index;
    char why[4352];
    const char *result = parse_index(text, "first-frames", &index, why, sizeof why);
    if (!result) {
        /* What an index that answers holds: outputs within the bounds, files in the cache. */
        if (!index.has_arguments || index.count < 1 || index.count > MAX_OUTPUTS) __builtin_trap();
        for (int i = 0; i < index.count; i++) {
            const struct output *o = &index.outputs[i];
            if (!o->width || !o->height || o->width > MAX_SIDE || o->height > MAX_SIDE || strchr(o->file, '/')) __builtin_trap();
        }
    } else if (result != why || !memchr(why, 0, sizeof why)) {
        __builtin_trap();
    }
    return 0;
}
