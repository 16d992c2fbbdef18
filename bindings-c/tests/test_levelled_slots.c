/* Runs every case of conformance/policies/slot-table-v2.json through the C ABI (POLICIES.md,
 * "slot-table-v2"): first tables, change sequences applied in order (as new tables and in place),
 * error cases (after which a table changed in place is as it was); then the bad inputs of
 * hrw_levelled_slot_table_*. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"

static double weight_of(const jvalue *n) {
    const jvalue *w = json_get(n, "weight");
    return w ? strtod(w->str, NULL) : 1.0;
}

static hrw_status status_named(const char *name) {
    static const struct {
        const char *name;
        hrw_status status;
    } names[] = {
        {"EmptyMembership", HRW_STATUS_EMPTY_MEMBERSHIP},
        {"DuplicateNodeId", HRW_STATUS_DUPLICATE_NODE_ID},
        {"AllWeightsZero", HRW_STATUS_ALL_WEIGHTS_ZERO},
        {"UnknownNode", HRW_STATUS_UNKNOWN_NODE},
        {"InvalidWeight", HRW_STATUS_INVALID_WEIGHT},
        {"InvalidSlotCount", HRW_STATUS_INVALID_SLOT_COUNT},
        {"SlotOutOfRange", HRW_STATUS_SLOT_OUT_OF_RANGE},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].status;
    }
    CHECK(0, "unknown error name %s", name);
    return HRW_STATUS_OK;
}

static hrw_placement *placement_of(const jvalue *c) {
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
    CHECK(st == HRW_STATUS_OK, "placement of %s: %d", json_get(c, "name")->str, (int)st);
    free(list);
    free(weights);
    return p;
}

/* Applies one change of the cases file; the new table is written only on success. */
static hrw_status apply(const hrw_levelled_slot_table *t, const jvalue *ch,
                        hrw_levelled_slot_table **next) {
    const char *op = json_get(ch, "op")->str;
    const jvalue *id = json_get(ch, "id");
    if (strcmp(op, "add") == 0) {
        hrw_node n = {(const uint8_t *)id->str, id->len, NULL, 0};
        return hrw_levelled_slot_table_with_node(t, &n, weight_of(ch), next, NULL);
    }
    if (strcmp(op, "remove") == 0) {
        return hrw_levelled_slot_table_without_node(t, (const uint8_t *)id->str, id->len, next, NULL);
    }
    CHECK(strcmp(op, "weight") == 0, "unknown op %s", op);
    return hrw_levelled_slot_table_with_weight(t, (const uint8_t *)id->str, id->len, weight_of(ch),
                                               next, NULL);
}

/* The same change applied to the table in place. */
static hrw_status apply_in_place(hrw_levelled_slot_table *t, const jvalue *ch) {
    const char *op = json_get(ch, "op")->str;
    const jvalue *id = json_get(ch, "id");
    if (strcmp(op, "add") == 0) {
        hrw_node n = {(const uint8_t *)id->str, id->len, NULL, 0};
        return hrw_levelled_slot_table_add_node(t, &n, weight_of(ch), NULL);
    }
    if (strcmp(op, "remove") == 0) {
        return hrw_levelled_slot_table_remove_node(t, (const uint8_t *)id->str, id->len, NULL);
    }
    return hrw_levelled_slot_table_set_weight(t, (const uint8_t *)id->str, id->len, weight_of(ch),
                                              NULL);
}

/* What a caller sees of a table: its assignments and node count, for before/after comparisons. */
typedef struct {
    uint32_t *owners;
    uint32_t slots;
    size_t nodes;
} snapshot;

static snapshot snapshot_of(const hrw_levelled_slot_table *t) {
    snapshot s = {NULL, 0, 0};
    const hrw_placement *members = NULL;
    CHECK(hrw_levelled_slot_table_slots(t, &s.slots) == HRW_STATUS_OK &&
              hrw_levelled_slot_table_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &s.nodes) == HRW_STATUS_OK,
          "snapshot");
    s.owners = calloc(s.slots ? s.slots : 1, sizeof *s.owners);
    CHECK(hrw_levelled_slot_table_assignments(t, s.owners, s.slots) == HRW_STATUS_OK, "snapshot");
    return s;
}

static int snapshot_same(snapshot a, snapshot b) {
    return a.slots == b.slots && a.nodes == b.nodes &&
           memcmp(a.owners, b.owners, a.slots * sizeof *a.owners) == 0;
}

static void check_state(const hrw_levelled_slot_table *t, const jvalue *expected, const char *name) {
    const jvalue *table = json_get(expected, "table");
    uint32_t slots = 0;
    CHECK(hrw_levelled_slot_table_slots(t, &slots) == HRW_STATUS_OK && slots == table->len,
          "%s: slots", name);
    const hrw_placement *members = NULL;
    size_t nodes = 0;
    CHECK(hrw_levelled_slot_table_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &nodes) == HRW_STATUS_OK,
          "%s: placement", name);
    uint32_t *owners = calloc(table->len, sizeof *owners);
    CHECK(hrw_levelled_slot_table_assignments(t, owners, table->len - 1) == HRW_STATUS_BUFFER_TOO_SMALL,
          "%s: short buffer", name);
    CHECK(hrw_levelled_slot_table_assignments(t, owners, table->len) == HRW_STATUS_OK, "%s", name);
    /* The counts the table reports must be those of its own assignments, counted here. */
    uint32_t *want_counts = calloc(nodes + 1, sizeof *want_counts);
    uint32_t *counts = calloc(nodes + 1, sizeof *counts);
    int same = 1;
    for (size_t s = 0; s < table->len; s++) {
        size_t o = 0;
        unsigned long want = strtoul(table->items[s].str, NULL, 10);
        same &= owners[s] == want && want < nodes;
        same &= hrw_levelled_slot_table_owner_of_slot(t, s, &o) == HRW_STATUS_OK && o == want;
        if (want < nodes) want_counts[want]++;
    }
    CHECK(same, "%s: table", name);
    CHECK(nodes == 0 || hrw_levelled_slot_table_slot_counts(t, counts, nodes - 1) ==
                            HRW_STATUS_BUFFER_TOO_SMALL,
          "%s: short counts buffer", name);
    CHECK(hrw_levelled_slot_table_slot_counts(t, counts, nodes) == HRW_STATUS_OK &&
              memcmp(counts, want_counts, nodes * sizeof *counts) == 0,
          "%s: slot counts", name);
    size_t o = 12345;
    CHECK(hrw_levelled_slot_table_owner_of_slot(t, table->len, &o) == HRW_STATUS_SLOT_OUT_OF_RANGE &&
              o == 12345,
          "%s: slot past the end", name);
    free(counts);
    free(want_counts);
    free(owners);
}

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    hrw_placement *p = placement_of(c);
    hrw_levelled_slot_table *t = NULL;
    hrw_status st =
        hrw_levelled_slot_table_new(p, strtoull(json_get(c, "slots")->str, NULL, 10), &t, NULL);
    CHECK(st == HRW_STATUS_OK, "%s: build %d", name, (int)st);
    hrw_levelled_slot_table *in_place = NULL;
    CHECK(hrw_levelled_slot_table_new(p, strtoull(json_get(c, "slots")->str, NULL, 10), &in_place,
                                      NULL) == HRW_STATUS_OK,
          "%s: build", name);
    hrw_placement_free(p);
    if (st != HRW_STATUS_OK) return;
    const jvalue *expected = json_get(c, "expected");
    check_state(t, expected, name);
    const jvalue *keys = json_get(expected, "keys");
    for (size_t i = 0; i < keys->len; i++) {
        const jvalue *k = json_get(&keys->items[i], "key");
        uint32_t slot = 0;
        size_t owner = 0;
        CHECK(hrw_levelled_slot_table_slot(t, (const uint8_t *)k->str, k->len, &slot) == HRW_STATUS_OK &&
                  slot == strtoul(json_get(&keys->items[i], "slot")->str, NULL, 10),
              "%s: slot of %s", name, k->str);
        CHECK(hrw_levelled_slot_table_owner(t, (const uint8_t *)k->str, k->len, &owner) == HRW_STATUS_OK &&
                  owner == strtoul(json_get(&keys->items[i], "owner")->str, NULL, 10),
              "%s: owner of %s", name, k->str);
    }
    const jvalue *changes = json_get(c, "changes");
    for (size_t i = 0; changes && i < changes->len; i++) {
        const jvalue *ch = &changes->items[i];
        hrw_levelled_slot_table *next = NULL;
        st = apply(t, ch, &next);
        CHECK(st == HRW_STATUS_OK, "%s: change %zu: %d", name, i, (int)st);
        if (st != HRW_STATUS_OK) break;
        hrw_levelled_slot_table_free(t);
        t = next;
        check_state(t, json_get(ch, "expected"), name);
        CHECK(apply_in_place(in_place, ch) == HRW_STATUS_OK, "%s: change %zu in place", name, i);
        check_state(in_place, json_get(ch, "expected"), name);
    }
    hrw_levelled_slot_table_free(in_place);
    hrw_levelled_slot_table_free(t);
}

static void run_error_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    hrw_status want = status_named(json_get(c, "error")->str);
    hrw_placement *p = placement_of(c);
    hrw_levelled_slot_table *t = NULL;
    hrw_error e;
    memset(&e, 0, sizeof e);
    unsigned long long slots = strtoull(json_get(c, "slots")->str, NULL, 10);
    hrw_status st = hrw_levelled_slot_table_new(p, slots, &t, &e);
    hrw_placement_free(p);
    const jvalue *slot = json_get(c, "slot"), *changes = json_get(c, "changes");
    if (slot == NULL && changes == NULL) {
        CHECK(st == want && e.status == want && t == NULL, "%s: %d", name, (int)st);
        CHECK(want != HRW_STATUS_INVALID_SLOT_COUNT ||
                  e.actual == (slots > SIZE_MAX ? SIZE_MAX : (size_t)slots),
              "%s: detail %zu", name, e.actual);
        return;
    }
    CHECK(st == HRW_STATUS_OK, "%s: build %d", name, (int)st);
    if (st != HRW_STATUS_OK) return;
    if (slot != NULL) {
        size_t o = 12345;
        CHECK(hrw_levelled_slot_table_owner_of_slot(t, strtoull(slot->str, NULL, 10), &o) == want &&
                  o == 12345,
              "%s", name);
    }
    for (size_t i = 0; changes && i < changes->len; i++) {
        hrw_levelled_slot_table *next = NULL;
        st = apply(t, &changes->items[i], &next);
        if (i + 1 < changes->len) {
            CHECK(st == HRW_STATUS_OK, "%s: change %zu: %d", name, i, (int)st);
            if (st != HRW_STATUS_OK) break;
            hrw_levelled_slot_table_free(t);
            t = next;
        } else {
            CHECK(st == want && next == NULL, "%s: last change %d", name, (int)st);
            /* The same failing change in place: the same status, and the table as it was. */
            snapshot before = snapshot_of(t);
            st = apply_in_place(t, &changes->items[i]);
            snapshot after = snapshot_of(t);
            CHECK(st == want && snapshot_same(before, after), "%s: last change in place %d", name,
                  (int)st);
            free(before.owners);
            free(after.owners);
        }
    }
    hrw_levelled_slot_table_free(t);
}

static void bad_inputs(void) {
    hrw_node nodes[2] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0}};
    hrw_placement *p = NULL;
    hrw_levelled_slot_table *t = NULL, *u = NULL;
    hrw_error e;
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    CHECK(hrw_levelled_slot_table_new(NULL, 8, &t, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL placement");
    CHECK(hrw_levelled_slot_table_new(p, 8, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_levelled_slot_table_new(p, 0, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT &&
              e.status == HRW_STATUS_INVALID_SLOT_COUNT && e.actual == 0 && t == NULL,
          "zero slots");
    CHECK(hrw_levelled_slot_table_new(p, (1u << 24) + 1, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT &&
              e.actual == (1u << 24) + 1 && t == NULL,
          "2^24 + 1 slots");
    CHECK(hrw_levelled_slot_table_new(p, 8, &t, NULL) == HRW_STATUS_OK, "table");
    const hrw_placement *members = NULL;
    size_t len = 0;
    CHECK(hrw_levelled_slot_table_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &len) == HRW_STATUS_OK && len == 2,
          "placement of a table");
    CHECK(hrw_levelled_slot_table_placement(t, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out placement");
    CHECK(hrw_levelled_slot_table_placement(NULL, &members) == HRW_STATUS_NULL_PARAMETER,
          "placement of NULL");
    uint32_t slot, counts[2];
    size_t index;
    CHECK(hrw_levelled_slot_table_slots(NULL, &slot) == HRW_STATUS_NULL_PARAMETER, "slots of NULL");
    CHECK(hrw_levelled_slot_table_slots(t, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out slots");
    CHECK(hrw_levelled_slot_table_slot(t, NULL, 0, &slot) == HRW_STATUS_OK && slot < 8, "empty key");
    CHECK(hrw_levelled_slot_table_slot(t, NULL, 3, &slot) == HRW_STATUS_NULL_PARAMETER, "NULL key");
    CHECK(hrw_levelled_slot_table_slot(t, (const uint8_t *)"k", 1, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL out slot");
    CHECK(hrw_levelled_slot_table_owner(NULL, NULL, 0, &index) == HRW_STATUS_NULL_PARAMETER, "NULL table");
    CHECK(hrw_levelled_slot_table_owner(t, NULL, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_levelled_slot_table_owner(t, NULL, 5, &index) == HRW_STATUS_NULL_PARAMETER, "NULL key 2");
    CHECK(hrw_levelled_slot_table_owner_of_slot(t, 8, &index) == HRW_STATUS_SLOT_OUT_OF_RANGE, "slot 8 of 8");
    CHECK(hrw_levelled_slot_table_owner_of_slot(t, UINT64_MAX, &index) == HRW_STATUS_SLOT_OUT_OF_RANGE,
          "slot 2^64 - 1");
    CHECK(hrw_levelled_slot_table_owner_of_slot(t, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out index");
    CHECK(hrw_levelled_slot_table_assignments(t, NULL, 8) == HRW_STATUS_NULL_PARAMETER, "NULL buffer");
    CHECK(hrw_levelled_slot_table_slot_counts(t, NULL, 2) == HRW_STATUS_NULL_PARAMETER, "NULL counts");
    CHECK(hrw_levelled_slot_table_slot_counts(t, counts, 1) == HRW_STATUS_BUFFER_TOO_SMALL, "short counts");
    CHECK(hrw_levelled_slot_table_slot_counts(t, counts, 2) == HRW_STATUS_OK && counts[0] + counts[1] == 8,
          "counts");
    CHECK(hrw_levelled_slot_table_without_node(t, (const uint8_t *)"zz", 2, &u, &e) ==
                  HRW_STATUS_UNKNOWN_NODE &&
              e.status == HRW_STATUS_UNKNOWN_NODE && u == NULL,
          "remove unknown");
    CHECK(hrw_levelled_slot_table_without_node(t, NULL, 1, &u, &e) == HRW_STATUS_NULL_PARAMETER,
          "remove NULL id");
    CHECK(hrw_levelled_slot_table_without_node(NULL, (const uint8_t *)"a", 1, &u, &e) ==
              HRW_STATUS_NULL_PARAMETER,
          "remove from NULL");
    CHECK(hrw_levelled_slot_table_without_node(t, (const uint8_t *)"a", 1, NULL, &e) ==
              HRW_STATUS_NULL_PARAMETER,
          "remove into NULL");
    CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"zz", 2, 1.0, &u, &e) ==
              HRW_STATUS_UNKNOWN_NODE,
          "weight of unknown");
    CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"a", 1, -1.0, &u, &e) ==
                  HRW_STATUS_INVALID_WEIGHT &&
              e.index == 0 && e.value == -1.0 && u == NULL,
          "negative weight");
    CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"b", 1, 0.0 / 0.0, &u, &e) ==
                  HRW_STATUS_INVALID_WEIGHT &&
              e.index == 1,
          "NaN weight");
    CHECK(hrw_levelled_slot_table_with_node(t, &nodes[0], 1.0, &u, &e) == HRW_STATUS_DUPLICATE_NODE_ID &&
              e.index == 2 && e.first_index == 0,
          "duplicate");
    hrw_node empty = {(const uint8_t *)"", 0, NULL, 0}, null_id = {NULL, 3, NULL, 0};
    CHECK(hrw_levelled_slot_table_with_node(t, &empty, 1.0, &u, &e) == HRW_STATUS_EMPTY_NODE_ID &&
              e.index == 2,
          "empty id");
    CHECK(hrw_levelled_slot_table_with_node(t, &null_id, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER &&
              e.index == 2,
          "NULL id");
    hrw_node c = {(const uint8_t *)"c", 1, NULL, 0};
    CHECK(hrw_levelled_slot_table_with_node(t, &c, 1.0 / 0.0, &u, &e) == HRW_STATUS_INVALID_WEIGHT &&
              e.index == 2,
          "infinite weight");
    CHECK(hrw_levelled_slot_table_with_node(t, NULL, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER, "NULL node");
    CHECK(hrw_levelled_slot_table_with_node(t, &c, 1.0, NULL, &e) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(u == NULL, "no table written on failure");
    CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"a", 1, 0.0, &u, NULL) == HRW_STATUS_OK,
          "drain a");
    CHECK(hrw_levelled_slot_table_slot_counts(u, counts, 2) == HRW_STATUS_OK && counts[0] == 0 &&
              counts[1] == 8,
          "a drained holds nothing");
    hrw_levelled_slot_table *v = NULL;
    CHECK(hrw_levelled_slot_table_with_weight(u, (const uint8_t *)"b", 1, 0.0, &v, NULL) ==
                  HRW_STATUS_ALL_WEIGHTS_ZERO &&
              v == NULL,
          "drain all");
    CHECK(hrw_levelled_slot_table_without_node(u, (const uint8_t *)"b", 1, &v, NULL) ==
                  HRW_STATUS_ALL_WEIGHTS_ZERO &&
              v == NULL,
          "remove the last weighted node");
    hrw_levelled_slot_table_free(u);

    /* In place: every bad input is its status, and the table is as it was afterwards. */
    snapshot before = snapshot_of(t);
    CHECK(hrw_levelled_slot_table_add_node(NULL, &c, 1.0, &e) == HRW_STATUS_NULL_PARAMETER,
          "add to NULL");
    CHECK(hrw_levelled_slot_table_remove_node(NULL, (const uint8_t *)"a", 1, &e) ==
              HRW_STATUS_NULL_PARAMETER,
          "remove from NULL in place");
    CHECK(hrw_levelled_slot_table_set_weight(NULL, (const uint8_t *)"a", 1, 1.0, &e) ==
              HRW_STATUS_NULL_PARAMETER,
          "weight in NULL");
    CHECK(hrw_levelled_slot_table_add_node(t, NULL, 1.0, &e) == HRW_STATUS_NULL_PARAMETER,
          "add NULL node");
    CHECK(hrw_levelled_slot_table_add_node(t, &null_id, 1.0, &e) == HRW_STATUS_NULL_PARAMETER &&
              e.index == 2,
          "add NULL id");
    CHECK(hrw_levelled_slot_table_add_node(t, &empty, 1.0, &e) == HRW_STATUS_EMPTY_NODE_ID &&
              e.index == 2,
          "add empty id");
    CHECK(hrw_levelled_slot_table_add_node(t, &nodes[1], 1.0, &e) == HRW_STATUS_DUPLICATE_NODE_ID &&
              e.index == 2 && e.first_index == 1,
          "add duplicate");
    CHECK(hrw_levelled_slot_table_add_node(t, &c, -0.5, &e) == HRW_STATUS_INVALID_WEIGHT &&
              e.index == 2 && e.value == -0.5,
          "add negative weight");
    CHECK(hrw_levelled_slot_table_remove_node(t, NULL, 1, &e) == HRW_STATUS_NULL_PARAMETER,
          "remove NULL id in place");
    CHECK(hrw_levelled_slot_table_remove_node(t, (const uint8_t *)"zz", 2, &e) ==
                  HRW_STATUS_UNKNOWN_NODE &&
              e.status == HRW_STATUS_UNKNOWN_NODE,
          "remove unknown in place");
    CHECK(hrw_levelled_slot_table_set_weight(t, (const uint8_t *)"zz", 2, 1.0, &e) ==
              HRW_STATUS_UNKNOWN_NODE,
          "weight of unknown in place");
    CHECK(hrw_levelled_slot_table_set_weight(t, (const uint8_t *)"b", 1, 1.0 / 0.0, &e) ==
                  HRW_STATUS_INVALID_WEIGHT &&
              e.index == 1,
          "infinite weight in place");
    CHECK(hrw_levelled_slot_table_set_weight(t, NULL, 1, 1.0, &e) == HRW_STATUS_NULL_PARAMETER,
          "weight NULL id in place");
    snapshot after = snapshot_of(t);
    CHECK(snapshot_same(before, after), "failed in-place changes leave the table as it was");
    free(after.owners);
    /* A good change in place, seen through the placement borrowed before it. */
    CHECK(hrw_levelled_slot_table_placement(t, &members) == HRW_STATUS_OK, "borrow");
    CHECK(hrw_levelled_slot_table_add_node(t, &c, 2.0, &e) == HRW_STATUS_OK, "add c in place");
    CHECK(hrw_placement_len(members, &len) == HRW_STATUS_OK && len == 3,
          "the borrowed placement shows the added node");
    CHECK(hrw_levelled_slot_table_slot_counts(t, counts, 2) == HRW_STATUS_BUFFER_TOO_SMALL,
          "three nodes now");
    CHECK(hrw_levelled_slot_table_set_weight(t, (const uint8_t *)"a", 1, 0.0, NULL) == HRW_STATUS_OK &&
              hrw_levelled_slot_table_set_weight(t, (const uint8_t *)"b", 1, 0.0, NULL) == HRW_STATUS_OK,
          "drain a and b in place");
    free(before.owners);
    before = snapshot_of(t);
    CHECK(hrw_levelled_slot_table_set_weight(t, (const uint8_t *)"c", 1, 0.0, &e) ==
              HRW_STATUS_ALL_WEIGHTS_ZERO,
          "drain all in place");
    CHECK(hrw_levelled_slot_table_remove_node(t, (const uint8_t *)"c", 1, &e) ==
              HRW_STATUS_ALL_WEIGHTS_ZERO,
          "remove the last weighted node in place");
    after = snapshot_of(t);
    CHECK(snapshot_same(before, after) && before.nodes == 3, "a refused drain changes nothing");
    free(before.owners);
    free(after.owners);
    CHECK(hrw_levelled_slot_table_remove_node(t, (const uint8_t *)"a", 1, NULL) == HRW_STATUS_OK &&
              hrw_levelled_slot_table_remove_node(t, (const uint8_t *)"b", 1, NULL) == HRW_STATUS_OK,
          "remove a and b in place");
    CHECK(hrw_levelled_slot_table_remove_node(t, (const uint8_t *)"c", 1, &e) ==
              HRW_STATUS_EMPTY_MEMBERSHIP,
          "remove the last node in place");
    CHECK(hrw_levelled_slot_table_slot_counts(t, counts, 1) == HRW_STATUS_OK && counts[0] == 8,
          "c holds every slot");
    hrw_levelled_slot_table_free(t);
    hrw_levelled_slot_table_free(NULL);
    hrw_placement_free(p);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s conformance/policies/slot-table-v2.json\n", argv[0]);
        return 2;
    }
    jvalue *v = json_load(argv[1]);
    if (v == NULL) return 1;
    CHECK(strcmp(json_get(v, "policy")->str, "slot-table-v2") == 0, "policy tag");
    const jvalue *cases = json_get(v, "cases"), *errors = json_get(v, "error_cases");
    CHECK(cases->len > 0 && errors->len > 0, "cases present");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i]);
    for (size_t i = 0; i < errors->len; i++) run_error_case(&errors->items[i]);
    bad_inputs();
    json_free(v);
    return check_report("test_levelled_slots");
}
