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

/* The closing line the test runners read: "N passed, N failed". */
static int check_report(const char *suite) {
    printf("%s: %lu passed, %lu failed\n", suite, checks_passed, checks_failed);
    return checks_failed == 0 && checks_passed > 0 ? 0 : 1;
}

#endif
