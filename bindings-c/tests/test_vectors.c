/* Runs every case of conformance/vectors.json through the C ABI. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"
#include "cases.h"

static double number(const jvalue *v) {
    if (v->type == J_STR) {
        if (strcmp(v->str, "NaN") == 0) return strtod("nan", NULL);
        if (strcmp(v->str, "Infinity") == 0) return strtod("inf", NULL);
        if (strcmp(v->str, "-Infinity") == 0) return strtod("-inf", NULL);
    }
    return strtod(v->str, NULL);
}

static size_t index_of(const jvalue *v) { return (size_t)strtoull(v->str, NULL, 10); }

/* A node list as the C ABI takes it, with the storage its pointers point into. */
typedef struct {
    hrw_node *nodes;
    double *weights;
    bytes *ids, *domains;
    size_t len;
    int weighted;
} node_list;

static void node_list_free(node_list *l) {
    for (size_t i = 0; i < l->len; i++) {
        free(l->ids[i].data);
        free(l->domains[i].data);
    }
    free(l->nodes);
    free(l->weights);
    free(l->ids);
    free(l->domains);
}

static node_list nodes_of(const jvalue *c) {
    node_list l = {0};
    const jvalue *nodes = json_get(c, "nodes");
    const jvalue *count = json_get(c, "node_count");
    l.len = nodes ? nodes->len : (size_t)strtoull(count->str, NULL, 10);
    size_t n = l.len ? l.len : 1;
    l.nodes = calloc(n, sizeof *l.nodes);
    l.weights = calloc(n, sizeof *l.weights);
    l.ids = calloc(n, sizeof *l.ids);
    l.domains = calloc(n, sizeof *l.domains);
    bytes prefix = hex(json_get(c, "node_prefix"));
    const jvalue *cycle = json_get(c, "weight_cycle");
    for (size_t i = 0; i < l.len; i++) {
        l.weights[i] = 1.0;
        if (nodes) {
            const jvalue *node = &nodes->items[i];
            l.ids[i] = hex(json_get(node, "id"));
            const jvalue *w = json_get(node, "weight");
            if (w) {
                l.weights[i] = number(w);
                l.weighted = 1;
                const jvalue *fixed = json_get(node, "weight_fixed");
                uint64_t got = 0;
                if (fixed) {
                    CHECK(hrw_weight_to_fixed(l.weights[i], &got, NULL) == HRW_STATUS_OK &&
                              got == u64(fixed),
                          "weight_fixed of %s", w->str);
                }
            }
            const jvalue *d = json_get(node, "domain");
            if (d) {
                l.domains[i] = hex(d);
                /* An empty domain is still a domain: it needs a non-NULL pointer. */
                if (l.domains[i].data == NULL) l.domains[i].data = malloc(1);
                l.nodes[i].domain = l.domains[i].data;
                l.nodes[i].domain_len = l.domains[i].len;
            }
        } else {
            char digits[32];
            int nd = snprintf(digits, sizeof digits, "%zu", i);
            l.ids[i].len = prefix.len + (size_t)nd;
            l.ids[i].data = malloc(l.ids[i].len);
            if (prefix.len) memcpy(l.ids[i].data, prefix.data, prefix.len);
            memcpy(l.ids[i].data + prefix.len, digits, (size_t)nd);
            if (cycle) {
                l.weights[i] = number(&cycle->items[i % cycle->len]);
                l.weighted = 1;
            }
        }
        l.nodes[i].id = l.ids[i].data;
        l.nodes[i].id_len = l.ids[i].len;
    }
    free(prefix.data);
    return l;
}

static int same_indices(const jvalue *expected, const size_t *got, size_t n) {
    if (expected->len != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (index_of(&expected->items[i]) != got[i]) return 0;
    return 1;
}

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    node_list l = nodes_of(c);
    bytes seed = hex(json_get(c, "seed"));
    bytes key = hex(json_get(c, "key"));
    size_t k = index_of(json_get(c, "k"));
    const jvalue *exp = json_get(c, "expected");

    hrw_placement_options opts = {seed.data, seed.len, l.weighted ? l.weights : NULL,
                                  l.weighted ? l.len : 0};
    hrw_placement *p = NULL;
    hrw_status st = hrw_placement_new(l.nodes, l.len, &opts, &p, NULL);
    CHECK(st == HRW_STATUS_OK, "%s: build: %s", name, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto out;

    uint64_t digest = 0;
    CHECK(hrw_key_digest(seed.data, seed.len, key.data, key.len, &digest, NULL) == HRW_STATUS_OK &&
              digest == u64(json_get(exp, "key_digest")),
          "%s: key_digest %" PRIu64, name, digest);

    size_t owner = SIZE_MAX;
    st = hrw_placement_owner(p, key.data, key.len, &owner);
    CHECK(st == HRW_STATUS_OK && owner == index_of(json_get(exp, "owner")), "%s: owner %zu", name,
          owner);

    size_t batch[2] = {SIZE_MAX, SIZE_MAX}, lens[2] = {key.len, 0};
    /* The batch call sees the case key followed by an empty key; only the first is checked. */
    st = hrw_placement_owners(p, key.data, key.len, lens, 2, batch, 2);
    CHECK(st == HRW_STATUS_OK && batch[0] == owner, "%s: owners %zu", name, batch[0]);

    size_t *out = malloc((k ? k : 1) * sizeof *out), count = SIZE_MAX;
    st = hrw_placement_rank(p, key.data, key.len, k, out, k, &count);
    CHECK(st == HRW_STATUS_OK && same_indices(json_get(exp, "rank"), out, count), "%s: rank",
          name);

    const jvalue *replicas = json_get(exp, "replicas");
    if (replicas) {
        count = SIZE_MAX;
        st = hrw_placement_replicas(p, key.data, key.len, k, out, k, &count);
        CHECK(st == HRW_STATUS_OK && same_indices(replicas, out, count), "%s: replicas", name);
    }
    free(out);

    const jvalue *node_digests = json_get(exp, "node_digests");
    const jvalue *scores = json_get(exp, "scores");
    for (size_t i = 0; node_digests && i < node_digests->len; i++) {
        uint64_t d = 0, s = 0;
        CHECK(hrw_node_digest(seed.data, seed.len, l.nodes[i].id, l.nodes[i].id_len, &d, NULL) ==
                      HRW_STATUS_OK &&
                  d == u64(&node_digests->items[i]),
              "%s: node_digest %zu", name, i);
        CHECK(hrw_placement_score(p, key.data, key.len, l.nodes[i].id, l.nodes[i].id_len, &s,
                                  NULL) == HRW_STATUS_OK &&
                  s == u64(&scores->items[i]),
              "%s: score %zu", name, i);
        s = 0;
        CHECK(hrw_score(u64(json_get(exp, "key_digest")), d, &s) == HRW_STATUS_OK &&
                  s == u64(&scores->items[i]),
              "%s: hrw_score of node %zu", name, i);
    }
out:
    hrw_placement_free(p);
    free(seed.data);
    free(key.data);
    node_list_free(&l);
}

static void run_error_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    node_list l = nodes_of(c);
    const jvalue *seed_hex = json_get(c, "seed");
    bytes seed = hex(seed_hex);
    /* An empty seed is still a seed given (of the wrong length): it needs a non-NULL pointer. */
    if (seed_hex && seed.data == NULL) seed.data = malloc(1);
    hrw_placement_options opts = {seed.data, seed.len, l.weighted ? l.weights : NULL,
                                  l.weighted ? l.len : 0};
    hrw_placement *p = NULL;
    hrw_error err;
    memset(&err, 0, sizeof err);
    hrw_status want = status_named(json_get(c, "error")->str);
    hrw_status st = hrw_placement_new(l.nodes, l.len, &opts, &p, &err);
    CHECK(st == want && p == NULL && err.status == (uint32_t)want, "%s: got %u (%s), want %u",
          name, (unsigned)st, hrw_status_message(st), (unsigned)want);
    hrw_placement_free(p);
    free(seed.data);
    node_list_free(&l);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../conformance/vectors.json";
    jvalue *root = json_load(path);
    if (root == NULL) return 2;

    CHECK(strcmp(json_get(root, "algorithm")->str, HRW_ALGORITHM) == 0, "algorithm %s", HRW_ALGORITHM);
    const jvalue *cases = json_get(root, "cases");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i]);

    const jvalue *draws = json_get(root, "draw_cases");
    for (size_t i = 0; i < draws->len; i++) {
        uint64_t d = 0;
        const jvalue *c = &draws->items[i];
        CHECK(hrw_draw(u64(json_get(c, "score")), &d) == HRW_STATUS_OK &&
                  d == u64(json_get(c, "draw")),
              "draw of %s", json_get(c, "score")->str);
    }

    const jvalue *weights = json_get(root, "weight_cases");
    for (size_t i = 0; i < weights->len; i++) {
        const jvalue *c = &weights->items[i];
        const jvalue *w = json_get(c, "weight");
        const jvalue *fixed = json_get(c, "fixed");
        uint64_t got = 12345;
        hrw_status st = hrw_weight_to_fixed(number(w), &got, NULL);
        if (fixed) {
            CHECK(st == HRW_STATUS_OK && got == u64(fixed), "weight %s", w->str);
        } else {
            CHECK(st == status_named(json_get(c, "error")->str) && got == 12345,
                  "weight %s: status %u", w->str, (unsigned)st);
        }
    }

    const jvalue *errors = json_get(root, "error_cases");
    for (size_t i = 0; i < errors->len; i++) run_error_case(&errors->items[i]);

    printf("vectors: %zu cases, %zu draw cases, %zu weight cases, %zu error cases\n", cases->len,
           draws->len, weights->len, errors->len);
    json_free(root);
    return check_report("test_vectors");
}
