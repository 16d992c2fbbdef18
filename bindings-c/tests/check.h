/* Assertion counting shared by the C test programs. */
#ifndef HRW_TEST_CHECK_H
#define HRW_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

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

#ifdef HRWHASH_H
/* The id and the weight of node `i`, read through hrw_placement_node. */
static inline hrw_status node_id_of(const hrw_placement *p, size_t i, const uint8_t **id, size_t *id_len) {
    hrw_node n;
    double w;
    hrw_status st = hrw_placement_node(p, i, &n, &w);
    if (st == HRW_STATUS_OK) {
        *id = n.id;
        *id_len = n.id_len;
    }
    return st;
}

static inline hrw_status node_weight_of(const hrw_placement *p, size_t i, double *weight) {
    hrw_node n;
    return hrw_placement_node(p, i, &n, weight);
}

/* Single figures of the summary calls, in the shape of a getter (written only on success). */
#define HRW_TEST_FIGURE(name, handle_t, fig_t, call, out_t, field)          \
    static inline hrw_status name(const handle_t *h, out_t *out) {          \
        fig_t f;                                                            \
        hrw_status st = call(h, &f);                                        \
        if (st == HRW_STATUS_OK) *out = f.field;                            \
        return st;                                                          \
    }
HRW_TEST_FIGURE(view_epoch_of, hrw_view, hrw_view_figures, hrw_view_summary, uint64_t, epoch)
HRW_TEST_FIGURE(view_has_default_seed_of, hrw_view, hrw_view_figures, hrw_view_summary, bool, has_default_seed)
HRW_TEST_FIGURE(expected_moved_of, hrw_transition, hrw_transition_figures, hrw_transition_summary, double,
                expected_moved)
HRW_TEST_FIGURE(optimum_of, hrw_transition, hrw_transition_figures, hrw_transition_summary, double, optimum)
HRW_TEST_FIGURE(ramp_len_of, hrw_ramp, hrw_ramp_figures, hrw_ramp_summary, size_t, len)
HRW_TEST_FIGURE(live_epoch_of, hrw_live_view, hrw_live_view_figures, hrw_live_view_summary, uint64_t, epoch)
HRW_TEST_FIGURE(live_moving_of, hrw_live_view, hrw_live_view_figures, hrw_live_view_summary, bool, moving)
HRW_TEST_FIGURE(live_since_update_of, hrw_live_view, hrw_live_view_figures, hrw_live_view_summary, uint64_t,
                since_update_ms)

/* A fingerprint of the summary calls into a caller's buffer of `len` bytes (at least the
 * fingerprint's length). */
static inline hrw_status view_fingerprint_of(const hrw_view *v, uint8_t *out, size_t len) {
    hrw_view_figures f;
    hrw_status st = hrw_view_summary(v, &f);
    if (st == HRW_STATUS_OK) memcpy(out, f.fingerprint, len < sizeof f.fingerprint ? len : sizeof f.fingerprint);
    return st;
}

static inline hrw_status view_seed_fingerprint_of(const hrw_view *v, uint8_t *out, size_t len) {
    hrw_view_figures f;
    hrw_status st = hrw_view_summary(v, &f);
    if (st == HRW_STATUS_OK)
        memcpy(out, f.seed_fingerprint, len < sizeof f.seed_fingerprint ? len : sizeof f.seed_fingerprint);
    return st;
}

static inline hrw_status live_fingerprint_of(const hrw_live_view *lv, uint8_t *out, size_t len) {
    hrw_live_view_figures f;
    hrw_status st = hrw_live_view_summary(lv, &f);
    if (st == HRW_STATUS_OK) memcpy(out, f.fingerprint, len < sizeof f.fingerprint ? len : sizeof f.fingerprint);
    return st;
}
#endif

/* The closing line the test runners read: "N passed, N failed". */
static int check_report(const char *suite) {
    printf("%s: %lu passed, %lu failed\n", suite, checks_passed, checks_failed);
    return checks_failed == 0 && checks_passed > 0 ? 0 : 1;
}

#endif
