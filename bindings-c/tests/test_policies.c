/* Runs every online, batch and error case of conformance/policies/bounded-load.json and
 * bounded-load-boundaries.json through the C ABI, and the bad inputs the ABI itself can be given
 * (NULL handles, NULL buffers with lengths, short output buffers). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"
#include "cases.h"

static uint64_t *loads_of(const jvalue *c) {
    const jvalue *l = json_get(c, "loads");
    uint64_t *loads = calloc(l->len ? l->len : 1, sizeof *loads);
    for (size_t i = 0; i < l->len; i++) loads[i] = u64(&l->items[i]);
    return loads;
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

/* A batch case: keys key_prefix + decimal i for i in 0..key_count, assigned in that order. */
static void run_batch_case(const jvalue *c) {
    const char *name = json_get(c, "name")->str;
    const jvalue *factor = json_get(c, "factor");
    const jvalue *exp = json_get(c, "expected");
    const jvalue *want = json_get(exp, "owners");
    const jvalue *want_counts = json_get(exp, "counts");
    const char *prefix = json_get(c, "key_prefix")->str;
    size_t prefix_len = json_get(c, "key_prefix")->len;
    size_t count = (size_t)u64(json_get(c, "key_count"));
    hrw_placement *p = placement_of(c);
    if (p == NULL) return;
    size_t nodes = 0;
    hrw_placement_len(p, &nodes, NULL);
    hrw_bounded_load *bl = NULL;
    hrw_error err = {0};
    hrw_status st = hrw_bounded_load_new(p, (uint32_t)u64(json_get(factor, "num")),
                                         (uint32_t)u64(json_get(factor, "den")), &bl, &err);
    hrw_placement_free(p);
    CHECK(st == HRW_STATUS_OK, "%s: new: %s", name, hrw_status_message(st));
    if (st != HRW_STATUS_OK) return;

    /* Concatenated keys and their lengths, as hrw_placement_owners takes them. */
    size_t cap = count * (prefix_len + 24) + 1;
    char *keys = malloc(cap);
    size_t *lens = calloc(count ? count : 1, sizeof *lens);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        int n = snprintf(keys + used, cap - used, "%s%zu", prefix, i);
        lens[i] = (size_t)n;
        used += (size_t)n;
    }
    size_t *owners = malloc((count ? count : 1) * sizeof *owners);
    for (size_t i = 0; i < count; i++) owners[i] = (size_t)-1;
    st = hrw_bounded_load_assign(bl, (const uint8_t *)keys, used, lens, count, owners, count, &err);
    CHECK(st == HRW_STATUS_OK, "%s: assign: %s", name, hrw_status_message(st));
    CHECK(want->len == count, "%s: %zu owners for %zu keys", name, want->len, count);
    size_t *counts = calloc(nodes ? nodes : 1, sizeof *counts);
    size_t wrong = 0;
    for (size_t i = 0; i < count && i < want->len; i++) {
        if (owners[i] != (size_t)u64(&want->items[i])) wrong++;
        if (owners[i] < nodes) counts[owners[i]]++;
    }
    CHECK(wrong == 0, "%s: %zu of %zu owners differ", name, wrong, count);
    CHECK(want_counts->len == nodes, "%s: %zu counts", name, want_counts->len);
    for (size_t i = 0; i < nodes && i < want_counts->len; i++)
        CHECK(counts[i] == (size_t)u64(&want_counts->items[i]), "%s: count of node %zu", name, i);

    /* An output of another length is rejected with both lengths, and nothing is written. */
    if (count > 0) {
        for (size_t i = 0; i < count; i++) owners[i] = (size_t)-1;
        st = hrw_bounded_load_assign(bl, (const uint8_t *)keys, used, lens, count, owners,
                                     count - 1, &err);
        int untouched = 1;
        for (size_t i = 0; i < count; i++) untouched &= owners[i] == (size_t)-1;
        CHECK(st == HRW_STATUS_LENGTH_MISMATCH && err.status == st && err.expected == count &&
                  err.actual == count - 1 && untouched,
              "%s: short output gave %u", name, (unsigned)st);
    }
    free(counts);
    free(owners);
    free(lens);
    free(keys);
    hrw_bounded_load_free(bl);
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

    /* Batch misuse: every NULL with a length, an output of another length than the keys, key
     * lengths that do not add up. */
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "build");
    CHECK(hrw_bounded_load_new(p, 5, 4, &bl, NULL) == HRW_STATUS_OK, "new");
    hrw_placement_free(p);
    const uint8_t *abc = (const uint8_t *)"abc";
    size_t lens[3] = {1, 1, 1};
    size_t got[3] = {7, 7, 7};
#define UNTOUCHED (got[0] == 7 && got[1] == 7 && got[2] == 7)
    CHECK(hrw_bounded_load_assign(NULL, abc, 3, lens, 3, got, 3, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER && UNTOUCHED,
          "assign: NULL handle");
    CHECK(hrw_bounded_load_assign(bl, NULL, 3, lens, 3, got, 3, &err) == HRW_STATUS_NULL_PARAMETER &&
              UNTOUCHED,
          "assign: NULL keys with length");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, NULL, 3, got, 3, &err) == HRW_STATUS_NULL_PARAMETER &&
              UNTOUCHED,
          "assign: NULL key_lens with count");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, 3, NULL, 3, &err) == HRW_STATUS_NULL_PARAMETER,
          "assign: NULL out with length");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, 3, NULL, 0, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 3 && err.actual == 0,
          "assign: NULL out of length 0 for 3 keys");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, 3, got, 2, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.status == HRW_STATUS_LENGTH_MISMATCH && err.expected == 3 && err.actual == 2 &&
              UNTOUCHED,
          "assign: short out");
    size_t longer[4] = {7, 7, 7, 7};
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, 3, longer, 4, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 3 && err.actual == 4 && longer[0] == 7 && longer[3] == 7,
          "assign: longer out");
    /* The output is checked before the keys. */
    CHECK(hrw_bounded_load_assign(bl, abc, 2, lens, 3, got, 2, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 3 && err.actual == 2 && UNTOUCHED,
          "assign: short out and bad key lengths");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, 3, got, SIZE_MAX, &err) ==
                  HRW_STATUS_RESULT_TOO_LARGE &&
              UNTOUCHED,
          "assign: out length no buffer can have");
    CHECK(hrw_bounded_load_assign(bl, abc, 3, lens, SIZE_MAX, got, 3, &err) ==
                  HRW_STATUS_LENGTH_MISMATCH &&
              UNTOUCHED,
          "assign: key count no buffer can have");
    CHECK(hrw_bounded_load_assign(bl, abc, 2, lens, 3, got, 3, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.status == HRW_STATUS_LENGTH_MISMATCH && err.expected == 2 && err.actual == 3 &&
              UNTOUCHED,
          "assign: key lengths above the bytes");
    size_t huge[2] = {SIZE_MAX, 2};
    CHECK(hrw_bounded_load_assign(bl, abc, 1, huge, 2, got, 2, &err) == HRW_STATUS_LENGTH_MISMATCH &&
              err.expected == 1 && err.actual == SIZE_MAX && UNTOUCHED,
          "assign: key lengths whose sum overflows");
#undef UNTOUCHED
    /* No keys: nothing to do, NULL buffers of length 0 are empty lists. */
    CHECK(hrw_bounded_load_assign(bl, NULL, 0, NULL, 0, NULL, 0, NULL) == HRW_STATUS_OK, "assign: none");
    /* Empty keys are keys, and NULL error is allowed. */
    size_t zero[3] = {0, 0, 3};
    size_t tail[3] = {7, 7, 7};
    CHECK(hrw_bounded_load_assign(bl, abc, 3, zero, 3, tail, 3, NULL) == HRW_STATUS_OK &&
              tail[0] < 2 && tail[1] < 2 && tail[2] < 2,
          "assign: empty keys");
    /* ceil(1.25 * 3 / 2) = 2: the two empty keys have one owner, so it cannot take "abc" too. */
    CHECK(tail[0] == tail[1] && tail[2] != tail[0], "assign: the cap holds");
    hrw_bounded_load_free(bl);
    /* c = 1 over two equal nodes: the caps, 5 each, add up to the 10 keys, so each node ends
     * with exactly 5 (POLICIES.md alone). */
    CHECK(hrw_placement_new(nodes, 2, NULL, &p, NULL) == HRW_STATUS_OK, "build");
    CHECK(hrw_bounded_load_new(p, 1, 1, &bl, NULL) == HRW_STATUS_OK, "new");
    hrw_placement_free(p);
    const uint8_t *ten = (const uint8_t *)"k0k1k2k3k4k5k6k7k8k9";
    size_t two[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    size_t ten_out[10];
    size_t held[2] = {0, 0};
    CHECK(hrw_bounded_load_assign(bl, ten, 20, two, 10, ten_out, 10, NULL) == HRW_STATUS_OK,
          "assign: ten keys");
    for (size_t i = 0; i < 10; i++)
        if (ten_out[i] < 2) held[ten_out[i]]++;
    CHECK(held[0] == 5 && held[1] == 5, "assign: exact caps hold (%zu, %zu)", held[0], held[1]);
    hrw_bounded_load_free(bl);

    CHECK(strstr(hrw_status_message(HRW_STATUS_INVALID_BALANCE_FACTOR), "balance factor") != NULL,
          "message 21");
    CHECK(strstr(hrw_status_message(HRW_STATUS_LOAD_OVERFLOW), "2^64") != NULL, "message 22");
    CHECK(strstr(hrw_status_message(HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS), "1/k") != NULL,
          "message 23");
    CHECK(HRW_STATUS_INVALID_BALANCE_FACTOR == 21 && HRW_STATUS_LOAD_OVERFLOW == 22 &&
              HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS == 23,
          "status numbers");
}

/* Every online, batch and error case of one bounded-load-v1 vectors file. */
static int run_bounded_file(const char *path) {
    jvalue *root = json_load(path);
    if (root == NULL) return 0;
    CHECK(strcmp(json_get(root, "policy")->str, "bounded-load-v1") == 0, "policy tag of %s", path);
    const jvalue *online = json_get(root, "online");
    const jvalue *batch = json_get(root, "batch");
    const jvalue *errors = json_get(root, "error_cases");
    for (size_t i = 0; i < online->len; i++) run_case(&online->items[i]);
    for (size_t i = 0; i < batch->len; i++) run_batch_case(&batch->items[i]);
    for (size_t i = 0; i < errors->len; i++) run_case(&errors->items[i]);
    CHECK(online->len > 0 && batch->len > 0 && errors->len > 0, "cases present in %s", path);
    json_free(root);
    return 1;
}

/* test_policies [bounded-load.json [more bounded-load-v1 files...]] */
int main(int argc, char **argv) {
    if (!run_bounded_file(argc > 1 ? argv[1] : "../conformance/policies/bounded-load.json")) return 2;

    for (int i = 2; i < argc; i++) {
        if (!run_bounded_file(argv[i])) return 2;
    }

    bad_inputs();
    return check_report("test_policies");
}
