/* Runs conformance/api-cases.json (the bad-input contract of conformance/API.md) through the C
 * ABI: every case whose not_expressible map does not name "c" and whose op C offers. A case
 * asserts the status its variant maps to and every detail it gives (through hrw_error), or its
 * result. An unknown op, value form, result key or language fails the run.
 *
 * How the value forms become C arguments: text and {"bytes": hex} are non-NULL (pointer, length)
 * spans, also when empty; null is NULL with length 1 where the argument is required (an id, a
 * key) and NULL with length 0 where it is optional (a seed, a domain: "not given"). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "status_names.h"

static const char *current; /* the case being run, for messages */

/* Every buffer a case allocates, released when the case ends. */
static void **owned;
static size_t owned_len, owned_cap;

static void *keep(void *p) {
    if (owned_len == owned_cap) {
        owned_cap = owned_cap ? owned_cap * 2 : 64;
        owned = realloc(owned, owned_cap * sizeof *owned);
        if (owned == NULL) abort();
    }
    if (p == NULL) abort();
    owned[owned_len++] = p;
    return p;
}

static void release_all(void) {
    for (size_t i = 0; i < owned_len; i++) free(owned[i]);
    owned_len = 0;
}

/* A case that uses a form or an argument this runner cannot pose in C: a failure, never a skip
 * (the file's not_expressible map is the only way to leave a case out). */
static int cannot(const char *what) {
    CHECK(0, "%s: %s", current, what);
    return 0;
}

typedef struct {
    const uint8_t *ptr;
    size_t len;
} span;

static const uint8_t empty_bytes[1] = {0};

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static int from_hex(const jvalue *v, span *out) {
    if (v == NULL || v->type != J_STR || v->len % 2 != 0) return cannot("bad hex");
    uint8_t *bytes = keep(malloc(v->len / 2 + 1));
    for (size_t i = 0; i < v->len / 2; i++) {
        int hi = hex_digit(v->str[2 * i]), lo = hex_digit(v->str[2 * i + 1]);
        if (hi < 0 || lo < 0) return cannot("bad hex digit");
        bytes[i] = (uint8_t)(hi * 16 + lo);
    }
    *out = (span){v->len ? bytes : empty_bytes, v->len / 2};
    return 1;
}

/* A byte string; `null_len` is the length that goes with NULL for a null value. */
static int to_span(const jvalue *v, size_t null_len, span *out) {
    if (v->type == J_STR) {
        *out = (span){v->len ? (const uint8_t *)v->str : empty_bytes, v->len};
        return 1;
    }
    if (v->type == J_NULL) {
        *out = (span){NULL, null_len};
        return 1;
    }
    if (v->type == J_OBJ && v->len == 1 && strcmp(v->keys[0], "bytes") == 0)
        return from_hex(&v->items[0], out);
    return cannot("a value form C cannot pose as bytes");
}

/* A list of byte strings: a JSON array or {"range": {"prefix": p, "count": n}}. */
static int to_list(const jvalue *v, size_t null_len, span **items, size_t *count) {
    if (v->type == J_ARR) {
        *items = keep(malloc((v->len + 1) * sizeof **items));
        *count = v->len;
        for (size_t i = 0; i < v->len; i++)
            if (!to_span(&v->items[i], null_len, &(*items)[i])) return 0;
        return 1;
    }
    const jvalue *range = json_get(v, "range");
    if (range != NULL && v->len == 1) {
        const jvalue *prefix = json_get(range, "prefix"), *n = json_get(range, "count");
        if (prefix == NULL || prefix->type != J_STR || n == NULL || n->type != J_NUM)
            return cannot("bad range");
        size_t total = strtoull(n->str, NULL, 10);
        *items = keep(malloc((total + 1) * sizeof **items));
        char *text = keep(malloc(total * (prefix->len + 21) + 1));
        size_t off = 0;
        for (size_t i = 0; i < total; i++) {
            int w = snprintf(text + off, prefix->len + 21, "%s%zu", prefix->str, i);
            (*items)[i] = (span){(const uint8_t *)text + off, (size_t)w};
            off += (size_t)w;
        }
        *count = total;
        return 1;
    }
    return cannot("a value form C cannot pose as a list");
}

static int to_double(const jvalue *v, double *out) {
    if (v->type == J_NUM) {
        *out = strtod(v->str, NULL);
        return 1;
    }
    const jvalue *f = json_get(v, "float");
    if (f != NULL && f->type == J_STR && v->len == 1) {
        if (strcmp(f->str, "nan") == 0) *out = NAN;
        else if (strcmp(f->str, "inf") == 0) *out = INFINITY;
        else if (strcmp(f->str, "-inf") == 0) *out = -INFINITY;
        else return cannot("unknown float");
        return 1;
    }
    return cannot("a value form C cannot pose as a double");
}

static int to_size(const jvalue *v, size_t *out) {
    const char *digits = NULL;
    if (v->type == J_NUM) digits = v->str;
    const jvalue *i = json_get(v, "int");
    if (i != NULL && i->type == J_STR && v->len == 1) digits = i->str;
    if (digits == NULL || digits[0] == '\0' || strspn(digits, "0123456789") != strlen(digits))
        return cannot("a count C cannot pose as size_t");
    errno = 0;
    unsigned long long n = strtoull(digits, NULL, 10);
    if (errno == ERANGE || n > SIZE_MAX) return cannot("a count beyond size_t");
    *out = (size_t)n;
    return 1;
}

/* What a call gave back. */
typedef struct {
    hrw_status status;
    hrw_error err;
    int has_detail;         /* the call reports details through hrw_error */
    hrw_placement *built;   /* new, with_node, without_node, with_weight */
    int has_len, has_row_len, has_fixed, has_score;
    size_t len, row_len;
    uint64_t fixed, score;
} outcome;

static int build(const jvalue *args, outcome *o) {
    static const char *known[] = {"nodes", "weights", "domains", "seed"};
    for (size_t i = 0; i < args->len; i++) {
        int ok = 0;
        for (size_t j = 0; j < sizeof known / sizeof known[0]; j++)
            ok |= strcmp(args->keys[i], known[j]) == 0;
        if (!ok) return cannot(args->keys[i]); /* e.g. "options": C has no option names */
    }
    const jvalue *jn = json_get(args, "nodes"), *jw = json_get(args, "weights"),
                 *jd = json_get(args, "domains"), *js = json_get(args, "seed");
    span *ids = NULL;
    size_t n = 0;
    const jvalue *claimed = jn == NULL ? NULL : json_get(jn, "claimed_length");
    if (claimed != NULL && jn->len == 1) {
        /* A length no caller has nodes for: rejected before any node is read, so one will do. */
        static const hrw_node one = {(const uint8_t *)"a", 1, NULL, 0};
        if (!to_size(claimed, &n)) return 0;
        if (args->len != 1) return cannot("a claimed length with other arguments");
        memset(&o->err, 0, sizeof o->err);
        o->has_detail = 1;
        o->status = hrw_placement_new(&one, n, NULL, &o->built, &o->err);
        return 1;
    }
    if (jn == NULL || !to_list(jn, 1, &ids, &n)) return jn == NULL ? cannot("no nodes") : 0;
    hrw_node *nodes = keep(malloc((n + 1) * sizeof *nodes));
    for (size_t i = 0; i < n; i++) nodes[i] = (hrw_node){ids[i].ptr, ids[i].len, NULL, 0};
    if (jd != NULL) {
        span *domains = NULL;
        size_t dn = 0;
        if (!to_list(jd, 0, &domains, &dn)) return 0;
        if (dn != n) return cannot("domains are fields of each hrw_node");
        for (size_t i = 0; i < n; i++) {
            nodes[i].domain = domains[i].ptr;
            nodes[i].domain_len = domains[i].len;
        }
    }
    hrw_placement_options options = {NULL, 0, NULL, 0};
    if (jw != NULL) {
        if (jw->type != J_ARR) return cannot("weights that are not a list");
        /* A given list is a non-NULL pointer, also when it is empty. */
        double *w = keep(malloc((jw->len + 1) * sizeof *w));
        for (size_t i = 0; i < jw->len; i++)
            if (!to_double(&jw->items[i], &w[i])) return 0;
        options.weights = w;
        options.weights_len = jw->len;
    }
    if (js != NULL) {
        span seed;
        if (!to_span(js, 0, &seed)) return 0;
        options.seed = seed.ptr;
        options.seed_len = seed.len;
    }
    memset(&o->err, 0, sizeof o->err);
    o->has_detail = 1;
    o->status = hrw_placement_new(nodes, n, &options, &o->built, &o->err);
    return 1;
}

/* Joins a key list for the batch calls. */
static int joined_keys(const jvalue *v, uint8_t **bytes, size_t **lens, size_t *count,
                       size_t *total) {
    span *keys = NULL;
    if (!to_list(v, 1, &keys, count)) return 0;
    *total = 0;
    for (size_t i = 0; i < *count; i++) *total += keys[i].len;
    *bytes = keep(malloc(*total + 1));
    *lens = keep(malloc((*count + 1) * sizeof **lens));
    size_t off = 0;
    for (size_t i = 0; i < *count; i++) {
        if (keys[i].ptr == NULL) return cannot("a NULL key inside a batch");
        memcpy(*bytes + off, keys[i].ptr, keys[i].len);
        (*lens)[i] = keys[i].len;
        off += keys[i].len;
    }
    return 1;
}

static const jvalue *arg(const jvalue *args, const char *name) {
    const jvalue *v = json_get(args, name);
    if (v == NULL) cannot(name);
    return v;
}

static int run_op(const char *op, const jvalue *args, hrw_placement *p, outcome *o) {
    span key, id, seed = {NULL, 0};
    size_t k = 0, len = 0;
    o->status = HRW_STATUS_UNKNOWN;
    if (p != NULL) hrw_placement_len(p, &len, NULL);
    if (strcmp(op, "new") == 0) return build(args, o);
    if (strcmp(op, "owner") == 0) {
        const jvalue *jk = arg(args, "key");
        if (jk == NULL || !to_span(jk, 1, &key)) return 0;
        size_t owner = 0;
        o->status = hrw_placement_owner(p, key.ptr, key.len, &owner);
        return 1;
    }
    if (strcmp(op, "rank") == 0 || strcmp(op, "replicas") == 0) {
        const jvalue *jk = arg(args, "key"), *jn = arg(args, "k");
        if (jk == NULL || jn == NULL || !to_span(jk, 1, &key) || !to_size(jn, &k)) return 0;
        /* The caller sizes the buffer: one slot per node always suffices. */
        size_t *out = keep(malloc(len * sizeof *out));
        o->has_len = 1;
        o->status = (op[1] == 'a' ? hrw_placement_rank : hrw_placement_replicas)(
            p, key.ptr, key.len, k, out, len, &o->len);
        return 1;
    }
    if (strcmp(op, "replicas_strict") == 0) {
        const jvalue *jk = arg(args, "key"), *jn = arg(args, "k");
        if (jk == NULL || jn == NULL || !to_span(jk, 1, &key) || !to_size(jn, &k)) return 0;
        /* Exactly k slots on success; no k can succeed past one per node. */
        size_t cap = k < len ? k : len;
        size_t *out = keep(malloc((cap + 1) * sizeof *out));
        o->status = hrw_placement_replicas_strict(p, key.ptr, key.len, k, out, cap);
        o->has_len = 1;
        o->len = k;
        return 1;
    }
    if (strcmp(op, "score") == 0) {
        const jvalue *jk = arg(args, "key"), *jn = arg(args, "node");
        if (jk == NULL || jn == NULL || !to_span(jk, 1, &key) || !to_span(jn, 1, &id)) return 0;
        o->has_detail = o->has_score = 1;
        o->status = hrw_placement_score(p, key.ptr, key.len, id.ptr, id.len, &o->score, &o->err);
        return 1;
    }
    if (strcmp(op, "owners") == 0 || strcmp(op, "rank_many") == 0) {
        const jvalue *jk = arg(args, "keys");
        uint8_t *bytes = NULL;
        size_t *lens = NULL, count = 0, total = 0;
        if (jk == NULL || !joined_keys(jk, &bytes, &lens, &count, &total)) return 0;
        if (op[0] == 'o') {
            size_t *out = keep(malloc((count + 1) * sizeof *out));
            o->status = hrw_placement_owners(p, bytes, total, lens, count, out, count);
            o->has_len = 1;
            o->len = count;
            return 1;
        }
        const jvalue *jn = arg(args, "k");
        if (jn == NULL || !to_size(jn, &k)) return 0;
        /* Rows of k slots; a product that overflows gets a token buffer the call must refuse. */
        size_t slots = 1;
        if (k == 0 || count <= SIZE_MAX / k) slots = count * k;
        if (slots > ((size_t)1 << 24)) slots = 1;
        size_t *out = keep(malloc((slots + 1) * sizeof *out));
        o->status = hrw_placement_rank_many(p, bytes, total, lens, count, k, out, slots,
                                            &o->row_len);
        o->has_len = o->has_row_len = 1;
        o->len = count;
        return 1;
    }
    if (strcmp(op, "with_node") == 0) {
        const jvalue *jn = arg(args, "node"), *jw = json_get(args, "weight"),
                     *jd = json_get(args, "domain");
        double weight = 1.0;
        span domain = {NULL, 0};
        if (jn == NULL || !to_span(jn, 1, &id)) return 0;
        if (jw != NULL && !to_double(jw, &weight)) return 0;
        if (jd != NULL && !to_span(jd, 0, &domain)) return 0;
        hrw_node node = {id.ptr, id.len, domain.ptr, domain.len};
        o->has_detail = 1;
        o->status = hrw_placement_with_node(p, &node, weight, &o->built, &o->err);
        return 1;
    }
    if (strcmp(op, "without_node") == 0) {
        const jvalue *jn = arg(args, "node");
        if (jn == NULL || !to_span(jn, 1, &id)) return 0;
        o->has_detail = 1;
        o->status = hrw_placement_without_node(p, id.ptr, id.len, &o->built, &o->err);
        return 1;
    }
    if (strcmp(op, "with_weight") == 0) {
        const jvalue *jn = arg(args, "node"), *jw = arg(args, "weight");
        double weight = 0;
        if (jn == NULL || jw == NULL || !to_span(jn, 1, &id) || !to_double(jw, &weight))
            return 0;
        o->has_detail = 1;
        o->status = hrw_placement_with_weight(p, id.ptr, id.len, weight, &o->built, &o->err);
        return 1;
    }
    if (strcmp(op, "set_weight") == 0) {
        /* A reweight in place: the library checks the id, then the weight (SLOT-HISTORY.md 7). */
        const jvalue *jn = arg(args, "node"), *jw = arg(args, "weight");
        double weight = 0;
        if (jn == NULL || jw == NULL || !to_span(jn, 1, &id) || !to_double(jw, &weight))
            return 0;
        hrw_slot_table *t = NULL;
        if (hrw_slot_table_new(p, 64, NULL, &t, NULL) != HRW_STATUS_OK)
            return cannot("a slot table");
        hrw_slot_change change = {HRW_SLOT_OP_WEIGHT, {id.ptr, id.len, NULL, 0}, weight};
        o->has_detail = 1;
        o->status = hrw_slot_table_push(t, &change, &o->err);
        hrw_slot_table_free(t);
        return 1;
    }
    if (strcmp(op, "weight_fixed") == 0) {
        const jvalue *jw = arg(args, "weight");
        double weight = 0;
        if (jw == NULL || !to_double(jw, &weight)) return 0;
        o->has_detail = o->has_fixed = 1;
        o->status = hrw_weight_to_fixed(weight, &o->fixed, &o->err);
        return 1;
    }
    if (strcmp(op, "key_digest") == 0 || strcmp(op, "node_digest") == 0) {
        int is_key = op[0] == 'k';
        const jvalue *jv = arg(args, is_key ? "key" : "node"), *js = json_get(args, "seed");
        if (jv == NULL || !to_span(jv, 1, &key)) return 0;
        if (js != NULL && !to_span(js, 0, &seed)) return 0;
        uint64_t digest = 0;
        o->has_detail = 1;
        o->status = (is_key ? hrw_key_digest : hrw_node_digest)(seed.ptr, seed.len, key.ptr,
                                                                key.len, &digest, &o->err);
        return 1;
    }
    return cannot("unknown op");
}

static hrw_status status_of(const char *variant) {
    hrw_status st;
    if (hrw_status_of_name(variant, &st)) return st;
    cannot("unknown variant");
    return HRW_STATUS_UNKNOWN;
}

static void check_detail(const jvalue *c, const char *name, size_t got, const outcome *o) {
    const jvalue *want = json_get(c, name);
    if (want == NULL) return;
    size_t n = 0;
    if (!o->has_detail) {
        cannot("a detail this call does not report");
        return;
    }
    if (to_size(want, &n)) CHECK(got == n, "%s: %s %zu, want %zu", current, name, got, n);
}

static void check_error(const jvalue *c, const outcome *o) {
    const jvalue *variant = json_get(c, "error");
    hrw_status want = status_of(variant->str);
    CHECK(o->status == want, "%s: status %u (%s), want %s", current, (unsigned)o->status,
          hrw_status_message(o->status), variant->str);
    if (o->has_detail)
        CHECK(o->err.status == o->status, "%s: hrw_error.status %u", current,
              (unsigned)o->err.status);
    check_detail(c, "index", o->err.index, o);
    check_detail(c, "first_index", o->err.first_index, o);
    check_detail(c, "expected", o->err.expected, o);
    check_detail(c, "actual", o->err.actual, o);
}

static void check_result(const jvalue *result, const outcome *o, const uint8_t *default_seed) {
    CHECK(o->status == HRW_STATUS_OK, "%s: status %u (%s)", current, (unsigned)o->status,
          hrw_status_message(o->status));
    if (o->status != HRW_STATUS_OK) return;
    for (size_t i = 0; i < result->len; i++) {
        const char *key = result->keys[i];
        const jvalue *v = &result->items[i];
        size_t n = 0;
        if (strcmp(key, "ok") == 0) {
            CHECK(v->type == J_BOOL && v->boolean, "%s: ok", current);
        } else if (strcmp(key, "len") == 0 || strcmp(key, "row_len") == 0) {
            int row = key[0] == 'r';
            if (!(row ? o->has_row_len : o->has_len)) {
                cannot("a length this call does not give");
            } else if (to_size(v, &n)) {
                size_t got = row ? o->row_len : o->len;
                CHECK(got == n, "%s: %s %zu, want %zu", current, key, got, n);
            }
        } else if (strcmp(key, "fixed") == 0) {
            if (!o->has_fixed || v->type != J_STR) {
                cannot("a fixed-point weight this call does not give");
            } else {
                CHECK(o->fixed == strtoull(v->str, NULL, 10), "%s: fixed %llu", current,
                      (unsigned long long)o->fixed);
            }
        } else if (strcmp(key, "score") == 0) {
            if (!o->has_score || v->type != J_STR) {
                cannot("a score this call does not give");
            } else {
                CHECK(o->score == strtoull(v->str, NULL, 10), "%s: score %llu", current,
                      (unsigned long long)o->score);
            }
        } else if (o->built == NULL) {
            cannot("a membership result of a call that builds none");
        } else if (strcmp(key, "selectable") == 0) {
            size_t got = 0;
            size_t all = 0;
            hrw_placement_len(o->built, &all, &got);
            if (to_size(v, &n)) CHECK(got == n, "%s: selectable %zu, want %zu", current, got, n);
        } else if (strcmp(key, "weights") == 0) {
            size_t len = 0;
            hrw_placement_len(o->built, &len, NULL);
            CHECK(v->type == J_ARR && v->len == len, "%s: %zu weights", current, len);
            for (size_t j = 0; v->type == J_ARR && j < v->len && j < len; j++) {
                double got = -1, want = 0;
                hrw_status st = node_weight_of(o->built, j, &got);
                if (to_double(&v->items[j], &want))
                    CHECK(st == HRW_STATUS_OK && got == want, "%s: weight %zu is %g", current, j,
                          got);
            }
        } else if (strcmp(key, "owner_of_every_key") == 0 && v->type == J_STR) {
            int wrong = 0;
            for (int j = 0; j < 64; j++) {
                char k[4];
                int kl = snprintf(k, sizeof k, "%d", j);
                size_t owner = 0, id_len = 0;
                const uint8_t *id = NULL;
                hrw_placement_owner(o->built, (const uint8_t *)k, (size_t)kl, &owner);
                node_id_of(o->built, owner, &id, &id_len);
                if (id_len != v->len || memcmp(id, v->str, id_len) != 0) wrong++;
            }
            CHECK(wrong == 0, "%s: %d of 64 keys owned by another node", current, wrong);
        } else if (strcmp(key, "default_seed") == 0 && v->type == J_BOOL) {
            uint8_t seed[HRW_SEED_LEN];
            hrw_placement_seed(o->built, seed, sizeof seed);
            CHECK((memcmp(seed, default_seed, sizeof seed) == 0) == v->boolean,
                  "%s: default seed", current);
        } else {
            cannot("unknown result key");
        }
    }
}

static int listed(const jvalue *list, const char *name) {
    for (size_t i = 0; list != NULL && list->type == J_ARR && i < list->len; i++)
        if (list->items[i].type == J_STR && strcmp(list->items[i].str, name) == 0) return 1;
    return 0;
}

static void check_languages(const jvalue *map, const jvalue *languages, const char *where) {
    for (size_t i = 0; map != NULL && map->type == J_OBJ && i < map->len; i++)
        if (strcmp(map->keys[i], "_comment") != 0)
            CHECK(listed(languages, map->keys[i]), "%s: unknown language %s", where,
                  map->keys[i]);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s api-cases.json vectors.json\n", argv[0]);
        return 2;
    }
    jvalue *root = json_load(argv[1]), *vectors = json_load(argv[2]);
    CHECK(root != NULL && vectors != NULL, "cannot read %s or %s", argv[1], argv[2]);
    if (root == NULL || vectors == NULL) return check_report("test_api_cases");
    current = "file";
    const jvalue *version = json_get(root, "version"), *languages = json_get(root, "languages");
    CHECK(version != NULL && strcmp(version->str, "hrwhash-api-v1") == 0, "version");
    CHECK(listed(languages, "c"), "\"c\" is not among the languages");
    const jvalue *not_offered_all = json_get(root, "not_offered");
    check_languages(not_offered_all, languages, "not_offered");
    const jvalue *not_offered = json_get(not_offered_all, "c");
    span default_seed;
    from_hex(json_get(vectors, "default_seed"), &default_seed);
    CHECK(default_seed.len == HRW_SEED_LEN, "default_seed in %s", argv[2]);
    uint8_t seed_copy[HRW_SEED_LEN] = {0};
    memcpy(seed_copy, default_seed.ptr, default_seed.len == HRW_SEED_LEN ? HRW_SEED_LEN : 0);
    release_all();

    static const char *case_keys[] = {"name",  "op",          "args",     "placement",
                                      "error", "index",       "first_index", "expected",
                                      "actual", "result",     "not_expressible"};
    const jvalue *cases = json_get(root, "cases");
    size_t ran = 0, inexpressible = 0, unoffered = 0;
    for (size_t i = 0; cases != NULL && i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        const jvalue *name = json_get(c, "name"), *op = json_get(c, "op");
        current = name != NULL ? name->str : "(unnamed case)";
        for (size_t j = 0; j < c->len; j++) {
            int known = 0;
            for (size_t m = 0; m < sizeof case_keys / sizeof case_keys[0]; m++)
                known |= strcmp(c->keys[j], case_keys[m]) == 0;
            if (!known) cannot(c->keys[j]);
        }
        const jvalue *ne = json_get(c, "not_expressible");
        check_languages(ne, languages, current);
        if (json_get(ne, "c") != NULL) {
            inexpressible++;
            continue;
        }
        if (op == NULL || op->type != J_STR) {
            cannot("no op");
            continue;
        }
        if (listed(not_offered, op->str)) {
            unoffered++;
            continue;
        }
        ran++;
        outcome placed = {0}, o = {0};
        const jvalue *pj = json_get(c, "placement");
        if (pj != NULL) {
            if (!build(pj, &placed)) continue;
            CHECK(placed.status == HRW_STATUS_OK, "%s: placement: %s", current,
                  hrw_status_message(placed.status));
            if (placed.status != HRW_STATUS_OK) continue;
        } else if (strcmp(op->str, "new") != 0 && strcmp(op->str, "weight_fixed") != 0 &&
                   strcmp(op->str, "key_digest") != 0 && strcmp(op->str, "node_digest") != 0) {
            cannot("an op on a placement without one");
            continue;
        }
        const jvalue *args = json_get(c, "args");
        if (args == NULL || args->type != J_OBJ) {
            cannot("no args");
        } else if (run_op(op->str, args, placed.built, &o)) {
            const jvalue *error = json_get(c, "error"), *result = json_get(c, "result");
            if ((error == NULL) == (result == NULL)) cannot("neither or both of error, result");
            else if (error != NULL) check_error(c, &o);
            else check_result(result, &o, seed_copy);
            /* A failed call leaves its out-param alone: built stays NULL. */
            if (o.status != HRW_STATUS_OK)
                CHECK(o.built == NULL, "%s: a placement came back with an error", current);
        }
        hrw_placement_free(o.built);
        hrw_placement_free(placed.built);
        release_all();
    }
    printf("api-cases: %zu run, %zu not expressible in C, %zu not offered (ops:", ran,
           inexpressible, unoffered);
    for (size_t i = 0; not_offered != NULL && i < not_offered->len; i++)
        printf(" %s", not_offered->items[i].str);
    if (not_offered == NULL || not_offered->len == 0) printf(" none");
    printf(")\n");
    CHECK(ran > 0, "no case ran");
    free(owned);
    json_free(root);
    json_free(vectors);
    return check_report("test_api_cases");
}
