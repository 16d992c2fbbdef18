/* Runs every online and error case of conformance/policies/bounded-load.json through the C ABI,
 * and the bad inputs the ABI itself can be given (NULL handles, NULL buffers with lengths). */
#include <math.h>
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

static bytes hex(const jvalue *v) {
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

static uint64_t u64(const jvalue *v) { return strtoull(v->str, NULL, 10); }

/* The membership of a case ("node_prefix" + "node_count" + optional "weight_cycle"), built. */
static hrw_placement *placement_of(const jvalue *c) {
    size_t n = (size_t)u64(json_get(c, "node_count"));
    bytes prefix = hex(json_get(c, "node_prefix"));
    const jvalue *cycle = json_get(c, "weight_cycle");
    hrw_node *nodes = calloc(n ? n : 1, sizeof *nodes);
    uint8_t **ids = calloc(n ? n : 1, sizeof *ids);
    double *weights = calloc(n ? n : 1, sizeof *weights);
    for (size_t i = 0; i < n; i++) {
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
    if (cycle) {
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

static uint64_t *loads_of(const jvalue *c) {
    const jvalue *l = json_get(c, "loads");
    uint64_t *loads = calloc(l->len ? l->len : 1, sizeof *loads);
    for (size_t i = 0; i < l->len; i++) loads[i] = u64(&l->items[i]);
    return loads;
}

static hrw_status status_named(const char *name) {
    if (strcmp(name, "LengthMismatch") == 0) return HRW_STATUS_LENGTH_MISMATCH;
    if (strcmp(name, "LoadOverflow") == 0) return HRW_STATUS_LOAD_OVERFLOW;
    if (strcmp(name, "InvalidBalanceFactor") == 0) return HRW_STATUS_INVALID_BALANCE_FACTOR;
    fprintf(stderr, "unknown error name %s\n", name);
    exit(2);
}

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    const jvalue *factor = json_get(c, "factor");
    const jvalue *error = json_get(c, "error");
    hrw_placement *p = placement_of(c);
    if (p == NULL) return;
    bytes key = hex(json_get(c, "key"));
    uint64_t *loads = loads_of(c);
    size_t loads_len = json_get(c, "loads")->len;
    uint32_t num = (uint32_t)u64(json_get(factor, "num"));
    uint32_t den = (uint32_t)u64(json_get(factor, "den"));

    hrw_bounded_load *bl = NULL;
    hrw_error err = {0};
    hrw_status st = hrw_bounded_load_new(p, num, den, &bl, &err);
    /* The policy copies the placement: freeing it first must not matter. */
    hrw_placement_free(p);
    if (error && status_named(error->str) == HRW_STATUS_INVALID_BALANCE_FACTOR) {
        CHECK(st == HRW_STATUS_INVALID_BALANCE_FACTOR && bl == NULL &&
                  err.status == HRW_STATUS_INVALID_BALANCE_FACTOR,
              "%s: new gave %u", name, (unsigned)st);
        /* Details: the factor as num / den (NaN or infinite when den is 0). */
        double want = (double)num / (double)den;
        CHECK(isnan(want) ? isnan(err.value) : err.value == want, "%s: value %g", name, err.value);
        goto out;
    }
    CHECK(st == HRW_STATUS_OK, "%s: new: %s", name, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto out;

    size_t owner = (size_t)-1;
    st = hrw_bounded_load_owner(bl, key.data, key.len, loads, loads_len, &owner, &err);
    if (error) {
        hrw_status want = status_named(error->str);
        CHECK(st == want && owner == (size_t)-1 && err.status == want, "%s: got %u, want %u",
              name, (unsigned)st, (unsigned)want);
        if (want == HRW_STATUS_LENGTH_MISMATCH) {
            CHECK(err.expected == (size_t)u64(json_get(c, "node_count")) &&
                      err.actual == loads_len,
                  "%s: expected %zu actual %zu", name, err.expected, err.actual);
        }
    } else {
        const jvalue *exp = json_get(c, "expected");
        CHECK(st == HRW_STATUS_OK && owner == (size_t)u64(json_get(exp, "owner")),
              "%s: owner %zu (%s)", name, owner, hrw_status_message(st));
    }
out:
    hrw_bounded_load_free(bl);
    free(loads);
    free(key.data);
}

/* Misuse of the ABI: every NULL is NULL_PARAMETER, nothing is written, nothing crashes. */
static void bad_inputs(void) {
    hrw_node nodes[2] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0}};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "build");
    hrw_bounded_load *bl = NULL;
    hrw_error err = {0};
    CHECK(hrw_bounded_load_new(NULL, 5, 4, &bl, &err) == HRW_STATUS_NULL_PARAMETER && bl == NULL &&
              err.status == HRW_STATUS_NULL_PARAMETER,
          "NULL placement");
    CHECK(hrw_bounded_load_new(p, 5, 4, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_bounded_load_new(p, 5, 4, &bl, NULL) == HRW_STATUS_OK, "new");
    hrw_placement_free(p);

    uint64_t loads[2] = {0, 0};
    size_t owner = 7;
    CHECK(hrw_bounded_load_owner(NULL, (const uint8_t *)"k", 1, loads, 2, &owner, NULL) ==
                  HRW_STATUS_NULL_PARAMETER &&
              owner == 7,
          "NULL handle");
    CHECK(hrw_bounded_load_owner(bl, (const uint8_t *)"k", 1, loads, 2, NULL, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL out_index");
    CHECK(hrw_bounded_load_owner(bl, NULL, 1, loads, 2, &owner, NULL) == HRW_STATUS_NULL_PARAMETER &&
              owner == 7,
          "NULL key with length");
    CHECK(hrw_bounded_load_owner(bl, (const uint8_t *)"k", 1, NULL, 2, &owner, &err) ==
                  HRW_STATUS_NULL_PARAMETER &&
              owner == 7 && err.status == HRW_STATUS_NULL_PARAMETER,
          "NULL loads with length");
    /* NULL loads of length 0 is an empty list: the wrong length, not a NULL misuse. */
    CHECK(hrw_bounded_load_owner(bl, (const uint8_t *)"k", 1, NULL, 0, &owner, &err) ==
                  HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 2 && err.actual == 0 && owner == 7,
          "NULL loads of length 0");
    CHECK(hrw_bounded_load_owner(bl, (const uint8_t *)"k", 1, loads, SIZE_MAX, &owner, NULL) ==
                  HRW_STATUS_LENGTH_MISMATCH &&
              owner == 7,
          "loads length no buffer can have");
    /* The empty key is a key. */
    CHECK(hrw_bounded_load_owner(bl, NULL, 0, loads, 2, &owner, NULL) == HRW_STATUS_OK && owner < 2,
          "empty key");
    hrw_bounded_load_free(bl);
    hrw_bounded_load_free(NULL);

    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_BALANCE_FACTOR), "balance factor") != NULL,
          "message 21");
    CHECK(strstr(hrw_status_message(HRW_STATUS_LOAD_OVERFLOW), "2^64") != NULL, "message 22");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS), "1/k") != NULL,
          "message 23");
    CHECK(HRW_STATUS_INVALID_BALANCE_FACTOR == 21 && HRW_STATUS_LOAD_OVERFLOW == 22 &&
              HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS == 23,
          "status numbers");
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../conformance/policies/bounded-load.json";
    jvalue *root = json_load(path);
    if (root == NULL) return 2;
    CHECK(strcmp(json_get(root, "policy")->str, "bounded-load-v1") == 0, "policy tag");
    const jvalue *online = json_get(root, "online");
    const jvalue *errors = json_get(root, "error_cases");
    for (size_t i = 0; i < online->len; i++) run_case(&online->items[i]);
    for (size_t i = 0; i < errors->len; i++) run_case(&errors->items[i]);
    CHECK(online->len > 0 && errors->len > 0, "cases present");
    bad_inputs();
    json_free(root);
    return check_report("test_policies");
}
