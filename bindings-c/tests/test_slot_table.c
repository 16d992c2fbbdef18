/* Runs every case of conformance/policies/slot-table.json through the C ABI (POLICIES.md,
 * "slot-table (v1)"), and the bad inputs of hrw_slot_table_*. */
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

static hrw_slot_table *table_of(const jvalue *c, const hrw_placement *p, hrw_status *st) {
    const jvalue *ov = json_get(c, "overload_ppm");
    uint32_t ppm = ov->type == J_NUM ? (uint32_t)strtoul(ov->str, NULL, 10) : 0;
    hrw_slot_table *t = NULL;
    *st = hrw_slot_table_new(p, strtoull(json_get(c, "slots")->str, NULL, 10),
                             ov->type == J_NUM ? &ppm : NULL, &t, NULL);
    return t;
}

static void check_state(const hrw_slot_table *t, const jvalue *expected, const char *name) {
    const jvalue *table = json_get(expected, "table"), *caps = json_get(expected, "capacities");
    uint32_t slots = 0;
    CHECK(hrw_slot_table_slots(t, &slots) == HRW_STATUS_OK && slots == table->len, "%s: slots", name);
    uint32_t *owners = calloc(table->len, sizeof *owners);
    CHECK(hrw_slot_table_assignments(t, owners, table->len - 1) == HRW_STATUS_BUFFER_TOO_SMALL,
          "%s: short buffer", name);
    CHECK(hrw_slot_table_assignments(t, owners, table->len) == HRW_STATUS_OK, "%s", name);
    int same = 1;
    for (size_t s = 0; s < table->len; s++) {
        size_t o = 0;
        unsigned long want = strtoul(table->items[s].str, NULL, 10);
        same &= owners[s] == want;
        same &= hrw_slot_table_owner_of_slot(t, s, &o) == HRW_STATUS_OK && o == want;
    }
    CHECK(same, "%s: table", name);
    for (size_t i = 0; i < caps->len; i++) {
        uint32_t cap = 0;
        CHECK(hrw_slot_table_capacity(t, i, &cap) == HRW_STATUS_OK &&
                  cap == strtoul(caps->items[i].str, NULL, 10),
              "%s: capacity %zu", name, i);
    }
    uint32_t cap = 0;
    CHECK(hrw_slot_table_capacity(t, caps->len, &cap) == HRW_STATUS_INDEX_OUT_OF_RANGE, "%s", name);
    free(owners);
}

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    hrw_placement *p = placement_of(c);
    hrw_status st;
    hrw_slot_table *t = table_of(c, p, &st);
    CHECK(st == HRW_STATUS_OK, "%s: build %d", name, (int)st);
    hrw_placement_free(p);
    if (st != HRW_STATUS_OK) return;
    const jvalue *expected = json_get(c, "expected");
    check_state(t, expected, name);
    const jvalue *keys = json_get(expected, "keys");
    for (size_t i = 0; i < keys->len; i++) {
        const jvalue *k = json_get(&keys->items[i], "key");
        uint32_t slot = 0;
        size_t owner = 0;
        CHECK(hrw_slot_table_slot(t, (const uint8_t *)k->str, k->len, &slot) == HRW_STATUS_OK &&
                  slot == strtoul(json_get(&keys->items[i], "slot")->str, NULL, 10),
              "%s: slot of %s", name, k->str);
        CHECK(hrw_slot_table_owner(t, (const uint8_t *)k->str, k->len, &owner) == HRW_STATUS_OK &&
                  owner == strtoul(json_get(&keys->items[i], "owner")->str, NULL, 10),
              "%s: owner of %s", name, k->str);
    }
    const jvalue *changes = json_get(c, "changes");
    for (size_t i = 0; changes && i < changes->len; i++) {
        const jvalue *ch = &changes->items[i];
        const char *op = json_get(ch, "op")->str;
        const jvalue *id = json_get(ch, "id");
        hrw_slot_table *next = NULL;
        if (strcmp(op, "add") == 0) {
            hrw_node n = {(const uint8_t *)id->str, id->len, NULL, 0};
            st = hrw_slot_table_with_node(t, &n, weight_of(ch), &next, NULL);
        } else if (strcmp(op, "remove") == 0) {
            st = hrw_slot_table_without_node(t, (const uint8_t *)id->str, id->len, &next, NULL);
        } else {
            st = hrw_slot_table_with_weight(t, (const uint8_t *)id->str, id->len, weight_of(ch),
                                            &next, NULL);
        }
        CHECK(st == HRW_STATUS_OK, "%s: change %zu: %d", name, i, (int)st);
        if (st != HRW_STATUS_OK) break;
        hrw_slot_table_free(t);
        t = next;
        check_state(t, json_get(ch, "expected"), name);
    }
    hrw_slot_table_free(t);
}

static void run_error_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    hrw_placement *p = placement_of(c);
    hrw_status st;
    hrw_slot_table *t = table_of(c, p, &st);
    const char *error = json_get(c, "error")->str;
    const jvalue *slot = json_get(c, "slot");
    if (slot == NULL) {
        CHECK(st == HRW_STATUS_INVALID_SLOT_COUNT && strcmp(error, "InvalidSlotCount") == 0 && t == NULL,
              "%s: %d", name, (int)st);
    } else {
        size_t o = 12345;
        CHECK(st == HRW_STATUS_OK, "%s", name);
        CHECK(hrw_slot_table_owner_of_slot(t, strtoull(slot->str, NULL, 10), &o) ==
                      HRW_STATUS_SLOT_OUT_OF_RANGE &&
                  o == 12345 && strcmp(error, "SlotOutOfRange") == 0,
              "%s", name);
    }
    hrw_slot_table_free(t);
    hrw_placement_free(p);
}

static void bad_inputs(void) {
    hrw_node nodes[2] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0}};
    hrw_placement *p = NULL;
    hrw_slot_table *t = NULL, *u = NULL;
    hrw_error e;
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    CHECK(hrw_slot_table_new(NULL, 8, NULL, &t, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL placement");
    CHECK(hrw_slot_table_new(p, 8, NULL, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_slot_table_new(p, 0, NULL, &t, &e) == HRW_STATUS_INVALID_SLOT_COUNT &&
              e.status == HRW_STATUS_INVALID_SLOT_COUNT && e.actual == 0 && t == NULL,
          "zero slots");
    CHECK(hrw_slot_table_new(p, 8, NULL, &t, NULL) == HRW_STATUS_OK, "table");
    const hrw_placement *members = NULL;
    size_t len = 0;
    CHECK(hrw_slot_table_placement(t, &members) == HRW_STATUS_OK &&
              hrw_placement_len(members, &len) == HRW_STATUS_OK && len == 2,
          "placement of a table");
    uint32_t slot;
    size_t index;
    CHECK(hrw_slot_table_slot(t, NULL, 0, &slot) == HRW_STATUS_OK && slot < 8, "empty key");
    CHECK(hrw_slot_table_slot(t, NULL, 3, &slot) == HRW_STATUS_NULL_PARAMETER, "NULL key");
    CHECK(hrw_slot_table_owner(NULL, NULL, 0, &index) == HRW_STATUS_NULL_PARAMETER, "NULL table");
    CHECK(hrw_slot_table_owner(t, NULL, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_slot_table_owner_of_slot(t, 8, &index) == HRW_STATUS_SLOT_OUT_OF_RANGE, "slot 8 of 8");
    CHECK(hrw_slot_table_assignments(t, NULL, 8) == HRW_STATUS_NULL_PARAMETER, "NULL buffer");
    CHECK(hrw_slot_table_without_node(t, (const uint8_t *)"zz", 2, &u, &e) == HRW_STATUS_UNKNOWN_NODE,
          "remove unknown");
    CHECK(hrw_slot_table_with_weight(t, (const uint8_t *)"a", 1, -1.0, &u, &e) ==
                  HRW_STATUS_INVALID_WEIGHT &&
              e.index == 0 && e.value == -1.0,
          "negative weight");
    CHECK(hrw_slot_table_with_node(t, &nodes[0], 1.0, &u, &e) == HRW_STATUS_DUPLICATE_NODE_ID &&
              e.index == 2 && e.first_index == 0,
          "duplicate");
    CHECK(hrw_slot_table_with_node(t, NULL, 1.0, &u, &e) == HRW_STATUS_NULL_PARAMETER, "NULL node");
    CHECK(hrw_slot_table_with_weight(t, (const uint8_t *)"a", 1, 0.0, &u, NULL) == HRW_STATUS_OK, "drain a");
    hrw_slot_table *v = NULL;
    CHECK(hrw_slot_table_with_weight(u, (const uint8_t *)"b", 1, 0.0, &v, NULL) == HRW_STATUS_ALL_WEIGHTS_ZERO &&
              v == NULL,
          "drain all");
    CHECK(strstr(hrw_status_message(HRW_STATUS_SLOT_OUT_OF_RANGE), "slot") != NULL, "message 27");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_SLOT_COUNT), "slots") != NULL, "message 26");
    hrw_slot_table_free(u);
    hrw_slot_table_free(t);
    hrw_slot_table_free(NULL);
    hrw_placement_free(p);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s conformance/policies/slot-table.json\n", argv[0]);
        return 2;
    }
    jvalue *v = json_load(argv[1]);
    if (v == NULL) return 1;
    CHECK(strcmp(json_get(v, "policy")->str, "slot-table-v1") == 0, "policy tag");
    const jvalue *cases = json_get(v, "cases"), *errors = json_get(v, "error_cases");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i]);
    for (size_t i = 0; i < errors->len; i++) run_error_case(&errors->items[i]);
    bad_inputs();
    json_free(v);
    return check_report("test_slot_table");
}
