/* Runs every case of conformance/transitions.json (VIEW.md 6) through the C ABI: expected
 * movement between seeds, hrw_transition_route_top's sets and add/drop order, and the flows and
 * rows of a diff. What the ABI does not offer is skipped only as the file's not_offered names it
 * for C. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "cases.h"

static const char *current; /* the case being run, for messages */

/* The parts of the cases this program does not run: hrw_node_change has no added or dropped,
 * and hrw_transition_diff counts owners only. */
static const char *const SKIPPED[] = {"diff_row_moves", "replica_diffs"};
#define NSKIPPED (sizeof SKIPPED / sizeof SKIPPED[0])

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

static void run_diff(const jvalue *c) {
    if (u64(json_get(c, "k")) != 1) return; /* replica_diffs: not offered (checked in main) */
    hrw_transition *t = transition_of(c);
    hrw_diff *d = NULL;
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

    const jvalue *flows = json_get(c, "flows");
    size_t count = 0;
    CHECK(hrw_diff_flows(d, NULL, 0, &count) == HRW_STATUS_OK && count == flows->len, "%s: flows", current);
    hrw_flow *fl = calloc(count + 1, sizeof *fl);
    CHECK(hrw_diff_flows(d, fl, count, &count) == HRW_STATUS_OK, "%s: flows", current);
    for (size_t i = 0; i < count && i < flows->len; i++) {
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
    for (size_t i = 0; i < count && i < rows->len; i++) {
        const jvalue *w = &rows->items[i];
        CHECK(same_index(nc[i].has_old, nc[i].old_index, json_get(w, "old_index")), "%s: row %zu old", current, i);
        CHECK(same_index(nc[i].has_new, nc[i].new_index, json_get(w, "new_index")), "%s: row %zu new", current, i);
        CHECK(nc[i].before == u64(json_get(w, "before")) && nc[i].after == u64(json_get(w, "after")),
              "%s: row %zu counts", current, i);
    }
    free(nc);
    hrw_diff_free(d);
    hrw_transition_free(t);
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
    /* not_offered names exactly what this program skips. */
    const jvalue *skipped = json_get(json_get(root, "not_offered"), "c");
    CHECK(skipped != NULL && skipped->type == J_OBJ && skipped->len == NSKIPPED, "not_offered.c");
    for (size_t i = 0; i < NSKIPPED; i++)
        CHECK(skipped != NULL && json_get(skipped, SKIPPED[i]) != NULL, "not_offered.c lacks %s", SKIPPED[i]);
    run_section(root, "movement", run_movement);
    run_section(root, "routes", run_routes);
    run_section(root, "diffs", run_diff);
    json_free(root);
    return check_report("test_transitions");
}
