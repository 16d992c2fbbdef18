/* Assertion counting shared by the C test programs. */
#ifndef HRW_TEST_CHECK_H
#define HRW_TEST_CHECK_H

#include <stdio.h>

static unsigned long checks_passed, checks_failed;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (cond) {                                                              \
            checks_passed++;                                                     \
        } else {                                                                 \
            checks_failed++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

/* `n` bytes as 2n lowercase hex digits and a NUL (the C API gives fingerprints as bytes). */
static inline void hex_of(const unsigned char *b, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The closing line the test runners read: "N passed, N failed". */
static int check_report(const char *suite) {
    printf("%s: %lu passed, %lu failed\n", suite, checks_passed, checks_failed);
    return checks_failed == 0 && checks_passed > 0 ? 0 : 1;
}

#endif
