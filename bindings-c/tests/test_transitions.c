/* Runs every case of conformance/transitions.json (VIEW.md 6) through the C ABI: expected
 * movement between seeds, hrw_transition_route_top's sets and add/drop order, and the flows,
 * rows and moves of diffs and replica diffs. The file's not_offered names nothing for C. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "cases.h"

static const char *current; /* the case being run, for messages */

static hrw_view *load(const jvalue *c, const char *doc, const char *seed_member) {
    const jvalue *text = json_get(c, doc);
    bytes seed = hex(json_get(c, seed_member));
    hrw_view *v = NULL;
    hrw_error err;
    hrw_status st = hrw_view_from_json((const uint8_t *)text->str, text->len, seed.data, seed.len, &v, &err);
    CHECK(st == HRW_STATUS_OK, "%s: %s: %s", current, doc, hrw_status_message(st));
    free(seed.data);
    return v;
}

/* The transition between the case's two views; their placements are freed by the caller. */
static hrw_transition *transition_of(const jvalue *c) {
    hrw_view *vo = load(c, "from", "from_seed"), *vn = load(c, "to", "to_seed");
    hrw_placement *po = NULL, *pn = NULL;
    hrw_transition *t = NULL;
    CHECK(hrw_view_placement(vo, &po) == HRW_STATUS_OK && hrw_view_placement(vn, &pn) == HRW_STATUS_OK &&
              hrw_transition_new(po, pn, &t) == HRW_STATUS_OK,
          "%s: transition", current);
    hrw_placement_free(po);
    hrw_placement_free(pn);
    hrw_view_free(vo);
    hrw_view_free(vn);
    return t;
}

/* Whether `got[0..len)` are the indexes of the JSON array `want`. */
static int same_indexes(const size_t *got, size_t len, const jvalue *want) {
    if (want->type != J_ARR || want->len != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (got[i] != (size_t)strtoull(want->items[i].str, NULL, 10)) return 0;
    return 1;
}

static void run_movement(const jvalue *c) {
    hrw_transition *t = transition_of(c);
    hrw_transition_figures f = {-1, -1};
    CHECK(hrw_transition_summary(t, &f) == HRW_STATUS_OK, "%s: summary", current);
    double want_moved = strtod(json_get(c, "expected_moved")->str, NULL);
    double want_opt = strtod(json_get(c, "optimum")->str, NULL);
    CHECK(f.expected_moved == want_moved, "%s: expected_moved %.17g, want %.17g", current, f.expected_moved,
          want_moved);
    CHECK(f.optimum == want_opt, "%s: optimum %.17g, want %.17g", current, f.optimum, want_opt);
    hrw_transition_free(t);
}

static void run_routes(const jvalue *c) {
    hrw_transition *t = transition_of(c);
    size_t k = (size_t)u64(json_get(c, "k"));
    const jvalue *routes = json_get(c, "routes");
    size_t cap = k + 1;
    size_t *before = calloc(cap, sizeof *before), *after = calloc(cap, sizeof *after);
    size_t *add = calloc(cap, sizeof *add), *drop = calloc(cap, sizeof *drop);
    for (size_t i = 0; i < routes->len; i++) {
        const jvalue *r = &routes->items[i];
        const jvalue *key = json_get(r, "key");
        hrw_route_set s = {0};
        hrw_status st =
            hrw_transition_route_top(t, (const uint8_t *)key->str, key->len, k, before, after, add, drop, cap, &s);
        CHECK(st == HRW_STATUS_OK, "%s: %s: %s", current, key->str, hrw_status_message(st));
        CHECK(same_indexes(before, s.before_len, json_get(r, "before")), "%s: %s: before", current, key->str);
        CHECK(same_indexes(after, s.after_len, json_get(r, "after")), "%s: %s: after", current, key->str);
        CHECK(same_indexes(add, s.add_len, json_get(r, "add")), "%s: %s: add", current, key->str);
        CHECK(same_indexes(drop, s.drop_len, json_get(r, "drop")), "%s: %s: drop", current, key->str);
    }
    free(before);
    free(after);
    free(add);
    free(drop);
    hrw_transition_free(t);
}

/* Whether a row index is the file's: a number, or null where the id is absent. */
static int same_index(bool has, size_t index, const jvalue *want) {
    if (want->type == J_NULL) return !has;
    return has && index == (size_t)strtoull(want->str, NULL, 10);
}

/* key-0 .. key-(n - 1), concatenated, with their lengths. */
typedef struct {
    char *data;
    size_t *lens;
    size_t total;
} key_batch;

static key_batch generated_keys(uint64_t n) {
    key_batch b = {malloc(n * 32 + 1), malloc((n + 1) * sizeof(size_t)), 0};
    for (uint64_t i = 0; i < n; i++) {
        b.lens[i] = (size_t)snprintf(b.data + b.total, 32, "key-%llu", (unsigned long long)i);
        b.total += b.lens[i];
    }
    return b;
}

/* One diff (owners, or replica sets when top) of the case's keys against the file. */
static void check_diff(const jvalue *c, hrw_transition *t, bool top) {
    size_t k = (size_t)u64(json_get(c, "k"));
    hrw_diff *d = NULL;
    if (top)
        CHECK(hrw_transition_diff_top(t, k, &d) == HRW_STATUS_OK, "%s: diff_top", current);
    else
        CHECK(hrw_transition_diff(t, &d) == HRW_STATUS_OK, "%s: diff", current);
    uint64_t n = u64(json_get(c, "keys"));
    for (uint64_t i = 0; i < n; i++) {
        char key[32];
        size_t len = (size_t)snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
        CHECK(hrw_diff_add_many(d, (const uint8_t *)key, len, &len, 1) == HRW_STATUS_OK, "%s: add", current);
    }
    hrw_diff_figures f = {0};
    CHECK(hrw_diff_summary(d, &f) == HRW_STATUS_OK, "%s: summary", current);
    CHECK(f.keys == u64(json_get(c, "keys_counted")), "%s: keys", current);
    CHECK(f.moved == u64(json_get(c, "moved")), "%s: moved", current);

    /* A replica diff (diff_top, whatever its k) has no flows. */
    const jvalue *flows = json_get(c, "flows");
    size_t want_flows = top ? 0 : flows->len;
    size_t count = 0;
    CHECK(hrw_diff_flows(d, NULL, 0, &count) == HRW_STATUS_OK && count == want_flows, "%s: flows", current);
    hrw_flow *fl = calloc(count + 1, sizeof *fl);
    CHECK(hrw_diff_flows(d, fl, count, &count) == HRW_STATUS_OK, "%s: flows", current);
    for (size_t i = 0; i < count && i < want_flows; i++) {
        const jvalue *w = &flows->items[i];
        CHECK(fl[i].from == (size_t)u64(&w->items[0]) && fl[i].to == (size_t)u64(&w->items[1]) &&
                  fl[i].count == u64(&w->items[2]),
              "%s: flow %zu", current, i);
    }
    free(fl);

    const jvalue *rows = json_get(c, "nodes");
    CHECK(hrw_diff_nodes(d, NULL, 0, &count) == HRW_STATUS_OK && count == rows->len, "%s: rows", current);
    hrw_node_change *nc = calloc(count + 1, sizeof *nc);
    CHECK(hrw_diff_nodes(d, nc, count, &count) == HRW_STATUS_OK, "%s: rows", current);
    size_t moves = 0;
    CHECK(hrw_diff_node_moves(d, NULL, NULL, 0, &moves) == HRW_STATUS_OK && moves == count, "%s: moves", current);
    uint64_t *added = calloc(count + 1, sizeof *added), *dropped = calloc(count + 1, sizeof *dropped);
    CHECK(hrw_diff_node_moves(d, added, dropped, count, &moves) == HRW_STATUS_OK && moves == count, "%s: moves",
          current);
    uint64_t copies_added = 0, copies_dropped = 0;
    for (size_t i = 0; i < count && i < rows->len; i++) {
        const jvalue *w = &rows->items[i];
        CHECK(same_index(nc[i].has_old, nc[i].old_index, json_get(w, "old_index")), "%s: row %zu old", current, i);
        CHECK(same_index(nc[i].has_new, nc[i].new_index, json_get(w, "new_index")), "%s: row %zu new", current, i);
        CHECK(nc[i].before == u64(json_get(w, "before")) && nc[i].after == u64(json_get(w, "after")),
              "%s: row %zu counts", current, i);
        CHECK(added[i] == u64(json_get(w, "added")) && dropped[i] == u64(json_get(w, "dropped")),
              "%s: row %zu moves", current, i);
        copies_added += added[i];
        copies_dropped += dropped[i];
    }
    if (k > 1)
        CHECK(copies_added == u64(json_get(c, "copies_added")) && copies_dropped == u64(json_get(c, "copies_dropped")),
              "%s: copies", current);
    free(nc);
    free(added);
    free(dropped);
    hrw_diff_free(d);
}

static void run_diff(const jvalue *c) {
    hrw_transition *t = transition_of(c);
    size_t k = (size_t)u64(json_get(c, "k"));
    /* hrw_transition_diff_top with k = 1 counts what hrw_transition_diff counts, without flows. */
    if (k == 1) check_diff(c, t, false);
    check_diff(c, t, true);

    /* The plan lists exactly the keys the diff counts as changed. */
    uint64_t n = u64(json_get(c, "keys"));
    key_batch b = generated_keys(n);
    size_t *listed = calloc(n + 1, sizeof *listed), count = 0;
    CHECK(hrw_transition_plan_top(t, (const uint8_t *)b.data, b.total, b.lens, n, k, listed, n, &count) ==
                  HRW_STATUS_OK &&
              count == u64(json_get(c, "moved")),
          "%s: plan_top %zu", current, count);
    size_t cap = k + 1, *sets = calloc(4 * cap, sizeof *sets);
    for (size_t i = 0; i < count; i++) {
        hrw_route_set s = {0};
        const char *key = b.data;
        for (size_t j = 0; j < listed[i]; j++) key += b.lens[j];
        CHECK(i == 0 || listed[i] > listed[i - 1], "%s: plan_top order", current);
        CHECK(hrw_transition_route_top(t, (const uint8_t *)key, b.lens[listed[i]], k, sets, sets + cap, sets + 2 * cap,
                                       sets + 3 * cap, cap, &s) == HRW_STATUS_OK &&
                  s.add_len + s.drop_len > 0,
              "%s: plan_top key %zu", current, listed[i]);
    }
    /* Too little room is refused before any key is read. */
    if (n > 0)
        CHECK(hrw_transition_plan_top(t, (const uint8_t *)b.data, b.total, b.lens, n, k, listed, n - 1, &count) ==
                  HRW_STATUS_BUFFER_TOO_SMALL,
              "%s: plan_top room", current);
    free(sets);
    free(listed);
    free(b.data);
    free(b.lens);
    hrw_transition_free(t);
}

/* Replica diffs' arguments: k = 0 and k beyond the nodes, merges of other k, the moves' buffers. */
static void check_replica_diff_arguments(void) {
    current = "replica diff arguments";
    hrw_placement *a = NULL, *b = NULL;
    static const char *const ids[] = {"a", "b", "c", "d"};
    hrw_node nodes[4];
    for (size_t i = 0; i < 4; i++) nodes[i] = (hrw_node){(const uint8_t *)ids[i], 1, NULL, 0};
    hrw_transition *t = NULL;
    /* a leaves: with every node a replica, each key drops a and adds nothing. */
    CHECK(hrw_placement_new(nodes, 4, NULL, &a, NULL) == HRW_STATUS_OK &&
              hrw_placement_new(nodes + 1, 3, NULL, &b, NULL) == HRW_STATUS_OK &&
              hrw_transition_new(a, b, &t) == HRW_STATUS_OK,
          "placements");
    hrw_diff *zero = NULL, *big = NULL, *all = NULL, *one = NULL, *owners = NULL;
    CHECK(hrw_transition_diff_top(t, 0, &zero) == HRW_STATUS_OK && hrw_transition_diff_top(t, SIZE_MAX, &big) == HRW_STATUS_OK &&
              hrw_transition_diff_top(t, 4, &all) == HRW_STATUS_OK && hrw_transition_diff_top(t, 1, &one) == HRW_STATUS_OK &&
              hrw_transition_diff(t, &owners) == HRW_STATUS_OK,
          "diff_top");
    CHECK(hrw_transition_diff_top(NULL, 2, &zero) == HRW_STATUS_NULL_PARAMETER, "diff_top NULL transition");
    CHECK(hrw_transition_diff_top(t, 2, NULL) == HRW_STATUS_NULL_PARAMETER, "diff_top NULL out");
    key_batch keys = generated_keys(100);
    hrw_diff *all_diffs[] = {zero, big, all, one, owners};
    for (size_t i = 0; i < 5; i++)
        CHECK(hrw_diff_add_many(all_diffs[i], (const uint8_t *)keys.data, keys.total, keys.lens, 100) == HRW_STATUS_OK,
              "add");
    hrw_diff_figures f = {0};
    CHECK(hrw_diff_summary(zero, &f) == HRW_STATUS_OK && f.keys == 100 && f.moved == 0, "k = 0 changes nothing");
    hrw_node_change rz[5], rb[5], ra[5];
    uint64_t add_b[5], drop_b[5], add_a[5], drop_a[5];
    size_t nz = 0, nb = 0, na = 0;
    CHECK(hrw_diff_nodes(zero, rz, 5, &nz) == HRW_STATUS_OK && hrw_diff_nodes(big, rb, 5, &nb) == HRW_STATUS_OK &&
              hrw_diff_nodes(all, ra, 5, &na) == HRW_STATUS_OK && nz == 4 && nb == 4 && na == 4,
          "rows");
    for (size_t i = 0; i < 4; i++) {
        CHECK(rz[i].before == 0 && rz[i].after == 0, "k = 0 row %zu", i);
        /* Every key has every node as a replica. */
        CHECK(rb[i].before == ra[i].before && rb[i].after == ra[i].after && ra[i].before == 100 &&
                  ra[i].after == (i == 0 ? 0 : 100),
              "k = SIZE_MAX row %zu", i);
    }
    CHECK(hrw_diff_node_moves(big, add_b, drop_b, 5, &nb) == HRW_STATUS_OK &&
              hrw_diff_node_moves(all, add_a, drop_a, 5, &na) == HRW_STATUS_OK && memcmp(add_a, add_b, 4 * sizeof *add_a) == 0 &&
              memcmp(drop_a, drop_b, 4 * sizeof *drop_a) == 0 && drop_a[0] == 100,
          "k = SIZE_MAX moves");
    /* The moves' buffers, as for hrw_diff_nodes. */
    size_t cnt = 99;
    CHECK(hrw_diff_node_moves(all, add_a, drop_a, 3, &cnt) == HRW_STATUS_BUFFER_TOO_SMALL, "moves room");
    CHECK(hrw_diff_node_moves(all, add_a, NULL, 5, &cnt) == HRW_STATUS_NULL_PARAMETER, "moves NULL dropped");
    CHECK(hrw_diff_node_moves(all, NULL, drop_a, 5, &cnt) == HRW_STATUS_NULL_PARAMETER, "moves NULL added");
    CHECK(hrw_diff_node_moves(all, add_a, drop_a, 5, NULL) == HRW_STATUS_NULL_PARAMETER, "moves NULL count");
    CHECK(hrw_diff_node_moves(NULL, add_a, drop_a, 5, &cnt) == HRW_STATUS_NULL_PARAMETER, "moves NULL diff");
    /* A diff merges only a diff of the same transition and k. */
    CHECK(hrw_diff_merge(one, owners) == HRW_STATUS_NULL_PARAMETER, "merge k = 1 with owners");
    CHECK(hrw_diff_merge(owners, one) == HRW_STATUS_NULL_PARAMETER, "merge owners with k = 1");
    CHECK(hrw_diff_merge(all, big) == HRW_STATUS_NULL_PARAMETER, "merge k = 4 with k = SIZE_MAX");
    hrw_diff *other = NULL;
    CHECK(hrw_transition_diff_top(t, 4, &other) == HRW_STATUS_OK &&
              hrw_diff_add_many(other, (const uint8_t *)keys.data, keys.total, keys.lens, 100) == HRW_STATUS_OK &&
              hrw_diff_merge(all, other) == HRW_STATUS_OK && hrw_diff_summary(all, &f) == HRW_STATUS_OK && f.keys == 200,
          "merge of the same k");
    for (size_t i = 0; i < 5; i++) hrw_diff_free(all_diffs[i]);
    hrw_diff_free(other);
    free(keys.data);
    free(keys.lens);
    hrw_transition_free(t);
    hrw_placement_free(a);
    hrw_placement_free(b);
}

static void run_section(const jvalue *root, const char *name, void (*run)(const jvalue *)) {
    const jvalue *cases = json_get(root, name);
    CHECK(cases != NULL && cases->type == J_ARR && cases->len > 0, "no %s cases", name);
    for (size_t i = 0; cases != NULL && i < cases->len; i++) {
        current = json_get(&cases->items[i], "name")->str;
        run(&cases->items[i]);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s conformance/transitions.json\n", argv[0]);
        return 2;
    }
    jvalue *root = json_load(argv[1]);
    if (root == NULL) return 1;
    CHECK(strcmp(json_get(root, "format")->str, "hrwhash-view-v1") == 0, "format");
    /* not_offered names exactly what this program skips: nothing. */
    const jvalue *skipped = json_get(json_get(root, "not_offered"), "c");
    CHECK(skipped != NULL && skipped->type == J_OBJ && skipped->len == 0, "not_offered.c names a part this runs");
    run_section(root, "movement", run_movement);
    run_section(root, "routes", run_routes);
    run_section(root, "diffs", run_diff);
    check_replica_diff_arguments();
    json_free(root);
    return check_report("test_transitions");
}
