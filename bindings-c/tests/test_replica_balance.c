/* Runs every case and error case of conformance/policies/replica-balance-v2.json (replica-balance)
 * through the C ABI, and the bad inputs the ABI itself can be given (NULL handles, NULL buffers with lengths,
 * short output buffers). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"
#include "cases.h"

static void run_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    const jvalue *error = json_get(c, "error");
    hrw_placement *p = placement_of(c);
    if (p == NULL) return;
    size_t nodes = 0;
    hrw_placement_len(p, &nodes, NULL);
    size_t k = (size_t)u64(json_get(c, "k"));
    hrw_replica_balance *rb = NULL;
    hrw_error err = {0};
    hrw_status st = hrw_replica_balance_new(p, k, &rb, &err);
    hrw_placement_free(p);
    if (error) {
        hrw_status want = strcmp(error->str, "InvalidCount") == 0 ? HRW_STATUS_INVALID_COUNT
                          : strcmp(error->str, "InfeasibleReplicaWeights") == 0
                              ? HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS
                              : HRW_STATUS_UNKNOWN;
        CHECK(st == want && rb == NULL && err.status == want, "%s: got %u, want %s", name,
              (unsigned)st, error->str);
        const jvalue *index = json_get(c, "index");
        if (index) {
            CHECK(err.index == (size_t)u64(index) && err.expected == k, "%s: index %zu k %zu", name,
                  err.index, err.expected);
        }
        return;
    }
    CHECK(st == HRW_STATUS_OK, "%s: new: %s", name, hrw_status_message(st));
    if (st != HRW_STATUS_OK) return;
    const jvalue *exp = json_get(c, "expected");
    uint64_t *fixed = calloc(nodes, sizeof *fixed);
    uint32_t iterations = 0;
    double residual = -1.0;
    st = hrw_replica_balance_adjusted_fixed(rb, fixed, nodes, &iterations, &residual);
    CHECK(st == HRW_STATUS_OK && iterations == (uint32_t)u64(json_get(exp, "iterations")),
          "%s: iterations %u", name, (unsigned)iterations);
    /* Within 2^-20 of every target, except where a node holds exactly 1/k (the iteration cap). */
    CHECK(residual >= 0.0 && (residual <= 1.0 / 1048576.0 || iterations == 64), "%s: residual %g",
          name, residual);
    const jvalue *want_fixed = json_get(exp, "adjusted_fixed");
    for (size_t i = 0; i < nodes && i < want_fixed->len; i++)
        CHECK(fixed[i] == u64(&want_fixed->items[i]), "%s: adjusted_fixed[%zu]", name, i);
    CHECK(want_fixed->len == nodes, "%s: %zu weights", name, want_fixed->len);
    double *weights = calloc(nodes, sizeof *weights);
    CHECK(hrw_replica_balance_adjusted_weights(rb, weights, nodes) == HRW_STATUS_OK, "%s: adjusted_weights", name);
    for (size_t i = 0; i < nodes && i < want_fixed->len; i++)
        CHECK(weights[i] == (double)u64(&want_fixed->items[i]) / 4294967296.0, "%s: adjusted_weights[%zu]", name, i);
    free(weights);
    free(fixed);
    const jvalue *sets = json_get(exp, "replicas");
    size_t *got = calloc(k, sizeof *got);
    for (size_t j = 0; j < sets->len; j++) {
        const jvalue *item = &sets->items[j];
        const jvalue *key = json_get(item, "key");
        const jvalue *want = json_get(item, "replicas");
        size_t count = 0;
        st = hrw_replica_balance_replicas(rb, (const uint8_t *)key->str, key->len, got, k,
                                             &count);
        int same = st == HRW_STATUS_OK && count == want->len;
        for (size_t i = 0; same && i < count; i++) same = got[i] == (size_t)u64(&want->items[i]);
        CHECK(same, "%s: replicas of key %zu", name, j);
    }
    free(got);
    hrw_replica_balance_free(rb);
}

static void bad_inputs(void) {
    hrw_error err = {0};
    hrw_placement *p = NULL;
    hrw_node three[3] = {{(const uint8_t *)"a", 1, NULL, 0},
                         {(const uint8_t *)"b", 1, NULL, 0},
                         {(const uint8_t *)"c", 1, NULL, 0}};
    CHECK(hrw_placement_new(three, 3, NULL, &p, NULL) == HRW_STATUS_OK, "build");
    hrw_replica_balance *rb = NULL;
    CHECK(hrw_replica_balance_new(NULL, 2, &rb, NULL) == HRW_STATUS_NULL_PARAMETER && rb == NULL,
          "NULL placement");
    CHECK(hrw_replica_balance_new(p, 2, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_replica_balance_new(p, 0, &rb, &err) == HRW_STATUS_INVALID_COUNT && rb == NULL &&
              err.status == HRW_STATUS_INVALID_COUNT,
          "k = 0");
    CHECK(hrw_replica_balance_new(p, SIZE_MAX, &rb, &err) ==
                  HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS &&
              rb == NULL && err.index == 0 && err.expected == SIZE_MAX,
          "k = SIZE_MAX");
    CHECK(hrw_replica_balance_new(p, 2, &rb, NULL) == HRW_STATUS_OK, "new");
    hrw_placement_free(p);
    size_t set[2] = {9, 9}, count = 9;
    CHECK(hrw_replica_balance_replicas(NULL, NULL, 0, set, 2, &count) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL handle");
    CHECK(hrw_replica_balance_replicas(rb, NULL, 0, set, 2, NULL) == HRW_STATUS_NULL_PARAMETER,
          "NULL out_count");
    CHECK(hrw_replica_balance_replicas(rb, NULL, 1, set, 2, &count) == HRW_STATUS_NULL_PARAMETER,
          "NULL key with length");
    CHECK(hrw_replica_balance_replicas(rb, NULL, 0, NULL, 2, &count) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL out with length");
    CHECK(hrw_replica_balance_replicas(rb, NULL, 0, set, 1, &count) ==
                  HRW_STATUS_BUFFER_TOO_SMALL &&
              count == 9 && set[0] == 9,
          "short out");
    CHECK(hrw_replica_balance_replicas(rb, NULL, 0, set, 2, &count) == HRW_STATUS_OK &&
              count == 2 && set[0] != set[1] && set[0] < 3 && set[1] < 3,
          "empty key");
    uint64_t fixed[3] = {0};
    CHECK(hrw_replica_balance_adjusted_fixed(rb, fixed, 2, NULL, NULL) ==
              HRW_STATUS_BUFFER_TOO_SMALL,
          "short weights");
    CHECK(hrw_replica_balance_adjusted_fixed(NULL, fixed, 3, NULL, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL handle");
    CHECK(hrw_replica_balance_adjusted_fixed(rb, NULL, 3, NULL, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL weights with length");
    CHECK(hrw_replica_balance_adjusted_fixed(rb, fixed, 3, NULL, NULL) == HRW_STATUS_OK &&
              fixed[0] > 0 && fixed[0] == fixed[1] && fixed[1] == fixed[2],
          "equal weights stay equal");
    double weights[3] = {-1.0, -1.0, -1.0};
    CHECK(hrw_replica_balance_adjusted_weights(rb, weights, 2) == HRW_STATUS_BUFFER_TOO_SMALL && weights[0] == -1.0,
          "short weights as numbers");
    CHECK(hrw_replica_balance_adjusted_weights(NULL, weights, 3) == HRW_STATUS_NULL_PARAMETER, "NULL handle");
    CHECK(hrw_replica_balance_adjusted_weights(rb, NULL, 3) == HRW_STATUS_NULL_PARAMETER, "NULL numbers with length");
    CHECK(hrw_replica_balance_adjusted_weights(rb, weights, 3) == HRW_STATUS_OK &&
              weights[0] == (double)fixed[0] / 4294967296.0 && weights[0] == weights[2],
          "the numbers of the fixed-point weights");
    hrw_replica_balance_free(rb);
    hrw_replica_balance_free(NULL);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../conformance/policies/replica-balance-v2.json";
    jvalue *root = json_load(path);
    if (root == NULL) return 2;
    CHECK(strcmp(json_get(root, "policy")->str, "replica-balance-v2") == 0, "policy tag");
    const jvalue *cases = json_get(root, "cases");
    const jvalue *errors = json_get(root, "error_cases");
    for (size_t i = 0; i < cases->len; i++) run_case(&cases->items[i]);
    for (size_t i = 0; i < errors->len; i++) run_case(&errors->items[i]);
    CHECK(cases->len > 0 && errors->len > 0, "cases present");
    json_free(root);
    bad_inputs();
    return check_report("test_replica_balance");
}
