/* ns per hrw_placement_owner call through the C ABI; bench/core_lookup.rs times the same
 * workload on the Rust core directly, so the difference is the ABI's overhead. */
#define _POSIX_C_SOURCE 199309L
#include <hrwhash.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEYS 4096
#define REPS 7

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    static char keys[KEYS][16];
    static size_t key_lens[KEYS];
    for (int i = 0; i < KEYS; i++) key_lens[i] = (size_t)snprintf(keys[i], 16, "key-%d", i);
    const int sizes[] = {5, 100, 1000};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        char(*ids)[16] = malloc((size_t)n * 16);
        hrw_node *nodes = malloc((size_t)n * sizeof *nodes);
        for (int i = 0; i < n; i++) {
            size_t len = (size_t)snprintf(ids[i], 16, "node-%d", i);
            nodes[i] = (hrw_node){(const uint8_t *)ids[i], len, NULL, 0};
        }
        hrw_placement *p = NULL;
        if (hrw_placement_new(nodes, (size_t)n, NULL, &p, NULL) != HRW_STATUS_OK) return 1;
        int passes = n <= 5 ? 400 : n <= 100 ? 100 : 20;
        double per[REPS];
        size_t sink = 0;
        for (int r = 0; r < REPS; r++) {
            double t0 = now_ns();
            for (int pass = 0; pass < passes; pass++)
                for (int i = 0; i < KEYS; i++) {
                    size_t o = 0;
                    hrw_placement_owner(p, (const uint8_t *)keys[i], key_lens[i], &o);
                    sink += o;
                }
            per[r] = (now_ns() - t0) / ((double)passes * KEYS);
        }
        qsort(per, REPS, sizeof per[0], cmp);
        printf("c-abi  N=%-5d owner %8.1f ns/key (min %.1f) [%zu]\n", n, per[REPS / 2], per[0], sink % 10);
        hrw_placement_free(p);
        free(nodes);
        free(ids);
    }
    return 0;
}
