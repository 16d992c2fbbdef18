/* Every error path of the C ABI: bad input gets a status, never a crash, and out-params are
 * left untouched on failure. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"

#define NODE(s) {(const uint8_t *)(s), sizeof(s) - 1, NULL, 0}
#define KEY(s) (const uint8_t *)(s), sizeof(s) - 1

static hrw_placement *three(void) {
    hrw_node nodes[] = {NODE("a"), NODE("b"), NODE("c")};
    hrw_placement *p = NULL;
    hrw_status st = hrw_placement_new(nodes, 3, NULL, &p, NULL);
    CHECK(st == HRW_STATUS_OK && p != NULL, "build: %s", hrw_status_message(st));
    return p;
}

static void build_errors(void) {
    hrw_node nodes[] = {NODE("a"), NODE("b"), NODE("c")};
    hrw_placement *sentinel = (hrw_placement *)&nodes; /* must survive every failure */
    hrw_placement *p = sentinel;
    hrw_error err;

    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 3, NULL, NULL, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER,
          "NULL out");
    CHECK(hrw_placement_new(NULL, 3, NULL, &p, NULL) == HRW_STATUS_NULL_PARAMETER && p == sentinel,
          "NULL nodes with length");
    CHECK(hrw_placement_new(NULL, 0, NULL, &p, NULL) == HRW_STATUS_EMPTY_MEMBERSHIP &&
              p == sentinel,
          "no nodes");

    hrw_node empty_id[] = {NODE("a"), {(const uint8_t *)"", 0, NULL, 0}};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(empty_id, 2, NULL, &p, &err) == HRW_STATUS_EMPTY_NODE_ID &&
              err.status == HRW_STATUS_EMPTY_NODE_ID && err.index == 1 && p == sentinel,
          "zero-length id: index %zu", err.index);
    hrw_node null_id[] = {{NULL, 0, NULL, 0}};
    CHECK(hrw_placement_new(null_id, 1, NULL, &p, NULL) == HRW_STATUS_EMPTY_NODE_ID, "NULL id, 0");
    hrw_node null_id_len[] = {{NULL, 4, NULL, 0}};
    CHECK(hrw_placement_new(null_id_len, 1, NULL, &p, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL id with length");
    hrw_node null_domain[] = {{(const uint8_t *)"a", 1, NULL, 3}};
    CHECK(hrw_placement_new(null_domain, 1, NULL, &p, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL domain with length");

    hrw_node dup[] = {NODE("a"), NODE("b"), NODE("a")};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(dup, 3, NULL, &p, &err) == HRW_STATUS_DUPLICATE_NODE_ID &&
              err.index == 2 && err.first_index == 0,
          "duplicate id: %zu %zu", err.index, err.first_index);

    /* Ids are bytes: NUL inside an id is data, not a terminator. */
    hrw_node nul_ids[] = {{(const uint8_t *)"a\0x", 3, NULL, 0}, {(const uint8_t *)"a\0y", 3, NULL, 0}};
    CHECK(hrw_placement_new(nul_ids, 2, NULL, &p, NULL) == HRW_STATUS_OK, "ids with NUL");
    hrw_placement_free(p);
    p = sentinel;

    const double bad[] = {-1.0, NAN, INFINITY, -INFINITY, 4294967296.0, 1e-12};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double w[3] = {1.0, bad[i], 1.0};
        hrw_placement_options o = {NULL, 0, w, 3};
        memset(&err, 0, sizeof err);
        CHECK(hrw_placement_new(nodes, 3, &o, &p, &err) == HRW_STATUS_INVALID_WEIGHT &&
                  err.index == 1 && p == sentinel,
              "bad weight %g", bad[i]);
        uint64_t fixed = 7;
        CHECK(hrw_weight_to_fixed(bad[i], &fixed, NULL) == HRW_STATUS_INVALID_WEIGHT && fixed == 7,
              "weight_to_fixed %g", bad[i]);
    }
    double zeros[3] = {0.0, 0.0, 0.0};
    hrw_placement_options all_zero = {NULL, 0, zeros, 3};
    CHECK(hrw_placement_new(nodes, 3, &all_zero, &p, NULL) == HRW_STATUS_ALL_WEIGHTS_ZERO,
          "all weights zero");
    double two[2] = {1.0, 2.0};
    hrw_placement_options short_w = {NULL, 0, two, 2};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 3, &short_w, &p, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 3 && err.actual == 2,
          "weights shorter than nodes");
    hrw_placement_options null_w = {NULL, 0, NULL, 3};
    CHECK(hrw_placement_new(nodes, 3, &null_w, &p, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL weights with length");

    const uint8_t seed[17] = {0};
    hrw_placement_options short_seed = {seed, 15, NULL, 0};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 3, &short_seed, &p, &err) == HRW_STATUS_INVALID_SEED_LENGTH &&
              err.actual == 15 && err.expected == 16,
          "15-byte seed");
    hrw_placement_options long_seed = {seed, 17, NULL, 0};
    CHECK(hrw_placement_new(nodes, 3, &long_seed, &p, NULL) == HRW_STATUS_INVALID_SEED_LENGTH,
          "17-byte seed");
    hrw_placement_options null_seed = {NULL, 16, NULL, 0};
    CHECK(hrw_placement_new(nodes, 3, &null_seed, &p, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL seed with length");
    CHECK(p == sentinel, "out untouched by failures");
}

static void lookup_errors(void) {
    hrw_placement *p = three();
    size_t idx = 99, count = 99, out[3] = {99, 99, 99};

    CHECK(hrw_placement_owner(NULL, KEY("k"), &idx) == HRW_STATUS_NULL_PARAMETER && idx == 99,
          "owner NULL placement");
    CHECK(hrw_placement_owner(p, KEY("k"), NULL) == HRW_STATUS_NULL_PARAMETER, "owner NULL out");
    CHECK(hrw_placement_owner(p, NULL, 5, &idx) == HRW_STATUS_NULL_PARAMETER && idx == 99,
          "owner NULL key with length");
    CHECK(hrw_placement_owner(p, NULL, 0, &idx) == HRW_STATUS_OK && idx < 3, "empty NULL key");
    size_t empty_owner = idx;
    CHECK(hrw_placement_owner(p, (const uint8_t *)"", 0, &idx) == HRW_STATUS_OK &&
              idx == empty_owner,
          "empty key, NULL or not, is the same key");

    idx = 99;
    CHECK(hrw_placement_rank(p, KEY("k"), 3, out, 2, &count) == HRW_STATUS_BUFFER_TOO_SMALL &&
              count == 99 && out[0] == 99,
          "rank short buffer");
    CHECK(hrw_placement_rank(p, KEY("k"), 3, NULL, 3, &count) == HRW_STATUS_NULL_PARAMETER,
          "rank NULL buffer");
    CHECK(hrw_placement_rank(p, KEY("k"), 3, out, 3, NULL) == HRW_STATUS_NULL_PARAMETER,
          "rank NULL count");
    CHECK(hrw_placement_rank(p, KEY("k"), 10, out, 3, &count) == HRW_STATUS_OK && count == 3,
          "k above node count is clamped");
    CHECK(hrw_placement_rank(p, KEY("k"), 0, NULL, 0, &count) == HRW_STATUS_OK && count == 0,
          "k = 0");
    CHECK(hrw_placement_replicas(p, KEY("k"), 2, out, 1, &count) == HRW_STATUS_BUFFER_TOO_SMALL,
          "replicas short buffer");

    const uint8_t keys[] = "abc";
    size_t lens[] = {1, 2}, owners[2] = {99, 99};
    CHECK(hrw_placement_owners(p, keys, 3, lens, 2, owners, 1) == HRW_STATUS_BUFFER_TOO_SMALL &&
              owners[0] == 99,
          "owners short buffer");
    CHECK(hrw_placement_owners(p, keys, 2, lens, 2, owners, 2) == HRW_STATUS_LENGTH_MISMATCH &&
              owners[0] == 99,
          "owners lengths exceed the bytes");
    size_t huge[] = {SIZE_MAX, 4};
    CHECK(hrw_placement_owners(p, keys, 3, huge, 2, owners, 2) == HRW_STATUS_LENGTH_MISMATCH,
          "owners lengths overflow");
    CHECK(hrw_placement_owners(p, keys, 3, NULL, 2, owners, 2) == HRW_STATUS_NULL_PARAMETER,
          "owners NULL lengths");
    CHECK(hrw_placement_owners(p, NULL, 0, NULL, 0, NULL, 0) == HRW_STATUS_OK, "owners of nothing");
    CHECK(hrw_placement_owners(p, keys, 3, lens, 2, owners, 2) == HRW_STATUS_OK, "owners");
    size_t a = 99, bc = 99;
    hrw_placement_owner(p, keys, 1, &a);
    hrw_placement_owner(p, keys + 1, 2, &bc);
    CHECK(owners[0] == a && owners[1] == bc, "owners agrees with owner");

    const uint8_t *id = NULL;
    size_t id_len = 99;
    CHECK(node_id_of(p, 3, &id, &id_len) == HRW_STATUS_INDEX_OUT_OF_RANGE &&
              id == NULL && id_len == 99,
          "node_id out of range");
    CHECK(node_id_of(p, 1, &id, &id_len) == HRW_STATUS_OK && id_len == 1 &&
              id[0] == 'b',
          "node_id");
    {
        /* hrw_placement_node: both out-params are required and written only on success; the
         * node it gives is one hrw_placement_with_node takes back. */
        hrw_node n = {(const uint8_t *)"x", 9, (const uint8_t *)"y", 9};
        double w = 7.0;
        CHECK(hrw_placement_node(NULL, 0, &n, &w) == HRW_STATUS_NULL_PARAMETER, "node of NULL");
        CHECK(hrw_placement_node(p, 1, NULL, &w) == HRW_STATUS_NULL_PARAMETER && w == 7.0, "NULL out_node");
        CHECK(hrw_placement_node(p, 1, &n, NULL) == HRW_STATUS_NULL_PARAMETER && n.id_len == 9, "NULL out_weight");
        CHECK(hrw_placement_node(p, 3, &n, &w) == HRW_STATUS_INDEX_OUT_OF_RANGE && n.id_len == 9 && w == 7.0,
              "node out of range");
        CHECK(hrw_placement_node(p, SIZE_MAX, &n, &w) == HRW_STATUS_INDEX_OUT_OF_RANGE, "node SIZE_MAX");
        CHECK(hrw_placement_node(p, 1, &n, &w) == HRW_STATUS_OK && n.id_len == 1 && n.id[0] == 'b' &&
                  n.domain == NULL && n.domain_len == 0 && w == 1.0,
              "node b: no domain, weight 1");
        hrw_node with_domains[3] = {{(const uint8_t *)"a", 1, (const uint8_t *)"rack1", 5},
                                    {(const uint8_t *)"b", 1, (const uint8_t *)"", 0},
                                    {(const uint8_t *)"c", 1, NULL, 0}};
        double weights[3] = {2.5, 0.0, 1.0};
        hrw_placement_options wo = {NULL, 0, weights, 3};
        hrw_placement *d = NULL, *again = NULL;
        CHECK(hrw_placement_new(with_domains, 3, &wo, &d, NULL) == HRW_STATUS_OK, "placement with domains");
        CHECK(hrw_placement_node(d, 0, &n, &w) == HRW_STATUS_OK && n.domain != NULL && n.domain_len == 5 &&
                  memcmp(n.domain, "rack1", 5) == 0 && w == 2.5,
              "node a: domain rack1, weight 2.5");
        CHECK(hrw_placement_node(d, 1, &n, &w) == HRW_STATUS_OK && n.domain != NULL && n.domain_len == 0 && w == 0.0,
              "node b: an empty domain is a domain (non-NULL), drained");
        CHECK(hrw_placement_node(d, 2, &n, &w) == HRW_STATUS_OK && n.domain == NULL && w == 1.0,
              "node c: no domain");
        CHECK(hrw_placement_node(d, 0, &n, &w) == HRW_STATUS_OK &&
                  hrw_placement_without_node(d, n.id, n.id_len, &again, NULL) == HRW_STATUS_OK,
              "without a");
        hrw_placement *back = NULL;
        hrw_node m;
        double mw = 0;
        CHECK(hrw_placement_with_node(again, &n, w, &back, NULL) == HRW_STATUS_OK &&
                  hrw_placement_node(back, 2, &m, &mw) == HRW_STATUS_OK && m.id_len == 1 && m.id[0] == 'a' &&
                  m.domain_len == 5 && memcmp(m.domain, "rack1", 5) == 0 && mw == 2.5,
              "a node read from a placement goes back in as it is");
        hrw_placement_free(back);
        hrw_placement_free(again);
        hrw_placement_free(d);
    }
    idx = 99;
    CHECK(hrw_placement_find(p, KEY("zz"), &idx) == HRW_STATUS_UNKNOWN_NODE && idx == 99,
          "find unknown");
    CHECK(hrw_placement_find(p, KEY("c"), &idx) == HRW_STATUS_OK && idx == 2, "find");
    uint64_t score = 7;
    hrw_error score_err = {0};
    CHECK(hrw_placement_score(p, KEY("k"), KEY("zz"), &score, &score_err) ==
                  HRW_STATUS_UNKNOWN_NODE &&
              score == 7 && score_err.status == HRW_STATUS_UNKNOWN_NODE,
          "score of an unknown id");
    CHECK(hrw_placement_score(p, KEY("k"), KEY("c"), NULL, NULL) == HRW_STATUS_NULL_PARAMETER,
          "score NULL out_score");
    uint8_t seed[16];
    CHECK(hrw_placement_seed(p, seed, 15) == HRW_STATUS_BUFFER_TOO_SMALL, "seed short buffer");
    CHECK(hrw_placement_seed(p, seed, 16) == HRW_STATUS_OK && memcmp(seed, "hrwhash-v1-seed.", 16) == 0,
          "default seed");
    size_t len = 0;
    CHECK(hrw_placement_len(NULL, &len, NULL) == HRW_STATUS_NULL_PARAMETER, "len NULL");
    CHECK(hrw_placement_len(p, &len, NULL) == HRW_STATUS_OK && len == 3, "len");
    size_t selectable = 99;
    len = 99;
    CHECK(hrw_placement_len(p, NULL, &selectable) == HRW_STATUS_NULL_PARAMETER && selectable == 99,
          "len NULL, selectable not written");
    CHECK(hrw_placement_len(p, &len, &selectable) == HRW_STATUS_OK && len == 3 && selectable == 3,
          "len and selectable len");
    uint64_t d = 0;
    CHECK(hrw_key_digest(seed, 3, KEY("k"), &d, NULL) == HRW_STATUS_INVALID_SEED_LENGTH, "digest seed");
    CHECK(hrw_key_digest(NULL, 0, NULL, 1, &d, NULL) == HRW_STATUS_NULL_PARAMETER, "digest NULL key");
    CHECK(hrw_draw(1, NULL) == HRW_STATUS_NULL_PARAMETER, "draw NULL out");
    hrw_placement_free(p);
}

static void derive_errors(void) {
    hrw_placement *p = three(), *q = NULL;
    hrw_node d = NODE("d"), a = NODE("a"), empty = {(const uint8_t *)"x", 0, NULL, 0};
    CHECK(hrw_placement_with_node(p, &a, 1.0, &q, NULL) == HRW_STATUS_DUPLICATE_NODE_ID && q == NULL,
          "with_node duplicate");
    CHECK(hrw_placement_with_node(p, &empty, 1.0, &q, NULL) == HRW_STATUS_EMPTY_NODE_ID, "with_node empty");
    CHECK(hrw_placement_with_node(p, &d, -2.0, &q, NULL) == HRW_STATUS_INVALID_WEIGHT, "with_node weight");
    CHECK(hrw_placement_with_node(p, NULL, 1.0, &q, NULL) == HRW_STATUS_NULL_PARAMETER, "with_node NULL");
    CHECK(hrw_placement_without_node(p, KEY("zz"), &q, NULL) == HRW_STATUS_UNKNOWN_NODE && q == NULL,
          "without unknown");
    CHECK(hrw_placement_with_weight(p, KEY("zz"), 2.0, &q, NULL) == HRW_STATUS_UNKNOWN_NODE,
          "with_weight unknown");
    CHECK(hrw_placement_with_weight(p, KEY("a"), NAN, &q, NULL) == HRW_STATUS_INVALID_WEIGHT,
          "with_weight NaN");

    /* Removing a node moves only its keys; adding one moves keys only to it. */
    CHECK(hrw_placement_without_node(p, KEY("b"), &q, NULL) == HRW_STATUS_OK, "without b");
    hrw_placement *r = NULL;
    CHECK(hrw_placement_with_node(p, &d, 1.0, &r, NULL) == HRW_STATUS_OK, "with d");
    int moved_wrongly = 0;
    for (int i = 0; i < 2000; i++) {
        char key[16];
        int n = snprintf(key, sizeof key, "key-%d", i);
        size_t before = 0, after = 0, grown = 0;
        hrw_placement_owner(p, (const uint8_t *)key, (size_t)n, &before);
        hrw_placement_owner(q, (const uint8_t *)key, (size_t)n, &after);
        hrw_placement_owner(r, (const uint8_t *)key, (size_t)n, &grown);
        /* q has nodes a, c at indices 0, 1 */
        if (before != 1 && after != (before == 0 ? 0u : 1u)) moved_wrongly++;
        if (grown != before && grown != 3) moved_wrongly++;
    }
    CHECK(moved_wrongly == 0, "%d keys moved between surviving nodes", moved_wrongly);
    hrw_placement_free(r);
    hrw_placement_free(q);
    hrw_placement_free(p);
}

/* Regressions of issue 8: positions, pointer/length pairs and the order of checks. */
static void build_details(void) {
    hrw_node nodes[] = {NODE("a"), NODE("b"), NODE("c"), NODE("d")};
    hrw_placement *p = NULL;
    hrw_error err;

    hrw_node null_id[] = {NODE("a"), NODE("b"), NODE("c"), {NULL, 1, NULL, 0}};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(null_id, 4, NULL, &p, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER && err.index == 3 && p == NULL,
          "NULL id at node 3: index %zu", err.index);
    hrw_node null_domain[] = {NODE("a"), NODE("b"), {(const uint8_t *)"c", 1, NULL, 2}};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(null_domain, 3, NULL, &p, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.index == 2,
          "NULL domain at node 2: index %zu", err.index);

    /* A non-NULL weights pointer is a weights list, whatever its length. */
    const double drained[] = {0.0, 5.0};
    hrw_placement_options empty_w = {NULL, 0, drained, 0};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 2, &empty_w, &p, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 2 && err.actual == 0 && p == NULL,
          "non-NULL weights of length 0: %s (%zu, %zu)", hrw_status_message(err.status),
          err.expected, err.actual);
    hrw_placement_options long_w = {NULL, 0, drained, 2};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 1, &long_w, &p, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 1 && err.actual == 2,
          "weights longer than nodes");

    /* API.md section 4: pointers, then lengths, then SPEC.md section 7 in its order. */
    const double bad_first[] = {-1.0, 1.0, 1.0, 1.0};
    hrw_placement_options bad_w = {NULL, 0, bad_first, 4};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(null_id, 4, &bad_w, &p, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.index == 3,
          "a NULL id is reported before an invalid weight");
    const uint8_t seed15[15] = {0};
    hrw_placement_options short_w_seed = {seed15, 15, drained, 1};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 2, &short_w_seed, &p, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 2 && err.actual == 1,
          "a length mismatch is reported before the seed length: %s",
          hrw_status_message(err.status));
    hrw_placement_options null_seed = {NULL, 16, drained, 0};
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, 2, &null_seed, &p, &err) == HRW_STATUS_NULL_PARAMETER,
          "a NULL seed with a length is reported before a length mismatch");

    /* More nodes than a placement holds is refused before any node is read. */
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, SIZE_MAX / 2, NULL, &p, &err) == HRW_STATUS_TOO_MANY_NODES &&
              err.status == HRW_STATUS_TOO_MANY_NODES && err.actual == SIZE_MAX / 2 && p == NULL,
          "impossible node count: %s", hrw_status_message(err.status));
#if SIZE_MAX > UINT32_MAX
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_new(nodes, (size_t)UINT32_MAX + 1, NULL, &p, &err) ==
                  HRW_STATUS_TOO_MANY_NODES &&
              err.actual == (size_t)UINT32_MAX + 1 && p == NULL,
          "2^32 nodes: %s", hrw_status_message(err.status));
#endif
    CHECK(strstr(hrw_status_message(HRW_STATUS_TOO_MANY_NODES), "2^32 - 1") != NULL,
          "message of TOO_MANY_NODES");
}

static void derive_details(void) {
    hrw_placement *p = three(), *q = NULL;
    hrw_node a = NODE("a"), d = NODE("d"), empty = {(const uint8_t *)"x", 0, NULL, 0};
    hrw_node null_id = {NULL, 2, NULL, 0};
    hrw_error err;

    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_node(p, &a, 1.0, &q, &err) == HRW_STATUS_DUPLICATE_NODE_ID &&
              err.status == HRW_STATUS_DUPLICATE_NODE_ID && err.index == 3 &&
              err.first_index == 0 && q == NULL,
          "with_node duplicate: index %zu first %zu", err.index, err.first_index);
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_node(p, &empty, 1.0, &q, &err) == HRW_STATUS_EMPTY_NODE_ID &&
              err.index == 3,
          "with_node empty id: index %zu", err.index);
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_node(p, &d, -2.0, &q, &err) == HRW_STATUS_INVALID_WEIGHT &&
              err.index == 3 && err.value == -2.0,
          "with_node weight: index %zu value %g", err.index, err.value);
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_node(p, &null_id, 1.0, &q, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.index == 3,
          "with_node NULL id: index %zu", err.index);

    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_weight(p, KEY("b"), -1.0, &q, &err) == HRW_STATUS_INVALID_WEIGHT &&
              err.index == 1 && err.value == -1.0 && q == NULL,
          "with_weight: index %zu value %g", err.index, err.value);
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_with_weight(p, KEY("zz"), NAN, &q, &err) == HRW_STATUS_UNKNOWN_NODE &&
              err.status == HRW_STATUS_UNKNOWN_NODE,
          "with_weight looks the node up before it checks the weight");
    memset(&err, 0, sizeof err);
    CHECK(hrw_placement_without_node(p, KEY("zz"), &q, &err) == HRW_STATUS_UNKNOWN_NODE &&
              err.status == HRW_STATUS_UNKNOWN_NODE,
          "without_node reports its status");

    memset(&err, 0, sizeof err);
    uint64_t fixed = 7;
    CHECK(hrw_weight_to_fixed(1e-12, &fixed, &err) == HRW_STATUS_INVALID_WEIGHT &&
              err.value == 1e-12 && fixed == 7,
          "weight_to_fixed value %g", err.value);
    const uint8_t seed[15] = {0};
    uint64_t digest = 7;
    memset(&err, 0, sizeof err);
    CHECK(hrw_key_digest(seed, 15, KEY("k"), &digest, &err) == HRW_STATUS_INVALID_SEED_LENGTH &&
              err.expected == 16 && err.actual == 15 && digest == 7,
          "key_digest seed: %zu of %zu", err.actual, err.expected);
    memset(&err, 0, sizeof err);
    CHECK(hrw_node_digest(seed, 15, KEY("a"), &digest, &err) == HRW_STATUS_INVALID_SEED_LENGTH &&
              err.actual == 15,
          "node_digest seed: %zu", err.actual);

    double w = -1.0;
    CHECK(node_weight_of(p, 1, &w) == HRW_STATUS_OK && w == 1.0, "node_weight");
    CHECK(node_weight_of(p, 3, &w) == HRW_STATUS_INDEX_OUT_OF_RANGE && w == 1.0,
          "node_weight out of range");
    CHECK(hrw_placement_with_weight(p, KEY("c"), 0.0, &q, NULL) == HRW_STATUS_OK, "drain c");
    CHECK(node_weight_of(q, 2, &w) == HRW_STATUS_OK && w == 0.0, "drained weight");
    hrw_placement_free(q);
    hrw_placement_free(p);
}

static void batch_bounds(void) {
    hrw_placement *p = three();
    const uint8_t keys[] = "abcdef";
    size_t out[12], count = 99, per_key = 99;

    /* An output length whose size in bytes overflows cannot be a real buffer. */
    CHECK(hrw_placement_rank(p, KEY("k"), 2, out, SIZE_MAX, &count) == HRW_STATUS_RESULT_TOO_LARGE &&
              count == 99,
          "rank into an impossible buffer");
    CHECK(hrw_placement_replicas(p, KEY("k"), 2, out, SIZE_MAX / 4, &count) ==
              HRW_STATUS_RESULT_TOO_LARGE,
          "replicas into an impossible buffer");
    CHECK(hrw_placement_rank(p, KEY("k"), SIZE_MAX, out, 3, &count) == HRW_STATUS_OK && count == 3,
          "the largest k ranks every node");

    /* Key lengths that overrun or overflow the key bytes are refused before any key is read. */
    size_t overrun[] = {2, 5};
    CHECK(hrw_placement_owners(p, keys, 6, overrun, 2, out, 2) == HRW_STATUS_LENGTH_MISMATCH,
          "owners lengths beyond the bytes");
    size_t wrap[] = {SIZE_MAX, 7};
    CHECK(hrw_placement_owners(p, keys, 6, wrap, 2, out, 2) == HRW_STATUS_LENGTH_MISMATCH,
          "owners lengths that wrap around to keys_len");
    CHECK(hrw_placement_owners(p, keys, 6, overrun, SIZE_MAX / 2, out, 12) ==
              HRW_STATUS_LENGTH_MISMATCH,
          "owners key count no array can hold");
    CHECK(hrw_placement_owners(p, keys, SIZE_MAX, overrun, 2, out, 2) == HRW_STATUS_LENGTH_MISMATCH,
          "owners keys_len no buffer can hold");
    CHECK(hrw_placement_owners(p, keys, 3, overrun, 0, out, 2) == HRW_STATUS_LENGTH_MISMATCH,
          "owners of no keys with key bytes left over");

    /* rank_many: rows of k slots; keys x k must not overflow. */
    size_t lens[] = {1, 2, 3};
    CHECK(hrw_placement_rank_many(p, keys, 6, lens, 3, SIZE_MAX / 2, out, 12, &per_key) ==
              HRW_STATUS_RESULT_TOO_LARGE && per_key == 99,
          "rank_many keys x k overflow");
    CHECK(hrw_placement_rank_many(p, keys, 6, lens, 3, 2, out, 5, &per_key) ==
              HRW_STATUS_BUFFER_TOO_SMALL && per_key == 99,
          "rank_many short buffer");
    CHECK(hrw_placement_rank_many(p, keys, 5, lens, 3, 2, out, 6, &per_key) ==
              HRW_STATUS_LENGTH_MISMATCH,
          "rank_many lengths disagree with the bytes");
    CHECK(hrw_placement_rank_many(p, keys, 6, lens, 3, 4, out, 12, &per_key) == HRW_STATUS_OK &&
              per_key == 3,
          "rank_many k beyond the membership");
    int disagree = 0;
    for (size_t i = 0, off = 0; i < 3; off += lens[i], i++) {
        size_t one[3];
        hrw_placement_rank(p, keys + off, lens[i], 3, one, 3, &count);
        if (memcmp(one, out + 4 * i, sizeof one) != 0) disagree++;
    }
    CHECK(disagree == 0, "rank_many rows differ from rank in %d rows", disagree);
    CHECK(hrw_placement_rank_many(p, keys, 6, lens, 3, 0, NULL, 0, &per_key) == HRW_STATUS_OK &&
              per_key == 0,
          "rank_many k = 0");
    CHECK(hrw_placement_rank_many(p, NULL, 0, NULL, 0, 2, NULL, 0, &per_key) == HRW_STATUS_OK &&
              per_key == 2,
          "rank_many of no keys");
    CHECK(hrw_placement_rank_many(NULL, keys, 6, lens, 3, 2, out, 6, &per_key) ==
              HRW_STATUS_NULL_PARAMETER,
          "rank_many NULL placement");
    hrw_placement_free(p);
}

static void static_strings(void) {
    CHECK(strcmp(hrw_version(), HRW_VERSION_STRING) == 0, "header %s vs library %s",
          HRW_VERSION_STRING, hrw_version());
    CHECK(strcmp(hrw_status_message(HRW_STATUS_OK), "ok") == 0, "message of OK");
    CHECK(strstr(hrw_status_message(HRW_STATUS_BUFFER_TOO_SMALL), "too small") != NULL,
          "message of BUFFER_TOO_SMALL");
    CHECK(hrw_status_message(9999) != NULL && strstr(hrw_status_message(9999), "unknown") != NULL,
          "message of an unknown number");
    /* The numbers are ABI: pin them. */
    CHECK(HRW_STATUS_NULL_PARAMETER == 1 && HRW_STATUS_INVALID_WEIGHT == 5 &&
              HRW_STATUS_BUFFER_TOO_SMALL == 10 && HRW_STATUS_PANIC == 12 &&
              HRW_STATUS_UNKNOWN == 13 && HRW_STATUS_INVALID_COUNT == 14 &&
              HRW_STATUS_RESULT_TOO_LARGE == 15 && HRW_STATUS_INVALID_TEXT == 16,
          "status numbers");
    hrw_placement_free(NULL);
}

int main(void) {
    build_errors();
    lookup_errors();
    derive_errors();
    build_details();
    derive_details();
    batch_bounds();
    static_strings();
    return check_report("test_errors");
}
