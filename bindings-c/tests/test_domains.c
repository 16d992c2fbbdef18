/* Runs every case of conformance/policies/domains.json through the C ABI, and the policy's bad
 * inputs (NULL pointers, counts, buffers). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"

typedef struct {
    uint8_t *data;
    size_t len;
} bytes;

static bytes hex_text(const char *s, size_t n) {
    bytes b = {malloc(n / 2 ? n / 2 : 1), n / 2};
    for (size_t i = 0; i < b.len; i++) {
        unsigned x;
        sscanf(s + 2 * i, "%2x", &x);
        b.data[i] = (uint8_t)x;
    }
    return b;
}

/* `name` as text or `name_hex` as bytes; data NULL when neither is present. */
static bytes text_of(const jvalue *o, const char *name) {
    bytes b = {NULL, 0};
    const jvalue *t = json_get(o, name);
    if (t) {
        b.len = t->len;
        b.data = malloc(t->len ? t->len : 1);
        memcpy(b.data, t->str, t->len);
        return b;
    }
    char hexname[64];
    snprintf(hexname, sizeof hexname, "%s_hex", name);
    t = json_get(o, hexname);
    return t ? hex_text(t->str, t->len) : b;
}

static size_t num(const jvalue *v) { return (size_t)strtoull(v->str, NULL, 10); }

typedef struct {
    hrw_node *nodes;
    double *weights;
    bytes *ids, *domains;
    size_t len;
    bytes seed;
    hrw_placement *p;
} membership;

static void membership_free(membership *m) {
    for (size_t i = 0; i < m->len; i++) {
        free(m->ids[i].data);
        free(m->domains[i].data);
    }
    free(m->nodes);
    free(m->weights);
    free(m->ids);
    free(m->domains);
    free(m->seed.data);
    hrw_placement_free(m->p);
}

static hrw_status build(const jvalue *c, membership *m) {
    const jvalue *nodes = json_get(c, "nodes");
    memset(m, 0, sizeof *m);
    m->len = nodes->len;
    size_t n = m->len ? m->len : 1;
    m->nodes = calloc(n, sizeof *m->nodes);
    m->weights = calloc(n, sizeof *m->weights);
    m->ids = calloc(n, sizeof *m->ids);
    m->domains = calloc(n, sizeof *m->domains);
    for (size_t i = 0; i < m->len; i++) {
        const jvalue *node = &nodes->items[i];
        const jvalue *w = json_get(node, "weight");
        m->weights[i] = w ? strtod(w->str, NULL) : 1.0;
        m->ids[i] = text_of(node, "id");
        m->domains[i] = text_of(node, "domain");
        m->nodes[i].id = m->ids[i].data;
        m->nodes[i].id_len = m->ids[i].len;
        m->nodes[i].domain = m->domains[i].data;
        m->nodes[i].domain_len = m->domains[i].len;
    }
    const jvalue *seed = json_get(c, "seed");
    if (seed) m->seed = hex_text(seed->str, seed->len);
    hrw_placement_options opts = {m->seed.data, m->seed.len, m->weights, m->len};
    return hrw_placement_new(m->nodes, m->len, &opts, &m->p, NULL);
}

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    membership m;
    hrw_status st = build(c, &m);
    CHECK(st == HRW_STATUS_OK, "%s: placement: %s", name, hrw_status_message(st));
    hrw_domains *d = NULL;
    st = hrw_domains_new(m.p, num(json_get(c, "level")), &d, NULL);
    CHECK(st == HRW_STATUS_OK, "%s: domains: %s", name, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto out;
    /* The policy keeps its own reference to the nodes. */
    hrw_placement_free(m.p);
    m.p = NULL;
    size_t count = 0;
    CHECK(hrw_domains_domain_count(d, &count) == HRW_STATUS_OK &&
              count == num(json_get(c, "domain_count")),
          "%s: domain_count %zu", name, count);
    size_t k_max = num(json_get(c, "k_max"));
    size_t *out = malloc(k_max * sizeof *out);
    const jvalue *lookups = json_get(c, "lookups");
    for (size_t j = 0; j < lookups->len; j++) {
        const jvalue *l = &lookups->items[j];
        bytes key = text_of(l, "key");
        const jvalue *want = json_get(l, "replicas");
        size_t owner = SIZE_MAX;
        CHECK(hrw_domains_owner(d, key.data, key.len, &owner) == HRW_STATUS_OK &&
                  owner == num(json_get(l, "owner")),
              "%s: owner of lookup %zu", name, j);
        for (size_t k = 1; k <= k_max; k++) {
            st = hrw_domains_replicas(d, key.data, key.len, k, out, k_max);
            int same = st == HRW_STATUS_OK;
            for (size_t i = 0; same && i < k; i++) same = out[i] == num(&want->items[i]);
            CHECK(same, "%s: lookup %zu k=%zu: %s", name, j, k, hrw_status_message(st));
        }
        free(key.data);
    }
    free(out);
out:
    hrw_domains_free(d);
    membership_free(&m);
}

static hrw_domain_fault fault_named(const char *reason) {
    static const struct {
        const char *name;
        hrw_domain_fault fault;
    } map[] = {
        {"missing", HRW_DOMAIN_FAULT_MISSING},
        {"empty_level", HRW_DOMAIN_FAULT_EMPTY_LEVEL},
        {"depth_mismatch", HRW_DOMAIN_FAULT_DEPTH_MISMATCH},
        {"level_out_of_range", HRW_DOMAIN_FAULT_LEVEL_OUT_OF_RANGE},
        {"weight_overflow", HRW_DOMAIN_FAULT_WEIGHT_OVERFLOW},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, reason) == 0) return map[i].fault;
    return HRW_DOMAIN_FAULT_NONE;
}

static void run_error_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    const char *error = json_get(c, "error")->str;
    membership m;
    hrw_status st = build(c, &m);
    if (st != HRW_STATUS_OK) {
        /* A membership error of SPEC.md 7 comes before any path is read. */
        int expected = (strcmp(error, "EmptyMembership") == 0 && st == HRW_STATUS_EMPTY_MEMBERSHIP) ||
                       (strcmp(error, "DuplicateNodeId") == 0 && st == HRW_STATUS_DUPLICATE_NODE_ID) ||
                       (strcmp(error, "AllWeightsZero") == 0 && st == HRW_STATUS_ALL_WEIGHTS_ZERO);
        CHECK(expected, "%s: placement failed with %s, expected %s", name, hrw_status_message(st),
              error);
        membership_free(&m);
        return;
    }
    hrw_domains *d = NULL;
    hrw_domains_error err = {HRW_STATUS_OK, 0, HRW_DOMAIN_FAULT_NONE};
    st = hrw_domains_new(m.p, num(json_get(c, "level")), &d, &err);
    if (strcmp(error, "InvalidDomains") == 0) {
        const jvalue *index = json_get(c, "index");
        size_t want_index = index->type == J_NULL ? SIZE_MAX : num(index);
        CHECK(st == HRW_STATUS_INVALID_DOMAINS && err.status == st && d == NULL &&
                  err.index == want_index &&
                  err.reason == fault_named(json_get(c, "reason")->str),
              "%s: got %s, index %zu, reason %u", name, hrw_status_message(st), err.index,
              (unsigned)err.reason);
    } else if (strcmp(error, "InvalidReplicaCount") == 0) {
        CHECK(st == HRW_STATUS_OK, "%s: domains: %s", name, hrw_status_message(st));
        bytes key = text_of(c, "key");
        size_t out[8];
        st = hrw_domains_replicas(d, key.data, key.len, num(json_get(c, "k")), out, 8);
        CHECK(st == HRW_STATUS_INVALID_REPLICA_COUNT, "%s: replicas: %s", name,
              hrw_status_message(st));
        free(key.data);
    } else {
        CHECK(0, "%s: placement built, expected %s", name, error);
    }
    hrw_domains_free(d);
    membership_free(&m);
}

static void bad_inputs(void) {
    hrw_node nodes[3] = {{(const uint8_t *)"a", 1, (const uint8_t *)"z0/r0", 5},
                         {(const uint8_t *)"b", 1, (const uint8_t *)"z0/r1", 5},
                         {(const uint8_t *)"c", 1, (const uint8_t *)"z1/r0", 5}};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, 3, NULL, &p, NULL) == HRW_STATUS_OK, "placement");
    hrw_domains *d = NULL;
    hrw_domains_error err = {HRW_STATUS_OK, 7, HRW_DOMAIN_FAULT_NONE};
    CHECK(hrw_domains_new(NULL, 0, &d, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER && err.reason == HRW_DOMAIN_FAULT_NONE,
          "NULL placement");
    CHECK(hrw_domains_new(p, 0, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_domains_new(p, SIZE_MAX, &d, NULL) == HRW_STATUS_INVALID_DOMAINS && d == NULL,
          "level SIZE_MAX");
    CHECK(hrw_domains_new(p, 1, &d, NULL) == HRW_STATUS_OK, "level 1");
    size_t out[4] = {0}, one = SIZE_MAX;
    CHECK(hrw_domains_owner(NULL, NULL, 0, &one) == HRW_STATUS_NULL_PARAMETER, "NULL domains");
    CHECK(hrw_domains_owner(d, NULL, 0, &one) == HRW_STATUS_OK && one < 3, "empty NULL key");
    CHECK(hrw_domains_owner(d, NULL, 3, &one) == HRW_STATUS_NULL_PARAMETER, "NULL key, length 3");
    CHECK(hrw_domains_owner(d, (const uint8_t *)"k", 1, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL out_index");
    CHECK(hrw_domains_replicas(d, (const uint8_t *)"k", 1, 0, out, 4) ==
              HRW_STATUS_INVALID_REPLICA_COUNT,
          "k = 0");
    CHECK(hrw_domains_replicas(d, (const uint8_t *)"k", 1, 4, out, 4) ==
              HRW_STATUS_INVALID_REPLICA_COUNT,
          "k above the nodes");
    CHECK(hrw_domains_replicas(d, (const uint8_t *)"k", 1, 3, out, 2) == HRW_STATUS_BUFFER_TOO_SMALL,
          "short buffer");
    CHECK(hrw_domains_replicas(d, (const uint8_t *)"k", 1, 3, NULL, 3) == HRW_STATUS_NULL_PARAMETER,
          "NULL buffer");
    CHECK(hrw_domains_replicas(d, (const uint8_t *)"k", 1, 3, out, 4) == HRW_STATUS_OK &&
              out[0] != out[1] && out[1] != out[2] && out[0] != out[2],
          "three distinct replicas");
    const uint8_t *dom = NULL;
    size_t dom_len = 0;
    CHECK(hrw_domains_domain_of(d, 1, &dom, &dom_len) == HRW_STATUS_OK && dom_len == 5 &&
              memcmp(dom, "z0/r1", 5) == 0,
          "domain_of");
    CHECK(hrw_domains_domain_of(d, 3, &dom, &dom_len) == HRW_STATUS_INDEX_OUT_OF_RANGE,
          "domain_of beyond the nodes");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_DOMAINS), "domain") != NULL, "message 24");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_REPLICA_COUNT), "replica") != NULL,
          "message 25");
    hrw_domains_free(d);
    hrw_domains_free(NULL);
    hrw_placement_free(p);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/policies/domains.json\n", argv[0]);
        return 2;
    }
    jvalue *v = json_load(argv[1]);
    if (!v) return 1;
    CHECK(strcmp(json_get(v, "policy")->str, "domains-v1") == 0, "policy tag");
    const jvalue *cases = json_get(v, "cases");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i]);
    const jvalue *errors = json_get(v, "error_cases");
    for (size_t i = 0; i < errors->len; i++) run_error_case(&errors->items[i]);
    bad_inputs();
    json_free(v);
    return check_report("test_domains");
}
