/* Runs every case of conformance/policies/slot-history-v1.json through the C ABI
 * (SLOT-HISTORY.md): valid histories with their canonical form, fingerprints and owners, the
 * same membership through other orders, equivalent spellings, every invalid document with its
 * status and details; then appends and the misuse of hrw_slot_history_*. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"

static const char *current = "";

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

/* Loads a case's document with its seed; the status, and the history on success. */
static hrw_status load(const jvalue *c, const char *member, hrw_slot_history **h, hrw_error *err) {
    const jvalue *doc = json_get(c, member);
    const jvalue *doc_hex = json_get(c, "document_hex");
    const jvalue *seed_hex = json_get(c, "seed");
    size_t text_len = 0, seed_len = 0;
    uint8_t *owned = NULL, *seed = NULL;
    const uint8_t *text;
    if (doc) {
        text = (const uint8_t *)doc->str;
        text_len = doc->len;
    } else {
        owned = unhex(doc_hex->str, &text_len);
        text = owned;
    }
    if (seed_hex) seed = unhex(seed_hex->str, &seed_len);
    hrw_status s = hrw_slot_history_from_json(text, text_len, seed, seed_len, h, err);
    free(owned);
    free(seed);
    return s;
}

static void check_fingerprint(const hrw_slot_history *h, const char *want) {
    uint8_t hex[HRW_TABLE_FINGERPRINT_HEX_SIZE];
    CHECK(hrw_slot_history_table_fingerprint_hex(h, hex, sizeof hex) == HRW_STATUS_OK, "%s", current);
    CHECK(strcmp((const char *)hex, want) == 0, "%s: table fingerprint %s, want %s", current, hex, want);
    uint8_t raw[HRW_TABLE_FINGERPRINT_LEN];
    CHECK(hrw_slot_history_table_fingerprint(h, raw, sizeof raw) == HRW_STATUS_OK, "%s", current);
    CHECK(hrw_slot_history_table_fingerprint(h, raw, sizeof raw - 1) == HRW_STATUS_BUFFER_TOO_SMALL, "%s", current);
}

static void check_canonical(const hrw_slot_history *h, const char *want) {
    size_t need = 0;
    hrw_error err;
    CHECK(hrw_slot_history_to_json(h, NULL, 0, &need, &err) == HRW_STATUS_BUFFER_TOO_SMALL, "%s", current);
    CHECK(err.expected == strlen(want), "%s: length %zu", current, err.expected);
    uint8_t *buf = malloc(err.expected ? err.expected : 1);
    size_t written = 0;
    CHECK(hrw_slot_history_to_json(h, buf, err.expected, &written, NULL) == HRW_STATUS_OK, "%s", current);
    CHECK(written == strlen(want) && memcmp(buf, want, written) == 0, "%s: canonical form", current);
    free(buf);
}

static void check_view(const hrw_slot_history *h, const char *want) {
    hrw_view *v = NULL;
    CHECK(hrw_slot_history_view(h, &v) == HRW_STATUS_OK, "%s", current);
    uint8_t hex[HRW_VIEW_FINGERPRINT_HEX_SIZE];
    CHECK(hrw_view_fingerprint_hex(v, hex, sizeof hex) == HRW_STATUS_OK, "%s", current);
    CHECK(strcmp((const char *)hex, want) == 0, "%s: view fingerprint %s, want %s", current, hex, want);
    hrw_view_free(v);
}

static void check_owners(const hrw_slot_history *h, const jvalue *owners) {
    hrw_levelled_slot_table *t = NULL;
    CHECK(hrw_slot_history_table(h, &t) == HRW_STATUS_OK, "%s", current);
    const hrw_placement *p = NULL;
    CHECK(hrw_levelled_slot_table_placement(t, &p) == HRW_STATUS_OK, "%s", current);
    for (size_t i = 0; i < owners->len; i++) {
        const jvalue *o = &owners->items[i];
        uint64_t slot = strtoull(json_get(o, "slot")->str, NULL, 10);
        const jvalue *key = json_get(o, "key");
        if (key) {
            uint32_t s = UINT32_MAX;
            CHECK(hrw_levelled_slot_table_slot(t, (const uint8_t *)key->str, key->len, &s) == HRW_STATUS_OK, "%s",
                  current);
            CHECK(s == slot, "%s: slot of %s is %u, want %llu", current, key->str, s, (unsigned long long)slot);
        }
        size_t index = SIZE_MAX;
        CHECK(hrw_levelled_slot_table_owner_of_slot(t, slot, &index) == HRW_STATUS_OK, "%s", current);
        const uint8_t *id = NULL;
        size_t id_len = 0;
        CHECK(hrw_placement_node_id(p, index, &id, &id_len) == HRW_STATUS_OK, "%s", current);
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
    hrw_levelled_slot_table_free(t);
}

static void run_valid(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_history *h = NULL;
        hrw_error err;
        CHECK(load(c, "document", &h, &err) == HRW_STATUS_OK, "%s: loads", current);
        if (!h) continue;
        check_fingerprint(h, json_get(c, "table_fingerprint")->str);
        check_canonical(h, json_get(c, "canonical")->str);
        check_view(h, json_get(c, "view_fingerprint")->str);
        uint64_t epoch = 0;
        size_t changes = 0;
        CHECK(hrw_slot_history_counts(h, &epoch, &changes) == HRW_STATUS_OK, "%s", current);
        CHECK(changes == strtoull(json_get(c, "changes")->str, NULL, 10), "%s: changes %zu", current, changes);
        check_owners(h, json_get(c, "owners"));
        hrw_slot_history_free(h);
    }
}

static void run_pairs(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_history *a = NULL, *b = NULL;
        CHECK(load(c, "a", &a, NULL) == HRW_STATUS_OK && load(c, "b", &b, NULL) == HRW_STATUS_OK, "%s", current);
        if (!a || !b) continue;
        check_fingerprint(a, json_get(c, "a_table_fingerprint")->str);
        check_fingerprint(b, json_get(c, "b_table_fingerprint")->str);
        check_view(a, json_get(c, "view_fingerprint")->str);
        check_view(b, json_get(c, "view_fingerprint")->str);
        hrw_slot_history_free(a);
        hrw_slot_history_free(b);
    }
}

static void run_equivalent(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_history *h = NULL;
        CHECK(load(c, "document", &h, NULL) == HRW_STATUS_OK, "%s", current);
        if (!h) continue;
        check_fingerprint(h, json_get(c, "table_fingerprint")->str);
        check_canonical(h, json_get(c, "canonical")->str);
        hrw_slot_history_free(h);
    }
}

static hrw_status status_named(const char *name) {
    static const struct {
        const char *name;
        hrw_status status;
    } names[] = {
        {"InvalidJson", HRW_STATUS_INVALID_JSON},         {"InvalidView", HRW_STATUS_INVALID_VIEW},
        {"InvalidSlotCount", HRW_STATUS_INVALID_SLOT_COUNT}, {"SeedMismatch", HRW_STATUS_SEED_MISMATCH},
        {"EmptyMembership", HRW_STATUS_EMPTY_MEMBERSHIP}, {"EmptyNodeId", HRW_STATUS_EMPTY_NODE_ID},
        {"DuplicateNodeId", HRW_STATUS_DUPLICATE_NODE_ID}, {"AllWeightsZero", HRW_STATUS_ALL_WEIGHTS_ZERO},
        {"UnknownNode", HRW_STATUS_UNKNOWN_NODE},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].status;
    }
    CHECK(0, "unknown error name %s", name);
    return HRW_STATUS_OK;
}

static void run_invalid(const jvalue *cases) {
    for (size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        current = json_get(c, "name")->str;
        hrw_slot_history *h = NULL;
        hrw_error err;
        hrw_status want = status_named(json_get(c, "error")->str);
        hrw_status got = load(c, "document", &h, &err);
        CHECK(got == want, "%s: status %u, want %u", current, (unsigned)got, (unsigned)want);
        CHECK(h == NULL, "%s: no history on failure", current);
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

static void run_appends_and_misuse(void) {
    current = "appends";
    hrw_node nodes[3] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0},
                         {(const uint8_t *)"c", 1, NULL, 0}};
    hrw_placement_options o = {NULL, 0, NULL, 0};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, 3, &o, &p, NULL) == HRW_STATUS_OK, "placement");
    hrw_slot_history *first = NULL, *h1 = NULL, *h2 = NULL, *h3 = NULL, *bad = NULL;
    hrw_error err;
    CHECK(hrw_slot_history_new(p, 64, 5, &first, NULL) == HRW_STATUS_OK, "new");
    hrw_node d = {(const uint8_t *)"d", 1, (const uint8_t *)"zone-9", 6};
    CHECK(hrw_slot_history_with_node(first, &d, 2.0, &h1, NULL) == HRW_STATUS_OK, "add");
    CHECK(hrw_slot_history_without_node(h1, (const uint8_t *)"a", 1, &h2, NULL) == HRW_STATUS_OK, "remove");
    CHECK(hrw_slot_history_with_weight(h2, (const uint8_t *)"c", 1, 0.5, &h3, NULL) == HRW_STATUS_OK, "weight");
    uint64_t epoch = 0;
    size_t changes = 0;
    CHECK(hrw_slot_history_counts(h3, &epoch, &changes) == HRW_STATUS_OK && epoch == 5 && changes == 3, "counts");
    size_t need = 0;
    hrw_slot_history_to_json(h3, NULL, 0, &need, &err);
    uint8_t *text = malloc(err.expected);
    size_t written = 0;
    CHECK(hrw_slot_history_to_json(h3, text, err.expected, &written, NULL) == HRW_STATUS_OK, "to_json");
    hrw_slot_history *again = NULL;
    CHECK(hrw_slot_history_from_json(text, written, NULL, 0, &again, NULL) == HRW_STATUS_OK, "reload");
    uint8_t fa[HRW_TABLE_FINGERPRINT_LEN], fb[HRW_TABLE_FINGERPRINT_LEN];
    hrw_slot_history_table_fingerprint(h3, fa, sizeof fa);
    hrw_slot_history_table_fingerprint(again, fb, sizeof fb);
    CHECK(memcmp(fa, fb, sizeof fa) == 0, "reloaded fingerprint");
    free(text);

    CHECK(hrw_slot_history_without_node(h3, (const uint8_t *)"zz", 2, &bad, &err) == HRW_STATUS_UNKNOWN_NODE,
          "remove unknown");
    CHECK(hrw_slot_history_with_node(h3, &nodes[1], 1.0, &bad, &err) == HRW_STATUS_DUPLICATE_NODE_ID &&
              err.index == 3 && err.first_index == 0,
          "add duplicate: index %zu first %zu", err.index, err.first_index);
    CHECK(hrw_slot_history_with_weight(h3, (const uint8_t *)"b", 1, -1.0, &bad, &err) == HRW_STATUS_INVALID_WEIGHT,
          "negative weight");
    CHECK(hrw_slot_history_new(p, 0, 0, &bad, &err) == HRW_STATUS_INVALID_SLOT_COUNT, "zero slots");
    CHECK(hrw_slot_history_from_json(NULL, 0, NULL, 0, &bad, &err) == HRW_STATUS_INVALID_JSON, "empty text");
    CHECK(hrw_slot_history_from_json((const uint8_t *)"{}", 2, (const uint8_t *)"x", 1, &bad, &err) ==
              HRW_STATUS_INVALID_SEED_LENGTH,
          "short seed");
    CHECK(hrw_slot_history_from_json((const uint8_t *)"{}", 2, NULL, 0, NULL, &err) == HRW_STATUS_NULL_PARAMETER,
          "NULL out");
    CHECK(hrw_slot_history_table_fingerprint_hex(NULL, NULL, 0) == HRW_STATUS_NULL_PARAMETER, "NULL history");
    CHECK(hrw_slot_history_view(h3, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL view out");
    CHECK(hrw_slot_history_with_node(h3, NULL, 1.0, &bad, &err) == HRW_STATUS_NULL_PARAMETER, "NULL node");
    CHECK(bad == NULL, "no handle written on failure");
    hrw_slot_history_free(NULL);
    hrw_slot_history_free(again);
    hrw_slot_history_free(h3);
    hrw_slot_history_free(h2);
    hrw_slot_history_free(h1);
    hrw_slot_history_free(first);
    hrw_placement_free(p);
}

/* API.md: the same bad input gets the same status in every API. An unknown node with an invalid
 * weight is UNKNOWN_NODE for placements, levelled tables and histories alike (the node is looked
 * up first); a known node's invalid weight stays INVALID_WEIGHT. */
static void run_with_weight_order(void) {
    current = "with_weight order";
    hrw_node nodes[3] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0},
                         {(const uint8_t *)"c", 1, NULL, 0}};
    hrw_placement_options o = {NULL, 0, NULL, 0};
    hrw_placement *p = NULL, *pbad = NULL;
    hrw_levelled_slot_table *t = NULL, *tbad = NULL;
    hrw_slot_history *h = NULL, *h1 = NULL, *h2 = NULL, *hbad = NULL;
    hrw_error err;
    CHECK(hrw_placement_new(nodes, 3, &o, &p, NULL) == HRW_STATUS_OK, "placement");
    CHECK(hrw_levelled_slot_table_new(p, 8, &t, NULL) == HRW_STATUS_OK, "table");
    CHECK(hrw_slot_history_new(p, 8, 0, &h, NULL) == HRW_STATUS_OK, "history");
    const double bad[] = {NAN, -1.0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double w = bad[i];
        CHECK(hrw_placement_with_weight(p, (const uint8_t *)"zz", 2, w, &pbad, &err) == HRW_STATUS_UNKNOWN_NODE,
              "placement unknown node, weight %g: %d", w, (int)err.status);
        CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"zz", 2, w, &tbad, &err) ==
                  HRW_STATUS_UNKNOWN_NODE,
              "table unknown node, weight %g: %d", w, (int)err.status);
        CHECK(hrw_slot_history_with_weight(h, (const uint8_t *)"zz", 2, w, &hbad, &err) == HRW_STATUS_UNKNOWN_NODE,
              "history unknown node, weight %g: %d", w, (int)err.status);
        CHECK(hrw_placement_with_weight(p, (const uint8_t *)"b", 1, w, &pbad, &err) == HRW_STATUS_INVALID_WEIGHT &&
                  err.index == 1,
              "placement known node, weight %g: index %zu", w, err.index);
        CHECK(hrw_levelled_slot_table_with_weight(t, (const uint8_t *)"b", 1, w, &tbad, &err) ==
                      HRW_STATUS_INVALID_WEIGHT &&
                  err.index == 1,
              "table known node, weight %g: index %zu", w, err.index);
        /* A history's INVALID_WEIGHT names the change's position, as before. */
        CHECK(hrw_slot_history_with_weight(h, (const uint8_t *)"b", 1, w, &hbad, &err) == HRW_STATUS_INVALID_WEIGHT &&
                  err.index == 0,
              "history known node, weight %g: index %zu", w, err.index);
    }
    /* The history's current membership: a node it removed is unknown, one it added is known. */
    hrw_node d = {(const uint8_t *)"d", 1, NULL, 0};
    CHECK(hrw_slot_history_without_node(h, (const uint8_t *)"a", 1, &h1, NULL) == HRW_STATUS_OK, "remove");
    CHECK(hrw_slot_history_with_node(h1, &d, 1.0, &h2, NULL) == HRW_STATUS_OK, "add");
    CHECK(hrw_slot_history_with_weight(h2, (const uint8_t *)"a", 1, NAN, &hbad, &err) == HRW_STATUS_UNKNOWN_NODE,
          "removed node: %d", (int)err.status);
    CHECK(hrw_slot_history_with_weight(h2, (const uint8_t *)"d", 1, NAN, &hbad, &err) == HRW_STATUS_INVALID_WEIGHT &&
              err.index == 2 && isnan(err.value),
          "added node: %d index %zu", (int)err.status, err.index);
    CHECK(pbad == NULL && tbad == NULL && hbad == NULL, "no handle written on failure");
    hrw_slot_history_free(h2);
    hrw_slot_history_free(h1);
    hrw_slot_history_free(h);
    hrw_levelled_slot_table_free(t);
    hrw_placement_free(p);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s slot-history-v1.json\n", argv[0]);
        return 2;
    }
    jvalue *v = json_load(argv[1]);
    if (!v) return 1;
    run_valid(json_get(v, "valid"));
    run_pairs(json_get(v, "same_membership"));
    run_equivalent(json_get(v, "equivalent"));
    run_invalid(json_get(v, "invalid"));
    run_appends_and_misuse();
    run_with_weight_order();
    json_free(v);
    return check_report("test_slot_history");
}
