/* Runs every case of conformance/views.json through the C ABI (views, movement, ramps), checks
 * transitions and diffs against plain lookups and under threads sharing one handle, and gives
 * every view, transition, diff and ramp function each bad input it can get from C. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "hrwhash.h"
#include "check.h"
#include "json.h"
#include "status_names.h"

static const char *current; /* the case being run, for messages */

typedef struct {
    uint8_t *data;
    size_t len;
} bytes;

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* The bytes of a lowercase hex string; a malformed one fails the run. */
static bytes unhex(const char *s, size_t len) {
    bytes b = {malloc(len / 2 + 1), len / 2};
    if (b.data == NULL) abort();
    CHECK(len % 2 == 0, "%s: odd hex length", current);
    for (size_t i = 0; i < b.len; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        CHECK(hi >= 0 && lo >= 0, "%s: bad hex", current);
        b.data[i] = (uint8_t)((hi < 0 ? 0 : hi) * 16 + (lo < 0 ? 0 : lo));
    }
    return b;
}

static uint64_t u64_of(const jvalue *v) { return strtoull(v->str, NULL, 10); }

static int same_text(const jvalue *want, const uint8_t *got, size_t got_len) {
    return want != NULL && want->type == J_STR && want->len == got_len && memcmp(want->str, got, got_len) == 0;
}

/* A case's document: "document" (text) or "document_hex". */
static bytes document_of(const jvalue *c, const char *member) {
    const jvalue *hex = json_get(c, "document_hex");
    if (hex != NULL && strcmp(member, "document") == 0) return unhex(hex->str, hex->len);
    const jvalue *text = json_get(c, member);
    bytes b = {malloc(text->len + 1), text->len};
    if (b.data == NULL) abort();
    memcpy(b.data, text->str, text->len);
    return b;
}

/* A case's seed, or a zero-length span (the default seed). */
static bytes seed_of(const jvalue *c) {
    const jvalue *s = json_get(c, "seed");
    if (s == NULL) return (bytes){NULL, 0};
    return unhex(s->str, s->len);
}

static hrw_status load(const bytes *doc, const bytes *seed, hrw_view **out, hrw_error *err) {
    return hrw_view_from_json(doc->data, doc->len, seed->data, seed->len, out, err);
}

/* The canonical JSON of a view, malloc'ed (NUL-terminated for messages). */
static char *json_of(const hrw_view *v, size_t *len) {
    size_t need = 0, written = 0;
    CHECK(hrw_view_to_json(v, NULL, 0, &need, NULL) == HRW_STATUS_OK, "%s: json length", current);
    char *buf = malloc(need + 1);
    if (buf == NULL) abort();
    hrw_error err;
    CHECK(hrw_view_to_json(v, (uint8_t *)buf, need, &written, &err) == HRW_STATUS_OK, "%s: to_json", current);
    CHECK(written == need, "%s: wrote %zu of %zu", current, written, need);
    buf[need] = '\0';
    *len = need;
    return buf;
}

#define FP_HEX_SIZE (2 * HRW_VIEW_FINGERPRINT_LEN + 1)
#define SEED_FP_HEX_SIZE (2 * HRW_SEED_FINGERPRINT_LEN + 1)

/* The diff's figures (hrw_diff_summary); counts of UINT64_MAX when the call fails. */
static hrw_diff_figures figures_of(const hrw_diff *d) {
    hrw_diff_figures f = {UINT64_MAX, UINT64_MAX, -1, -1};
    CHECK(hrw_diff_summary(d, &f) == HRW_STATUS_OK, "%s: diff summary", current);
    return f;
}

static void fingerprint_hex(const hrw_view *v, char out[FP_HEX_SIZE]) {
    uint8_t raw[HRW_VIEW_FINGERPRINT_LEN];
    CHECK(view_fingerprint_of(v, raw, sizeof raw) == HRW_STATUS_OK, "%s: fp", current);
    hex_of(raw, sizeof raw, out);
}

static void seed_fingerprint_hex(const hrw_view *v, char out[SEED_FP_HEX_SIZE]) {
    uint8_t raw[HRW_SEED_FINGERPRINT_LEN];
    CHECK(view_seed_fingerprint_of(v, raw, sizeof raw) == HRW_STATUS_OK, "%s: seed fp", current);
    hex_of(raw, sizeof raw, out);
}

/* The file's error names, mapped here and not by the library. */
static const struct {
    const char *name;
    hrw_view_fault fault;
} FAULTS[] = {
    {"missing", HRW_VIEW_FAULT_MISSING},         {"wrong_type", HRW_VIEW_FAULT_WRONG_TYPE},
    {"unknown", HRW_VIEW_FAULT_UNKNOWN},         {"duplicate", HRW_VIEW_FAULT_DUPLICATE},
    {"conflict", HRW_VIEW_FAULT_CONFLICT},       {"unsupported", HRW_VIEW_FAULT_UNSUPPORTED},
    {"invalid", HRW_VIEW_FAULT_INVALID},         {"out_of_range", HRW_VIEW_FAULT_OUT_OF_RANGE},
    {"not_representable", HRW_VIEW_FAULT_NOT_REPRESENTABLE},
};

static int status_of(const char *name, hrw_status *out) {
    if (hrw_status_of_name(name, out)) return 1;
    CHECK(0, "%s: error %s is not known to this suite", current, name);
    return 0;
}

/* The error a case expects against what a call returned with its details. */
static void check_error(const jvalue *c, hrw_status st, const hrw_error *err) {
    hrw_status want;
    if (!status_of(json_get(c, "error")->str, &want)) return;
    CHECK(st == want, "%s: status %u, want %u (%s)", current, (unsigned)st, (unsigned)want,
          json_get(c, "error")->str);
    CHECK(err->status == st, "%s: detail status %u", current, (unsigned)err->status);
    if (st != want) return;
    const jvalue *index = json_get(c, "index");
    if (want == HRW_STATUS_INVALID_VIEW) {
        const jvalue *field = json_get(c, "field");
        CHECK(err->field_len == field->len && memcmp(err->field, field->str, field->len) == 0 &&
                  err->field[field->len] == 0,
              "%s: field %s, want %s", current, (const char *)err->field, field->str);
        if (index->type == J_NULL) {
            CHECK(!err->has_index && err->index == 0, "%s: has_index", current);
        } else {
            CHECK(err->has_index && err->index == u64_of(index), "%s: index %zu", current, err->index);
        }
        const char *reason = json_get(c, "reason")->str;
        int found = 0;
        for (size_t i = 0; i < sizeof FAULTS / sizeof FAULTS[0]; i++)
            if (strcmp(FAULTS[i].name, reason) == 0) {
                found = 1;
                CHECK(err->reason == FAULTS[i].fault, "%s: reason %u, want %s", current, (unsigned)err->reason,
                      reason);
            }
        CHECK(found, "%s: reason %s is not known to this suite", current, reason);
        CHECK(strcmp(hrw_view_fault_name(err->reason), reason) == 0, "%s: fault name %s", current,
              hrw_view_fault_name(err->reason));
    } else {
        CHECK(err->reason == HRW_VIEW_FAULT_NONE && err->field_len == 0, "%s: view details on %u", current,
              (unsigned)st);
        if (index != NULL) CHECK(err->index == u64_of(index), "%s: index %zu", current, err->index);
    }
    const jvalue *first = json_get(c, "first_index");
    if (first != NULL) CHECK(err->first_index == u64_of(first), "%s: first_index %zu", current, err->first_index);
    if (want == HRW_STATUS_INVALID_JSON) CHECK(err->line >= 1, "%s: line %zu", current, err->line);
    if (want == HRW_STATUS_INVALID_MOVE_LIMIT) {
        double limit = strtod(json_get(c, "max_move")->str, NULL);
        CHECK(err->value == limit, "%s: value %g", current, err->value);
    }
}

/* Every member of the file and of its cases that this suite reads: anything else is a kind or
 * a field the C ABI is not yet checked against, and fails the run. */
static const char *const KINDS[][14] = {
    {"valid", "name", "document", "seed", "canonical", "fingerprint", "seed_fingerprint", "epoch", "owners"},
    {"equivalent", "name", "a", "b", "fingerprint"},
    {"invalid", "name", "document", "document_hex", "seed", "error", "field", "index", "reason", "first_index"},
    {"movement", "name", "nodes", "expected_moved", "optimum"},
    {"ramps", "name", "from", "to", "max_move", "grid", "steps", "total_moved", "direct_moved", "optimum", "error",
     "field", "index", "reason"},
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

static void check_shape(const jvalue *root) {
    for (size_t i = 0; i < root->len; i++) {
        const char *k = root->keys[i];
        int known = !strcmp(k, "format") || !strcmp(k, "_comment") || !strcmp(k, "default_seed_fingerprint");
        for (size_t j = 0; j < NKINDS; j++) {
            if (strcmp(k, KINDS[j][0]) != 0) continue;
            known = 1;
            const jvalue *cases = &root->items[i];
            CHECK(cases->type == J_ARR && cases->len > 0, "no %s cases", k);
            for (size_t c = 0; c < cases->len; c++) {
                const jvalue *cs = &cases->items[c];
                for (size_t m = 0; m < cs->len; m++) {
                    int ok = 0;
                    for (size_t f = 1; f < sizeof KINDS[0] / sizeof KINDS[0][0] && KINDS[j][f] != NULL; f++) ok |= !strcmp(cs->keys[m], KINDS[j][f]);
                    CHECK(ok, "%s case %zu has unknown member %s", k, c, cs->keys[m]);
                }
            }
        }
        CHECK(known, "unknown member of views.json: %s", k);
    }
    CHECK(strcmp(json_get(root, "format")->str, "hrwhash-view-v1") == 0, "format");
}

static hrw_placement *placement_of(const hrw_view *v) {
    hrw_placement *p = NULL;
    CHECK(hrw_view_placement(v, &p) == HRW_STATUS_OK && p != NULL, "%s: placement", current);
    return p;
}

static void run_valid(const jvalue *c) {
    bytes doc = document_of(c, "document"), seed = seed_of(c);
    hrw_view *v = NULL;
    hrw_error err;
    hrw_status st = load(&doc, &seed, &v, &err);
    CHECK(st == HRW_STATUS_OK, "%s: load: %s", current, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto done;
    size_t len;
    char *text = json_of(v, &len);
    const jvalue *canonical = json_get(c, "canonical");
    CHECK(same_text(canonical, (const uint8_t *)text, len), "%s: canonical form\n%s", current, text);

    char fp[FP_HEX_SIZE], sfp[SEED_FP_HEX_SIZE];
    fingerprint_hex(v, fp);
    CHECK(strcmp(fp, json_get(c, "fingerprint")->str) == 0, "%s: fingerprint %s", current, fp);
    seed_fingerprint_hex(v, sfp);
    CHECK(strcmp(sfp, json_get(c, "seed_fingerprint")->str) == 0, "%s: seed fingerprint %s", current, sfp);
    /* The byte forms agree with the hex forms the file gives. */
    uint8_t raw[HRW_VIEW_FINGERPRINT_LEN], sraw[HRW_SEED_FINGERPRINT_LEN];
    bytes want = unhex(json_get(c, "fingerprint")->str, 32), swant = unhex(json_get(c, "seed_fingerprint")->str, 16);
    CHECK(view_fingerprint_of(v, raw, sizeof raw) == HRW_STATUS_OK && memcmp(raw, want.data, 16) == 0,
          "%s: fingerprint bytes", current);
    CHECK(view_seed_fingerprint_of(v, sraw, sizeof sraw) == HRW_STATUS_OK && memcmp(sraw, swant.data, 8) == 0,
          "%s: seed fingerprint bytes", current);
    free(want.data);
    free(swant.data);

    uint64_t epoch = 0;
    CHECK(view_epoch_of(v, &epoch) == HRW_STATUS_OK && epoch == u64_of(json_get(c, "epoch")), "%s: epoch %" PRIu64,
          current, epoch);
    bool is_default = 0;
    CHECK(view_has_default_seed_of(v, &is_default) == HRW_STATUS_OK, "%s", current);
    CHECK(is_default == (strstr(canonical->str, "\"seed\": \"default\"") != NULL), "%s: has_default_seed", current);

    hrw_placement *p = placement_of(v);
    const jvalue *owners = json_get(c, "owners");
    for (size_t i = 0; p != NULL && i < owners->len; i++) {
        const jvalue *key = json_get(&owners->items[i], "key");
        size_t owner = SIZE_MAX;
        CHECK(hrw_placement_owner(p, (const uint8_t *)key->str, key->len, &owner) == HRW_STATUS_OK, "%s", current);
        CHECK(owner == u64_of(json_get(&owners->items[i], "owner")), "%s: owner of %s: %zu", current, key->str, owner);
    }

    /* The canonical form reads back to itself; a view built from the placement writes it too. */
    bytes canon = document_of(c, "canonical");
    hrw_view *again = NULL, *built = NULL, *moved = NULL;
    CHECK(load(&canon, &seed, &again, &err) == HRW_STATUS_OK, "%s: reload", current);
    if (again != NULL) {
        size_t l2;
        char *t2 = json_of(again, &l2);
        CHECK(l2 == len && memcmp(t2, text, len) == 0, "%s: reload differs", current);
        free(t2);
    }
    CHECK(hrw_view_new(p, epoch, &built, &err) == HRW_STATUS_OK, "%s: view_new", current);
    hrw_placement_free(p); /* the view keeps its own reference */
    if (built != NULL) {
        size_t l3;
        char *t3 = json_of(built, &l3);
        CHECK(l3 == len && memcmp(t3, text, len) == 0, "%s: view_new writes other bytes", current);
        free(t3);
    }
    /* Another epoch: the same fingerprint. */
    CHECK(hrw_view_with_epoch(v, epoch ^ 1, &moved) == HRW_STATUS_OK, "%s: with_epoch", current);
    if (moved != NULL) {
        char fp2[FP_HEX_SIZE];
        uint64_t e2 = 0;
        fingerprint_hex(moved, fp2);
        CHECK(strcmp(fp, fp2) == 0, "%s: with_epoch changes the fingerprint", current);
        CHECK(view_epoch_of(moved, &e2) == HRW_STATUS_OK && e2 == (epoch ^ 1), "%s: with_epoch epoch", current);
    }
    /* One byte short: BUFFER_TOO_SMALL with the length needed, and nothing written. */
    size_t written = 12345;
    char *small = malloc(len);
    if (small == NULL) abort();
    st = hrw_view_to_json(v, (uint8_t *)small, len - 1, &written, &err);
    CHECK(st == HRW_STATUS_BUFFER_TOO_SMALL && err.status == st && err.expected == len && err.actual == len - 1,
          "%s: short buffer: %u", current, (unsigned)st);
    CHECK(written == 12345, "%s: out-param written on failure", current);
    free(small);
    free(canon.data);
    free(text);
    hrw_view_free(again);
    hrw_view_free(built);
    hrw_view_free(moved);
    hrw_view_free(v);
done:
    free(doc.data);
    free(seed.data);
}

static void run_equivalent(const jvalue *c) {
    bytes a = document_of(c, "a"), b = document_of(c, "b"), none = {NULL, 0};
    hrw_view *va = NULL, *vb = NULL, *za = NULL, *zb = NULL;
    hrw_error err;
    CHECK(load(&a, &none, &va, &err) == HRW_STATUS_OK, "%s: a", current);
    CHECK(load(&b, &none, &vb, &err) == HRW_STATUS_OK, "%s: b", current);
    if (va != NULL && vb != NULL) {
        char fa[FP_HEX_SIZE], fb[FP_HEX_SIZE];
        fingerprint_hex(va, fa);
        fingerprint_hex(vb, fb);
        CHECK(strcmp(fa, json_get(c, "fingerprint")->str) == 0 && strcmp(fb, fa) == 0, "%s: %s %s", current, fa, fb);
        CHECK(hrw_view_with_epoch(va, 0, &za) == HRW_STATUS_OK && hrw_view_with_epoch(vb, 0, &zb) == HRW_STATUS_OK,
              "%s", current);
        size_t la, lb;
        char *ta = json_of(za, &la), *tb = json_of(zb, &lb);
        CHECK(la == lb && memcmp(ta, tb, la) == 0, "%s: canonical forms differ", current);
        free(ta);
        free(tb);
    }
    hrw_view_free(va);
    hrw_view_free(vb);
    hrw_view_free(za);
    hrw_view_free(zb);
    free(a.data);
    free(b.data);
}

static void run_invalid(const jvalue *c) {
    bytes doc = document_of(c, "document"), seed = seed_of(c);
    hrw_view *sentinel = (hrw_view *)&doc, *v = sentinel;
    hrw_error err;
    memset(&err, 0xab, sizeof err);
    hrw_status st = load(&doc, &seed, &v, &err);
    check_error(c, st, &err);
    CHECK(v == sentinel, "%s: out_view written on failure", current);
    /* The same without a detail struct: the same status. */
    CHECK(load(&doc, &seed, &v, NULL) == st, "%s: status without details", current);
    free(doc.data);
    free(seed.data);
}

/* A placement of the ids of a movement case whose weight on `side` is not 0. */
static hrw_placement *movement_side(const jvalue *c, const char *side) {
    const jvalue *nodes = json_get(c, "nodes");
    hrw_node *list = calloc(nodes->len, sizeof *list);
    double *weights = calloc(nodes->len, sizeof *weights);
    if (list == NULL || weights == NULL) abort();
    size_t n = 0;
    for (size_t i = 0; i < nodes->len; i++) {
        const jvalue *id = json_get(&nodes->items[i], "id");
        uint64_t w = u64_of(json_get(&nodes->items[i], side));
        if (w == 0) continue;
        list[n] = (hrw_node){(const uint8_t *)id->str, id->len, NULL, 0};
        /* Every W of the file has at most 53 significant bits, so W / 2^32 is exact. */
        weights[n] = (double)w / 4294967296.0;
        uint64_t fixed = 0;
        CHECK(hrw_weight_to_fixed(weights[n], &fixed, NULL) == HRW_STATUS_OK && fixed == w, "%s: weight %" PRIu64,
              current, w);
        n++;
    }
    hrw_placement_options opts = {NULL, 0, weights, n};
    hrw_placement *p = NULL;
    hrw_error err;
    CHECK(hrw_placement_new(list, n, &opts, &p, &err) == HRW_STATUS_OK, "%s: %s placement", current, side);
    free(list);
    free(weights);
    return p;
}

static void run_movement(const jvalue *c) {
    hrw_placement *old = movement_side(c, "old"), *new_ = movement_side(c, "new");
    double want_moved = strtod(json_get(c, "expected_moved")->str, NULL);
    double want_opt = strtod(json_get(c, "optimum")->str, NULL);
    hrw_transition *t = NULL;
    hrw_view *vo = NULL, *vn = NULL;
    hrw_transition *tv = NULL;
    hrw_diff *d = NULL;
    hrw_error err;
    hrw_placement *po = NULL, *pn = NULL;
    CHECK(hrw_transition_new(old, new_, &t) == HRW_STATUS_OK, "%s", current);
    CHECK(hrw_view_new(old, 1, &vo, &err) == HRW_STATUS_OK && hrw_view_new(new_, 2, &vn, &err) == HRW_STATUS_OK,
          "%s: views", current);
    /* Through the views' placements: the same transition. */
    CHECK(hrw_view_placement(vo, &po) == HRW_STATUS_OK && hrw_view_placement(vn, &pn) == HRW_STATUS_OK &&
              hrw_transition_new(po, pn, &tv) == HRW_STATUS_OK,
          "%s", current);
    hrw_placement_free(po);
    hrw_placement_free(pn);
    hrw_transition *both[2] = {t, tv};
    for (int i = 0; i < 2; i++) {
        double moved = -1, opt = -1;
        CHECK(expected_moved_of(both[i], &moved) == HRW_STATUS_OK && moved == want_moved,
              "%s: expected_moved %.17g, want %.17g", current, moved, want_moved);
        CHECK(optimum_of(both[i], &opt) == HRW_STATUS_OK && opt == want_opt,
              "%s: optimum %.17g, want %.17g", current, opt, want_opt);
    }
    CHECK(hrw_transition_diff(t, &d) == HRW_STATUS_OK, "%s: diff", current);
    hrw_diff_figures df = figures_of(d);
    CHECK(df.expected_moved == want_moved, "%s: diff expected", current);
    CHECK(df.optimum == want_opt, "%s: diff optimum", current);
    CHECK(df.keys == 0 && df.moved == 0, "%s: an empty diff", current);
    hrw_diff_free(d);
    hrw_transition_free(t);
    hrw_transition_free(tv);
    hrw_view_free(vo);
    hrw_view_free(vn);
    hrw_placement_free(old);
    hrw_placement_free(new_);
}

static void run_ramp(const jvalue *c) {
    bytes from = document_of(c, "from"), to = document_of(c, "to"), none = {NULL, 0};
    hrw_view *old = NULL, *new_ = NULL;
    hrw_ramp *r = NULL;
    hrw_error err;
    CHECK(load(&from, &none, &old, &err) == HRW_STATUS_OK && load(&to, &none, &new_, &err) == HRW_STATUS_OK,
          "%s: views", current);
    double max_move = strtod(json_get(c, "max_move")->str, NULL);
    hrw_status st = hrw_ramp_new(old, new_, max_move, &r, &err);
    if (json_get(c, "error") != NULL) {
        check_error(c, st, &err);
        CHECK(r == NULL, "%s: out_ramp written on failure", current);
        goto done;
    }
    CHECK(st == HRW_STATUS_OK, "%s: ramp: %s", current, hrw_status_message(st));
    if (st != HRW_STATUS_OK) goto done;
    CHECK(u64_of(json_get(c, "grid")) == HRW_RAMP_GRID, "%s: grid", current);
    const jvalue *steps = json_get(c, "steps");
    size_t n = SIZE_MAX;
    CHECK(ramp_len_of(r, &n) == HRW_STATUS_OK && n == steps->len, "%s: %zu steps", current, n);
    hrw_ramp_figures sum = {SIZE_MAX, -1, -1, -1, -1};
    CHECK(hrw_ramp_summary(r, &sum) == HRW_STATUS_OK && sum.max_move == max_move, "%s: max_move", current);
    uint64_t old_epoch = 0;
    view_epoch_of(old, &old_epoch);
    for (size_t i = 0; i < n && i < steps->len; i++) {
        const jvalue *want = &steps->items[i];
        hrw_ramp_step s;
        CHECK(hrw_ramp_get_step(r, i, &s, NULL, &err) == HRW_STATUS_OK, "%s: step %zu", current, i);
        CHECK(s.epoch == u64_of(json_get(want, "epoch")), "%s: step %zu epoch", current, i);
        CHECK(s.position == u64_of(json_get(want, "position")), "%s: step %zu position %u", current, i, s.position);
        CHECK(s.moved == strtod(json_get(want, "moved")->str, NULL), "%s: step %zu moved %.17g", current, i, s.moved);
        CHECK(s.moved <= max_move, "%s: step %zu moves more than the limit", current, i);
        CHECK(s.removes_drained == json_get(want, "removes_drained")->boolean, "%s: step %zu removes_drained", current,
              i);
        hrw_view *sv = NULL;
        hrw_ramp_step again;
        CHECK(hrw_ramp_get_step(r, i, &again, &sv, &err) == HRW_STATUS_OK && again.epoch == s.epoch &&
                  again.position == s.position,
              "%s: step view %zu", current, i);
        if (sv == NULL) continue;
        uint64_t e = 0;
        CHECK(view_epoch_of(sv, &e) == HRW_STATUS_OK && e == s.epoch, "%s: step view epoch", current);
        hrw_placement *p = placement_of(sv);
        const jvalue *weights = json_get(want, "weights");
        size_t len = 0;
        hrw_placement_len(p, &len, NULL);
        CHECK(len == weights->len, "%s: step %zu has %zu nodes", current, i, len);
        for (size_t j = 0; j < len && j < weights->len; j++) {
            const uint8_t *id = NULL;
            size_t id_len = 0;
            double w = -1.0;
            uint64_t fixed = 0;
            node_id_of(p, j, &id, &id_len);
            node_weight_of(p, j, &w);
            hrw_weight_to_fixed(w, &fixed, NULL);
            CHECK(same_text(json_get(&weights->items[j], "id"), id, id_len), "%s: step %zu node %zu id", current, i, j);
            CHECK(fixed == u64_of(json_get(&weights->items[j], "weight")), "%s: step %zu node %zu weight %" PRIu64,
                  current, i, j, fixed);
        }
        if (i + 1 == n) {
            char a[FP_HEX_SIZE], b[FP_HEX_SIZE];
            fingerprint_hex(sv, a);
            fingerprint_hex(new_, b);
            CHECK(strcmp(a, b) == 0 && e == old_epoch + n, "%s: last step is not the new view", current);
        }
        hrw_placement_free(p);
        hrw_view_free(sv);
    }
    if (n == 0) {
        char a[FP_HEX_SIZE], b[FP_HEX_SIZE];
        fingerprint_hex(old, a);
        fingerprint_hex(new_, b);
        CHECK(strcmp(a, b) == 0, "%s: no steps between different views", current);
    }
    CHECK(sum.total_moved == strtod(json_get(c, "total_moved")->str, NULL), "%s: total %.17g", current,
          sum.total_moved);
    CHECK(sum.direct_moved == strtod(json_get(c, "direct_moved")->str, NULL), "%s: direct %.17g", current,
          sum.direct_moved);
    CHECK(sum.optimum == strtod(json_get(c, "optimum")->str, NULL), "%s: optimum %.17g", current, sum.optimum);
    /* Past the last step: INDEX_OUT_OF_RANGE with the step asked for and the number of steps, for
     * the step and its view. */
    hrw_ramp_step s;
    hrw_view *none_view = NULL;
    st = hrw_ramp_get_step(r, n, &s, NULL, &err);
    CHECK(st == HRW_STATUS_INDEX_OUT_OF_RANGE && err.index == n && err.expected == n, "%s: step past end", current);
    st = hrw_ramp_get_step(r, n, &s, &none_view, &err);
    CHECK(st == HRW_STATUS_INDEX_OUT_OF_RANGE && none_view == NULL && err.index == n && err.expected == n,
          "%s: view past end", current);
done:
    hrw_ramp_free(r);
    hrw_view_free(old);
    hrw_view_free(new_);
    free(from.data);
    free(to.data);
}

typedef void (*runner)(const jvalue *);

static void run_kind(const jvalue *root, const char *kind, runner run) {
    const jvalue *cases = json_get(root, kind);
    CHECK(cases != NULL && cases->type == J_ARR, "%s missing", kind);
    if (cases == NULL) return;
    for (size_t i = 0; i < cases->len; i++) {
        current = json_get(&cases->items[i], "name")->str;
        run(&cases->items[i]);
    }
    printf("  %s: %zu cases\n", kind, cases->len);
}

/* ---- transitions and diffs against plain lookups ------------------------------------------- */

static hrw_placement *make(const char *const *ids, size_t n, const double *weights) {
    hrw_node nodes[16];
    for (size_t i = 0; i < n; i++) nodes[i] = (hrw_node){(const uint8_t *)ids[i], strlen(ids[i]), NULL, 0};
    hrw_placement_options opts = {NULL, 0, weights, weights ? n : 0};
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, n, &opts, &p, NULL) == HRW_STATUS_OK, "make");
    return p;
}

static int same_id(const hrw_placement *a, size_t i, const hrw_placement *b, size_t j) {
    const uint8_t *x = NULL, *y = NULL;
    size_t xl = 0, yl = 1;
    return node_id_of(a, i, &x, &xl) == HRW_STATUS_OK && node_id_of(b, j, &y, &yl) == HRW_STATUS_OK && xl == yl &&
           memcmp(x, y, xl) == 0;
}

enum { KEYS = 2000, K = 3 };

static void test_transitions(void) {
    current = "transitions";
    static const char *const before_ids[] = {"a", "b", "c", "d", "e"};
    static const char *const after_ids[] = {"f", "b", "a", "d", "g", "c"};
    static const double after_w[] = {1, 2, 0, 1, 0.5, 1};
    hrw_placement *old = make(before_ids, 5, NULL), *new_ = make(after_ids, 6, after_w);
    hrw_transition *t = NULL;
    CHECK(hrw_transition_new(old, new_, &t) == HRW_STATUS_OK, "transition");

    /* Matching by id, both ways; "e" is only old, "f" and "g" only new. */
    size_t idx = 99;
    CHECK(hrw_transition_old_to_new(t, 0, &idx) == HRW_STATUS_OK && idx == 2, "a -> %zu", idx);
    CHECK(hrw_transition_new_to_old(t, 1, &idx) == HRW_STATUS_OK && idx == 1, "b <- %zu", idx);
    idx = 99;
    CHECK(hrw_transition_old_to_new(t, 4, &idx) == HRW_STATUS_UNKNOWN_NODE && idx == 99, "e");
    CHECK(hrw_transition_new_to_old(t, 0, &idx) == HRW_STATUS_UNKNOWN_NODE, "f");
    CHECK(hrw_transition_old_to_new(t, 5, &idx) == HRW_STATUS_INDEX_OUT_OF_RANGE, "old 5");
    CHECK(hrw_transition_new_to_old(t, 6, &idx) == HRW_STATUS_INDEX_OUT_OF_RANGE, "new 6");

    hrw_diff *d = NULL, *half1 = NULL, *half2 = NULL, *batch = NULL;
    CHECK(hrw_transition_diff(t, &d) == HRW_STATUS_OK && hrw_transition_diff(t, &half1) == HRW_STATUS_OK &&
              hrw_transition_diff(t, &half2) == HRW_STATUS_OK && hrw_transition_diff(t, &batch) == HRW_STATUS_OK,
          "diffs");
    uint64_t before[5] = {0}, after[6] = {0}, flows[5][6] = {{0}}, moved = 0;
    char *joined = malloc(KEYS * 16);
    size_t *lens = malloc(KEYS * sizeof *lens), total = 0;
    size_t *moved_keys = malloc(KEYS * sizeof *moved_keys), n_moved = 0;
    if (joined == NULL || lens == NULL || moved_keys == NULL) abort();
    for (size_t i = 0; i < KEYS; i++) {
        char key[16];
        int kl = snprintf(key, sizeof key, "key-%zu", i);
        memcpy(joined + total, key, (size_t)kl);
        lens[i] = (size_t)kl;
        total += (size_t)kl;
        size_t o = 0, nw = 0;
        hrw_placement_owner(old, (const uint8_t *)key, (size_t)kl, &o);
        hrw_placement_owner(new_, (const uint8_t *)key, (size_t)kl, &nw);
        int differ = !same_id(old, o, new_, nw);
        hrw_route r = {99, 99, 0};
        CHECK(hrw_transition_route(t, (const uint8_t *)key, (size_t)kl, &r) == HRW_STATUS_OK, "route");
        CHECK(r.old_index == o && r.new_index == nw && r.moved == differ, "route of %s", key);
        before[o]++;
        after[nw]++;
        if (differ) {
            moved++;
            flows[o][nw]++;
            moved_keys[n_moved++] = i;
        }
        size_t one = (size_t)kl;
        CHECK(hrw_diff_add_many(d, (const uint8_t *)key, one, &one, 1) == HRW_STATUS_OK, "add");
        CHECK(hrw_diff_add_many(i % 2 ? half1 : half2, (const uint8_t *)key, one, &one, 1) == HRW_STATUS_OK, "add half");

        /* Top-k: the rankings of each side, and add/drop by id. */
        size_t rb[K], ra[K], radd[K], rdrop[K], want_b[K], want_a[K], nb = 0, na = 0;
        hrw_route_set set;
        CHECK(hrw_transition_route_top(t, (const uint8_t *)key, (size_t)kl, K, rb, ra, radd, rdrop, K, &set) ==
                  HRW_STATUS_OK,
              "route_top");
        hrw_placement_rank(old, (const uint8_t *)key, (size_t)kl, K, want_b, K, &nb);
        hrw_placement_rank(new_, (const uint8_t *)key, (size_t)kl, K, want_a, K, &na);
        CHECK(set.before_len == nb && memcmp(rb, want_b, nb * sizeof(size_t)) == 0, "before of %s", key);
        CHECK(set.after_len == na && memcmp(ra, want_a, na * sizeof(size_t)) == 0, "after of %s", key);
        size_t n_add = 0, n_drop = 0;
        for (size_t a = 0; a < na; a++) {
            int in = 0;
            for (size_t b = 0; b < nb; b++) in |= same_id(new_, want_a[a], old, want_b[b]);
            if (!in) CHECK(n_add < set.add_len && radd[n_add++] == want_a[a], "add of %s", key);
        }
        for (size_t b = 0; b < nb; b++) {
            int in = 0;
            for (size_t a = 0; a < na; a++) in |= same_id(new_, want_a[a], old, want_b[b]);
            if (!in) CHECK(n_drop < set.drop_len && rdrop[n_drop++] == want_b[b], "drop of %s", key);
        }
        CHECK(set.add_len == n_add && set.drop_len == n_drop, "add/drop lengths of %s", key);
    }
    CHECK(hrw_diff_add_many(batch, (const uint8_t *)joined, total, lens, KEYS) == HRW_STATUS_OK, "add_many");
    CHECK(moved > 0 && moved < KEYS, "a change that moves some keys: %" PRIu64, moved);

    /* The diff's counts are the tallies of the lookups; merged halves and a batch agree. */
    CHECK(hrw_diff_merge(half1, half2) == HRW_STATUS_OK, "merge");
    hrw_diff *all[3] = {d, half1, batch};
    for (int which = 0; which < 3; which++) {
        uint64_t sum = 0;
        hrw_diff_figures fig = figures_of(all[which]);
        uint64_t keys = fig.keys, m = fig.moved;
        CHECK(keys == KEYS && m == moved, "diff %d: %" PRIu64 " keys, %" PRIu64 " moved", which, keys, m);
        size_t nf = 0, got = 0;
        CHECK(hrw_diff_flows(all[which], NULL, 0, &nf) == HRW_STATUS_OK, "flows count");
        hrw_flow fl[30];
        CHECK(nf <= 30 && hrw_diff_flows(all[which], fl, 30, &got) == HRW_STATUS_OK && got == nf, "flows");
        size_t expected_flows = 0;
        for (size_t o = 0; o < 5; o++)
            for (size_t w = 0; w < 6; w++) expected_flows += flows[o][w] > 0;
        CHECK(nf == expected_flows, "diff %d: %zu flows, want %zu", which, nf, expected_flows);
        for (size_t f = 0; f < got; f++) {
            CHECK(fl[f].count == flows[fl[f].from][fl[f].to], "flow %zu->%zu", fl[f].from, fl[f].to);
            if (f > 0) CHECK(fl[f - 1].from < fl[f].from || (fl[f - 1].from == fl[f].from && fl[f - 1].to < fl[f].to),
                             "flows out of order");
            sum += fl[f].count;
        }
        CHECK(sum == moved, "flows add up to %" PRIu64, sum);
        hrw_node_change rows[11];
        size_t nr = 0;
        CHECK(hrw_diff_nodes(all[which], NULL, 0, &nr) == HRW_STATUS_OK, "nodes count");
        CHECK(nr == 7, "7 ids in either membership, got %zu", nr);
        CHECK(hrw_diff_nodes(all[which], rows, 11, &got) == HRW_STATUS_OK && got == nr, "nodes");
        for (size_t i = 0; i < got; i++) {
            uint64_t b = rows[i].has_old ? before[rows[i].old_index] : 0;
            uint64_t a = rows[i].has_new ? after[rows[i].new_index] : 0;
            CHECK(rows[i].before == b && rows[i].after == a, "node row %zu", i);
            if (i < 5) CHECK(rows[i].has_old && rows[i].old_index == i, "old rows first, in old order");
            if (rows[i].has_old && rows[i].has_new) CHECK(same_id(old, rows[i].old_index, new_, rows[i].new_index), "row ids");
        }
        CHECK(!rows[4].has_new && rows[5].has_new && !rows[5].has_old && rows[5].new_index == 0 &&
                  rows[6].new_index == 4,
              "e only old; f and g only new");
    }

    /* Plan: exactly the moved keys, in order, with their owners. */
    hrw_move *moves = malloc(KEYS * sizeof *moves);
    size_t n_moves = 0;
    if (moves == NULL) abort();
    CHECK(hrw_transition_plan(t, (const uint8_t *)joined, total, lens, KEYS, moves, KEYS, &n_moves) == HRW_STATUS_OK,
          "plan");
    CHECK(n_moves == n_moved, "plan has %zu moves, want %zu", n_moves, n_moved);
    for (size_t i = 0; i < n_moves && i < n_moved; i++) {
        size_t k = moves[i].key_index, off = 0;
        for (size_t j = 0; j < k; j++) off += lens[j];
        size_t o = 0, nw = 0;
        hrw_placement_owner(old, (const uint8_t *)joined + off, lens[k], &o);
        hrw_placement_owner(new_, (const uint8_t *)joined + off, lens[k], &nw);
        CHECK(k == moved_keys[i] && moves[i].from == o && moves[i].to == nw, "move %zu", i);
    }
    /* Batch by batch gives the same moves. */
    size_t first = 0;
    CHECK(hrw_transition_plan(t, (const uint8_t *)joined, lens[0] + lens[1], lens, 2, moves, 2, &first) ==
              HRW_STATUS_OK,
          "plan of 2");

    /* Bad inputs: nothing counted, nothing written. */
    uint64_t keys_before = 0, keys_after = 0;
    keys_before = figures_of(batch).keys;
    CHECK(hrw_diff_add_many(batch, (const uint8_t *)joined, total - 1, lens, KEYS) == HRW_STATUS_LENGTH_MISMATCH,
          "add_many lengths");
    CHECK(hrw_diff_add_many(batch, NULL, 3, NULL, 0) == HRW_STATUS_NULL_PARAMETER, "add_many NULL keys");
    CHECK(hrw_diff_add_many(batch, NULL, 0, NULL, 2) == HRW_STATUS_NULL_PARAMETER, "add_many NULL lens");
    size_t one_len = 1;
    CHECK(hrw_diff_add_many(batch, NULL, 1, &one_len, 1) == HRW_STATUS_NULL_PARAMETER, "add NULL key");
    CHECK(hrw_diff_add_many(NULL, (const uint8_t *)"k", 1, &one_len, 1) == HRW_STATUS_NULL_PARAMETER, "add NULL diff");
    keys_after = figures_of(batch).keys;
    CHECK(keys_after == keys_before, "a failed add counted keys");
    size_t empty_len = 0;
    CHECK(hrw_diff_add_many(batch, NULL, 0, &empty_len, 1) == HRW_STATUS_OK, "the empty key");
    size_t untouched = 777;
    CHECK(hrw_transition_plan(t, (const uint8_t *)joined, total, lens, KEYS, moves, KEYS - 1, &untouched) ==
              HRW_STATUS_BUFFER_TOO_SMALL && untouched == 777,
          "plan buffer");
    CHECK(hrw_transition_plan(t, (const uint8_t *)joined, total + 1, lens, KEYS, moves, KEYS, &untouched) ==
              HRW_STATUS_LENGTH_MISMATCH,
          "plan lengths");
    CHECK(hrw_transition_plan(t, NULL, 0, NULL, 0, NULL, 0, &untouched) == HRW_STATUS_OK && untouched == 0,
          "empty plan");
    CHECK(hrw_transition_plan(t, NULL, 0, NULL, 0, NULL, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "plan count NULL");
    hrw_route_set set;
    size_t small[K];
    CHECK(hrw_transition_route_top(t, (const uint8_t *)"k", 1, K, small, small, small, small, K - 1, &set) ==
              HRW_STATUS_BUFFER_TOO_SMALL,
          "route_top capacity");
    /* Overlapping arrays are the caller's mistake, not undefined behaviour: the last one wins. */
    size_t shared[K], sep[4][K];
    hrw_route_set sep_set;
    CHECK(hrw_transition_route_top(t, (const uint8_t *)"key-7", 5, K, shared, shared, shared, shared, K, &set) ==
                  HRW_STATUS_OK &&
              hrw_transition_route_top(t, (const uint8_t *)"key-7", 5, K, sep[0], sep[1], sep[2], sep[3], K,
                                       &sep_set) == HRW_STATUS_OK &&
              set.before_len == sep_set.before_len && set.drop_len == sep_set.drop_len,
          "route_top with one array for all four");
    CHECK(hrw_transition_route_top(t, (const uint8_t *)"k", 1, 0, NULL, NULL, NULL, NULL, 0, &set) == HRW_STATUS_OK &&
              set.before_len == 0 && set.after_len == 0,
          "route_top k = 0");
    CHECK(hrw_transition_route_top(t, (const uint8_t *)"k", 1, SIZE_MAX, NULL, NULL, NULL, NULL, 0, &set) ==
              HRW_STATUS_BUFFER_TOO_SMALL,
          "route_top huge k");
    hrw_flow fl[1];
    size_t nflows = 5;
    CHECK(hrw_diff_flows(d, NULL, 0, &nflows) == HRW_STATUS_OK, "flows count");
    CHECK(nflows > 1 && hrw_diff_flows(d, fl, 1, &untouched) == HRW_STATUS_BUFFER_TOO_SMALL, "flows buffer");
    hrw_node_change rows[1];
    CHECK(hrw_diff_nodes(d, rows, 1, &untouched) == HRW_STATUS_BUFFER_TOO_SMALL, "nodes buffer");
    CHECK(hrw_diff_flows(d, NULL, 4, &untouched) == HRW_STATUS_NULL_PARAMETER, "flows NULL");
    CHECK(hrw_diff_flows(d, NULL, 0, NULL) == HRW_STATUS_NULL_PARAMETER, "flows count NULL");
    size_t nrows = 0;
    CHECK(hrw_diff_nodes(d, NULL, 0, &nrows) == HRW_STATUS_OK && nrows > 1, "nodes count");

    /* Merging: only diffs of the same transition, never a diff with itself. */
    hrw_transition *other = NULL;
    hrw_diff *foreign = NULL;
    CHECK(hrw_transition_new(old, new_, &other) == HRW_STATUS_OK &&
              hrw_transition_diff(other, &foreign) == HRW_STATUS_OK,
          "other transition");
    keys_before = figures_of(d).keys;
    CHECK(hrw_diff_merge(d, foreign) == HRW_STATUS_NULL_PARAMETER, "merge across transitions");
    CHECK(hrw_diff_merge(d, d) == HRW_STATUS_NULL_PARAMETER, "merge with itself");
    CHECK(hrw_diff_merge(d, NULL) == HRW_STATUS_NULL_PARAMETER && hrw_diff_merge(NULL, d) == HRW_STATUS_NULL_PARAMETER,
          "merge NULL");
    keys_after = figures_of(d).keys;
    CHECK(keys_after == keys_before, "failed merges changed the diff");

    /* A diff outlives its transition; placements taken from a transition outlive it too. */
    hrw_placement *po = NULL, *pn = NULL;
    CHECK(hrw_transition_old_placement(t, &po) == HRW_STATUS_OK && hrw_transition_new_placement(t, &pn) == HRW_STATUS_OK,
          "members");
    hrw_transition_free(t);
    hrw_transition_free(other);
    size_t late = 4;
    CHECK(hrw_diff_add_many(d, (const uint8_t *)"late", late, &late, 1) == HRW_STATUS_OK,
          "diff after its transition is freed");
    size_t plen = 0;
    CHECK(hrw_placement_len(po, &plen, NULL) == HRW_STATUS_OK && plen == 5, "old member");
    CHECK(hrw_placement_len(pn, &plen, NULL) == HRW_STATUS_OK && plen == 6, "new member");
    hrw_placement_free(po);
    hrw_placement_free(pn);
    hrw_diff_free(d);
    hrw_diff_free(half1);
    hrw_diff_free(half2);
    hrw_diff_free(batch);
    hrw_diff_free(foreign);
    free(moves);
    free(joined);
    free(lens);
    free(moved_keys);
    hrw_placement_free(old);
    hrw_placement_free(new_);
}

/* ---- one transition and one view shared by threads without locking ------------------------ */

enum { THREADS = 4, THREAD_KEYS = 3000 };

static hrw_transition *shared_t;
static hrw_view *shared_v;
static hrw_route expected_routes[THREAD_KEYS];

static void *route_worker(void *arg) {
    size_t offset = *(size_t *)arg, mismatches = 0;
    hrw_diff *d = NULL;
    if (hrw_transition_diff(shared_t, &d) != HRW_STATUS_OK) return (void *)1;
    for (size_t round = 0; round < THREAD_KEYS; round++) {
        size_t i = (round + offset * 701) % THREAD_KEYS;
        char key[24];
        int kl = snprintf(key, sizeof key, "key-%zu", i);
        hrw_route r;
        if (hrw_transition_route(shared_t, (const uint8_t *)key, (size_t)kl, &r) != HRW_STATUS_OK ||
            r.old_index != expected_routes[i].old_index || r.new_index != expected_routes[i].new_index ||
            r.moved != expected_routes[i].moved)
            mismatches++;
        size_t one = (size_t)kl;
        if (hrw_diff_add_many(d, (const uint8_t *)key, one, &one, 1) != HRW_STATUS_OK) mismatches++;
        uint8_t fp[HRW_VIEW_FINGERPRINT_LEN];
        if (round % 100 == 0 && view_fingerprint_of(shared_v, fp, sizeof fp) != HRW_STATUS_OK)
            mismatches++;
    }
    hrw_diff_figures fig;
    if (hrw_diff_summary(d, &fig) != HRW_STATUS_OK || fig.keys != THREAD_KEYS) mismatches++;
    hrw_diff_free(d);
    return (void *)(uintptr_t)mismatches;
}

/* Three zones of three nodes, or two when `lost` names one (0, 1 or 2) and -1 keeps all. */
static hrw_placement *zoned(int lost) {
    static const char *const ids[] = {"a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2"};
    static const char *const zones[] = {"a", "b", "c"};
    hrw_node nodes[9];
    size_t n = 0;
    for (size_t i = 0; i < 9; i++) {
        if ((int)(i / 3) == lost) continue;
        nodes[n++] = (hrw_node){(const uint8_t *)ids[i], 2, (const uint8_t *)zones[i / 3], 1};
    }
    hrw_placement *p = NULL;
    CHECK(hrw_placement_new(nodes, n, NULL, &p, NULL) == HRW_STATUS_OK, "zoned");
    return p;
}

static void test_domain_routes(void) {
    current = "domain routes";
    hrw_placement *old = zoned(-1), *new_ = zoned(2);
    hrw_transition *t = NULL;
    CHECK(hrw_transition_new(old, new_, &t) == HRW_STATUS_OK, "transition");
    size_t ranked_differently = 0;
    for (size_t i = 0; i < 10000; i++) {
        char key[16];
        int kl = snprintf(key, sizeof key, "key-%zu", i);
        size_t b[3], a[3], ad[3], dr[3], want[3], rank[3], n = 0;
        hrw_route_set lens;
        CHECK(hrw_transition_route_top(t, (const uint8_t *)key, (size_t)kl, 3, b, a, ad, dr, 3, &lens) ==
                  HRW_STATUS_OK,
              "route_top %s", key);
        CHECK(hrw_placement_replicas(old, (const uint8_t *)key, (size_t)kl, 3, want, 3, &n) == HRW_STATUS_OK &&
                  n == 3 && lens.before_len == 3 && memcmp(b, want, sizeof want) == 0,
              "before of %s is old replicas", key);
        CHECK(hrw_placement_replicas(new_, (const uint8_t *)key, (size_t)kl, 3, want, 3, &n) == HRW_STATUS_OK &&
                  n == 3 && lens.after_len == 3 && memcmp(a, want, sizeof want) == 0,
              "after of %s is new replicas", key);
        hrw_placement_rank(old, (const uint8_t *)key, (size_t)kl, 3, rank, 3, &n);
        ranked_differently += memcmp(rank, b, sizeof rank) != 0;
    }
    CHECK(ranked_differently > 5000, "the domain rule matters for most keys: %zu", ranked_differently);

    /* Strict replicas: two zones left cannot hold three replicas apart. */
    size_t out[3] = {99, 99, 99}, want[3], n = 0;
    CHECK(hrw_placement_replicas_strict(new_, (const uint8_t *)"k", 1, 3, out, 3) ==
              HRW_STATUS_INVALID_REPLICA_COUNT && out[0] == 99,
          "strict 3 of 2 zones");
    CHECK(hrw_placement_replicas_strict(new_, (const uint8_t *)"k", 1, 2, out, 2) == HRW_STATUS_OK &&
              hrw_placement_replicas(new_, (const uint8_t *)"k", 1, 2, want, 2, &n) == HRW_STATUS_OK &&
              memcmp(out, want, 2 * sizeof *out) == 0,
          "strict 2 of 2 zones");
    CHECK(hrw_placement_replicas_strict(old, (const uint8_t *)"k", 1, 3, out, 2) == HRW_STATUS_BUFFER_TOO_SMALL,
          "strict short buffer");
    CHECK(hrw_placement_replicas_strict(old, (const uint8_t *)"k", 1, 3, NULL, 3) == HRW_STATUS_NULL_PARAMETER,
          "strict NULL out");
    CHECK(hrw_placement_replicas_strict(NULL, (const uint8_t *)"k", 1, 3, out, 3) == HRW_STATUS_NULL_PARAMETER,
          "strict NULL placement");
    hrw_transition_free(t);
    hrw_placement_free(old);
    hrw_placement_free(new_);
}

static void test_threads(void) {
    current = "threads";
    static const char *const a[] = {"a", "b", "c"}, *const b[] = {"a", "b", "c", "d"};
    hrw_placement *old = make(a, 3, NULL), *new_ = make(b, 4, NULL);
    CHECK(hrw_view_new(new_, 9, &shared_v, NULL) == HRW_STATUS_OK, "view");
    CHECK(hrw_transition_new(old, new_, &shared_t) == HRW_STATUS_OK, "transition");
    for (size_t i = 0; i < THREAD_KEYS; i++) {
        char key[24];
        int kl = snprintf(key, sizeof key, "key-%zu", i);
        hrw_transition_route(shared_t, (const uint8_t *)key, (size_t)kl, &expected_routes[i]);
    }
    pthread_t threads[THREADS];
    size_t offsets[THREADS];
    for (size_t i = 0; i < THREADS; i++) {
        offsets[i] = i;
        CHECK(pthread_create(&threads[i], NULL, route_worker, &offsets[i]) == 0, "pthread_create");
    }
    for (size_t i = 0; i < THREADS; i++) {
        void *mismatches = NULL;
        pthread_join(threads[i], &mismatches);
        CHECK(mismatches == NULL, "thread %zu: %zu mismatches", i, (size_t)(uintptr_t)mismatches);
    }
    hrw_transition_free(shared_t);
    hrw_view_free(shared_v);
    hrw_placement_free(old);
    hrw_placement_free(new_);
}

/* ---- bad inputs ---------------------------------------------------------------------------- */

static const char VIEW_TEXT[] = "{\"format\": \"hrwhash-view-v1\", \"algorithm\": \"hrw-v1\", \"epoch\": \"5\", "
                                "\"seed\": \"default\", \"nodes\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}";

static void test_errors(const char *default_fp) {
    current = "errors";
    const uint8_t *text = (const uint8_t *)VIEW_TEXT;
    size_t len = sizeof VIEW_TEXT - 1;
    hrw_view *v = NULL, *untouched = (hrw_view *)&v, *out = untouched;
    hrw_error err;
    CHECK(hrw_view_from_json(text, len, NULL, 0, &v, &err) == HRW_STATUS_OK, "load");

    /* NULL where a pointer is required, and NULL with a non-zero length. */
    CHECK(hrw_view_from_json(text, len, NULL, 0, NULL, &err) == HRW_STATUS_NULL_PARAMETER &&
              err.status == HRW_STATUS_NULL_PARAMETER,
          "NULL out");
    CHECK(hrw_view_from_json(NULL, 4, NULL, 0, &out, &err) == HRW_STATUS_NULL_PARAMETER && out == untouched,
          "NULL text");
    CHECK(hrw_view_from_json(NULL, 0, NULL, 0, &out, &err) == HRW_STATUS_INVALID_JSON && out == untouched,
          "empty text");
    CHECK(hrw_view_from_json(text, len, NULL, 16, &out, &err) == HRW_STATUS_NULL_PARAMETER, "NULL seed, length 16");
    CHECK(hrw_view_new(NULL, 1, &out, &err) == HRW_STATUS_NULL_PARAMETER && out == untouched, "view_new NULL");
    CHECK(hrw_view_with_epoch(NULL, 1, &out) == HRW_STATUS_NULL_PARAMETER, "with_epoch NULL");
    CHECK(hrw_view_with_epoch(v, 1, NULL) == HRW_STATUS_NULL_PARAMETER, "with_epoch NULL out");
    uint64_t epoch = 0;
    bool flag = 0;
    size_t n = 0;
    hrw_placement *p = NULL;
    hrw_view_figures vf;
    memset(&vf, 0xAB, sizeof vf);
    CHECK(hrw_view_summary(NULL, &vf) == HRW_STATUS_NULL_PARAMETER && vf.epoch != 0, "summary of NULL");
    CHECK(hrw_view_summary(v, NULL) == HRW_STATUS_NULL_PARAMETER, "summary into NULL");
    CHECK(hrw_view_to_json(NULL, NULL, 0, &n, NULL) == HRW_STATUS_NULL_PARAMETER, "json length of NULL");
    CHECK(hrw_view_to_json(v, NULL, 0, NULL, NULL) == HRW_STATUS_NULL_PARAMETER, "json length to NULL");
    CHECK(hrw_view_placement(NULL, &p) == HRW_STATUS_NULL_PARAMETER && hrw_view_placement(v, NULL) == HRW_STATUS_NULL_PARAMETER,
          "placement NULL");
    CHECK(hrw_view_to_json(v, NULL, 10, &n, &err) == HRW_STATUS_NULL_PARAMETER, "to_json NULL buffer");
    CHECK(hrw_view_to_json(v, (uint8_t *)&epoch, 1, NULL, &err) == HRW_STATUS_NULL_PARAMETER, "to_json NULL length");

    char sfp_hex[SEED_FP_HEX_SIZE];
    seed_fingerprint_hex(v, sfp_hex);
    CHECK(strcmp(sfp_hex, default_fp) == 0, "default seed fingerprint %s", sfp_hex);
    CHECK(view_has_default_seed_of(v, &flag) == HRW_STATUS_OK && flag, "default seed");

    /* Seeds: the wrong length, a secret seed for a default view, a view for another secret. */
    static const uint8_t secret[16] = "0123456789abcdef", other[16] = "fedcba9876543210";
    CHECK(hrw_view_from_json(text, len, secret, 15, &out, &err) == HRW_STATUS_INVALID_SEED_LENGTH &&
              err.expected == 16 && err.actual == 15 && out == untouched,
          "seed of 15 bytes");
    CHECK(hrw_view_from_json(text, len, secret, 16, &out, &err) == HRW_STATUS_SEED_MISMATCH && out == untouched,
          "secret seed for a default view");
    hrw_node nodes[2] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0}};
    hrw_placement_options opts = {secret, 16, NULL, 0};
    hrw_placement *sp = NULL;
    hrw_view *sv = NULL;
    CHECK(hrw_placement_new(nodes, 2, &opts, &sp, NULL) == HRW_STATUS_OK && hrw_view_new(sp, 3, &sv, &err) == HRW_STATUS_OK,
          "secret view");
    size_t jl = 0, written = 0;
    CHECK(hrw_view_to_json(sv, NULL, 0, &jl, NULL) == HRW_STATUS_OK && jl > 0, "secret json length");
    char *json = malloc(jl + 1);
    if (json == NULL) abort();
    CHECK(hrw_view_to_json(sv, (uint8_t *)json, jl, &written, &err) == HRW_STATUS_OK, "secret to_json");
    json[jl] = '\0';
    CHECK(strstr(json, "0123456789abcdef") == NULL && strstr(json, "\"seed\": \"secret\"") != NULL,
          "a secret seed is never written");
    CHECK(view_has_default_seed_of(sv, &flag) == HRW_STATUS_OK && !flag, "secret seed");
    CHECK(hrw_view_from_json((const uint8_t *)json, jl, NULL, 0, &out, &err) == HRW_STATUS_SEED_MISMATCH, "no seed");
    CHECK(hrw_view_from_json((const uint8_t *)json, jl, other, 16, &out, &err) == HRW_STATUS_SEED_MISMATCH,
          "other seed");
    hrw_view *back = NULL;
    CHECK(hrw_view_from_json((const uint8_t *)json, jl, secret, 16, &back, &err) == HRW_STATUS_OK, "right seed");
    free(json);

    /* Bad UTF-8 and a position in the text. */
    static const char bad_utf8[] = "{\"format\": \"\xff\"}";
    CHECK(hrw_view_from_json((const uint8_t *)bad_utf8, sizeof bad_utf8 - 1, NULL, 0, &out, &err) ==
                  HRW_STATUS_INVALID_JSON &&
              err.line == 1 && err.column >= 1 && err.reason == HRW_VIEW_FAULT_NONE,
          "bad UTF-8: line %zu column %zu", err.line, err.column);
    static const char two_lines[] = "{\n  \"format\": x}";
    CHECK(hrw_view_from_json((const uint8_t *)two_lines, sizeof two_lines - 1, NULL, 0, &out, &err) ==
                  HRW_STATUS_INVALID_JSON &&
              err.line == 2,
          "line of the fault: %zu", err.line);

    /* A member name longer than hrw_error.field: its length in full, its start NUL-terminated. */
    char longdoc[400];
    char name[101];
    memset(name, 'z', 100);
    name[100] = '\0';
    snprintf(longdoc, sizeof longdoc, "{\"%s\": 1}", name);
    CHECK(hrw_view_from_json((const uint8_t *)longdoc, strlen(longdoc), NULL, 0, &out, &err) == HRW_STATUS_INVALID_VIEW &&
              err.field_len == 100 && strlen((const char *)err.field) == HRW_ERROR_FIELD_SIZE - 1 &&
              memcmp(err.field, name, HRW_ERROR_FIELD_SIZE - 1) == 0 && err.reason == HRW_VIEW_FAULT_UNKNOWN &&
              !err.has_index,
          "long field name: %zu", err.field_len);

    /* Transitions, diffs and ramps: NULL handles and out-params. */
    hrw_transition *t = NULL;
    hrw_route r;
    double f = -1.0;
    hrw_placement *pv = NULL, *pback = NULL;
    CHECK(hrw_view_placement(v, &pv) == HRW_STATUS_OK && hrw_view_placement(back, &pback) == HRW_STATUS_OK,
          "placements of the views");
    CHECK(hrw_transition_new(pv, NULL, &t) == HRW_STATUS_NULL_PARAMETER && t == NULL, "transition NULL new");
    CHECK(hrw_transition_new(NULL, pv, &t) == HRW_STATUS_NULL_PARAMETER, "transition NULL old");
    CHECK(hrw_transition_new(pv, pv, NULL) == HRW_STATUS_NULL_PARAMETER, "transition NULL out");
    CHECK(hrw_transition_new(NULL, NULL, &t) == HRW_STATUS_NULL_PARAMETER, "transition NULL both");
    CHECK(hrw_transition_new(pv, pback, &t) == HRW_STATUS_OK, "transition across seeds");
    hrw_placement_free(pv);
    hrw_placement_free(pback);
    CHECK(hrw_transition_route(NULL, (const uint8_t *)"k", 1, &r) == HRW_STATUS_NULL_PARAMETER, "route NULL");
    CHECK(hrw_transition_route(t, NULL, 1, &r) == HRW_STATUS_NULL_PARAMETER, "route NULL key");
    CHECK(hrw_transition_route(t, (const uint8_t *)"k", 1, NULL) == HRW_STATUS_NULL_PARAMETER, "route NULL out");
    hrw_transition_figures tf = {-1.0, -1.0};
    CHECK(hrw_transition_summary(NULL, &tf) == HRW_STATUS_NULL_PARAMETER && tf.expected_moved == -1.0,
          "summary of NULL");
    CHECK(hrw_transition_summary(t, NULL) == HRW_STATUS_NULL_PARAMETER, "summary into NULL");
    /* Different seeds: scores unrelated, so a key stays only when two independent choices agree. */
    CHECK(expected_moved_of(t, &f) == HRW_STATUS_OK && f == 0.5, "expected_moved across seeds %g", f);
    CHECK(optimum_of(t, &f) == HRW_STATUS_OK && f == 0.0, "optimum across seeds %g", f);
    hrw_diff *d = NULL;
    CHECK(hrw_transition_diff(NULL, &d) == HRW_STATUS_NULL_PARAMETER && hrw_transition_diff(t, NULL) == HRW_STATUS_NULL_PARAMETER,
          "diff NULL");
    hrw_diff_figures count;
    CHECK(hrw_diff_summary(NULL, &count) == HRW_STATUS_NULL_PARAMETER, "diff counts NULL");
    CHECK(hrw_transition_old_placement(NULL, &p) == HRW_STATUS_NULL_PARAMETER, "old_placement NULL");

    hrw_ramp *ramp = NULL;
    const double limits[] = {0.0, -0.5, 1.5, -0.0};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        CHECK(hrw_ramp_new(v, v, limits[i], &ramp, &err) == HRW_STATUS_INVALID_MOVE_LIMIT && ramp == NULL &&
                  err.value == limits[i],
              "limit %g", limits[i]);
    }
    CHECK(hrw_ramp_new(v, v, nan(""), &ramp, &err) == HRW_STATUS_INVALID_MOVE_LIMIT && isnan(err.value), "limit NaN");
    CHECK(hrw_ramp_new(v, back, 0.5, &ramp, &err) == HRW_STATUS_SEED_MISMATCH && ramp == NULL, "ramp across seeds");
    CHECK(hrw_ramp_new(NULL, v, 0.5, &ramp, &err) == HRW_STATUS_NULL_PARAMETER, "ramp NULL");
    CHECK(hrw_ramp_new(v, v, 0.5, NULL, &err) == HRW_STATUS_NULL_PARAMETER, "ramp NULL out");
    CHECK(hrw_ramp_new(v, v, 0.5, &ramp, &err) == HRW_STATUS_OK && ramp != NULL, "ramp to itself");
    CHECK(ramp_len_of(ramp, &n) == HRW_STATUS_OK && n == 0, "no steps to itself");
    CHECK(hrw_ramp_summary(ramp, NULL) == HRW_STATUS_NULL_PARAMETER &&
              hrw_ramp_summary(NULL, &(hrw_ramp_figures){0}) == HRW_STATUS_NULL_PARAMETER,
          "ramp NULL handle/out");
    /* Epochs past 2^64 - 1: the step views could not be written. */
    hrw_view *last_epoch = NULL, *grown = NULL;
    hrw_placement *three = NULL;
    hrw_node abc[3] = {{(const uint8_t *)"a", 1, NULL, 0}, {(const uint8_t *)"b", 1, NULL, 0}, {(const uint8_t *)"c", 1, NULL, 0}};
    CHECK(hrw_placement_new(abc, 3, NULL, &three, NULL) == HRW_STATUS_OK, "three");
    CHECK(hrw_view_with_epoch(v, UINT64_MAX, &last_epoch) == HRW_STATUS_OK && hrw_view_new(three, 1, &grown, &err) == HRW_STATUS_OK,
          "views");
    hrw_ramp *overflow = NULL;
    CHECK(hrw_ramp_new(last_epoch, grown, 1.0, &overflow, &err) == HRW_STATUS_INVALID_VIEW && overflow == NULL &&
              strcmp((const char *)err.field, "epoch") == 0 && err.reason == HRW_VIEW_FAULT_OUT_OF_RANGE,
          "ramp epoch overflow");

    /* Messages and fault names. */
    for (unsigned s = 17; s <= 20; s++) {
        const char *m = hrw_status_message(s);
        CHECK(m != NULL && strlen(m) > 0 && strcmp(m, "unknown status code") != 0, "message of %u", s);
    }
    CHECK(strcmp(hrw_view_fault_name(0), "") == 0 && strcmp(hrw_view_fault_name(99), "unknown fault") == 0,
          "fault names outside the list");

    /* free(NULL) is a no-op for every handle. */
    hrw_view_free(NULL);
    hrw_transition_free(NULL);
    hrw_diff_free(NULL);
    hrw_ramp_free(NULL);

    hrw_ramp_free(overflow);
    hrw_ramp_free(ramp);
    hrw_view_free(last_epoch);
    hrw_view_free(grown);
    hrw_placement_free(three);
    hrw_transition_free(t);
    hrw_view_free(back);
    hrw_view_free(sv);
    hrw_placement_free(sp);
    hrw_view_free(v);
}

/* hrw_view_from_file reads what hrw_view_from_json parses: a view written to a file loads to the
 * same canonical form; a file that cannot be read is IO with the operating system's errno. */
static void test_from_file(void) {
    current = "from_file";
    char path[] = "/tmp/hrwhash-view-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    const char *text = VIEW_TEXT;
    size_t len = strlen(text);
    CHECK(write(fd, text, len) == (ssize_t)len, "write");
    close(fd);

    hrw_view *a = NULL, *b = NULL, *out = NULL;
    hrw_error err;
    CHECK(hrw_view_from_json((const uint8_t *)text, len, NULL, 0, &a, &err) == HRW_STATUS_OK, "from_json");
    CHECK(hrw_view_from_file((const uint8_t *)path, strlen(path), NULL, 0, &b, &err) == HRW_STATUS_OK, "from_file");
    if (a != NULL && b != NULL) {
        size_t la, lb;
        char *ja = json_of(a, &la), *jb = json_of(b, &lb);
        CHECK(la == lb && memcmp(ja, jb, la) == 0, "the file's view is the text's view");
        free(ja);
        free(jb);
    }

    const char *missing = "/nonexistent-hrwhash-dir/view.json";
    CHECK(hrw_view_from_file((const uint8_t *)missing, strlen(missing), NULL, 0, &out, &err) == HRW_STATUS_IO &&
              err.status == HRW_STATUS_IO && err.os_error == ENOENT && out == NULL,
          "missing file: os_error %d", err.os_error);
    CHECK(hrw_view_from_file((const uint8_t *)"/tmp", 4, NULL, 0, &out, &err) == HRW_STATUS_IO &&
              err.os_error == EISDIR && out == NULL,
          "a directory: os_error %d", err.os_error);
    const uint8_t with_nul[] = {'/', 't', 'm', 'p', 0, 'x'};
    CHECK(hrw_view_from_file(with_nul, sizeof with_nul, NULL, 0, &out, &err) == HRW_STATUS_IO && err.os_error == 0 &&
              out == NULL,
          "a path with NUL");
    CHECK(hrw_view_from_file(NULL, 3, NULL, 0, &out, &err) == HRW_STATUS_NULL_PARAMETER, "NULL path");
    CHECK(hrw_view_from_file((const uint8_t *)path, strlen(path), NULL, 0, NULL, &err) == HRW_STATUS_NULL_PARAMETER,
          "NULL out");
    const uint8_t seed[16] = {1};
    CHECK(hrw_view_from_file((const uint8_t *)path, strlen(path), seed, 16, &out, &err) == HRW_STATUS_SEED_MISMATCH,
          "a secret seed for a default-seed view");
    CHECK(strcmp(hrw_status_message(HRW_STATUS_IO), "the file could not be read") == 0, "IO message");

    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "reopen");
    if (f != NULL) {
        fputs("{\"format\": ", f);
        fclose(f);
    }
    CHECK(hrw_view_from_file((const uint8_t *)path, strlen(path), NULL, 0, &out, &err) == HRW_STATUS_INVALID_JSON &&
              err.line == 1 && err.column >= 1,
          "truncated document: line %zu column %zu", err.line, err.column);
    /* An endless stream is read only up to its first byte no JSON holds. */
    CHECK(hrw_view_from_file((const uint8_t *)"/dev/zero", 9, NULL, 0, &out, &err) == HRW_STATUS_INVALID_JSON &&
              err.line == 1 && err.column == 1,
          "/dev/zero: line %zu column %zu", err.line, err.column);
    unlink(path);
    hrw_view_free(a);
    hrw_view_free(b);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s conformance/views.json\n", argv[0]);
        return 2;
    }
    jvalue *root = json_load(argv[1]);
    if (root == NULL) return 1;
    check_shape(root);
    const char *default_fp = json_get(root, "default_seed_fingerprint")->str;
    run_kind(root, "valid", run_valid);
    run_kind(root, "equivalent", run_equivalent);
    run_kind(root, "invalid", run_invalid);
    run_kind(root, "movement", run_movement);
    run_kind(root, "ramps", run_ramp);
    test_transitions();
    test_domain_routes();
    test_threads();
    test_errors(default_fp);
    test_from_file();
    json_free(root);
    return check_report("test_views");
}
