#include <hrwhash.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <array>
#include <limits>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "json.h"
#include "status_names.h"
}

namespace {

std::string hex(const jvalue *v) {
    std::string out;
    if (v == nullptr) return out;
    for (std::size_t i = 0; i + 1 < v->len; i += 2)
        out.push_back(static_cast<char>(std::stoul(std::string(v->str + i, 2), nullptr, 16)));
    return out;
}

std::uint64_t u64(const jvalue *v) { return std::strtoull(v->str, nullptr, 10); }

std::vector<std::size_t> indices(const jvalue *v) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < v->len; i++) out.push_back(std::strtoull(v->items[i].str, nullptr, 10));
    return out;
}

struct Vectors {
    jvalue *root = json_load(HRWHASH_VECTORS);
    ~Vectors() { json_free(root); }
};

const jvalue *vectors() {
    static Vectors v;
    return v.root;
}

// Owned node storage for one case: Node holds views into `ids` and `domains`.
struct CaseNodes {
    std::vector<std::string> ids, domains;
    std::vector<hrwhash::Node> nodes;
};

CaseNodes nodes_of(const jvalue *c) {
    CaseNodes out;
    const jvalue *nodes = json_get(c, "nodes");
    std::size_t count = nodes ? nodes->len : std::strtoull(json_get(c, "node_count")->str, nullptr, 10);
    std::string prefix = hex(json_get(c, "node_prefix"));
    const jvalue *cycle = json_get(c, "weight_cycle");
    out.ids.reserve(count);
    out.domains.reserve(count);
    for (std::size_t i = 0; i < count; i++) {
        hrwhash::Node n;
        if (nodes) {
            const jvalue *node = &nodes->items[i];
            out.ids.push_back(hex(json_get(node, "id")));
            if (const jvalue *w = json_get(node, "weight")) n.weight = std::strtod(w->str, nullptr);
            if (const jvalue *d = json_get(node, "domain")) {
                out.domains.push_back(hex(d));
                n.domain = std::string_view(out.domains.back());
            }
        } else {
            out.ids.push_back(prefix + std::to_string(i));
            if (cycle) n.weight = std::strtod(cycle->items[i % cycle->len].str, nullptr);
        }
        n.id = out.ids.back();
        out.nodes.push_back(n);
    }
    return out;
}

}  // namespace

TEST(Vectors, EveryCase) {
    const jvalue *root = vectors();
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(std::string(json_get(root, "algorithm")->str), hrwhash::algorithm);
    const jvalue *cases = json_get(root, "cases");
    ASSERT_GT(cases->len, 0u);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        CaseNodes nodes = nodes_of(c);
        std::optional<std::string> seed;
        if (json_get(c, "seed")) seed = hex(json_get(c, "seed"));
        std::optional<std::string_view> seed_view;
        if (seed) seed_view = *seed;
        hrwhash::Placement p(nodes.nodes, seed_view);
        std::string key = hex(json_get(c, "key"));
        std::size_t k = std::strtoull(json_get(c, "k")->str, nullptr, 10);
        const jvalue *exp = json_get(c, "expected");
        EXPECT_EQ(hrwhash::key_digest(key, seed_view), u64(json_get(exp, "key_digest")));
        EXPECT_EQ(p.owner(key), std::strtoull(json_get(exp, "owner")->str, nullptr, 10));
        EXPECT_EQ(p.owners({key, ""})[0], p.owner(key));
        EXPECT_EQ(p.owner_id(key), nodes.ids[std::strtoull(json_get(exp, "owner")->str, nullptr, 10)]);
        EXPECT_EQ(p.rank(key, k), indices(json_get(exp, "rank")));
        if (const jvalue *r = json_get(exp, "replicas")) {
            EXPECT_EQ(p.replicas(key, k), indices(r));
        }
        if (const jvalue *scores = json_get(exp, "scores")) {
            for (std::size_t n = 0; n < scores->len; n++) {
                EXPECT_EQ(p.score(key, p.node_id(n)), u64(&scores->items[n]));
            }
        }
    }
}

TEST(Vectors, WeightCases) {
    const jvalue *cases = json_get(vectors(), "weight_cases");
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        const jvalue *w = json_get(c, "weight");
        double value = std::strtod(w->str, nullptr);  // "NaN", "Infinity", "-Infinity" parse too
        if (const jvalue *fixed = json_get(c, "fixed")) {
            EXPECT_EQ(hrwhash::weight_to_fixed(value), u64(fixed)) << w->str;
        } else {
            try {
                hrwhash::weight_to_fixed(value);
                ADD_FAILURE() << "no error for weight " << w->str;
            } catch (const hrwhash::Error &e) {
                EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
            }
        }
    }
}

TEST(Vectors, ErrorCases) {
    const jvalue *cases = json_get(vectors(), "error_cases");
    ASSERT_GT(cases->len, 0u);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        SCOPED_TRACE(json_get(c, "name")->str);
        const char *want_name = json_get(c, "error")->str;
        hrw_status want = HRW_STATUS_UNKNOWN;
        EXPECT_TRUE(hrw_status_of_name(want_name, &want)) << want_name;
        CaseNodes nodes = nodes_of(c);
        std::optional<std::string> seed;
        if (json_get(c, "seed")) seed = hex(json_get(c, "seed"));
        std::optional<std::string_view> seed_view;
        if (seed) seed_view = *seed;
        try {
            hrwhash::Placement p(nodes.nodes, seed_view);
            ADD_FAILURE() << "built without error";
        } catch (const hrwhash::Error &e) {
            EXPECT_EQ(e.status(), want) << e.what();
        }
    }
}

TEST(Placement, ErrorsCarryStatusAndNode) {
    try {
        hrwhash::Placement p(std::vector<std::string_view>{"a", "b", "a"});
        FAIL() << "duplicate accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_DUPLICATE_NODE_ID);
        EXPECT_EQ(e.index(), 2u);
        EXPECT_NE(std::string(e.what()).find("node 2 repeats node 0"), std::string::npos);
    }
    try {
        hrwhash::Placement p({hrwhash::Node{"a"}, hrwhash::Node{"b", -1.0}});
        FAIL() << "negative weight accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
        EXPECT_EQ(e.index(), 1u);
    }
    EXPECT_THROW(hrwhash::Placement(std::vector<std::string_view>{}), hrwhash::Error);
    EXPECT_THROW(hrwhash::Placement({hrwhash::Node{"a"}}, std::string_view("short")), hrwhash::Error);
    hrwhash::Placement p(std::vector<std::string_view>{"a", "b"});
    EXPECT_THROW(p.node_id(2), hrwhash::Error);
    EXPECT_THROW(p.without_node("zz"), hrwhash::Error);
    EXPECT_THROW(p.with_weight("a", std::nan("")), hrwhash::Error);
    EXPECT_EQ(p.find("zz"), std::nullopt);
}

TEST(Placement, MoveOnlyHandle) {
    hrwhash::Placement a(std::vector<std::string_view>{"x", "y", "z"});
    std::size_t owner = a.owner("key");
    hrwhash::Placement b(std::move(a));
    EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_EQ(b.owner("key"), owner);
    hrwhash::Placement c(std::vector<std::string_view>{"q"});
    c = std::move(b);
    EXPECT_EQ(c.owner("key"), owner);
    EXPECT_EQ(c.node_id(owner), std::string_view("xyz").substr(owner, 1));
    static_assert(!std::is_copy_constructible_v<hrwhash::Placement>);
}

TEST(Placement, BytesWithNulAreKeys) {
    using namespace std::string_view_literals;
    hrwhash::Placement p(std::vector<std::string_view>{"n\0a"sv, "n\0b"sv, "n"sv});
    EXPECT_EQ(p.size(), 3u);
    EXPECT_EQ(p.find("n\0b"sv), std::optional<std::size_t>(1));
    EXPECT_EQ(p.rank("k\0ey"sv, 5).size(), 3u);
}

TEST(Placement, SharedAcrossThreads) {
    std::vector<std::string> ids;
    for (int i = 0; i < 200; i++) ids.push_back("node-" + std::to_string(i));
    std::vector<std::string_view> views(ids.begin(), ids.end());
    const hrwhash::Placement p(views);
    std::vector<std::size_t> expected;
    for (int i = 0; i < 5000; i++) expected.push_back(p.owner("key-" + std::to_string(i)));
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 5000; i++)
                if (p.owner("key-" + std::to_string(i)) != expected[i]) mismatches[t]++;
        });
    for (auto &th : threads) th.join();
    for (int m : mismatches) {
        EXPECT_EQ(m, 0);
    }
}

// Issue 8: a braced list of ids and any list of strings build a placement.
TEST(Placement, BracedIdsAndStringLists) {
    hrwhash::Placement braced({"a", "b"});
    EXPECT_EQ(braced.size(), 2u);
    EXPECT_EQ(braced.node_id(1), "b");
    std::vector<std::string> ids{"x", "y", "z"};
    hrwhash::Placement strings(ids);
    EXPECT_EQ(strings.size(), 3u);
    std::array<const char *, 3> pointers{"x", "y", "z"};
    hrwhash::Placement from_pointers(pointers);
    std::vector<std::string> keys{"k1", "k2", "k3", "k4"};
    std::vector<std::size_t> owners = strings.owners(keys);
    ASSERT_EQ(owners.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); i++) {
        EXPECT_EQ(owners[i], strings.owner(keys[i]));
        EXPECT_EQ(from_pointers.owner(keys[i]), owners[i]);
    }
    hrwhash::Placement weighted({"a", "b"}, hrwhash::Options{std::vector<double>{0.0, 5.0}});
    EXPECT_EQ(weighted.selectable_size(), 1u);
    EXPECT_EQ(weighted.node_weight(0), 0.0);
    EXPECT_EQ(weighted.node_id(weighted.owner("k")), "b");
}

TEST(Placement, ParallelListsMustMatch) {
    try {
        hrwhash::Placement p({"a", "b"}, hrwhash::Options{std::vector<double>{}});
        FAIL() << "an empty weights list was accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_LENGTH_MISMATCH);
        EXPECT_EQ(e.expected(), 2u);
        EXPECT_EQ(e.actual(), 0u);
        EXPECT_NE(std::string(e.what()).find("expected 2, got 0"), std::string::npos) << e.what();
    }
    hrwhash::Options short_domains;
    short_domains.domains = std::vector<std::optional<std::string_view>>{"x"};
    short_domains.weights = std::vector<double>{1.0};
    try {
        hrwhash::Placement p({"a", "b", "c"}, short_domains);
        FAIL() << "short lists were accepted";
    } catch (const hrwhash::Error &e) {
        // Weights are checked before domains.
        EXPECT_EQ(e.status(), HRW_STATUS_LENGTH_MISMATCH);
        EXPECT_EQ(e.actual(), 1u);
    }
}

// node_domain reads back what the nodes were built with: a domain, an empty one, or none.
TEST(Placement, NodeDomain) {
    hrwhash::Options options;
    options.domains = std::vector<std::optional<std::string_view>>{"rack-1", std::nullopt, ""};
    hrwhash::Placement p({"a", "b", "c"}, options);
    EXPECT_EQ(p.node_domain(0), std::optional<std::string_view>("rack-1"));
    EXPECT_EQ(p.node_domain(1), std::nullopt);
    ASSERT_TRUE(p.node_domain(2).has_value());
    EXPECT_TRUE(p.node_domain(2)->empty());
    try {
        (void)p.node_domain(3);
        FAIL() << "an index past the nodes was accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_NE(e.status(), HRW_STATUS_OK);
    }
}

// Issue 8: with_node and with_weight name the node's position and the rejected weight.
TEST(Placement, DerivedErrorsNameTheNodeAndValue) {
    hrwhash::Placement p({"a", "b", "c"});
    try {
        p.with_node(hrwhash::Node{"a"});
        FAIL() << "duplicate accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_DUPLICATE_NODE_ID);
        EXPECT_EQ(e.index(), 3u);
        EXPECT_EQ(e.first_index(), 0u);
        EXPECT_NE(std::string(e.what()).find("(node 3 repeats node 0)"), std::string::npos)
            << e.what();
    }
    try {
        p.with_node(hrwhash::Node{"d", -2.0});
        FAIL() << "negative weight accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
        EXPECT_EQ(e.index(), 3u);
        EXPECT_EQ(e.value(), -2.0);
        EXPECT_NE(std::string(e.what()).find("(node 3: -2)"), std::string::npos) << e.what();
    }
    try {
        p.with_weight("b", 1e-12);
        FAIL() << "a weight that rounds to 0 was accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
        EXPECT_EQ(e.index(), 1u);
        EXPECT_EQ(e.value(), 1e-12);
        EXPECT_NE(std::string(e.what()).find("(node 1: 1e-12)"), std::string::npos) << e.what();
    }
    try {
        hrwhash::weight_to_fixed(std::nan(""));
        FAIL() << "NaN accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(std::string(e.what()).find("node"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("(nan)"), std::string::npos) << e.what();
    }
    try {
        hrwhash::key_digest("k", std::string_view("short"));
        FAIL() << "a 5-byte seed was accepted";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_SEED_LENGTH);
        EXPECT_EQ(e.expected(), 16u);
        EXPECT_EQ(e.actual(), 5u);
    }
}

TEST(Placement, RankManyRowsAgreeWithRank) {
    hrwhash::Placement p({"a", "b", "c", "d"});
    std::vector<std::string> keys{"k1", "k2", "k3"};
    auto rows = p.rank_many(keys, 2);
    ASSERT_EQ(rows.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); i++) EXPECT_EQ(rows[i], p.rank(keys[i], 2));
    auto all = p.rank_many({"k1"}, std::numeric_limits<std::size_t>::max());
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0], p.rank("k1", 4));
    EXPECT_EQ(p.rank_many(std::vector<std::string>{}, 3).size(), 0u);
}
