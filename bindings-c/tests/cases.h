/* What the C test programs share to read the conformance files: hex bytes, decimal 64-bit
 * integers, a case's membership built as a placement, and the status an error name stands for
 * (from the generated status_names.h). Include after check.h, hrwhash.h and json.h. */
#ifndef HRW_TEST_CASES_H
#define HRW_TEST_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_names.h"

typedef struct {
    uint8_t *data;
    size_t len;
} bytes;

static inline bytes hex(const jvalue *v) {
    bytes b = {NULL, 0};
    if (v == NULL || v->type != J_STR) return b;
    b.len = v->len / 2;
    b.data = malloc(b.len ? b.len : 1);
    for (size_t i = 0; i < b.len; i++) {
        unsigned x;
        sscanf(v->str + 2 * i, "%2x", &x);
        b.data[i] = (uint8_t)x;
    }
    return b;
}

static inline uint64_t u64(const jvalue *v) { return strtoull(v->str, NULL, 10); }

/* The membership of a case ("nodes" of {id, weight}, or "node_prefix" + "node_count" + optional
 * "weight_cycle"), built. */
static inline hrw_placement *placement_of(const jvalue *c) {
    const jvalue *list = json_get(c, "nodes");
    size_t n = list ? list->len : (size_t)u64(json_get(c, "node_count"));
    bytes prefix = hex(json_get(c, "node_prefix"));
    const jvalue *cycle = json_get(c, "weight_cycle");
    hrw_node *nodes = calloc(n ? n : 1, sizeof *nodes);
    uint8_t **ids = calloc(n ? n : 1, sizeof *ids);
    double *weights = calloc(n ? n : 1, sizeof *weights);
    for (size_t i = 0; i < n; i++) {
        if (list) {
            bytes id = hex(json_get(&list->items[i], "id"));
            const jvalue *w = json_get(&list->items[i], "weight");
            ids[i] = id.data;
            nodes[i].id = id.data;
            nodes[i].id_len = id.len;
            weights[i] = w ? strtod(w->str, NULL) : 1.0;
            continue;
        }
        char digits[32];
        int nd = snprintf(digits, sizeof digits, "%zu", i);
        ids[i] = malloc(prefix.len + (size_t)nd);
        if (prefix.len) memcpy(ids[i], prefix.data, prefix.len);
        memcpy(ids[i] + prefix.len, digits, (size_t)nd);
        nodes[i].id = ids[i];
        nodes[i].id_len = prefix.len + (size_t)nd;
        weights[i] = cycle ? strtod(cycle->items[i % cycle->len].str, NULL) : 1.0;
    }
    hrw_placement_options opts = {0};
    if (cycle || list) {
        opts.weights = weights;
        opts.weights_len = n;
    }
    hrw_placement *p = NULL;
    hrw_status st = hrw_placement_new(nodes, n, &opts, &p, NULL);
    CHECK(st == HRW_STATUS_OK, "%s: build: %s", json_get(c, "name")->str, hrw_status_message(st));
    for (size_t i = 0; i < n; i++) free(ids[i]);
    free(ids);
    free(nodes);
    free(weights);
    free(prefix.data);
    return p;
}

/* The status of the error a case names; an unknown name fails a check. */
static inline hrw_status status_named(const char *name) {
    hrw_status st;
    if (hrw_status_of_name(name, &st)) return st;
    CHECK(0, "unknown error name %s", name);
    return HRW_STATUS_UNKNOWN;
}

#endif
