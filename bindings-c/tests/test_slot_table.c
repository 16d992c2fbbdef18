/* Runs the slot-table vectors through hrw_slot_table_*:
 *   conformance/policies/slot-table.json     ranked tables (POLICIES.md, "slot-table (v1)"),
 *   conformance/policies/slot-table-v2.json  levelled tables (POLICIES.md, "slot-table-v2"),
 *   conformance/policies/slot-history-v1.json their documents (SLOT-HISTORY.md),
 * each change applied both as a new table (hrw_slot_table_with_change) and in place
 * (hrw_slot_table_push; after a failing change the table is as it was); then every bad input of
 * hrw_slot_table_* with its status. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "cases.h"

static const char *current = "";

static double weight_of(const jvalue *n) {
    const jvalue *w = json_get(n, "weight");
    return w ? strtod(w->str, NULL) : 1.0;
}

/* Hex text to bytes, into a fresh buffer (freed by the caller). */
static uint8_t *unhex(const char *hex, size_t *len) {
    size_t n = strlen(hex) / 2;
    uint8_t *out = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        sscanf(hex + 2 * i, "%2x", &x);
        out[i] = (uint8_t)x;
    }
    *len = n;
    return out;
}

/* One change as the C ABI takes it: the op, the node (whose id names the node removed or
 * reweighted) and the weight. */
static hrw_slot_change change_of(uint32_t op, const hrw_node *node, double weight) {
    hrw_slot_change c = {op, {NULL, 0, NULL, 0}, weight};
    if (node) c.node = *node;
    return c;
}

static hrw_slot_change change_of_id(uint32_t op, const uint8_t *id, size_t id_len, double weight) {
    hrw_node n = {id, id_len, NULL, 0};
    return change_of(op, &n, weight);
}

static hrw_status with_node(const hrw_slot_table *t, const hrw_node *n, double w, hrw_slot_table **out, hrw_error *e) {
    hrw_slot_change c = change_of(HRW_SLOT_OP_ADD, n, w);
    return hrw_slot_table_with_change(t, &c, out, e);
}

static hrw_status without_node(const hrw_slot_table *t, const uint8_t *id, size_t len, hrw_slot_table **out,
                               hrw_error *e) {
    hrw_slot_change c = change_of_id(HRW_SLOT_OP_REMOVE, id, len, 0.0);
    return hrw_slot_table_with_change(t, &c, out, e);
}

static hrw_status with_weight(const hrw_slot_table *t, const uint8_t *id, size_t len, double w, hrw_slot_table **out,
                              hrw_error *e) {
    hrw_slot_change c = change_of_id(HRW_SLOT_OP_WEIGHT, id, len, w);
    return hrw_slot_table_with_change(t, &c, out, e);
}

static hrw_status add_node(hrw_slot_table *t, const hrw_node *n, double w, hrw_error *e) {
    hrw_slot_change c = change_of(HRW_SLOT_OP_ADD, n, w);
    return hrw_slot_table_push(t, &c, e);
}

static hrw_status remove_node(hrw_slot_table *t, const uint8_t *id, size_t len, hrw_error *e) {
    hrw_slot_change c = change_of_id(HRW_SLOT_OP_REMOVE, id, len, 0.0);
    return hrw_slot_table_push(t, &c, e);
}

static hrw_status set_weight(hrw_slot_table *t, const uint8_t *id, size_t len, double w, hrw_error *e) {
    hrw_slot_change c = change_of_id(HRW_SLOT_OP_WEIGHT, id, len, w);
    return hrw_slot_table_push(t, &c, e);
}

/* One figure of hrw_slot_table_summary, in the shape of a getter. */
static hrw_status get_slots(const hrw_slot_table *t, uint32_t *out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.slots;
    return s;
}

static hrw_status get_mode(const hrw_slot_table *t, hrw_slot_mode *out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.mode;
    return s;
}

static hrw_status get_bound(const hrw_slot_table *t, bool *has, uint32_t *ppm) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) {
        *has = f.has_bound;
        *ppm = f.overload_ppm;
    }
    return s;
}

static hrw_status get_epoch(const hrw_slot_table *t, uint64_t *out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.epoch;
    return s;
}

static hrw_status get_change_count(const hrw_slot_table *t, size_t *out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.change_count;
    return s;
}

/* The memberships and the view of hrw_slot_table_summary, in the shape of getters. */
static hrw_status get_placement(const hrw_slot_table *t, const hrw_placement **out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.placement;
    return s;
}

static hrw_status get_initial(const hrw_slot_table *t, const hrw_placement **out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    if (s == HRW_STATUS_OK) *out = f.initial;
    return s;
}

/* The table's view: its current membership at its epoch (SLOT-HISTORY.md 4.2). */
static hrw_status get_view(const hrw_slot_table *t, hrw_view **out) {
    hrw_slot_table_figures f;
    hrw_status s = hrw_slot_table_summary(t, &f);
    return s == HRW_STATUS_OK ? hrw_view_new(f.placement, f.epoch, out, NULL) : s;
}

/* The slot of a key: the optional out-param of hrw_slot_table_owner. */
static hrw_status get_slot(const hrw_slot_table *t, const uint8_t *key, size_t len, uint32_t *out) {
    size_t owner;
    return hrw_slot_table_owner(t, key, len, &owner, out);
}

/* A levelled table (options NULL), or a ranked one with an optional bound. */
static hrw_status new_levelled(const hrw_placement *p, uint64_t slots, hrw_slot_table **out, hrw_error *e) {
    return hrw_slot_table_new(p, slots, NULL, out, e);
}

static hrw_status new_ranked(const hrw_placement *p, uint64_t slots, const uint32_t *ppm, hrw_slot_table **out,
                             hrw_error *e) {
    hrw_slot_table_options o = {HRW_SLOT_MODE_RANKED, ppm != NULL, ppm ? *ppm : 0};
    return hrw_slot_table_new(p, slots, &o, out, e);
}

/* ---- tables of the policy vectors ------------------------------------------------------- */

static hrw_placement *table_placement_of(const jvalue *c) {
    const jvalue *nodes = json_get(c, "nodes");
    hrw_node *list = calloc(nodes->len ? nodes->len : 1, sizeof *list);
    double *weights = calloc(nodes->len ? nodes->len : 1, sizeof *weights);
    for (size_t i = 0; i < nodes->len; i++) {
        const jvalue *id = json_get(&nodes->items[i], "id");
        list[i].id = (const uint8_t *)id->str;
        list[i].id_len = id->len;
        weights[i] = weight_of(&nodes->items[i]);
    }
    uint8_t seed[16];
    hrw_placement_options o = {NULL, 0, weights, nodes->len};
    const jvalue *s = json_get(c, "seed");
    if (s) {
        for (size_t i = 0; i < 16; i++) {
            unsigned x;
            sscanf(s->str + 2 * i, "%2x", &x);
            seed[i] = (uint8_t)x;
        }
        o.seed = seed;
        o.seed_len = 16;
    }
    hrw_placement *p = NULL;
    hrw_status st = hrw_placement_new(list, nodes->len, &o, &p, NULL);
    CHECK(st == HRW_STATUS_OK, "placement of %s: %d", current, (int)st);
    free(list);
    free(weights);
    return p;
}

/* A case's table: ranked when the case has "overload_ppm" (null = unbounded), else levelled. */
static hrw_status table_of(const jvalue *c, hrw_slot_table **t, hrw_error *e) {
    hrw_placement *p = table_placement_of(c);
    unsigned long long slots = strtoull(json_get(c, "slots")->str, NULL, 10);
    const jvalue *ov = json_get(c, "overload_ppm");
    hrw_status st;
    if (ov == NULL) {
        st = new_levelled(p, slots, t, e);
    } else {
        uint32_t ppm = ov->type == J_NUM ? (uint32_t)strtoul(ov->str, NULL, 10) : 0;
        st = new_ranked(p, slots, ov->type == J_NUM ? &ppm : NULL, t, e);
    }
    hrw_placement_free(p);
    return st;
}

/* Applies one change of the cases file as a new table, written only on success. */
static hrw_status apply(const hrw_slot_table *t, const jvalue *ch, hrw_slot_table **next) {
    const char *op = json_get(ch, "op")->str;
    const jvalue *id = json_get(ch, "id");
    if (strcmp(op, "add") == 0) {
        hrw_node n = {(const uint8_t *)id->str, id->len, NULL, 0};
        return with_node(t, &n, weight_of(ch), next, NULL);
    }
    if (strcmp(op, "remove") == 0) {
        return without_node(t, (const uint8_t *)id->str, id->len, next, NULL);
    }
    CHECK(strcmp(op, "weight") == 0, "unknown op %s", op);
    return with_weight(t, (const uint8_t *)id->str, id->len, weight_of(ch), next, NULL);
}

/* The same change applied to the table in place. */
static hrw_status apply_in_place(hrw_slot_table *t, const jvalue *ch) {
    const char *op = json_get(ch, "op")->str;
    const jvalue *id = json_get(ch, "id");
    if (strcmp(op, "add") == 0) {
        hrw_node n = {(const uint8_t *)id->str, id->len, NULL, 0};
        return add_node(t, &n, weight_of(ch), NULL);
    }
    if (strcmp(op, "remove") == 0) {
        return remove_node(t, (const uint8_t *)id->str, id->len, NULL);
    }
    return set_weight(t, (const uint8_t *)id->str, id->len, weight_of(ch), NULL);
}

/* What a caller sees of a table, for before/after comparisons: its assignments, node count,
 * number of changes and fingerprint. */
typedef struct {
    uint32_t *owners;
    uint32_t slots;
    size_t nodes, changes;
    uint8_t fingerprint[HRW_TABLE_FINGERPRINT_LEN];
} snapshot;

static snapshot snapshot_of(const hrw_slot_table *t) {
    snapshot s = {NULL, 0, 0, 0, {0}};
    const hrw_placement *members = NULL;
    CHECK(get_slots(t, &s.slots) == HRW_STATUS_OK &&
              get_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &s.nodes, NULL) == HRW_STATUS_OK &&
              get_change_count(t, &s.changes) == HRW_STATUS_OK &&
              hrw_slot_table_fingerprint(t, s.fingerprint, sizeof s.fingerprint) == HRW_STATUS_OK,
          "%s: snapshot", current);
    s.owners = calloc(s.slots ? s.slots : 1, sizeof *s.owners);
    CHECK(hrw_slot_table_assignments(t, s.owners, s.slots) == HRW_STATUS_OK, "%s: snapshot", current);
    return s;
}

static int snapshot_same(snapshot a, snapshot b) {
    return a.slots == b.slots && a.nodes == b.nodes && a.changes == b.changes &&
           memcmp(a.fingerprint, b.fingerprint, sizeof a.fingerprint) == 0 &&
           memcmp(a.owners, b.owners, a.slots * sizeof *a.owners) == 0;
}

/* Checks a table against an "expected" member: its owners, the counts of its own assignments,
 * and the capacities of a bounded ranked table (NOT_OFFERED otherwise). */
static void check_state(const hrw_slot_table *t, const jvalue *expected) {
    const jvalue *table = json_get(expected, "table"), *caps = json_get(expected, "capacities");
    uint32_t slots = 0;
    CHECK(get_slots(t, &slots) == HRW_STATUS_OK && slots == table->len, "%s: slots", current);
    const hrw_placement *members = NULL;
    size_t nodes = 0;
    CHECK(get_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &nodes, NULL) == HRW_STATUS_OK,
          "%s: placement", current);
    uint32_t *owners = calloc(table->len, sizeof *owners);
    CHECK(hrw_slot_table_assignments(t, owners, table->len - 1) == HRW_STATUS_BUFFER_TOO_SMALL,
          "%s: short buffer", current);
    CHECK(hrw_slot_table_assignments(t, owners, table->len) == HRW_STATUS_OK, "%s", current);
    uint32_t *want_counts = calloc(nodes + 1, sizeof *want_counts);
    uint32_t *counts = calloc(nodes + 1, sizeof *counts);
    int same = 1;
    for (size_t s = 0; s < table->len; s++) {
        size_t o = 0;
        unsigned long want = strtoul(table->items[s].str, NULL, 10);
        same &= owners[s] == want && want < nodes;
        same &= hrw_slot_table_owner_of_slot(t, s, &o) == HRW_STATUS_OK && o == want;
        if (want < nodes) want_counts[want]++;
    }
    CHECK(same, "%s: table", current);
    CHECK(nodes == 0 || hrw_slot_table_slot_counts(t, counts, nodes - 1) == HRW_STATUS_BUFFER_TOO_SMALL,
          "%s: short counts buffer", current);
    CHECK(hrw_slot_table_slot_counts(t, counts, nodes) == HRW_STATUS_OK &&
              memcmp(counts, want_counts, nodes * sizeof *counts) == 0,
          "%s: slot counts", current);
    size_t o = 12345;
    CHECK(hrw_slot_table_owner_of_slot(t, table->len, &o) == HRW_STATUS_SLOT_OUT_OF_RANGE && o == 12345,
          "%s: slot past the end", current);
    bool bounded = true;
    uint32_t ppm = 1;
    CHECK(get_bound(t, &bounded, &ppm) == HRW_STATUS_OK && (bounded || ppm == 0),
          "%s: overload_ppm", current);
    uint32_t *capacities = calloc(nodes + 1, sizeof *capacities);
    CHECK(capacities != NULL, "%s: capacities buffer", current);
    capacities[0] = 12345;
    if (bounded) {
        CHECK(caps != NULL && caps->len == nodes, "%s: capacities in the vectors", current);
        CHECK(nodes == 0 || hrw_slot_table_capacities(t, capacities, nodes - 1) == HRW_STATUS_BUFFER_TOO_SMALL,
              "%s: short capacities buffer", current);
        CHECK(hrw_slot_table_capacities(t, capacities, nodes + 1) == HRW_STATUS_OK, "%s: capacities", current);
        for (size_t i = 0; caps && i < caps->len; i++) {
            CHECK(capacities[i] == strtoul(caps->items[i].str, NULL, 10), "%s: capacity %zu", current, i);
        }
    } else {
        CHECK(hrw_slot_table_capacities(t, capacities, nodes) == HRW_STATUS_NOT_OFFERED && capacities[0] == 12345,
              "%s: capacities without a bound", current);
    }
    free(capacities);
    free(counts);
    free(want_counts);
    free(owners);
}

static void run_case(const jvalue *c, hrw_slot_mode mode) {
    current = json_get(c, "name")->str;
    hrw_slot_table *t = NULL, *in_place = NULL;
    CHECK(table_of(c, &t, NULL) == HRW_STATUS_OK && table_of(c, &in_place, NULL) == HRW_STATUS_OK,
          "%s: build", current);
    if (t == NULL || in_place == NULL) {
        hrw_slot_table_free(t);
        hrw_slot_table_free(in_place);
        return;
    }
    hrw_slot_mode got = (hrw_slot_mode)99;
    CHECK(get_mode(t, &got) == HRW_STATUS_OK && got == mode, "%s: mode %d", current, (int)got);
    const jvalue *ov = json_get(c, "overload_ppm");
    bool bounded = false;
    uint32_t ppm = 12345;
    CHECK(get_bound(t, &bounded, &ppm) == HRW_STATUS_OK &&
              bounded == (ov && ov->type == J_NUM) &&
              ppm == (bounded ? (uint32_t)strtoul(ov->str, NULL, 10) : 0),
          "%s: overload_ppm", current);
    const jvalue *expected = json_get(c, "expected");
    check_state(t, expected);
    const jvalue *keys = json_get(expected, "keys");
    for (size_t i = 0; i < keys->len; i++) {
        const jvalue *k = json_get(&keys->items[i], "key");
        uint32_t slot = 0;
        size_t owner = 0;
        CHECK(get_slot(t, (const uint8_t *)k->str, k->len, &slot) == HRW_STATUS_OK &&
                  slot == strtoul(json_get(&keys->items[i], "slot")->str, NULL, 10),
              "%s: slot of %s", current, k->str);
        CHECK(hrw_slot_table_owner(t, (const uint8_t *)k->str, k->len, &owner, NULL) == HRW_STATUS_OK &&
                  owner == strtoul(json_get(&keys->items[i], "owner")->str, NULL, 10),
              "%s: owner of %s", current, k->str);
    }
    const jvalue *changes = json_get(c, "changes");
    for (size_t i = 0; changes && i < changes->len; i++) {
        const jvalue *ch = &changes->items[i];
        hrw_slot_table *next = NULL;
        hrw_status st = apply(t, ch, &next);
        CHECK(st == HRW_STATUS_OK, "%s: change %zu: %d", current, i, (int)st);
        if (st != HRW_STATUS_OK) break;
        hrw_slot_table_free(t);
        t = next;
        check_state(t, json_get(ch, "expected"));
        CHECK(apply_in_place(in_place, ch) == HRW_STATUS_OK, "%s: change %zu in place", current, i);
        check_state(in_place, json_get(ch, "expected"));
        snapshot a = snapshot_of(t), b = snapshot_of(in_place);
        CHECK(snapshot_same(a, b) && a.changes == i + 1, "%s: change %zu: a copy and in place agree", current, i);
        free(a.owners);
        free(b.owners);
    }
    hrw_slot_table_free(in_place);
    hrw_slot_table_free(t);
}

static void run_error_case(const jvalue *c) {
    current = json_get(c, "name")->str;
    hrw_status want = status_named(json_get(c, "error")->str);
    hrw_slot_table *t = NULL;
    hrw_error e;
    memset(&e, 0, sizeof e);
    hrw_status st = table_of(c, &t, &e);
    const jvalue *slot = json_get(c, "slot"), *changes = json_get(c, "changes");
    if (slot == NULL && changes == NULL) {
        unsigned long long slots = strtoull(json_get(c, "slots")->str, NULL, 10);
        CHECK(st == want && e.status == want && t == NULL, "%s: %d", current, (int)st);
        CHECK(want != HRW_STATUS_INVALID_SLOT_COUNT || e.actual == (slots > SIZE_MAX ? SIZE_MAX : (size_t)slots),
              "%s: detail %zu", current, e.actual);
        return;
    }
    CHECK(st == HRW_STATUS_OK, "%s: build %d", current, (int)st);
    if (st != HRW_STATUS_OK) return;
    if (slot != NULL) {
        size_t o = 12345;
        CHECK(hrw_slot_table_owner_of_slot(t, strtoull(slot->str, NULL, 10), &o) == want && o == 12345, "%s",
              current);
    }
    for (size_t i = 0; changes && i < changes->len; i++) {
        hrw_slot_table *next = NULL;
        st = apply(t, &changes->items[i], &next);
        if (i + 1 < changes->len) {
            CHECK(st == HRW_STATUS_OK, "%s: change %zu: %d", current, i, (int)st);
            if (st != HRW_STATUS_OK) break;
            hrw_slot_table_free(t);
            t = next;
        } else {
            CHECK(st == want && next == NULL, "%s: last change %d", current, (int)st);
            /* The same failing change in place: the same status, and the table as it was. */
            snapshot before = snapshot_of(t);
            st = apply_in_place(t, &changes->items[i]);
            snapshot after = snapshot_of(t);
            CHECK(st == want && snapshot_same(before, after), "%s: last change in place %d", current, (int)st);
            free(before.owners);
            free(after.owners);
        }
    }
    hrw_slot_table_free(t);
}

static void run_policy(const char *path, const char *policy, hrw_slot_mode mode) {
    jvalue *v = json_load(path);
    CHECK(v != NULL, "%s loads", path);
    if (v == NULL) return;
    CHECK(strcmp(json_get(v, "policy")->str, policy) == 0, "%s: policy tag", path);
    const jvalue *cases = json_get(v, "cases"), *errors = json_get(v, "error_cases");
    CHECK(cases->len > 0 && errors->len > 0, "%s: cases present", path);
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i], mode);
    for (size_t i = 0; i < errors->len; i++) run_error_case(&errors->items[i]);
    json_free(v);
}

/* ---- documents -------------------------------------------------------------------------- */

/* Loads a case's document with its seed; the status, and the table on success. */
static hrw_status load(const jvalue *c, const char *member, hrw_slot_table **t, hrw_error *err) {
    const jvalue *doc = json_get(c, member);
    const jvalue *seed_hex = json_get(c, "seed");
    size_t text_len = 0, seed_len = 0;
    uint8_t *owned = NULL, *seed = NULL;
    const uint8_t *text;
    if (doc) {
        text = (const uint8_t *)doc->str;
        text_len = doc->len;
    } else {
        owned = unhex(json_get(c, "document_hex")->str, &text_len);
        text = owned;
    }
    if (seed_hex) seed = unhex(seed_hex->str, &seed_len);
    hrw_status s = hrw_slot_table_from_json(text, text_len, seed, seed_len, t, err);
    free(owned);
    free(seed);
    return s;
}

static void check_fingerprint(const hrw_slot_table *t, const char *want) {
    uint8_t raw[HRW_TABLE_FINGERPRINT_LEN];
    char hex[2 * HRW_TABLE_FINGERPRINT_LEN + 1];
    CHECK(hrw_slot_table_fingerprint(t, raw, sizeof raw) == HRW_STATUS_OK, "%s", current);
    hex_of(raw, sizeof raw, hex);
    CHECK(strcmp(hex, want) == 0, "%s: table fingerprint %s, want %s", current, hex, want);
    CHECK(hrw_slot_table_fingerprint(t, raw, sizeof raw - 1) == HRW_STATUS_BUFFER_TOO_SMALL, "%s", current);
    int same = 1;
    for (size_t i = 0; i < sizeof raw; i++) {
        unsigned x;
        sscanf(want + 2 * i, "%2x", &x);
        same &= raw[i] == x;
    }
    CHECK(same, "%s: raw fingerprint", current);
    CHECK(hrw_slot_table_fingerprint(t, raw, sizeof raw - 1) == HRW_STATUS_BUFFER_TOO_SMALL, "%s", current);
}

static void check_canonical(const hrw_slot_table *t, const char *want) {
    size_t need = 0;
    hrw_error err;
    CHECK(hrw_slot_table_to_json(t, NULL, 0, &need, &err) == HRW_STATUS_BUFFER_TOO_SMALL, "%s", current);
    CHECK(err.expected == strlen(want) && err.actual == 0, "%s: length %zu", current, err.expected);
    uint8_t *buf = malloc(err.expected ? err.expected : 1);
    size_t written = 0;
    CHECK(hrw_slot_table_to_json(t, buf, err.expected, &written, NULL) == HRW_STATUS_OK, "%s", current);
    CHECK(written == strlen(want) && memcmp(buf, want, written) == 0, "%s: canonical form", current);
    free(buf);
}

static void check_view(const hrw_slot_table *t, const char *want) {
    hrw_view *v = NULL;
    CHECK(get_view(t, &v) == HRW_STATUS_OK, "%s", current);
    uint8_t raw[HRW_VIEW_FINGERPRINT_LEN];
    char hex[2 * HRW_VIEW_FINGERPRINT_LEN + 1];
    CHECK(view_fingerprint_of(v, raw, sizeof raw) == HRW_STATUS_OK, "%s", current);
    hex_of(raw, sizeof raw, hex);
    CHECK(strcmp(hex, want) == 0, "%s: view fingerprint %s, want %s", current, hex, want);
    uint64_t ve = 1, te = 2;
    CHECK(view_epoch_of(v, &ve) == HRW_STATUS_OK && get_epoch(t, &te) == HRW_STATUS_OK && ve == te,
          "%s: the view has the table's epoch", current);
    hrw_view_free(v);
}

static void check_owners(const hrw_slot_table *t, const jvalue *owners) {
    const hrw_placement *p = NULL;
    CHECK(get_placement(t, &p) == HRW_STATUS_OK, "%s", current);
    for (size_t i = 0; i < owners->len; i++) {
        const jvalue *o = &owners->items[i];
        uint64_t slot = strtoull(json_get(o, "slot")->str, NULL, 10);
        const jvalue *key = json_get(o, "key");
        if (key) {
            uint32_t s = UINT32_MAX;
            CHECK(get_slot(t, (const uint8_t *)key->str, key->len, &s) == HRW_STATUS_OK, "%s", current);
            CHECK(s == slot, "%s: slot of %s is %u, want %llu", current, key->str, s, (unsigned long long)slot);
        }
        size_t index = SIZE_MAX;
        CHECK(hrw_slot_table_owner_of_slot(t, slot, &index) == HRW_STATUS_OK, "%s", current);
        const uint8_t *id = NULL;
        size_t id_len = 0;
        CHECK(node_id_of(p, index, &id, &id_len) == HRW_STATUS_OK, "%s", current);
        const jvalue *text = json_get(o, "owner");
        size_t want_len = 0;
        uint8_t *want = text ? NULL : unhex(json_get(o, "owner_hex")->str, &want_len);
        if (text) {
            CHECK(id_len == text->len && memcmp(id, text->str, id_len) == 0, "%s: owner of slot %llu", current,
                  (unsigned long long)slot);
        } else {
            CHECK(id_len == want_len && memcmp(id, want, id_len) == 0, "%s: owner of slot %llu", current,
                  (unsigned long long)slot);
        }
        free(want);
    }
}

/* The mode and bound a canonical document names: its "policy" and "overload_ppm" lines. */
static void check_mode(const hrw_slot_table *t, const char *document) {
    hrw_slot_mode mode = (hrw_slot_mode)99;
    CHECK(get_mode(t, &mode) == HRW_STATUS_OK, "%s", current);
    if (strstr(document, "\"policy\": \"slot-table-v1\"") != NULL) {
        CHECK(mode == HRW_SLOT_MODE_RANKED, "%s: ranked", current);
    } else {
        CHECK(mode == HRW_SLOT_MODE_LEVELLED, "%s: levelled", current);
    }
    const char *line = strstr(document, "\"overload_ppm\": ");
    bool has = !line;
    uint32_t ppm = 1;
    CHECK(get_bound(t, &has, &ppm) == HRW_STATUS_OK && has == (line != NULL) &&
              ppm == (line ? (uint32_t)strtoul(line + strlen("\"overload_ppm\": "), NULL, 10) : 0),
          "%s: overload_ppm %u", current, ppm);
}

static void run_valid(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_table *t = NULL;
        hrw_error err;
        CHECK(load(c, "document", &t, &err) == HRW_STATUS_OK, "%s: loads", current);
        if (!t) continue;
        check_fingerprint(t, json_get(c, "table_fingerprint")->str);
        check_canonical(t, json_get(c, "canonical")->str);
        check_view(t, json_get(c, "view_fingerprint")->str);
        check_mode(t, json_get(c, "canonical")->str);
        size_t changes = 0;
        CHECK(get_change_count(t, &changes) == HRW_STATUS_OK &&
                  changes == strtoull(json_get(c, "changes")->str, NULL, 10),
              "%s: changes %zu", current, changes);
        check_owners(t, json_get(c, "owners"));
        hrw_slot_table_free(t);
    }
}

static void run_pairs(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_table *a = NULL, *b = NULL;
        CHECK(load(c, "a", &a, NULL) == HRW_STATUS_OK && load(c, "b", &b, NULL) == HRW_STATUS_OK, "%s", current);
        if (a && b) {
            check_fingerprint(a, json_get(c, "a_table_fingerprint")->str);
            check_fingerprint(b, json_get(c, "b_table_fingerprint")->str);
            check_view(a, json_get(c, "view_fingerprint")->str);
            check_view(b, json_get(c, "view_fingerprint")->str);
        }
        hrw_slot_table_free(a);
        hrw_slot_table_free(b);
    }
}

static void run_equivalent(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_table *t = NULL;
        CHECK(load(c, "document", &t, NULL) == HRW_STATUS_OK, "%s", current);
        if (!t) continue;
        check_fingerprint(t, json_get(c, "table_fingerprint")->str);
        check_canonical(t, json_get(c, "canonical")->str);
        hrw_slot_table_free(t);
    }
}

static void run_invalid(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_table *t = NULL;
        hrw_error err;
        hrw_status want = status_named(json_get(c, "error")->str);
        hrw_status got = load(c, "document", &t, &err);
        CHECK(got == want && err.status == want, "%s: status %u, want %u", current, (unsigned)got, (unsigned)want);
        CHECK(t == NULL, "%s: no table on failure", current);
        hrw_slot_table_free(t);
        const jvalue *index = json_get(c, "index");
        if (want == HRW_STATUS_INVALID_VIEW) {
            const char *field = json_get(c, "field")->str;
            CHECK(err.field_len == strlen(field) && memcmp(err.field, field, err.field_len) == 0, "%s: field",
                  current);
            CHECK(strcmp(hrw_view_fault_name(err.reason), json_get(c, "reason")->str) == 0, "%s: reason %s",
                  current, hrw_view_fault_name(err.reason));
            if (index->type == J_NULL) {
                CHECK(!err.has_index, "%s: has_index", current);
            } else {
                CHECK(err.has_index && err.index == strtoull(index->str, NULL, 10), "%s: index %zu", current,
                      err.index);
            }
        }
        if (want == HRW_STATUS_EMPTY_NODE_ID || want == HRW_STATUS_DUPLICATE_NODE_ID) {
            CHECK(err.index == strtoull(index->str, NULL, 10), "%s: index %zu", current, err.index);
        }
        if (want == HRW_STATUS_DUPLICATE_NODE_ID) {
            CHECK(err.first_index == strtoull(json_get(c, "first_index")->str, NULL, 10), "%s: first_index",
                  current);
        }
        if (want == HRW_STATUS_INVALID_SLOT_COUNT) {
            CHECK(err.actual == (size_t)strtoull(json_get(c, "value")->str, NULL, 10), "%s: value", current);
        }
        if (want == HRW_STATUS_INVALID_JSON) {
            CHECK(err.line >= 1 && err.column >= 1, "%s: position", current);
        }
    }
}

static void run_documents(const char *path) {
    jvalue *v = json_load(path);
    CHECK(v != NULL, "%s loads", path);
    if (v == NULL) return;
    run_valid(json_get(v, "valid"));
    run_pairs(json_get(v, "same_membership"));
    run_equivalent(json_get(v, "equivalent"));
    run_invalid(json_get(v, "invalid"));
    json_free(v);
}

/* ---- bad inputs ------------------------------------------------------------------------- */

static hrw_node node_a = {(const uint8_t *)"a", 1, NULL, 0}, node_b = {(const uint8_t *)"b", 1, NULL, 0},
                node_c = {(const uint8_t *)"c", 1, NULL, 0};

static hrw_placement *two_nodes(void) {
    hrw_node nodes[2] = {node_a, node_b};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    return p;
}

/* Construction: NULL pointers, slot counts, the overload bound. */
static void bad_construction(void) {
    current = "construction";
    hrw_placement *p = two_nodes();
    hrw_slot_table *t = NULL;
    hrw_error e;
    uint32_t ppm = 50000;
    CHECK(new_levelled(NULL, 8, &t, &e) == HRW_STATUS_NULL_PARAMETER && e.status == HRW_STATUS_NULL_PARAMETER,
          "NULL placement");
    CHECK(new_levelled(p, 8, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(new_ranked(NULL, 8, NULL, &t, NULL) == HRW_STATUS_NULL_PARAMETER, "ranked NULL placement");
    CHECK(new_ranked(p, 8, &ppm, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "ranked NULL out");
    CHECK(new_levelled(p, 0, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT && e.actual == 0 && t == NULL,
          "zero slots");
    CHECK(new_levelled(p, (1u << 24) + 1, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT &&
              e.actual == (1u << 24) + 1 && t == NULL,
          "2^24 + 1 slots");
    CHECK(new_ranked(p, 0, &ppm, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT && t == NULL,
          "ranked zero slots");
    CHECK(new_ranked(p, UINT64_MAX, NULL, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT && t == NULL,
          "ranked 2^64 - 1 slots");
    /* The largest bound is still a bound; NULL is none. */
    uint32_t largest = UINT32_MAX;
    bool has = false;
    uint32_t got = 0;
    CHECK(new_ranked(p, 8, &largest, &t, NULL) == HRW_STATUS_OK, "largest bound");
    CHECK(get_bound(t, &has, &got) == HRW_STATUS_OK && has && got == UINT32_MAX, "largest bound");
    hrw_slot_table_free(t);
    t = NULL;
    CHECK(new_ranked(p, 8, NULL, &t, NULL) == HRW_STATUS_OK, "unbounded");
    CHECK(get_bound(t, &has, &got) == HRW_STATUS_OK && !has && got == 0, "unbounded");
    hrw_slot_table_free(t);
    t = NULL;
    /* Options: zero-initialised is levelled, as NULL is; an unknown mode, and a bound on a
     * levelled table, are refused (InvalidArgument) before anything is built. */
    hrw_slot_table_options zero = {0, false, 0};
    hrw_slot_mode mode = HRW_SLOT_MODE_RANKED;
    CHECK(hrw_slot_table_new(p, 8, &zero, &t, NULL) == HRW_STATUS_OK && get_mode(t, &mode) == HRW_STATUS_OK &&
              mode == HRW_SLOT_MODE_LEVELLED,
          "zeroed options: levelled");
    hrw_slot_table_free(t);
    t = NULL;
    const uint32_t unknown_modes[] = {2, 3, 255, UINT32_MAX};
    for (size_t i = 0; i < sizeof unknown_modes / sizeof unknown_modes[0]; i++) {
        hrw_slot_table_options o = {unknown_modes[i], false, 0};
        memset(&e, 0, sizeof e);
        CHECK(hrw_slot_table_new(p, 8, &o, &t, &e) == HRW_STATUS_NULL_PARAMETER &&
                  e.status == HRW_STATUS_NULL_PARAMETER && t == NULL,
              "unknown mode %u", (unsigned)unknown_modes[i]);
    }
    hrw_slot_table_options levelled_bound = {HRW_SLOT_MODE_LEVELLED, true, 5};
    CHECK(hrw_slot_table_new(p, 8, &levelled_bound, &t, &e) == HRW_STATUS_NULL_PARAMETER &&
              e.status == HRW_STATUS_NULL_PARAMETER && t == NULL,
          "a bound on a levelled table");
    /* A bound that is not asked for is not read. */
    hrw_slot_table_options unread = {HRW_SLOT_MODE_RANKED, false, 12345};
    CHECK(hrw_slot_table_new(p, 8, &unread, &t, NULL) == HRW_STATUS_OK && get_bound(t, &has, &got) == HRW_STATUS_OK &&
              !has && got == 0,
          "has_bound false: unbounded");
    hrw_slot_table_free(t);
    hrw_slot_table_free(NULL);
    hrw_placement_free(p);
}

/* Every read: a NULL table, a NULL out-param, a NULL key with a length, short buffers, slots out
 * of range, and the ranked-only capacity of a levelled table. */
static void bad_reads(void) {
    current = "reads";
    hrw_placement *p = two_nodes();
    hrw_slot_table *t = NULL;
    CHECK(new_levelled(p, 8, &t, NULL) == HRW_STATUS_OK, "table");
    uint32_t u32 = 0, counts[2], owners[8];
    size_t index = 0;
    const hrw_placement *members = NULL;
    hrw_view *view = NULL;
    uint8_t buf[HRW_TABLE_FINGERPRINT_LEN];
    hrw_slot_table_figures f;
    CHECK(hrw_slot_table_summary(NULL, &f) == HRW_STATUS_NULL_PARAMETER, "summary of NULL");
    CHECK(hrw_slot_table_summary(t, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out summary");
    memset(&f, 0xAB, sizeof f);
    CHECK(hrw_slot_table_summary(t, &f) == HRW_STATUS_OK && f.slots == 8 && f.mode == HRW_SLOT_MODE_LEVELLED &&
              !f.has_bound && f.overload_ppm == 0 && f.epoch == 0 && f.change_count == 0,
          "a new levelled table: 8 slots, no bound, epoch 0, no change");
    u32 = 12345;
    CHECK(hrw_slot_table_capacities(t, &u32, 1) == HRW_STATUS_NOT_OFFERED && u32 == 12345,
          "capacities of a levelled table");
    CHECK(hrw_slot_table_capacities(t, NULL, 0) == HRW_STATUS_NOT_OFFERED, "NOT_OFFERED before the buffer");
    CHECK(hrw_slot_table_capacities(NULL, &u32, 1) == HRW_STATUS_NULL_PARAMETER, "capacities of NULL");
    size_t owner_index = 99;
    CHECK(hrw_slot_table_owner(t, NULL, 0, &owner_index, &u32) == HRW_STATUS_OK && u32 < 8 && owner_index < 2,
          "empty key: slot and owner");
    CHECK(hrw_slot_table_owner_of_slot(t, u32, &index) == HRW_STATUS_OK && index == owner_index,
          "the owner is the owner of the key's slot");
    u32 = 12345;
    CHECK(hrw_slot_table_owner(t, NULL, 0, &owner_index, NULL) == HRW_STATUS_OK && u32 == 12345,
          "the slot is optional");
    CHECK(hrw_slot_table_owner(t, NULL, 3, &owner_index, &u32) == HRW_STATUS_NULL_PARAMETER && u32 == 12345,
          "NULL key");
    CHECK(hrw_slot_table_owner(NULL, (const uint8_t *)"k", 1, &owner_index, &u32) == HRW_STATUS_NULL_PARAMETER,
          "owner of NULL");
    CHECK(hrw_slot_table_owner(t, (const uint8_t *)"k", 1, NULL, &u32) == HRW_STATUS_NULL_PARAMETER && u32 == 12345,
          "NULL out owner, slot not written");
    CHECK(hrw_slot_table_owner(t, NULL, 5, &index, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL key of owner");
    CHECK(hrw_slot_table_owner_of_slot(t, 8, &index) == HRW_STATUS_SLOT_OUT_OF_RANGE, "slot 8 of 8");
    CHECK(hrw_slot_table_owner_of_slot(t, UINT64_MAX, &index) == HRW_STATUS_SLOT_OUT_OF_RANGE, "slot 2^64 - 1");
    CHECK(hrw_slot_table_owner_of_slot(t, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out index");
    CHECK(hrw_slot_table_owner_of_slot(NULL, 0, &index) == HRW_STATUS_NULL_PARAMETER, "owner_of_slot of NULL");
    CHECK(hrw_slot_table_assignments(NULL, owners, 8) == HRW_STATUS_NULL_PARAMETER, "assignments of NULL");
    CHECK(hrw_slot_table_assignments(t, NULL, 8) == HRW_STATUS_NULL_PARAMETER, "NULL buffer");
    CHECK(hrw_slot_table_assignments(t, NULL, 0) == HRW_STATUS_BUFFER_TOO_SMALL, "no buffer");
    CHECK(hrw_slot_table_assignments(t, owners, 7) == HRW_STATUS_BUFFER_TOO_SMALL, "short buffer");
    CHECK(hrw_slot_table_assignments(t, owners, SIZE_MAX) == HRW_STATUS_RESULT_TOO_LARGE, "impossible length");
    CHECK(hrw_slot_table_slot_counts(NULL, counts, 2) == HRW_STATUS_NULL_PARAMETER, "counts of NULL");
    CHECK(hrw_slot_table_slot_counts(t, NULL, 2) == HRW_STATUS_NULL_PARAMETER, "NULL counts");
    CHECK(hrw_slot_table_slot_counts(t, counts, 1) == HRW_STATUS_BUFFER_TOO_SMALL, "short counts");
    CHECK(hrw_slot_table_slot_counts(t, counts, 2) == HRW_STATUS_OK && counts[0] + counts[1] == 8, "counts");
    memset(&f, 0, sizeof f);
    CHECK(hrw_slot_table_summary(t, &f) == HRW_STATUS_OK && f.placement != NULL && f.initial != NULL &&
              f.placement != f.initial && get_placement(t, &members) == HRW_STATUS_OK && members == f.placement,
          "summary: the borrowed memberships, the same each time");
    CHECK(get_view(t, &view) == HRW_STATUS_OK && view != NULL, "the table's view from its summary");
    hrw_view_free(view);
    CHECK(hrw_slot_table_fingerprint(NULL, buf, sizeof buf) == HRW_STATUS_NULL_PARAMETER, "fingerprint of NULL");
    CHECK(hrw_slot_table_fingerprint(t, NULL, 16) == HRW_STATUS_NULL_PARAMETER, "NULL fingerprint buffer");
    CHECK(hrw_slot_table_fingerprint(t, buf, 15) == HRW_STATUS_BUFFER_TOO_SMALL, "short fingerprint");
    CHECK(hrw_slot_table_fingerprint(t, buf, sizeof buf) == HRW_STATUS_OK, "fingerprint");
    size_t written = 0;
    hrw_error e;
    CHECK(hrw_slot_table_to_json(NULL, NULL, 0, &written, &e) == HRW_STATUS_NULL_PARAMETER, "to_json of NULL");
    CHECK(hrw_slot_table_to_json(t, NULL, 0, NULL, &e) == HRW_STATUS_NULL_PARAMETER, "NULL out written");
    CHECK(hrw_slot_table_to_json(t, NULL, 0, &written, &e) == HRW_STATUS_BUFFER_TOO_SMALL && e.expected > 0,
          "ask for the length");
    CHECK(hrw_slot_table_to_json(t, NULL, e.expected, &written, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL buffer with a length");
    hrw_slot_table *u = NULL;
    CHECK(hrw_slot_table_with_epoch(NULL, 3, &u) == HRW_STATUS_NULL_PARAMETER, "with_epoch of NULL");
    CHECK(hrw_slot_table_with_epoch(t, 3, NULL) == HRW_STATUS_NULL_PARAMETER, "with_epoch into NULL");
    CHECK(u == NULL, "no table written on failure");
    hrw_slot_table_free(t);
    hrw_placement_free(p);
}

/* Documents that are not slot tables, and seeds that are not seeds. */
static void bad_documents(void) {
    current = "documents";
    hrw_slot_table *t = NULL;
    hrw_error e;
    const char *doc = "{\"format\": \"hrwhash-slot-history-v1\"";
    CHECK(hrw_slot_table_from_json(NULL, 0, NULL, 0, &t, &e) == HRW_STATUS_INVALID_JSON, "empty text");
    CHECK(hrw_slot_table_from_json(NULL, 4, NULL, 0, &t, &e) == HRW_STATUS_NULL_PARAMETER, "NULL text");
    CHECK(hrw_slot_table_from_json((const uint8_t *)doc, strlen(doc), NULL, 0, &t, &e) == HRW_STATUS_INVALID_JSON &&
              e.line == 1 && e.column >= 1,
          "truncated document");
    CHECK(hrw_slot_table_from_json((const uint8_t *)"{}", 2, NULL, 0, &t, &e) == HRW_STATUS_INVALID_VIEW,
          "an empty object");
    CHECK(hrw_slot_table_from_json((const uint8_t *)"{}", 2, (const uint8_t *)"x", 1, &t, &e) ==
              HRW_STATUS_INVALID_SEED_LENGTH,
          "short seed");
    CHECK(hrw_slot_table_from_json((const uint8_t *)"{}", 2, NULL, 16, &t, &e) == HRW_STATUS_NULL_PARAMETER,
          "NULL seed with a length");
    CHECK(hrw_slot_table_from_json((const uint8_t *)"{}", 2, NULL, 0, NULL, &e) == HRW_STATUS_NULL_PARAMETER,
          "NULL out");
    const char *view = "{\"format\": \"hrwhash-view-v1\", \"epoch\": \"1\", \"seed\": \"default\", "
                       "\"nodes\": [{\"id\": \"a\"}]}";
    CHECK(hrw_slot_table_from_json((const uint8_t *)view, strlen(view), NULL, 0, &t, &e) ==
              HRW_STATUS_INVALID_VIEW,
          "a view is not a slot table");
    CHECK(t == NULL, "no table written on failure");
}

/* Changes: each bad input, as a copy and in place, and the table unchanged after each. */
static void bad_changes(void) {
    current = "changes";
    hrw_placement *p = two_nodes();
    hrw_slot_table *t = NULL, *u = NULL;
    hrw_error e;
    CHECK(new_levelled(p, 8, &t, NULL) == HRW_STATUS_OK, "table");
    snapshot before = snapshot_of(t);
    hrw_node empty = {(const uint8_t *)"", 0, NULL, 0}, null_id = {NULL, 3, NULL, 0},
             null_domain = {(const uint8_t *)"c", 1, NULL, 2};
    /* As copies. Positions name the change (0: the table has no change yet). */
    CHECK(with_node(NULL, &node_c, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER, "add to NULL");
    CHECK(with_node(t, &node_c, 1.0, NULL, &e) == HRW_STATUS_NULL_PARAMETER, "add into NULL");
    CHECK(hrw_slot_table_with_change(t, NULL, &u, &e) == HRW_STATUS_NULL_PARAMETER &&
              e.status == HRW_STATUS_NULL_PARAMETER && u == NULL,
          "NULL change");
    for (uint32_t op = HRW_SLOT_OP_WEIGHT + 1; op != 0; op = op < 16 ? op + 1 : (op == 16 ? UINT32_MAX : 0)) {
        hrw_slot_change unknown = change_of(op, &node_c, 1.0);
        memset(&e, 0, sizeof e);
        CHECK(hrw_slot_table_with_change(t, &unknown, &u, &e) == HRW_STATUS_NULL_PARAMETER &&
                  e.status == HRW_STATUS_NULL_PARAMETER && u == NULL,
              "unknown op %u", (unsigned)op);
        CHECK(hrw_slot_table_push(t, &unknown, &e) == HRW_STATUS_NULL_PARAMETER &&
                  e.status == HRW_STATUS_NULL_PARAMETER,
              "unknown op %u in place", (unsigned)op);
    }
    CHECK(with_node(t, &null_id, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER && e.index == 0,
          "NULL id");
    CHECK(with_node(t, &null_domain, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER, "NULL domain");
    CHECK(with_node(t, &empty, 1.0, &u, &e) == HRW_STATUS_EMPTY_NODE_ID && e.index == 0, "empty id");
    CHECK(with_node(t, &node_b, 1.0, &u, &e) == HRW_STATUS_DUPLICATE_NODE_ID && e.index == 0 &&
              e.first_index == 1,
          "duplicate: index %zu first %zu", e.index, e.first_index);
    CHECK(with_node(t, &node_c, -0.5, &u, &e) == HRW_STATUS_INVALID_WEIGHT && e.index == 0 &&
              e.value == -0.5,
          "negative weight");
    CHECK(with_node(t, &node_c, INFINITY, &u, &e) == HRW_STATUS_INVALID_WEIGHT, "infinite weight");
    CHECK(without_node(NULL, (const uint8_t *)"a", 1, &u, &e) == HRW_STATUS_NULL_PARAMETER,
          "remove from NULL");
    CHECK(without_node(t, (const uint8_t *)"a", 1, NULL, &e) == HRW_STATUS_NULL_PARAMETER,
          "remove into NULL");
    CHECK(without_node(t, NULL, 1, &u, &e) == HRW_STATUS_NULL_PARAMETER, "remove NULL id");
    CHECK(without_node(t, (const uint8_t *)"zz", 2, &u, &e) == HRW_STATUS_UNKNOWN_NODE &&
              e.status == HRW_STATUS_UNKNOWN_NODE,
          "remove unknown");
    CHECK(with_weight(NULL, (const uint8_t *)"a", 1, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER,
          "weight in NULL");
    CHECK(with_weight(t, (const uint8_t *)"a", 1, 1.0, NULL, &e) == HRW_STATUS_NULL_PARAMETER,
          "weight into NULL");
    CHECK(with_weight(t, NULL, 1, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER, "weight NULL id");
    CHECK(with_weight(t, (const uint8_t *)"zz", 2, NAN, &u, &e) == HRW_STATUS_UNKNOWN_NODE,
          "unknown node before its weight");
    CHECK(with_weight(t, (const uint8_t *)"b", 1, NAN, &u, &e) == HRW_STATUS_INVALID_WEIGHT &&
              e.index == 0 && isnan(e.value),
          "NaN weight");
    CHECK(with_weight(t, (const uint8_t *)"a", 1, 0.0, &u, NULL) == HRW_STATUS_OK, "drain a");
    hrw_slot_table *v = NULL;
    CHECK(with_weight(u, (const uint8_t *)"b", 1, 0.0, &v, &e) == HRW_STATUS_ALL_WEIGHTS_ZERO &&
              v == NULL,
          "drain all");
    CHECK(without_node(u, (const uint8_t *)"b", 1, &v, &e) == HRW_STATUS_ALL_WEIGHTS_ZERO && v == NULL,
          "remove the last weighted node");
    /* A change a copy made is known to it, with its position. */
    CHECK(with_node(u, &node_a, 1.0, &v, &e) == HRW_STATUS_DUPLICATE_NODE_ID && e.index == 1 &&
              e.first_index == 0,
          "position 1: %zu", e.index);
    hrw_slot_table_free(u);
    u = NULL;

    /* In place, the same inputs. */
    CHECK(add_node(NULL, &node_c, 1.0, &e) == HRW_STATUS_NULL_PARAMETER, "add to NULL in place");
    CHECK(hrw_slot_table_push(t, NULL, &e) == HRW_STATUS_NULL_PARAMETER && e.status == HRW_STATUS_NULL_PARAMETER,
          "push NULL change");
    CHECK(add_node(t, &null_id, 1.0, &e) == HRW_STATUS_NULL_PARAMETER && e.index == 0,
          "add NULL id");
    CHECK(add_node(t, &empty, 1.0, &e) == HRW_STATUS_EMPTY_NODE_ID && e.index == 0,
          "add empty id");
    CHECK(add_node(t, &node_b, 1.0, &e) == HRW_STATUS_DUPLICATE_NODE_ID && e.index == 0 &&
              e.first_index == 1,
          "add duplicate");
    CHECK(add_node(t, &node_c, -0.5, &e) == HRW_STATUS_INVALID_WEIGHT && e.index == 0 &&
              e.value == -0.5,
          "add negative weight");
    CHECK(remove_node(NULL, (const uint8_t *)"a", 1, &e) == HRW_STATUS_NULL_PARAMETER,
          "remove from NULL in place");
    CHECK(remove_node(t, NULL, 1, &e) == HRW_STATUS_NULL_PARAMETER, "remove NULL id in place");
    CHECK(remove_node(t, (const uint8_t *)"zz", 2, &e) == HRW_STATUS_UNKNOWN_NODE,
          "remove unknown in place");
    CHECK(set_weight(NULL, (const uint8_t *)"a", 1, 1.0, &e) == HRW_STATUS_NULL_PARAMETER,
          "weight in NULL in place");
    CHECK(set_weight(t, NULL, 1, 1.0, &e) == HRW_STATUS_NULL_PARAMETER, "weight NULL id in place");
    CHECK(set_weight(t, (const uint8_t *)"zz", 2, 1.0, &e) == HRW_STATUS_UNKNOWN_NODE,
          "weight of unknown in place");
    CHECK(set_weight(t, (const uint8_t *)"b", 1, INFINITY, &e) == HRW_STATUS_INVALID_WEIGHT &&
              e.index == 0,
          "infinite weight in place");
    snapshot after = snapshot_of(t);
    CHECK(snapshot_same(before, after), "failed changes leave the table as it was");
    free(after.owners);

    /* Good changes in place, seen through the placement borrowed before them. */
    const hrw_placement *members = NULL;
    size_t len = 0;
    uint32_t counts[3];
    CHECK(get_placement(t, &members) == HRW_STATUS_OK, "borrow");
    CHECK(add_node(t, &node_c, 2.0, &e) == HRW_STATUS_OK, "add c in place");
    CHECK(hrw_placement_len(members, &len, NULL) == HRW_STATUS_OK && len == 3, "the borrowed placement shows c");
    CHECK(hrw_slot_table_slot_counts(t, counts, 2) == HRW_STATUS_BUFFER_TOO_SMALL, "three nodes now");
    CHECK(set_weight(t, (const uint8_t *)"a", 1, 0.0, NULL) == HRW_STATUS_OK &&
              set_weight(t, (const uint8_t *)"b", 1, 0.0, NULL) == HRW_STATUS_OK,
          "drain a and b in place");
    free(before.owners);
    before = snapshot_of(t);
    CHECK(before.changes == 3, "three changes");
    CHECK(set_weight(t, (const uint8_t *)"c", 1, 0.0, &e) == HRW_STATUS_ALL_WEIGHTS_ZERO,
          "drain all in place");
    CHECK(remove_node(t, (const uint8_t *)"c", 1, &e) == HRW_STATUS_ALL_WEIGHTS_ZERO,
          "remove the last weighted node in place");
    CHECK(add_node(t, &node_a, 1.0, &e) == HRW_STATUS_DUPLICATE_NODE_ID && e.index == 3 &&
              e.first_index == 0,
          "add duplicate at position 3: %zu", e.index);
    after = snapshot_of(t);
    CHECK(snapshot_same(before, after), "refused changes change nothing");
    free(before.owners);
    free(after.owners);
    CHECK(remove_node(t, (const uint8_t *)"a", 1, NULL) == HRW_STATUS_OK &&
              remove_node(t, (const uint8_t *)"b", 1, NULL) == HRW_STATUS_OK,
          "remove a and b in place");
    CHECK(remove_node(t, (const uint8_t *)"c", 1, &e) == HRW_STATUS_EMPTY_MEMBERSHIP,
          "remove the last node in place");
    CHECK(hrw_slot_table_slot_counts(t, counts, 1) == HRW_STATUS_OK && counts[0] == 8, "c holds every slot");
    CHECK(hrw_placement_len(members, &len, NULL) == HRW_STATUS_OK && len == 1, "the borrowed placement shows c alone");
    const hrw_placement *initial = NULL;
    const uint8_t *id = NULL;
    size_t id_len = 0;
    CHECK(get_initial(t, &initial) == HRW_STATUS_OK && initial != members &&
              hrw_placement_len(initial, &len, NULL) == HRW_STATUS_OK && len == 2 &&
              node_id_of(initial, 1, &id, &id_len) == HRW_STATUS_OK && id_len == 1 && id[0] == 'b',
          "the first membership is a and b");
    hrw_slot_table_free(t);
    hrw_placement_free(p);
}

/* A table holds at most 65,536 changes, the most a document may carry. */
static void too_many_changes(void) {
    current = "too many changes";
    hrw_node one[1] = {node_a};
    hrw_placement *p = NULL;
    hrw_slot_table *t = NULL, *u = NULL;
    hrw_error e;
    CHECK(hrw_placement_new(one, 1, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    CHECK(new_levelled(p, 1, &t, NULL) == HRW_STATUS_OK, "table");
    int ok = 1;
    for (size_t i = 0; i < 65536 && ok; i++) {
        ok = set_weight(t, (const uint8_t *)"a", 1, (double)(i % 2 + 1), NULL) == HRW_STATUS_OK;
    }
    size_t changes = 0;
    CHECK(ok && get_change_count(t, &changes) == HRW_STATUS_OK && changes == 65536, "65,536 changes");
    memset(&e, 0, sizeof e);
    CHECK(set_weight(t, (const uint8_t *)"a", 1, 1.0, &e) == HRW_STATUS_INVALID_VIEW &&
              e.field_len == strlen("changes") && memcmp(e.field, "changes", e.field_len) == 0 && e.has_index &&
              e.index == 65536 && strcmp(hrw_view_fault_name(e.reason), "out_of_range") == 0,
          "change 65,537 in place: %d %.*s", (int)e.status, (int)e.field_len, e.field);
    CHECK(with_node(t, &node_b, 1.0, &u, &e) == HRW_STATUS_INVALID_VIEW && u == NULL,
          "change 65,537 as a copy");
    CHECK(get_change_count(t, &changes) == HRW_STATUS_OK && changes == 65536, "still 65,536");
    hrw_slot_table_free(t);
    hrw_placement_free(p);
}

/* Whether two tables give every slot to the node of the same id. */
static int same_owner_ids(const hrw_slot_table *a, const hrw_slot_table *b) {
    snapshot sa = snapshot_of(a), sb = snapshot_of(b);
    const hrw_placement *pa = NULL, *pb = NULL;
    int same = sa.slots == sb.slots && get_placement(a, &pa) == HRW_STATUS_OK &&
               get_placement(b, &pb) == HRW_STATUS_OK;
    for (uint32_t s = 0; same && s < sa.slots; s++) {
        const uint8_t *ia = NULL, *ib = NULL;
        size_t la = 0, lb = 0;
        same = node_id_of(pa, sa.owners[s], &ia, &la) == HRW_STATUS_OK &&
               node_id_of(pb, sb.owners[s], &ib, &lb) == HRW_STATUS_OK && la == lb &&
               memcmp(ia, ib, la) == 0;
    }
    free(sa.owners);
    free(sb.owners);
    return same;
}

/* The history a table carries: its document, its epoch and its copies. The nodes are built out
 * of id order, which the document does not keep. */
static void history(void) {
    current = "history";
    hrw_node nodes[3] = {node_c, node_a, node_b};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, 3, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    for (int ranked = 0; ranked < 2; ranked++) {
        uint32_t ppm = 20000;
        hrw_slot_table *first = NULL, *h1 = NULL, *h2 = NULL, *h3 = NULL, *again = NULL, *later = NULL;
        CHECK((ranked ? new_ranked(p, 64, &ppm, &first, NULL) : new_levelled(p, 64, &first, NULL)) ==
                  HRW_STATUS_OK,
              "new %d", ranked);
        hrw_node d = {(const uint8_t *)"d", 1, (const uint8_t *)"zone-9", 6};
        CHECK(with_node(first, &d, 2.0, &h1, NULL) == HRW_STATUS_OK, "add");
        CHECK(without_node(h1, (const uint8_t *)"a", 1, &h2, NULL) == HRW_STATUS_OK, "remove");
        CHECK(with_weight(h2, (const uint8_t *)"c", 1, 0.5, &h3, NULL) == HRW_STATUS_OK, "weight");
        CHECK(hrw_slot_table_with_epoch(h3, 5, &later) == HRW_STATUS_OK, "with_epoch");
        uint64_t epoch = 9;
        size_t changes = 0;
        CHECK(get_epoch(h3, &epoch) == HRW_STATUS_OK && epoch == 0, "a copy keeps epoch 0");
        CHECK(get_epoch(later, &epoch) == HRW_STATUS_OK && epoch == 5, "epoch 5");
        CHECK(get_change_count(later, &changes) == HRW_STATUS_OK && changes == 3, "three changes");
        CHECK(get_change_count(first, &changes) == HRW_STATUS_OK && changes == 0,
              "the copies left the first table as it was");
        hrw_error err;
        size_t written = 0;
        CHECK(hrw_slot_table_to_json(later, NULL, 0, &written, &err) == HRW_STATUS_BUFFER_TOO_SMALL, "length");
        /* The text is not NUL-terminated: one more byte for the NUL strstr needs. */
        uint8_t *text = calloc(err.expected + 1, 1);
        CHECK(hrw_slot_table_to_json(later, text, err.expected, &written, NULL) == HRW_STATUS_OK &&
                  written == err.expected && text[written] == 0,
              "to_json");
        CHECK((strstr((const char *)text, "\"overload_ppm\": 20000,") != NULL) == ranked, "overload_ppm line");
        CHECK(hrw_slot_table_from_json(text, written, NULL, 0, &again, NULL) == HRW_STATUS_OK, "reload");
        snapshot a = snapshot_of(later), b = snapshot_of(again);
        CHECK(a.changes == b.changes && memcmp(a.fingerprint, b.fingerprint, sizeof a.fingerprint) == 0 &&
                  same_owner_ids(later, again),
              "a reloaded table is the same table");
        CHECK(!snapshot_same(a, b), "a reloaded table numbers its nodes in the document's order");
        const hrw_placement *ia = NULL, *ib = NULL;
        const uint8_t *id = NULL;
        size_t id_len = 0, len = 0;
        CHECK(get_initial(later, &ia) == HRW_STATUS_OK && hrw_placement_len(ia, &len, NULL) == HRW_STATUS_OK &&
                  len == 3 && node_id_of(ia, 0, &id, &id_len) == HRW_STATUS_OK && id[0] == 'c',
              "the first membership in build order");
        CHECK(get_initial(again, &ib) == HRW_STATUS_OK && hrw_placement_len(ib, &len, NULL) == HRW_STATUS_OK &&
                  len == 3 && node_id_of(ib, 0, &id, &id_len) == HRW_STATUS_OK && id[0] == 'a',
              "the document's first membership in id order");
        free(a.owners);
        free(b.owners);
        hrw_slot_mode mode;
        bool has = false;
        uint32_t got = 0;
        CHECK(get_mode(again, &mode) == HRW_STATUS_OK &&
                  mode == (ranked ? HRW_SLOT_MODE_RANKED : HRW_SLOT_MODE_LEVELLED),
              "mode survives the document");
        CHECK(get_bound(again, &has, &got) == HRW_STATUS_OK && has == ranked &&
                  got == (ranked ? ppm : 0),
              "the bound survives the document");
        CHECK(get_epoch(again, &epoch) == HRW_STATUS_OK && epoch == 5, "the epoch survives the document");
        free(text);
        /* A secret seed: the document names its fingerprint, and only that seed loads it. */
        uint8_t seed[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        hrw_placement_options o = {seed, 16, NULL, 0};
        hrw_placement *ps = NULL;
        hrw_slot_table *secret = NULL, *bad = NULL;
        CHECK(hrw_placement_new(nodes, 3, &o, &ps, NULL) == HRW_STATUS_OK, "secret placement");
        CHECK((ranked ? new_ranked(ps, 64, NULL, &secret, NULL) : new_levelled(ps, 64, &secret, NULL)) ==
                  HRW_STATUS_OK,
              "secret table");
        CHECK(hrw_slot_table_to_json(secret, NULL, 0, &written, &err) == HRW_STATUS_BUFFER_TOO_SMALL, "length");
        text = malloc(err.expected);
        CHECK(hrw_slot_table_to_json(secret, text, err.expected, &written, NULL) == HRW_STATUS_OK, "to_json");
        CHECK(hrw_slot_table_from_json(text, written, NULL, 0, &bad, &err) == HRW_STATUS_SEED_MISMATCH && bad == NULL,
              "the default seed for a secret table");
        CHECK(hrw_slot_table_from_json(text, written, seed, 16, &bad, NULL) == HRW_STATUS_OK, "the right seed");
        hrw_slot_table_free(bad);
        free(text);
        hrw_slot_table_free(secret);
        hrw_placement_free(ps);
        hrw_slot_table_free(again);
        hrw_slot_table_free(later);
        hrw_slot_table_free(h3);
        hrw_slot_table_free(h2);
        hrw_slot_table_free(h1);
        hrw_slot_table_free(first);
    }
    hrw_placement_free(p);
}

/* A ranked table: the capacities of an unbounded one are not offered, a bounded one's are. */
static void ranked_capacity(void) {
    current = "ranked capacity";
    hrw_placement *p = two_nodes();
    hrw_slot_table *t = NULL;
    uint32_t ppm = 0, caps[3] = {12345, 12345, 12345};
    CHECK(new_ranked(p, 8, NULL, &t, NULL) == HRW_STATUS_OK, "unbounded");
    CHECK(hrw_slot_table_capacities(t, caps, 3) == HRW_STATUS_NOT_OFFERED && caps[0] == 12345, "unbounded capacities");
    hrw_slot_table_free(t);
    CHECK(new_ranked(p, 8, &ppm, &t, NULL) == HRW_STATUS_OK, "bound 0");
    CHECK(hrw_slot_table_capacities(t, caps, 1) == HRW_STATUS_BUFFER_TOO_SMALL && caps[0] == 12345,
          "a buffer for one of two nodes");
    CHECK(hrw_slot_table_capacities(NULL, caps, 0) == HRW_STATUS_NULL_PARAMETER, "capacities of NULL");
    CHECK(hrw_slot_table_capacities(t, caps, 3) == HRW_STATUS_OK && caps[1] == 4 && caps[2] == 12345,
          "capacity %u", caps[1]);
    CHECK(add_node(t, &node_c, 2.0, NULL) == HRW_STATUS_OK, "add c in place");
    CHECK(hrw_slot_table_capacities(t, caps, 3) == HRW_STATUS_OK && caps[2] == 4, "c's capacity %u", caps[2]);
    hrw_slot_table_free(t);
    hrw_placement_free(p);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s slot-table.json slot-table-v2.json slot-history-v1.json\n", argv[0]);
        return 2;
    }
    run_policy(argv[1], "slot-table-v1", HRW_SLOT_MODE_RANKED);
    run_policy(argv[2], "slot-table-v2", HRW_SLOT_MODE_LEVELLED);
    run_documents(argv[3]);
    bad_construction();
    bad_reads();
    bad_documents();
    bad_changes();
    too_many_changes();
    history();
    ranked_capacity();
    CHECK(strstr(hrw_status_message(HRW_STATUS_SLOT_OUT_OF_RANGE), "slot") != NULL, "message 27");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_SLOT_COUNT), "slots") != NULL, "message 26");
    CHECK(HRW_SLOT_MODE_LEVELLED == 0 && HRW_SLOT_MODE_RANKED == 1, "mode numbers");
    return check_report("test_slot_table");
}
