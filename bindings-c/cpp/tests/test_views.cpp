// Every case of conformance/views.json through hrwhash_view.hpp, transitions against plain
// lookups, and the errors of the C++ layer (a file that cannot be read, the statuses as
// exceptions with their details).
#include <hrwhash_view.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

extern "C" {
#include "json.h"
}

namespace {

struct Views {
    jvalue *root = json_load(HRWHASH_VIEWS);
    ~Views() { json_free(root); }
};

const jvalue *views() {
    static Views v;
    return v.root;
}

const jvalue *kind(const char *name) {
    const jvalue *root = views();
    if (root == nullptr) return nullptr;
    return json_get(root, name);
}

std::string str(const jvalue *v) { return std::string(v->str, v->len); }

std::string unhex(const std::string &h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoul(h.substr(i, 2), nullptr, 16)));
    return out;
}

std::string document(const jvalue *c) {
    if (const jvalue *h = json_get(c, "document_hex")) return unhex(str(h));
    return str(json_get(c, "document"));
}

std::optional<std::string> seed_of(const jvalue *c) {
    if (const jvalue *s = json_get(c, "seed")) return unhex(str(s));
    return std::nullopt;
}

std::optional<std::string_view> view_of(const std::optional<std::string> &s) {
    if (s) return std::string_view(*s);
    return std::nullopt;
}

std::uint64_t u64(const jvalue *v) { return std::strtoull(v->str, nullptr, 10); }
double num(const jvalue *v) { return std::strtod(v->str, nullptr); }

// The file's error names, mapped here rather than by the library.
const std::map<std::string, hrw_status> &statuses() {
    static const std::map<std::string, hrw_status> m = {
        {"EmptyMembership", HRW_STATUS_EMPTY_MEMBERSHIP}, {"EmptyNodeId", HRW_STATUS_EMPTY_NODE_ID},
        {"DuplicateNodeId", HRW_STATUS_DUPLICATE_NODE_ID}, {"AllWeightsZero", HRW_STATUS_ALL_WEIGHTS_ZERO},
        {"InvalidJson", HRW_STATUS_INVALID_JSON},          {"InvalidView", HRW_STATUS_INVALID_VIEW},
        {"SeedMismatch", HRW_STATUS_SEED_MISMATCH},        {"InvalidMoveLimit", HRW_STATUS_INVALID_MOVE_LIMIT},
        {"InvalidWeight", HRW_STATUS_INVALID_WEIGHT},
    };
    return m;
}

void expect_error(const jvalue *c, const hrwhash::Error &e) {
    const std::string name = str(json_get(c, "error"));
    ASSERT_EQ(statuses().count(name), 1u) << name;
    EXPECT_EQ(e.status(), statuses().at(name)) << e.what();
    const jvalue *index = json_get(c, "index");
    if (name == "InvalidView") {
        EXPECT_EQ(e.field(), str(json_get(c, "field")));
        EXPECT_EQ(e.reason_name(), str(json_get(c, "reason")));
        if (index->type == J_NULL) {
            EXPECT_FALSE(e.node_index().has_value());
        } else {
            EXPECT_EQ(e.node_index(), std::optional<std::size_t>(u64(index)));
        }
        EXPECT_NE(std::string(e.what()).find(str(json_get(c, "reason"))), std::string::npos) << e.what();
    } else if (index != nullptr) {
        EXPECT_EQ(e.index(), u64(index));
    }
    if (const jvalue *first = json_get(c, "first_index")) {
        EXPECT_EQ(e.first_index(), u64(first));
    }
    if (name == "InvalidJson") {
        EXPECT_GE(e.line(), 1u);
        const std::string where = "line " + std::to_string(e.line()) + ", column " + std::to_string(e.column());
        EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
    if (name == "InvalidMoveLimit") {
        EXPECT_EQ(e.value(), num(json_get(c, "max_move")));
    }
}

std::string temp_file(const std::string &contents) {
    char path[] = "/tmp/hrwhash-view-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    std::FILE *f = fdopen(fd, "wb");
    std::fwrite(contents.data(), 1, contents.size(), f);
    std::fclose(f);
    return path;
}

}  // namespace

TEST(Views, FileHasCases) {
    ASSERT_NE(views(), nullptr);
    EXPECT_EQ(str(json_get(views(), "format")), "hrwhash-view-v1");
    for (const char *k : {"valid", "equivalent", "invalid", "movement", "ramps"}) {
        ASSERT_NE(kind(k), nullptr) << k;
        EXPECT_GT(kind(k)->len, 0u) << k;
    }
}

TEST(Views, DefaultSeedFingerprint) {
    hrwhash::View v(hrwhash::Placement({"a"}), 0);
    EXPECT_EQ(v.seed_fingerprint_hex(), str(json_get(views(), "default_seed_fingerprint")));
    EXPECT_TRUE(v.has_default_seed());
}

TEST(Views, Valid) {
    const jvalue *cases = kind("valid");
    ASSERT_NE(cases, nullptr);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        const auto seed = seed_of(c);
        hrwhash::View v = hrwhash::View::from_json(document(c), view_of(seed));
        const std::string canonical = str(json_get(c, "canonical"));
        EXPECT_EQ(v.to_json(), canonical);
        EXPECT_EQ(v.fingerprint_hex(), str(json_get(c, "fingerprint")));
        EXPECT_EQ(v.seed_fingerprint_hex(), str(json_get(c, "seed_fingerprint")));
        const std::string raw = unhex(str(json_get(c, "fingerprint")));
        const auto fp = v.fingerprint();
        EXPECT_EQ(std::string(fp.begin(), fp.end()), raw);
        EXPECT_EQ(v.epoch(), u64(json_get(c, "epoch")));
        EXPECT_EQ(v.has_default_seed(), canonical.find("\"seed\": \"default\"") != std::string::npos);
        hrwhash::Placement p = v.placement();
        const jvalue *owners = json_get(c, "owners");
        for (std::size_t j = 0; j < owners->len; j++)
            EXPECT_EQ(p.owner(str(json_get(&owners->items[j], "key"))), u64(json_get(&owners->items[j], "owner")));
        // From a file, from the canonical form, and rebuilt from the placement.
        const std::string path = temp_file(document(c));
        EXPECT_EQ(hrwhash::View::from_file(path, view_of(seed)), v);
        std::remove(path.c_str());
        hrwhash::View again = hrwhash::View::from_json(canonical, view_of(seed));
        EXPECT_EQ(again.to_json(), canonical);
        EXPECT_EQ(again, v);
        EXPECT_EQ(hrwhash::View(p, v.epoch()).to_json(), canonical);
        EXPECT_NE(v.with_epoch(v.epoch() ^ 1), v);
        EXPECT_EQ(v.with_epoch(v.epoch() ^ 1).fingerprint(), v.fingerprint());
    }
}

TEST(Views, Equivalent) {
    const jvalue *cases = kind("equivalent");
    ASSERT_NE(cases, nullptr);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        auto a = hrwhash::View::from_json(str(json_get(c, "a")));
        auto b = hrwhash::View::from_json(str(json_get(c, "b")));
        EXPECT_EQ(a.fingerprint_hex(), str(json_get(c, "fingerprint")));
        EXPECT_EQ(b.fingerprint_hex(), a.fingerprint_hex());
        EXPECT_EQ(a.with_epoch(0).to_json(), b.with_epoch(0).to_json());
    }
}

TEST(Views, Invalid) {
    const jvalue *cases = kind("invalid");
    ASSERT_NE(cases, nullptr);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        const auto seed = seed_of(c);
        const std::string path = temp_file(document(c));
        for (int from_file = 0; from_file < 2; from_file++) {
            try {
                if (from_file)
                    (void)hrwhash::View::from_file(path, view_of(seed));
                else
                    (void)hrwhash::View::from_json(document(c), view_of(seed));
                ADD_FAILURE() << "loaded";
            } catch (const hrwhash::Error &e) {
                expect_error(c, e);
            }
        }
        std::remove(path.c_str());
    }
}

TEST(Views, Movement) {
    const jvalue *cases = kind("movement");
    ASSERT_NE(cases, nullptr);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        auto side = [&](const char *which) {
            std::vector<hrwhash::Node> nodes;
            const jvalue *list = json_get(c, "nodes");
            for (std::size_t j = 0; j < list->len; j++) {
                const std::uint64_t w = u64(json_get(&list->items[j], which));
                if (w == 0) continue;
                // Every W of the file has at most 53 significant bits: W / 2^32 is exact.
                const double weight = static_cast<double>(w) / 4294967296.0;
                EXPECT_EQ(hrwhash::weight_to_fixed(weight), w);
                nodes.push_back(hrwhash::Node{json_get(&list->items[j], "id")->str, weight});
            }
            return hrwhash::Placement(nodes);
        };
        hrwhash::Placement old = side("old"), now = side("new");
        hrwhash::Transition t(old, now);
        EXPECT_EQ(t.expected_moved(), num(json_get(c, "expected_moved")));
        EXPECT_EQ(t.optimum(), num(json_get(c, "optimum")));
        hrwhash::Transition tv(hrwhash::View(old, 1), hrwhash::View(now, 2));
        EXPECT_EQ(tv.expected_moved(), t.expected_moved());
        hrwhash::Diff d = t.diff();
        EXPECT_EQ(d.expected_moved(), t.expected_moved());
        EXPECT_EQ(d.optimum(), t.optimum());
    }
}

TEST(Views, Ramps) {
    const jvalue *cases = kind("ramps");
    ASSERT_NE(cases, nullptr);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        auto old = hrwhash::View::from_json(str(json_get(c, "from")));
        auto now = hrwhash::View::from_json(str(json_get(c, "to")));
        const double limit = num(json_get(c, "max_move"));
        if (json_get(c, "error") != nullptr) {
            try {
                hrwhash::RampPlan plan(old, now, limit);
                ADD_FAILURE() << "planned";
            } catch (const hrwhash::Error &e) {
                expect_error(c, e);
            }
            continue;
        }
        EXPECT_EQ(u64(json_get(c, "grid")), hrwhash::ramp_grid);
        hrwhash::RampPlan plan(old, now, limit);
        EXPECT_EQ(plan.max_move(), limit);
        const jvalue *steps = json_get(c, "steps");
        const auto got = plan.steps();
        ASSERT_EQ(got.size(), steps->len);
        for (std::size_t s = 0; s < got.size(); s++) {
            const jvalue *want = &steps->items[s];
            EXPECT_EQ(got[s].epoch, u64(json_get(want, "epoch")));
            EXPECT_EQ(got[s].position, u64(json_get(want, "position")));
            EXPECT_EQ(got[s].moved, num(json_get(want, "moved")));
            EXPECT_LE(got[s].moved, limit);
            EXPECT_EQ(got[s].removes_drained, json_get(want, "removes_drained")->boolean != 0);
            hrwhash::View sv = plan.view(s);
            EXPECT_EQ(sv.epoch(), got[s].epoch);
            hrwhash::Placement p = sv.placement();
            const jvalue *weights = json_get(want, "weights");
            ASSERT_EQ(p.size(), weights->len);
            for (std::size_t n = 0; n < p.size(); n++) {
                EXPECT_EQ(p.node_id(n), str(json_get(&weights->items[n], "id")));
                EXPECT_EQ(hrwhash::weight_to_fixed(p.node_weight(n)), u64(json_get(&weights->items[n], "weight")));
            }
        }
        EXPECT_EQ(plan.total_moved(), num(json_get(c, "total_moved")));
        EXPECT_EQ(plan.direct_moved(), num(json_get(c, "direct_moved")));
        EXPECT_EQ(plan.optimum(), num(json_get(c, "optimum")));
        if (got.empty()) {
            EXPECT_EQ(old.fingerprint(), now.fingerprint());
        } else {
            EXPECT_EQ(plan.view(got.size() - 1).fingerprint(), now.fingerprint());
            EXPECT_EQ(plan.view(got.size() - 1).epoch(), old.epoch() + got.size());
        }
        try {
            (void)plan.view(got.size());
            ADD_FAILURE() << "a view past the last step";
        } catch (const hrwhash::Error &e) {
            EXPECT_EQ(e.status(), HRW_STATUS_INDEX_OUT_OF_RANGE);
            EXPECT_EQ(e.index(), got.size());
            EXPECT_EQ(e.expected(), got.size());
            if (!got.empty()) {
                const std::string want = "(index " + std::to_string(got.size()) + ", not below " +
                                         std::to_string(got.size()) + ")";
                EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
            }
        }
    }
}

TEST(Views, TransitionAgreesWithLookups) {
    hrwhash::Placement old({"a", "b", "c", "d"});
    hrwhash::Placement now({hrwhash::Node{"b"}, hrwhash::Node{"c", 2.0}, hrwhash::Node{"e"}, hrwhash::Node{"a", 0.0}});
    hrwhash::Transition t(hrwhash::View(old, 1), hrwhash::View(now, 2));
    EXPECT_EQ(t.old_to_new(0), std::optional<std::size_t>(3));
    EXPECT_EQ(t.old_to_new(3), std::nullopt);
    EXPECT_EQ(t.new_to_old(2), std::nullopt);
    hrwhash::Diff d = t.diff(), h1 = t.diff(), h2 = t.diff();
    std::vector<std::string> keys;
    std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> flows;
    std::vector<std::uint64_t> before(4), after(4);
    std::vector<std::size_t> moved;
    for (int i = 0; i < 1000; i++) keys.push_back("key-" + std::to_string(i));
    for (std::size_t i = 0; i < keys.size(); i++) {
        const std::string &k = keys[i];
        const std::size_t o = old.owner(k), n = now.owner(k);
        const bool differ = old.node_id(o) != now.node_id(n);
        hrwhash::Route r = t.route(k);
        EXPECT_EQ(r.old_index, o);
        EXPECT_EQ(r.new_index, n);
        EXPECT_EQ(r.moved, differ);
        before[o]++;
        after[n]++;
        if (differ) {
            flows[{o, n}]++;
            moved.push_back(i);
        }
        (i % 2 ? h1 : h2).add(k);
        hrwhash::RouteSet s = t.route_top(k, 2);
        EXPECT_EQ(s.before, old.rank(k, 2));
        EXPECT_EQ(s.after, now.rank(k, 2));
        std::vector<std::size_t> add, drop;
        for (std::size_t a : s.after) {
            bool in = false;
            for (std::size_t b : s.before) in |= now.node_id(a) == old.node_id(b);
            if (!in) add.push_back(a);
        }
        for (std::size_t b : s.before) {
            bool in = false;
            for (std::size_t a : s.after) in |= now.node_id(a) == old.node_id(b);
            if (!in) drop.push_back(b);
        }
        EXPECT_EQ(s.add, add);
        EXPECT_EQ(s.drop, drop);
    }
    d.add_many(keys);
    h1.merge(h2);
    for (const hrwhash::Diff *x : {&d, &h1}) {
        EXPECT_EQ(x->keys(), keys.size());
        EXPECT_EQ(x->moved(), moved.size());
        std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> got;
        for (const hrwhash::Flow &f : x->flows()) got[{f.from, f.to}] = f.count;
        EXPECT_EQ(got, flows);
        for (const hrwhash::NodeChange &n : x->nodes()) {
            EXPECT_EQ(n.before, n.old_index ? before[*n.old_index] : 0u);
            EXPECT_EQ(n.after, n.new_index ? after[*n.new_index] : 0u);
        }
        EXPECT_EQ(x->nodes().size(), 5u);
    }
    const auto plan = t.plan(keys);
    ASSERT_EQ(plan.size(), moved.size());
    for (std::size_t i = 0; i < plan.size(); i++) {
        EXPECT_EQ(plan[i].key_index, moved[i]);
        EXPECT_EQ(plan[i].from, old.owner(keys[moved[i]]));
        EXPECT_EQ(plan[i].to, now.owner(keys[moved[i]]));
    }
    hrwhash::Transition other(old, now);
    hrwhash::Diff foreign = other.diff();
    try {
        d.merge(foreign);
        ADD_FAILURE() << "merged diffs of two transitions";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_NULL_PARAMETER);
    }
    EXPECT_EQ(d.keys(), keys.size());
}

TEST(Views, ReplicaDiffAgreesWithRouteTop) {
    hrwhash::Placement old({"a", "b", "c", "d"});
    hrwhash::Placement now({hrwhash::Node{"b"}, hrwhash::Node{"c", 2.0}, hrwhash::Node{"e"}, hrwhash::Node{"a", 0.0}});
    hrwhash::Transition t(old, now);
    std::vector<std::string> keys;
    for (int i = 0; i < 1000; i++) keys.push_back("key-" + std::to_string(i));
    hrwhash::Diff d = t.diff_top(2), owners = t.diff();
    d.add_many(keys);
    owners.add_many(keys);
    // Per row: replicas before and after, and how often the node is in add and drop.
    std::vector<std::uint64_t> before(4), after(4), dropped(4), added(4);
    std::vector<std::size_t> changed;
    for (std::size_t i = 0; i < keys.size(); i++) {
        const hrwhash::RouteSet s = t.route_top(keys[i], 2);
        for (std::size_t o : s.before) before[o]++;
        for (std::size_t n : s.after) after[n]++;
        for (std::size_t o : s.drop) dropped[o]++;
        for (std::size_t n : s.add) added[n]++;
        if (!s.add.empty() || !s.drop.empty()) changed.push_back(i);
    }
    EXPECT_EQ(d.keys(), keys.size());
    EXPECT_EQ(d.moved(), changed.size());
    EXPECT_TRUE(d.flows().empty());
    const std::vector<hrwhash::NodeChange> rows = d.nodes();
    ASSERT_EQ(rows.size(), 5u);
    std::uint64_t sum = 0;
    for (const hrwhash::NodeChange &n : rows) {
        EXPECT_EQ(n.before, n.old_index ? before[*n.old_index] : 0u);
        EXPECT_EQ(n.dropped, n.old_index ? dropped[*n.old_index] : 0u);
        EXPECT_EQ(n.after, n.new_index ? after[*n.new_index] : 0u);
        EXPECT_EQ(n.added, n.new_index ? added[*n.new_index] : 0u);
        sum += n.added;
    }
    EXPECT_GT(sum, 0u);
    // An owners diff's moves are its flows, summed per node.
    std::uint64_t moves = 0;
    for (const hrwhash::NodeChange &n : owners.nodes()) moves += n.added;
    EXPECT_EQ(moves, owners.moved());
    const auto plan = t.plan_top(keys, 2);
    ASSERT_EQ(plan.size(), changed.size());
    for (std::size_t i = 0; i < plan.size(); i++) {
        EXPECT_EQ(plan[i].key_index, changed[i]);
        const hrwhash::RouteSet s = t.route_top(keys[changed[i]], 2);
        EXPECT_EQ(plan[i].route.add, s.add);
        EXPECT_EQ(plan[i].route.drop, s.drop);
        EXPECT_EQ(plan[i].route.before, s.before);
    }
    try {
        d.merge(owners);
        ADD_FAILURE() << "merged a replica diff with an owners diff";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_NULL_PARAMETER);
    }
}

TEST(Views, Errors) {
    const std::string text = hrwhash::View(hrwhash::Placement({"a", "b"}), 3).to_json();
    auto status_of = [](auto &&f) {
        try {
            f();
        } catch (const hrwhash::Error &e) {
            return e.status();
        }
        return HRW_STATUS_OK;
    };
    EXPECT_EQ(status_of([&] { hrwhash::View::from_json(text, std::string_view("short")); }),
              HRW_STATUS_INVALID_SEED_LENGTH);
    EXPECT_EQ(status_of([&] { hrwhash::View::from_json(text, std::string_view("0123456789abcdef")); }),
              HRW_STATUS_SEED_MISMATCH);
    EXPECT_EQ(status_of([&] { hrwhash::View::from_json("{\"format\": \"\xff\"}"); }), HRW_STATUS_INVALID_JSON);
    hrwhash::View v = hrwhash::View::from_json(text);
    hrwhash::Placement secret_p({"a", "b"}, hrwhash::Options{std::nullopt, std::nullopt, "0123456789abcdef"});
    hrwhash::View secret(secret_p, 3);
    EXPECT_EQ(secret.to_json().find("0123456789abcdef"), std::string::npos);
    EXPECT_FALSE(secret.has_default_seed());
    EXPECT_EQ(hrwhash::View::from_json(secret.to_json(), std::string_view("0123456789abcdef")), secret);
    EXPECT_EQ(status_of([&] { hrwhash::RampPlan(v, secret, 0.5); }), HRW_STATUS_SEED_MISMATCH);
    for (double bad : {0.0, -0.5, 1.5, std::nan("")}) {
        try {
            hrwhash::RampPlan(v, v, bad);
            ADD_FAILURE() << bad;
        } catch (const hrwhash::Error &e) {
            EXPECT_EQ(e.status(), HRW_STATUS_INVALID_MOVE_LIMIT);
            if (!std::isnan(bad)) {
                EXPECT_EQ(e.value(), bad);
            }
        }
    }
    try {
        hrwhash::View::from_json("{\"nodes\": [], \"format\": 1}");
        ADD_FAILURE();
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_VIEW);
        EXPECT_EQ(e.field(), "format");
        EXPECT_EQ(e.reason(), HRW_VIEW_FAULT_WRONG_TYPE);
        EXPECT_NE(std::string(e.what()).find("member \"format\": wrong_type"), std::string::npos) << e.what();
    }
    // Files that cannot be read are system errors, not view errors.
    try {
        hrwhash::View::from_file("/nonexistent/view.json");
        ADD_FAILURE();
    } catch (const std::system_error &e) {
        EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/view.json"), std::string::npos);
    }
    try {
        hrwhash::View::from_file("/tmp");
        ADD_FAILURE();
    } catch (const std::system_error &e) {
        EXPECT_EQ(e.code(), std::errc::is_a_directory);
    }
    // A NUL inside the path: refused (the C ABI's HRW_STATUS_IO), never the file its prefix names.
    {
        const std::string prefix = ::testing::TempDir() + "hrwhash-nul-view.json";
        std::FILE *f = std::fopen(prefix.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        const std::string doc = v.to_json();
        std::fwrite(doc.data(), 1, doc.size(), f);
        std::fclose(f);
        try {
            hrwhash::View::from_file(prefix + std::string("\0.bak", 5));
            ADD_FAILURE() << "opened the path before the NUL";
        } catch (const std::system_error &e) {
            EXPECT_EQ(e.code(), std::errc::invalid_argument);
        }
        std::remove(prefix.c_str());
    }
    hrwhash::Transition t(v, v);
    EXPECT_EQ(t.expected_moved(), 0.0);
    EXPECT_EQ(status_of([&] { t.route_top("k", static_cast<std::size_t>(-1)); }), HRW_STATUS_OK);
    EXPECT_EQ(status_of([&] { (void)t.old_to_new(7); }), HRW_STATUS_INDEX_OUT_OF_RANGE);
}
