// Runs conformance/api-cases.json (the bad-input contract of conformance/API.md) through
// hrwhash.hpp: every case whose not_expressible map does not name "cpp" and whose op C++ offers.
// A case asserts the status its variant maps to and every detail it gives (on hrwhash::Error),
// or its result. An unknown op, value form, result key or language fails the test.
#include <hrwhash.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include "json.h"
#include "status_names.h"
}

namespace {

// A case that uses a form this runner cannot pose in C++: a failure, never a skip (the file's
// not_expressible map is the only way to leave a case out).
struct Cannot {
    std::string what;
};

const jvalue *get(const jvalue *obj, const char *key) { return json_get(obj, key); }

const jvalue *need(const jvalue *obj, const char *key) {
    const jvalue *v = json_get(obj, key);
    if (v == nullptr) throw Cannot{std::string("missing ") + key};
    return v;
}

bool only(const jvalue *v, const char *key) {
    return v->type == J_OBJ && v->len == 1 && std::strcmp(v->keys[0], key) == 0;
}

std::string from_hex(const jvalue *v) {
    if (v->type != J_STR || v->len % 2 != 0) throw Cannot{"bad hex"};
    std::string out;
    for (std::size_t i = 0; i < v->len; i += 2)
        out.push_back(static_cast<char>(std::stoul(std::string(v->str + i, 2), nullptr, 16)));
    return out;
}

// Text and {"bytes": hex} are byte strings; anything else (null, numbers, UTF-16 with lone
// surrogates, released buffers) cannot be a std::string_view argument.
std::string text(const jvalue *v) {
    if (v->type == J_STR) return std::string(v->str, v->len);
    if (only(v, "bytes")) return from_hex(&v->items[0]);
    throw Cannot{"a value form C++ cannot pose as bytes"};
}

std::vector<std::string> texts(const jvalue *v) {
    std::vector<std::string> out;
    if (v->type == J_ARR) {
        for (std::size_t i = 0; i < v->len; i++) out.push_back(text(&v->items[i]));
        return out;
    }
    if (only(v, "range")) {
        const jvalue *r = &v->items[0];
        std::string prefix = text(need(r, "prefix"));
        std::size_t count = std::strtoull(need(r, "count")->str, nullptr, 10);
        out.reserve(count);
        for (std::size_t i = 0; i < count; i++) out.push_back(prefix + std::to_string(i));
        return out;
    }
    throw Cannot{"a value form C++ cannot pose as a list"};
}

double number(const jvalue *v) {
    if (v->type == J_NUM) return std::strtod(v->str, nullptr);
    if (only(v, "float") && v->items[0].type == J_STR) {
        std::string f = v->items[0].str;
        if (f == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (f == "inf") return std::numeric_limits<double>::infinity();
        if (f == "-inf") return -std::numeric_limits<double>::infinity();
    }
    throw Cannot{"a value form C++ cannot pose as a double"};
}

std::size_t count(const jvalue *v) {
    const char *digits = nullptr;
    if (v->type == J_NUM) digits = v->str;
    if (only(v, "int") && v->items[0].type == J_STR) digits = v->items[0].str;
    if (digits == nullptr || *digits == '\0' || std::strspn(digits, "0123456789") != std::strlen(digits))
        throw Cannot{"a count C++ cannot pose as std::size_t"};
    errno = 0;
    unsigned long long n = std::strtoull(digits, nullptr, 10);
    if (errno == ERANGE || n > std::numeric_limits<std::size_t>::max())
        throw Cannot{"a count beyond std::size_t"};
    return static_cast<std::size_t>(n);
}

std::optional<std::string> optional_text(const jvalue *v) {
    if (v == nullptr || v->type == J_NULL) return std::nullopt;
    return text(v);
}

// A membership from "args" or "placement": ids with optional parallel lists and a seed.
std::unique_ptr<hrwhash::Placement> build(const jvalue *args) {
    for (std::size_t i = 0; i < args->len; i++) {
        std::string key = args->keys[i];
        if (key != "nodes" && key != "weights" && key != "domains" && key != "seed")
            throw Cannot{"argument " + key};
    }
    std::vector<std::string> ids = texts(need(args, "nodes"));
    hrwhash::Options options;
    if (const jvalue *w = get(args, "weights")) {
        if (w->type != J_ARR) throw Cannot{"weights that are not a list"};
        options.weights.emplace();
        for (std::size_t i = 0; i < w->len; i++) options.weights->push_back(number(&w->items[i]));
    }
    std::vector<std::optional<std::string>> domains;
    if (const jvalue *d = get(args, "domains")) {
        if (d->type != J_ARR) throw Cannot{"domains that are not a list"};
        for (std::size_t i = 0; i < d->len; i++) domains.push_back(optional_text(&d->items[i]));
        options.domains.emplace();
        for (auto &dom : domains)
            options.domains->push_back(dom ? std::optional<std::string_view>(*dom) : std::nullopt);
    }
    std::optional<std::string> seed = optional_text(get(args, "seed"));
    if (seed) options.seed = *seed;
    return std::make_unique<hrwhash::Placement>(ids, options);
}

hrw_status status_of(const std::string &variant) {
    hrw_status status;
    if (!hrw_status_of_name(variant.c_str(), &status)) throw Cannot{"unknown variant " + variant};
    return status;
}

// What a call gave back when it succeeded.
struct Answer {
    std::unique_ptr<hrwhash::Placement> built;
    std::optional<std::size_t> len;
    std::vector<std::size_t> row_lens;
    std::optional<std::uint64_t> fixed;
    std::optional<std::uint64_t> score;
};

// Ops whose errors carry details (index, first_index, expected, actual) in C++.
bool reports_details(const std::string &op) {
    return op == "new" || op == "with_node" || op == "with_weight" || op == "without_node" ||
           op == "weight_fixed" || op == "key_digest" || op == "node_digest" || op == "score";
}

Answer run(const std::string &op, const jvalue *args, const hrwhash::Placement *p) {
    Answer a;
    auto on = [&]() -> const hrwhash::Placement & {
        if (p == nullptr) throw Cannot{"an op on a placement without one"};
        return *p;
    };
    if (op == "new") {
        a.built = build(args);
    } else if (op == "owner") {
        on().owner(text(need(args, "key")));
    } else if (op == "rank" || op == "replicas") {
        std::string key = text(need(args, "key"));
        std::size_t k = count(need(args, "k"));
        a.len = (op == "rank" ? on().rank(key, k) : on().replicas(key, k)).size();
    } else if (op == "replicas_strict") {
        a.len = on().replicas_strict(text(need(args, "key")), count(need(args, "k"))).size();
    } else if (op == "score") {
        a.score = on().score(text(need(args, "key")), text(need(args, "node")));
    } else if (op == "owners") {
        a.len = on().owners(texts(need(args, "keys"))).size();
    } else if (op == "rank_many") {
        std::vector<std::string> keys = texts(need(args, "keys"));
        auto rows = on().rank_many(keys, count(need(args, "k")));
        a.len = rows.size();
        for (auto &r : rows) a.row_lens.push_back(r.size());
    } else if (op == "with_node") {
        std::string id = text(need(args, "node"));
        hrwhash::Node node{id};
        if (const jvalue *w = get(args, "weight")) node.weight = number(w);
        std::optional<std::string> domain = optional_text(get(args, "domain"));
        if (domain) node.domain = *domain;
        a.built = std::make_unique<hrwhash::Placement>(on().with_node(node));
    } else if (op == "without_node") {
        a.built = std::make_unique<hrwhash::Placement>(on().without_node(text(need(args, "node"))));
    } else if (op == "with_weight") {
        a.built = std::make_unique<hrwhash::Placement>(
            on().with_weight(text(need(args, "node")), number(need(args, "weight"))));
    } else if (op == "weight_fixed") {
        a.fixed = hrwhash::weight_to_fixed(number(need(args, "weight")));
    } else if (op == "key_digest" || op == "node_digest") {
        std::string v = text(need(args, op == "key_digest" ? "key" : "node"));
        std::optional<std::string> seed = optional_text(get(args, "seed"));
        std::optional<std::string_view> seed_view;
        if (seed) seed_view = *seed;
        if (op == "key_digest") hrwhash::key_digest(v, seed_view);
        else hrwhash::node_digest(v, seed_view);
    } else {
        throw Cannot{"unknown op " + op};
    }
    return a;
}

void check_result(const jvalue *result, const Answer &a, const std::string &default_seed) {
    for (std::size_t i = 0; i < result->len; i++) {
        std::string key = result->keys[i];
        const jvalue *v = &result->items[i];
        if (key == "ok") {
            EXPECT_TRUE(v->type == J_BOOL && v->boolean);
        } else if (key == "len") {
            if (!a.len) throw Cannot{"a length this call does not give"};
            EXPECT_EQ(*a.len, count(v));
        } else if (key == "row_len") {
            if (!a.len) throw Cannot{"rows this call does not give"};
            for (std::size_t r : a.row_lens) EXPECT_EQ(r, count(v));
        } else if (key == "fixed") {
            if (!a.fixed || v->type != J_STR) throw Cannot{"a fixed point this call does not give"};
            EXPECT_EQ(*a.fixed, std::strtoull(v->str, nullptr, 10));
        } else if (key == "score") {
            if (!a.score || v->type != J_STR) throw Cannot{"a score this call does not give"};
            EXPECT_EQ(*a.score, std::strtoull(v->str, nullptr, 10));
        } else if (!a.built) {
            throw Cannot{"a membership result of a call that builds none"};
        } else if (key == "selectable") {
            EXPECT_EQ(a.built->selectable_size(), count(v));
        } else if (key == "weights") {
            ASSERT_EQ(v->type, J_ARR);
            ASSERT_EQ(a.built->size(), v->len);
            for (std::size_t j = 0; j < v->len; j++)
                EXPECT_EQ(a.built->node_weight(j), number(&v->items[j])) << "node " << j;
        } else if (key == "owner_of_every_key" && v->type == J_STR) {
            for (int j = 0; j < 64; j++) {
                std::string k = std::to_string(j);
                EXPECT_EQ(a.built->node_id(a.built->owner(k)), std::string_view(v->str, v->len))
                    << "key " << k;
            }
        } else if (key == "default_seed" && v->type == J_BOOL) {
            std::string seed(HRW_SEED_LEN, '\0');
            ASSERT_EQ(hrw_placement_seed(a.built->get(), reinterpret_cast<std::uint8_t *>(seed.data()),
                                         seed.size()),
                      HRW_STATUS_OK);
            EXPECT_EQ(seed == default_seed, v->boolean);
        } else {
            throw Cannot{"unknown result key " + key};
        }
    }
}

bool listed(const jvalue *list, const char *name) {
    for (std::size_t i = 0; list != nullptr && list->type == J_ARR && i < list->len; i++)
        if (list->items[i].type == J_STR && std::strcmp(list->items[i].str, name) == 0) return true;
    return false;
}

void check_languages(const jvalue *map, const jvalue *languages) {
    for (std::size_t i = 0; map != nullptr && map->type == J_OBJ && i < map->len; i++)
        if (std::strcmp(map->keys[i], "_comment") != 0) {
            EXPECT_TRUE(listed(languages, map->keys[i])) << "unknown language " << map->keys[i];
        }
}

struct File {
    jvalue *root;
    explicit File(const char *path) : root(json_load(path)) {}
    ~File() { json_free(root); }
};

}  // namespace

TEST(ApiCases, EveryCase) {
    File cases_file(HRWHASH_API_CASES), vectors_file(HRWHASH_VECTORS);
    const jvalue *root = cases_file.root;
    ASSERT_NE(root, nullptr) << HRWHASH_API_CASES;
    ASSERT_NE(vectors_file.root, nullptr) << HRWHASH_VECTORS;
    const std::string default_seed = from_hex(need(vectors_file.root, "default_seed"));
    EXPECT_STREQ(need(root, "version")->str, "hrwhash-api-v1");
    const jvalue *languages = need(root, "languages");
    ASSERT_TRUE(listed(languages, "cpp"));
    check_languages(get(root, "not_offered"), languages);
    const jvalue *not_offered = get(get(root, "not_offered"), "cpp");
    static const char *case_keys[] = {"name",     "op",     "args",     "placement",
                                      "error",    "index",  "first_index", "expected",
                                      "actual",   "result", "not_expressible"};
    const jvalue *cases = need(root, "cases");
    std::size_t ran = 0, inexpressible = 0, unoffered = 0;
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        const std::string name = need(c, "name")->str, op = need(c, "op")->str;
        SCOPED_TRACE(name);
        for (std::size_t j = 0; j < c->len; j++) {
            bool known = false;
            for (const char *k : case_keys) known |= std::strcmp(c->keys[j], k) == 0;
            EXPECT_TRUE(known) << "unknown case key " << c->keys[j];
        }
        const jvalue *ne = get(c, "not_expressible");
        check_languages(ne, languages);
        if (get(ne, "cpp") != nullptr) {
            inexpressible++;
            continue;
        }
        if (listed(not_offered, op.c_str())) {
            unoffered++;
            continue;
        }
        ran++;
        const jvalue *error = get(c, "error"), *result = get(c, "result");
        try {
            if ((error == nullptr) == (result == nullptr)) throw Cannot{"neither or both of error, result"};
            std::unique_ptr<hrwhash::Placement> placed;
            if (const jvalue *pj = get(c, "placement")) placed = build(pj);
            try {
                Answer a = run(op, need(c, "args"), placed.get());
                if (error != nullptr) {
                    ADD_FAILURE() << "no error, want " << error->str;
                } else {
                    check_result(result, a, default_seed);
                }
            } catch (const hrwhash::Error &e) {
                if (error == nullptr) {
                    ADD_FAILURE() << "unexpected error: " << e.what();
                    continue;
                }
                EXPECT_EQ(e.status(), status_of(error->str)) << e.what();
                const std::pair<const char *, std::size_t> details[] = {
                    {"index", e.index()},
                    {"first_index", e.first_index()},
                    {"expected", e.expected()},
                    {"actual", e.actual()},
                };
                for (auto &[detail, got] : details) {
                    const jvalue *want = get(c, detail);
                    if (want == nullptr) continue;
                    if (!reports_details(op)) throw Cannot{"a detail this call does not report"};
                    EXPECT_EQ(got, count(want)) << detail << ": " << e.what();
                }
            }
        } catch (const Cannot &cannot) {
            ADD_FAILURE() << "cannot pose this case in C++: " << cannot.what;
        }
    }
    std::cout << "api-cases: " << ran << " run, " << inexpressible
              << " not expressible in C++, " << unoffered << " not offered (ops:";
    for (std::size_t i = 0; not_offered != nullptr && i < not_offered->len; i++)
        std::cout << " " << not_offered->items[i].str;
    std::cout << ")\n";
    EXPECT_GT(ran, 0u);
}
