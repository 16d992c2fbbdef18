/* Runs every case of conformance/live-view.json through the C ABI's live view, reads one live
 * view from threads while another updates it, and gives every hrw_live_view function each bad
 * input it can get from C. The C ABI has no sources, so the cases' last_error (a source's record)
 * is not checked here. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "cases.h"

static const char *current; /* the case being run, for messages */

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* 16 seed bytes from 32 hex digits; returns 0 for an absent seed (the default). */
static size_t seed_of(const jvalue *s, uint8_t out[16]) {
    if (s == NULL) return 0;
    CHECK(s->len == 32, "%s: seed length", current);
    for (size_t i = 0; i < 16 && 2 * i + 1 < s->len; i++)
        out[i] = (uint8_t)(hex_digit(s->str[2 * i]) * 16 + hex_digit(s->str[2 * i + 1]));
    return 16;
}

static hrw_view *load(const jvalue *text, const uint8_t *seed, size_t seed_len, hrw_status *st) {
    hrw_view *v = NULL;
    *st = hrw_view_from_json((const uint8_t *)text->str, text->len, seed_len ? seed : NULL, seed_len, &v, NULL);
    return v;
}

static int same(const jvalue *want, const uint8_t *got, size_t len) {
    return want->type == J_STR && want->len == len && memcmp(want->str, got, len) == 0;
}

static void check_state(const hrw_live_view *lv, const jvalue *state, const jvalue *keys, size_t step) {
    uint64_t epoch = 0;
    CHECK(live_epoch_of(lv, &epoch) == HRW_STATUS_OK, "%s", current);
    CHECK(epoch == strtoull(json_get(state, "epoch")->str, NULL, 10), "%s step %zu: epoch %" PRIu64, current, step, epoch);
    uint8_t fp[HRW_VIEW_FINGERPRINT_LEN];
    CHECK(live_fingerprint_of(lv, fp, sizeof fp) == HRW_STATUS_OK, "%s", current);
    char hex[2 * HRW_VIEW_FINGERPRINT_LEN + 1];
    for (size_t i = 0; i < sizeof fp; i++) snprintf(hex + 2 * i, 3, "%02x", fp[i]);
    CHECK(same(json_get(state, "fingerprint"), (const uint8_t *)hex, 32), "%s step %zu: fingerprint", current, step);
    bool moving = !json_get(state, "moving")->boolean;
    CHECK(live_moving_of(lv, &moving) == HRW_STATUS_OK, "%s", current);
    CHECK(moving == json_get(state, "moving")->boolean, "%s step %zu: moving", current, step);
    hrw_view *cur = NULL, *prev = NULL;
    CHECK(hrw_live_view_snapshot(lv, &cur, &prev) == HRW_STATUS_OK, "%s", current);
    CHECK((prev != NULL) == moving, "%s step %zu: snapshot previous", current, step);
    uint64_t snap_epoch = 0;
    CHECK(view_epoch_of(cur, &snap_epoch) == HRW_STATUS_OK && snap_epoch == epoch, "%s step %zu", current, step);
    hrw_view_free(cur);
    hrw_view_free(prev);
    const jvalue *routes = json_get(state, "routes");
    for (size_t k = 0; k < keys->len; k++) {
        const jvalue *key = &keys->items[k], *want = &routes->items[k];
        uint8_t ids[256], owner[128];
        hrw_live_route r;
        size_t owner_len = 0;
        CHECK(hrw_live_view_route(lv, (const uint8_t *)key->str, key->len, ids, sizeof ids, &r, NULL) == HRW_STATUS_OK,
              "%s", current);
        CHECK(same(&want->items[0], ids, r.read_len) && same(&want->items[1], ids + r.read_len, r.write_len) &&
                  r.moved == want->items[2].boolean,
              "%s step %zu: route of %s", current, step, key->str);
        CHECK(hrw_live_view_owner(lv, (const uint8_t *)key->str, key->len, owner, sizeof owner, &owner_len, NULL) ==
                      HRW_STATUS_OK &&
                  same(&want->items[1], owner, owner_len),
              "%s step %zu: owner of %s", current, step, key->str);
    }
}

static void run_case(const jvalue *c, const jvalue *keys) {
    current = json_get(c, "name")->str;
    uint8_t seed[16];
    size_t seed_len = seed_of(json_get(c, "seed"), seed);
    hrw_status st;
    hrw_view *initial = load(json_get(c, "initial"), seed, seed_len, &st);
    CHECK(st == HRW_STATUS_OK, "%s: initial view", current);
    hrw_live_view *lv = NULL;
    CHECK(hrw_live_view_new(initial, NULL, &lv) == HRW_STATUS_OK, "%s", current);
    hrw_view_free(initial); /* the live view shares it */
    const jvalue *steps = json_get(c, "steps");
    for (size_t n = 0; n < steps->len; n++) {
        const jvalue *step = &steps->items[n];
        const jvalue *doc = json_get(step, "update");
        if (doc != NULL) {
            uint8_t step_seed[16];
            size_t step_seed_len = seed_of(json_get(step, "seed"), step_seed);
            const jvalue *expect = json_get(step, "expect");
            hrw_view *v = step_seed_len ? load(doc, step_seed, step_seed_len, &st) : load(doc, seed, seed_len, &st);
            if (st == HRW_STATUS_OK) {
                hrw_update_outcome outcome = HRW_UPDATE_OUTCOME_UNCHANGED;
                hrw_error err;
                memset(&err, 0, sizeof err);
                st = hrw_live_view_update(lv, v, &outcome, &err);
                if (expect->type == J_STR) {
                    hrw_update_outcome want = strcmp(expect->str, "applied") == 0 ? HRW_UPDATE_OUTCOME_APPLIED
                                                                                   : HRW_UPDATE_OUTCOME_UNCHANGED;
                    CHECK(st == HRW_STATUS_OK && outcome == want, "%s step %zu: %s", current, n, expect->str);
                } else {
                    CHECK(st == status_named(json_get(expect, "error")->str) && err.status == st, "%s step %zu: status %u",
                          current, n, (unsigned)st);
                    const jvalue *e = json_get(expect, "epoch"), *cur = json_get(expect, "current");
                    if (e != NULL) CHECK(err.epoch == strtoull(e->str, NULL, 10), "%s step %zu: epoch", current, n);
                    if (cur != NULL)
                        CHECK(err.current_epoch == strtoull(cur->str, NULL, 10), "%s step %zu: current", current, n);
                }
                hrw_view_free(v);
            } else {
                CHECK(expect->type == J_OBJ && st == status_named(json_get(expect, "error")->str),
                      "%s step %zu: load status %u", current, n, (unsigned)st);
            }
        } else if (json_get(step, "finish_move") != NULL) {
            bool was = !json_get(step, "returns")->boolean;
            CHECK(hrw_live_view_finish_move(lv, &was) == HRW_STATUS_OK, "%s", current);
            CHECK(was == json_get(step, "returns")->boolean, "%s step %zu: finish_move", current, n);
        }
        check_state(lv, json_get(step, "state"), keys, n);
    }
    hrw_live_view_free(lv);
}

/* ---- views built in code -------------------------------------------------------------------- */

/* A view of the nodes n0 .. n(count - 1) at `epoch`. */
static hrw_view *nodes_view(size_t count, uint64_t epoch) {
    char text[1024];
    int len = snprintf(text, sizeof text,
                       "{\"format\": \"hrwhash-view-v1\", \"algorithm\": \"hrw-v1\", \"epoch\": \"%" PRIu64
                       "\", \"seed\": \"default\", \"nodes\": [",
                       epoch);
    for (size_t i = 0; i < count; i++) len += snprintf(text + len, sizeof text - (size_t)len, "%s{\"id\": \"n%zu\"}", i ? ", " : "", i);
    len += snprintf(text + len, sizeof text - (size_t)len, "]}");
    hrw_view *v = NULL;
    hrw_status st = hrw_view_from_json((const uint8_t *)text, (size_t)len, NULL, 0, &v, NULL);
    if (st != HRW_STATUS_OK) abort();
    return v;
}

/* ---- threads --------------------------------------------------------------------------------- */

#define EPOCHS 300
static uint8_t fingerprints[EPOCHS + 1][HRW_VIEW_FINGERPRINT_LEN];

typedef struct {
    hrw_live_view *lv;
    volatile int *done;
    /* Readers that have read once: the updates wait for all of them, so that on a loaded machine
     * they do not all happen before any reader runs. */
    volatile int *started;
    unsigned long reads, bad;
} reader_arg;

/* Within one snapshot, the current view is the one published at its epoch and the previous one
 * (when a move is in progress) is the epoch before it; epochs never go back. */
static void *reader(void *p) {
    reader_arg *a = p;
    uint64_t last = 0;
    do {
        hrw_view *cur = NULL, *prev = NULL;
        uint64_t e = 0, pe = 0;
        uint8_t fp[HRW_VIEW_FINGERPRINT_LEN];
        if (hrw_live_view_snapshot(a->lv, &cur, &prev) != HRW_STATUS_OK || view_epoch_of(cur, &e) != HRW_STATUS_OK ||
            view_fingerprint_of(cur, fp, sizeof fp) != HRW_STATUS_OK || e < last || e > EPOCHS ||
            memcmp(fp, fingerprints[e], sizeof fp) != 0)
            a->bad++;
        if (prev != NULL && (view_epoch_of(prev, &pe) != HRW_STATUS_OK || pe + 1 != e)) a->bad++;
        last = e;
        hrw_view_free(cur);
        hrw_view_free(prev);
        uint8_t ids[64];
        hrw_live_route r;
        if (hrw_live_view_route(a->lv, (const uint8_t *)"key", 3, ids, sizeof ids, &r, NULL) != HRW_STATUS_OK) a->bad++;
        if (a->reads++ == 0) __atomic_add_fetch(a->started, 1, __ATOMIC_RELEASE);
    } while (!__atomic_load_n(a->done, __ATOMIC_ACQUIRE));
    return NULL;
}

static void test_threads(void) {
    current = "threads";
    hrw_view *views[EPOCHS + 1];
    for (uint64_t e = 1; e <= EPOCHS; e++) {
        views[e] = nodes_view((size_t)(e % 5 + 2), e);
        view_fingerprint_of(views[e], fingerprints[e], HRW_VIEW_FINGERPRINT_LEN);
    }
    hrw_live_view *lv = NULL;
    CHECK(hrw_live_view_new(views[1], NULL, &lv) == HRW_STATUS_OK, "new");
    volatile int done = 0, started = 0;
    pthread_t threads[3];
    reader_arg args[3];
    for (int i = 0; i < 3; i++) {
        args[i] = (reader_arg){lv, &done, &started, 0, 0};
        pthread_create(&threads[i], NULL, reader, &args[i]);
    }
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 3) sched_yield();
    for (uint64_t e = 2; e <= EPOCHS; e++) {
        hrw_update_outcome o;
        CHECK(hrw_live_view_update(lv, views[e], &o, NULL) == HRW_STATUS_OK && o == HRW_UPDATE_OUTCOME_APPLIED, "epoch %" PRIu64, e);
        if (e % 7 == 0) hrw_live_view_finish_move(lv, NULL);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    unsigned long reads = 0, bad = 0;
    for (int i = 0; i < 3; i++) {
        pthread_join(threads[i], NULL);
        reads += args[i].reads;
        bad += args[i].bad;
    }
    CHECK(reads > 0 && bad == 0, "%lu of %lu reads saw a mixed state", bad, reads);
    hrw_live_view_free(lv);
    for (uint64_t e = 1; e <= EPOCHS; e++) hrw_view_free(views[e]);
}

/* ---- callbacks and deadlines ----------------------------------------------------------------- */

typedef struct {
    hrw_live_view *lv;
    int calls;
    uint64_t previous, current;
} seen;

static void on_change(void *user_data, const hrw_view *previous, const hrw_view *now) {
    seen *s = user_data;
    s->calls++;
    view_epoch_of(previous, &s->previous);
    view_epoch_of(now, &s->current);
    /* Lookups answer from the new view already, and the move may be finished from here. */
    uint64_t e = 0;
    live_epoch_of(s->lv, &e);
    CHECK(e == s->current, "callback runs after the swap");
    hrw_live_view_finish_move(s->lv, NULL);
}

static void test_callbacks_and_deadlines(void) {
    current = "callbacks";
    hrw_view *v1 = nodes_view(3, 1), *v2 = nodes_view(4, 2), *v1_again = nodes_view(3, 1);
    hrw_live_view *lv = NULL;
    CHECK(hrw_live_view_new(v1, NULL, &lv) == HRW_STATUS_OK, "new");
    seen s = {lv, 0, 0, 0};
    CHECK(hrw_live_view_on_change(lv, on_change, &s) == HRW_STATUS_OK, "on_change");
    hrw_update_outcome o;
    CHECK(hrw_live_view_update(lv, v1_again, &o, NULL) == HRW_STATUS_OK && o == HRW_UPDATE_OUTCOME_UNCHANGED, "unchanged");
    CHECK(s.calls == 0, "no call for a confirmation");
    CHECK(hrw_live_view_update(lv, v2, &o, NULL) == HRW_STATUS_OK && o == HRW_UPDATE_OUTCOME_APPLIED, "applied");
    CHECK(s.calls == 1 && s.previous == 1 && s.current == 2, "callback: %d %" PRIu64 " %" PRIu64, s.calls, s.previous, s.current);
    bool moving = true;
    live_moving_of(lv, &moving);
    CHECK(!moving, "the callback finished the move");
    CHECK(hrw_live_view_update(lv, v1, &o, NULL) == HRW_STATUS_STALE_VIEW && s.calls == 1, "refusals call nothing");
    hrw_live_view_free(lv);

    current = "deadlines";
    /* A deadline of 0 ends every move as it begins; a day-long one keeps it. */
    hrw_live_view *now = NULL, *later = NULL;
    const uint64_t zero_ms = 0, day_ms = 86400000;
    CHECK(hrw_live_view_new(v1, &zero_ms, &now) == HRW_STATUS_OK, "new");
    CHECK(hrw_live_view_new(v1, &day_ms, &later) == HRW_STATUS_OK, "new");
    CHECK(hrw_live_view_update(now, v2, &o, NULL) == HRW_STATUS_OK && hrw_live_view_update(later, v2, &o, NULL) == HRW_STATUS_OK,
          "update");
    bool m_now = true, m_later = false, was = true;
    live_moving_of(now, &m_now);
    live_moving_of(later, &m_later);
    CHECK(!m_now && m_later, "moving %d %d", m_now, m_later);
    CHECK(hrw_live_view_finish_move(now, &was) == HRW_STATUS_OK && !was, "over already");
    CHECK(hrw_live_view_finish_move(later, &was) == HRW_STATUS_OK && was, "was moving");
    uint64_t ms = UINT64_MAX;
    CHECK(live_since_update_of(later, &ms) == HRW_STATUS_OK && ms < 60000, "since_update %" PRIu64, ms);
    hrw_live_view_free(now);
    hrw_live_view_free(later);
    hrw_view_free(v1);
    hrw_view_free(v2);
    hrw_view_free(v1_again);
}

/* ---- bad input ------------------------------------------------------------------------------- */

static void test_bad_input(void) {
    current = "bad input";
    hrw_view *v = nodes_view(3, 1), *v2 = nodes_view(4, 2);
    hrw_live_view *lv = NULL;
    CHECK(hrw_live_view_new(NULL, NULL, &lv) == HRW_STATUS_NULL_PARAMETER && lv == NULL, "new NULL view");
    CHECK(hrw_live_view_new(v, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "new NULL out");
    const uint64_t one_ms = 1;
    CHECK(hrw_live_view_new(NULL, &one_ms, &lv) == HRW_STATUS_NULL_PARAMETER && lv == NULL, "deadline NULL view");
    CHECK(hrw_live_view_new(v, &one_ms, NULL) == HRW_STATUS_NULL_PARAMETER, "deadline NULL out");
    CHECK(hrw_live_view_new(v, NULL, &lv) == HRW_STATUS_OK, "new");
    hrw_update_outcome o = HRW_UPDATE_OUTCOME_UNCHANGED;
    hrw_error err;
    CHECK(hrw_live_view_update(NULL, v2, &o, &err) == HRW_STATUS_NULL_PARAMETER && err.status == HRW_STATUS_NULL_PARAMETER,
          "update NULL");
    CHECK(hrw_live_view_update(lv, NULL, &o, NULL) == HRW_STATUS_NULL_PARAMETER, "update NULL view");
    CHECK(hrw_live_view_update(lv, v2, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "update NULL out");
    uint64_t epoch = 0;
    live_epoch_of(lv, &epoch);
    CHECK(epoch == 1, "a failed update changes nothing");

    uint8_t small[1], ids[64];
    size_t len = 99;
    CHECK(hrw_live_view_owner(lv, (const uint8_t *)"k", 1, small, 0, &len, &err) == HRW_STATUS_BUFFER_TOO_SMALL &&
              err.expected == 2 && err.actual == 0 && len == 99,
          "owner: too small");
    CHECK(hrw_live_view_owner(lv, (const uint8_t *)"k", 1, NULL, 0, &len, NULL) == HRW_STATUS_NULL_PARAMETER, "owner NULL buf");
    CHECK(hrw_live_view_owner(lv, NULL, 1, ids, sizeof ids, &len, NULL) == HRW_STATUS_NULL_PARAMETER, "owner NULL key");
    CHECK(hrw_live_view_owner(lv, NULL, 0, ids, sizeof ids, &len, NULL) == HRW_STATUS_OK && len == 2, "empty key");
    CHECK(hrw_live_view_owner(lv, (const uint8_t *)"k", 1, ids, sizeof ids, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "owner NULL len");
    hrw_live_route r = {7, 7, true};
    CHECK(hrw_live_view_route(lv, (const uint8_t *)"k", 1, ids, 3, &r, &err) == HRW_STATUS_BUFFER_TOO_SMALL && err.expected == 4 &&
              r.read_len == 7,
          "route: too small");
    CHECK(hrw_live_view_route(lv, (const uint8_t *)"k", 1, ids, 4, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "route NULL out");
    CHECK(hrw_live_view_route(NULL, (const uint8_t *)"k", 1, ids, 4, &r, NULL) == HRW_STATUS_NULL_PARAMETER, "route NULL");
    CHECK(hrw_live_view_route(lv, (const uint8_t *)"k", 1, ids, 4, &r, NULL) == HRW_STATUS_OK && r.read_len == 2 &&
              r.write_len == 2 && !r.moved && memcmp(ids, ids + 2, 2) == 0,
          "route with no move");
    hrw_live_view_figures f;
    memset(&f, 0xAB, sizeof f);
    CHECK(hrw_live_view_summary(NULL, &f) == HRW_STATUS_NULL_PARAMETER && f.epoch != 1, "summary of NULL");
    CHECK(hrw_live_view_summary(lv, NULL) == HRW_STATUS_NULL_PARAMETER, "summary into NULL");
    hrw_view_figures vf;
    CHECK(hrw_live_view_summary(lv, &f) == HRW_STATUS_OK && hrw_view_summary(v, &vf) == HRW_STATUS_OK && f.epoch == 1 &&
              !f.moving && memcmp(f.fingerprint, vf.fingerprint, HRW_VIEW_FINGERPRINT_LEN) == 0 &&
              f.since_update_ms < 60000,
          "summary: the view's epoch and fingerprint, no move");
    CHECK(hrw_live_view_finish_move(NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "finish NULL");
    hrw_view *cur = NULL;
    CHECK(hrw_live_view_snapshot(lv, &cur, NULL) == HRW_STATUS_NULL_PARAMETER && cur == NULL, "snapshot NULL previous");
    CHECK(hrw_live_view_on_change(lv, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "on_change NULL");
    CHECK(strstr(hrw_status_message(HRW_STATUS_STALE_VIEW), "epoch") != NULL, "message");
    CHECK(strstr(hrw_status_message(HRW_STATUS_VIEW_CONFLICT), "publishers") != NULL, "message");
    hrw_live_view_free(lv);
    hrw_live_view_free(NULL);
    hrw_view_free(v);
    hrw_view_free(v2);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s conformance/live-view.json\n", argv[0]);
        return 2;
    }
    jvalue *doc = json_load(argv[1]);
    if (doc == NULL) return 1;
    const jvalue *keys = json_get(doc, "keys"), *cases = json_get(doc, "cases");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i], keys);
    CHECK(cases->len >= 9, "cases");
    json_free(doc);
    test_threads();
    test_callbacks_and_deadlines();
    test_bad_input();
    return check_report("test_live_view");
}
