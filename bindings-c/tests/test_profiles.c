/* Every lookup of every conformance/profiles/<name>.json file (recorded from the incumbents)
 * through the C ABI, and every bad input of the profile calls. Usage: test_profiles FILE... */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hrwhash.h"
#include "json.h"
#include "cases.h"

/* `name` as text or `name_hex` as hex, the lossless form of the vector files. */
static bytes text_or_hex(const jvalue *obj, const char *name) {
    bytes b = {NULL, 0};
    char hex_name[64];
    const jvalue *v = json_get(obj, name);
    if (v != NULL) {
        b.len = v->len;
        b.data = malloc(b.len ? b.len : 1);
        memcpy(b.data, v->str, b.len);
        return b;
    }
    snprintf(hex_name, sizeof hex_name, "%s_hex", name);
    return hex(json_get(obj, hex_name));
}

static int same(bytes a, bytes b) { return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0); }

/* The position of the node whose id is `id`, or SIZE_MAX. */
static size_t position(const bytes *ids, size_t n, bytes id) {
    for (size_t i = 0; i < n; i++)
        if (same(ids[i], id)) return i;
    return SIZE_MAX;
}

static void run_case(const char *profile, const jvalue *c, unsigned long *lookups) {
    const jvalue *nodes = json_get(c, "nodes");
    const jvalue *cases = json_get(c, "lookups");
    size_t n = nodes->len;
    bytes *ids = calloc(n, sizeof *ids);
    const uint8_t **id_ptrs = calloc(n, sizeof *id_ptrs);
    size_t *id_lens = calloc(n, sizeof *id_lens);
    double *weights = calloc(n, sizeof *weights);
    int weighted = 0;
    for (size_t i = 0; i < n; i++) {
        ids[i] = text_or_hex(&nodes->items[i], "id");
        id_ptrs[i] = ids[i].data;
        id_lens[i] = ids[i].len;
        const jvalue *w = json_get(&nodes->items[i], "weight");
        weights[i] = w ? strtod(w->str, NULL) : 1.0;
        weighted |= w != NULL;
    }
    hrw_profile_placement *p = NULL;
    hrw_status st = hrw_profile_placement_new((const uint8_t *)profile, strlen(profile), id_ptrs, id_lens,
                                              weighted ? weights : NULL, n, &p, NULL);
    CHECK(st == HRW_STATUS_OK, "%s: building %zu nodes: %s", profile, n, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto done;

    size_t *ranked = calloc(n, sizeof *ranked);
    /* The keys again, concatenated, for one batch call at the end. */
    size_t total = 0, count = cases->len;
    bytes *keys = calloc(count ? count : 1, sizeof *keys);
    size_t *want = calloc(count ? count : 1, sizeof *want);
    for (size_t k = 0; k < count; k++) {
        const jvalue *lk = &cases->items[k];
        keys[k] = text_or_hex(lk, "key");
        bytes owner_id = text_or_hex(lk, "owner");
        want[k] = position(ids, n, owner_id);
        free(owner_id.data);
        total += keys[k].len;
        size_t got = SIZE_MAX;
        st = hrw_profile_placement_owner(p, keys[k].data, keys[k].len, &got);
        CHECK(st == HRW_STATUS_OK && got == want[k], "%s: key %zu of a case of %zu nodes: owner %zu, recorded %zu",
              profile, k, n, got, want[k]);
        const jvalue *replicas = json_get(lk, "replicas");
        size_t written = 0;
        st = hrw_profile_placement_replicas(p, keys[k].data, keys[k].len, n, ranked, n, &written);
        if (replicas == NULL) {
            CHECK(st == HRW_STATUS_NOT_OFFERED, "%s: replicas where the incumbent has no top-k: %s", profile,
                  hrw_status_message(st));
        } else {
            int match = st == HRW_STATUS_OK && written == replicas->len;
            for (size_t r = 0; match && r < written; r++) {
                /* replicas are the ids as text */
                bytes rid = {(uint8_t *)replicas->items[r].str, replicas->items[r].len};
                match = ranked[r] == position(ids, n, rid);
            }
            CHECK(match, "%s: key %zu: replicas differ from the recorded range", profile, k);
            /* Top-1 is the owner. */
            st = hrw_profile_placement_replicas(p, keys[k].data, keys[k].len, 1, ranked, 1, &written);
            CHECK(st == HRW_STATUS_OK && written == 1 && ranked[0] == want[k], "%s: top-1 is not the owner", profile);
        }
        (*lookups)++;
    }
    uint8_t *all = malloc(total ? total : 1);
    size_t *lens = calloc(count ? count : 1, sizeof *lens);
    size_t *owners = calloc(count ? count : 1, sizeof *owners);
    for (size_t k = 0, at = 0; k < count; at += keys[k].len, k++) {
        if (keys[k].len) memcpy(all + at, keys[k].data, keys[k].len);
        lens[k] = keys[k].len;
    }
    st = hrw_profile_placement_owners(p, all, total, lens, count, owners, count);
    CHECK(st == HRW_STATUS_OK, "%s: owners: %s", profile, hrw_status_message(st));
    int batch_ok = 1;
    for (size_t k = 0; k < count; k++) batch_ok &= owners[k] == want[k];
    CHECK(batch_ok, "%s: the batch disagrees with the recorded owners", profile);
    for (size_t k = 0; k < count; k++) free(keys[k].data);
    free(keys);
    free(want);
    free(all);
    free(lens);
    free(owners);
    free(ranked);
    hrw_profile_placement_free(p);
done:
    for (size_t i = 0; i < n; i++) free(ids[i].data);
    free(ids);
    free(id_ptrs);
    free(id_lens);
    free(weights);
}

static hrw_status build(const char *profile, size_t n, const char *const *ids, const double *weights,
                        hrw_profile_placement **out) {
    size_t lens[8];
    for (size_t i = 0; i < n; i++) lens[i] = strlen(ids[i]);
    return hrw_profile_placement_new((const uint8_t *)profile, strlen(profile), (const uint8_t *const *)ids, lens,
                                     weights, n, out, NULL);
}

static void bad_inputs(void) {
    const char *ids[] = {"a:11211", "b:11211", "c:11211"};
    const size_t lens[] = {7, 7, 7};
    const double weights[] = {1, 2, 3};
    hrw_profile_placement *p = NULL;

    /* Names: unknown, a near miss, not UTF-8, NULL. */
    CHECK(build("nope", 3, ids, NULL, &p) == HRW_STATUS_UNKNOWN_PROFILE && p == NULL, "unknown profile");
    CHECK(build("Ketama-Libmemcached", 3, ids, NULL, &p) == HRW_STATUS_UNKNOWN_PROFILE, "names are exact");
    CHECK(build("hrw-v1", 3, ids, NULL, &p) == HRW_STATUS_UNKNOWN_PROFILE, "hrw-v1 is no profile");
    CHECK(hrw_profile_placement_new((const uint8_t *)"\xff", 1, (const uint8_t *const *)ids, lens, NULL, 3, &p, NULL) ==
              HRW_STATUS_UNKNOWN_PROFILE,
          "a name that is not UTF-8");
    CHECK(hrw_profile_placement_new(NULL, 3, (const uint8_t *const *)ids, lens, NULL, 3, &p, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL name with a length");
    CHECK(hrw_profile_placement_new(NULL, 0, (const uint8_t *const *)ids, lens, NULL, 3, &p, NULL) ==
              HRW_STATUS_UNKNOWN_PROFILE,
          "the empty name");
    CHECK(p == NULL, "out written on failure");

    /* Shapes: NULL arrays, a NULL id with a length, NULL out. */
    const char *name = "go-redis-ring-v9";
    const uint8_t *n8 = (const uint8_t *)name;
    size_t nlen = strlen(name);
    CHECK(hrw_profile_placement_new(n8, nlen, NULL, lens, NULL, 3, &p, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL ids");
    CHECK(hrw_profile_placement_new(n8, nlen, (const uint8_t *const *)ids, NULL, NULL, 3, &p, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL id_lens");
    const uint8_t *with_null[] = {(const uint8_t *)"a", NULL};
    const size_t null_lens[] = {1, 4};
    hrw_error err;
    memset(&err, 0, sizeof err);
    CHECK(hrw_profile_placement_new(n8, nlen, with_null, null_lens, NULL, 2, &p, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER && err.index == 1,
          "a NULL id with a length names its node");

    /* Weights: the details name the node and the rejected value, as hrw_placement_new's do. */
    const char *weighted_name = "ketama-libmemcached";
    const uint8_t *two_ids[] = {(const uint8_t *)"a", (const uint8_t *)"b"};
    const size_t two_lens[] = {1, 1};
    const double bad_weights[][2] = {{1.0, NAN}, {-1.0, 1.0}, {1.0, INFINITY}};
    const size_t bad_index[] = {1, 0, 1};
    for (size_t i = 0; i < 3; i++) {
        memset(&err, 0, sizeof err);
        CHECK(hrw_profile_placement_new((const uint8_t *)weighted_name, strlen(weighted_name), two_ids, two_lens,
                                        bad_weights[i], 2, &p, &err) == HRW_STATUS_INVALID_WEIGHT &&
                  p == NULL && err.status == HRW_STATUS_INVALID_WEIGHT && err.index == bad_index[i] &&
                  (isnan(bad_weights[i][bad_index[i]]) ? isnan(err.value) : err.value == bad_weights[i][bad_index[i]]),
              "bad weight %zu: node %zu, value %g", i, err.index, err.value);
    }
    memset(&err, 0xAB, sizeof err);
    CHECK(build("nope", 3, ids, NULL, &p) == HRW_STATUS_UNKNOWN_PROFILE, "unknown profile, no details asked");
    CHECK(hrw_profile_placement_new((const uint8_t *)"nope", 4, two_ids, two_lens, NULL, 2, &p, &err) ==
                  HRW_STATUS_UNKNOWN_PROFILE &&
              err.status == HRW_STATUS_UNKNOWN_PROFILE,
          "unknown profile: the status in the details");
    CHECK(hrw_profile_placement_new(n8, nlen, (const uint8_t *const *)ids, lens, NULL, 3, NULL, NULL) ==
              HRW_STATUS_NULL_PARAMETER,
          "NULL out");

    /* The membership: empty, an empty id, a duplicate id. */
    for (size_t i = 0; i < 4; i++) {
        const char *profile = NULL;
        CHECK(hrw_profile_name(i, &profile) == HRW_STATUS_OK && profile != NULL, "profile %zu has a name", i);
        if (profile == NULL) continue;
        CHECK(build(profile, 0, ids, NULL, &p) == HRW_STATUS_EMPTY_MEMBERSHIP, "%s: no nodes", profile);
        const char *empty[] = {"a:11211", ""};
        CHECK(build(profile, 2, empty, NULL, &p) == HRW_STATUS_EMPTY_NODE_ID, "%s: an empty id", profile);
        const char *dup[] = {"a:11211", "b:11211", "a:11211"};
        CHECK(build(profile, 3, dup, NULL, &p) == HRW_STATUS_DUPLICATE_NODE_ID, "%s: a duplicate id", profile);
        const double nan[] = {1, strtod("nan", NULL), 1};
        CHECK(build(profile, 3, ids, nan, &p) == HRW_STATUS_INVALID_WEIGHT, "%s: a NaN weight", profile);
        const double negative[] = {1, -1, 1};
        CHECK(build(profile, 3, ids, negative, &p) == HRW_STATUS_INVALID_WEIGHT, "%s: a negative weight", profile);
    }
    /* Ids that read as two different libmemcached servers (PROFILES.md 4, "Nodes"). */
    const char *two_ways[] = {"2001:db8::0", "2001:db8::11211", "/run/memcached.sock", "[::1"};
    for (size_t i = 0; i < 4; i++) {
        const char *one[] = {two_ways[i]};
        CHECK(build("ketama-libmemcached", 1, one, NULL, &p) == HRW_STATUS_NOT_OFFERED && p == NULL, "%s refused",
              two_ways[i]);
    }
    const char *profile = NULL;
    CHECK(hrw_profile_name(4, &profile) == HRW_STATUS_INDEX_OUT_OF_RANGE && profile == NULL, "four profiles");
    CHECK(hrw_profile_name(0, NULL) == HRW_STATUS_NULL_PARAMETER, "profile name into NULL");

    /* Weights where the incumbent is unweighted. */
    CHECK(build("go-redis-ring-v9", 3, ids, weights, &p) == HRW_STATUS_NOT_OFFERED, "go-redis has no weights");
    CHECK(build("pymemcache-rendezvous", 3, ids, weights, &p) == HRW_STATUS_NOT_OFFERED,
          "pymemcache has no weights");
    const double ones[] = {1, 1, 1};
    CHECK(build("go-redis-ring-v9", 3, ids, ones, &p) == HRW_STATUS_OK, "weight 1 everywhere is no weighting");
    hrw_profile_placement_free(p);
    p = NULL;

    /* Lookups on a built placement. */
    CHECK(build("pymemcache-rendezvous", 3, ids, NULL, &p) == HRW_STATUS_OK, "pymemcache placement");
    size_t idx = 99, written = 99, slots[3];
    CHECK(hrw_profile_placement_owner(NULL, (const uint8_t *)"k", 1, &idx) == HRW_STATUS_NULL_PARAMETER,
          "NULL placement");
    CHECK(hrw_profile_placement_owner(p, (const uint8_t *)"k", 1, NULL) == HRW_STATUS_NULL_PARAMETER, "NULL out");
    CHECK(hrw_profile_placement_owner(p, NULL, 1, &idx) == HRW_STATUS_NULL_PARAMETER && idx == 99,
          "NULL key with a length");
    CHECK(hrw_profile_placement_owner(p, NULL, 0, &idx) == HRW_STATUS_OK && idx < 3, "NULL empty key");
    CHECK(hrw_profile_placement_replicas(p, (const uint8_t *)"k", 1, 2, slots, 3, &written) ==
              HRW_STATUS_NOT_OFFERED,
          "pymemcache has no top-k");
    const uint8_t keys[] = "abc";
    const size_t key_lens[] = {1, 1, 2};
    CHECK(hrw_profile_placement_owners(p, keys, 3, key_lens, 3, slots, 3) == HRW_STATUS_LENGTH_MISMATCH,
          "key lengths that do not add up");
    CHECK(hrw_profile_placement_owners(p, keys, 4, key_lens, 3, slots, 2) == HRW_STATUS_BUFFER_TOO_SMALL,
          "owners into a short buffer");
    CHECK(hrw_profile_placement_owners(p, keys, 4, NULL, 3, slots, 3) == HRW_STATUS_NULL_PARAMETER,
          "NULL key lengths");
    const uint8_t *id = NULL;
    size_t id_len = 0;
    CHECK(hrw_profile_placement_node_id(p, 3, &id, &id_len) == HRW_STATUS_INDEX_OUT_OF_RANGE && id == NULL,
          "node id past the end");
    CHECK(hrw_profile_placement_node_id(p, 2, &id, &id_len) == HRW_STATUS_OK && id_len == 7 &&
              memcmp(id, "c:11211", 7) == 0,
          "node id");
    size_t len = 0;
    CHECK(hrw_profile_placement_len(p, &len) == HRW_STATUS_OK && len == 3, "len");
    CHECK(hrw_profile_placement_len(NULL, &len) == HRW_STATUS_NULL_PARAMETER, "len of NULL");
    const char *pname = NULL;
    CHECK(hrw_profile_placement_profile(p, &pname) == HRW_STATUS_OK && strcmp(pname, "pymemcache-rendezvous") == 0,
          "profile name of a placement");
    hrw_profile_placement_free(p);
    p = NULL;

    /* Top-k on hashring: short buffers, k = 0, k above the node count. */
    CHECK(build("hashring-node-3", 3, ids, weights, &p) == HRW_STATUS_OK, "hashring placement");
    CHECK(hrw_profile_placement_replicas(p, (const uint8_t *)"k", 1, 3, slots, 2, &written) ==
              HRW_STATUS_BUFFER_TOO_SMALL,
          "replicas into a short buffer");
    CHECK(hrw_profile_placement_replicas(p, (const uint8_t *)"k", 1, 0, NULL, 0, &written) == HRW_STATUS_OK &&
              written == 0,
          "k = 0");
    CHECK(hrw_profile_placement_replicas(p, (const uint8_t *)"k", 1, 1000, slots, 3, &written) == HRW_STATUS_OK &&
              written == 3,
          "k above the node count gives every node");
    CHECK(hrw_profile_placement_replicas(p, (const uint8_t *)"k", 1, 2, slots, 3, NULL) == HRW_STATUS_NULL_PARAMETER,
          "replicas count into NULL");
    hrw_profile_placement_free(p);
    hrw_profile_placement_free(NULL);

    /* The new statuses have their own messages. */
    CHECK(strstr(hrw_status_message(HRW_STATUS_UNKNOWN_PROFILE), "profile") != NULL, "message 28");
    CHECK(strstr(hrw_status_message(HRW_STATUS_NOT_OFFERED), "offer") != NULL, "message 29");
    CHECK(HRW_STATUS_UNKNOWN_PROFILE == 28 && HRW_STATUS_NOT_OFFERED == 29, "status numbers");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s conformance/profiles/<name>.json...\n", argv[0]);
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        jvalue *doc = json_load(argv[a]);
        CHECK(doc != NULL, "cannot read %s", argv[a]);
        if (doc == NULL) continue;
        const jvalue *profile = json_get(doc, "profile");
        const jvalue *cases = json_get(doc, "cases");
        unsigned long lookups = 0;
        for (size_t c = 0; c < cases->len; c++) run_case(profile->str, &cases->items[c], &lookups);
        CHECK(lookups > 0, "%s has no lookups", argv[a]);
        printf("%s: %lu lookups\n", profile->str, lookups);
        json_free(doc);
    }
    bad_inputs();
    return check_report("test_profiles");
}
