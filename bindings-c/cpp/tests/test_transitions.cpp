// Every case of conformance/transitions.json (VIEW.md 6) through hrwhash_view.hpp: expected
// movement between seeds, route_top's sets and add/drop order, and the flows and rows of diffs
// and replica diffs, with plan_top against them. C++ wraps the C ABI and offers what it offers,
// so it runs what the file's not_offered leaves to C: everything.
#include <hrwhash_view.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include "json.h"
}

namespace {

struct Transitions {
    jvalue *root = json_load(HRWHASH_TRANSITIONS);
    ~Transitions() { json_free(root); }
};

const jvalue *transitions() {
    static Transitions t;
    return t.root;
}

// The cases of one section; a missing or empty section fails the test that asks for it.
std::vector<const jvalue *> section(const char *name) {
    std::vector<const jvalue *> out;
    const jvalue *root = transitions();
    const jvalue *cases = root == nullptr ? nullptr : json_get(root, name);
    if (cases == nullptr || cases->type != J_ARR) return out;
    for (std::size_t i = 0; i < cases->len; i++) out.push_back(&cases->items[i]);
    return out;
}

std::string str(const jvalue *v) { return std::string(v->str, v->len); }
std::uint64_t u64(const jvalue *v) { return std::strtoull(v->str, nullptr, 10); }
double num(const jvalue *v) { return std::strtod(v->str, nullptr); }

std::string unhex(const std::string &h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoul(h.substr(i, 2), nullptr, 16)));
    return out;
}

hrwhash::View load(const jvalue *c, const char *doc, const char *seed_member) {
    std::optional<std::string> seed;
    if (const jvalue *s = json_get(c, seed_member)) seed = unhex(str(s));
    return hrwhash::View::from_json(str(json_get(c, doc)),
                                    seed ? std::optional<std::string_view>(*seed) : std::nullopt);
}

hrwhash::Transition transition_of(const jvalue *c) {
    return hrwhash::Transition(load(c, "from", "from_seed"), load(c, "to", "to_seed"));
}

std::vector<std::size_t> indexes(const jvalue *want) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < want->len; i++) out.push_back(static_cast<std::size_t>(u64(&want->items[i])));
    return out;
}

std::optional<std::size_t> index_of(const jvalue *want) {
    if (want->type == J_NULL) return std::nullopt;
    return static_cast<std::size_t>(u64(want));
}

std::vector<std::string> generated_keys(std::uint64_t n) {
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < n; i++) keys.push_back("key-" + std::to_string(i));
    return keys;
}

TEST(Transitions, NotOfferedNamesNothingForC) {
    ASSERT_NE(transitions(), nullptr);
    EXPECT_EQ(str(json_get(transitions(), "format")), "hrwhash-view-v1");
    const jvalue *c = json_get(json_get(transitions(), "not_offered"), "c");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->type, J_OBJ);
    EXPECT_EQ(c->len, 0u);
}

TEST(Transitions, MovementBetweenSeedsIsReproducedExactly) {
    const auto cases = section("movement");
    ASSERT_FALSE(cases.empty());
    for (const jvalue *c : cases) {
        SCOPED_TRACE(str(json_get(c, "name")));
        const hrwhash::Transition t = transition_of(c);
        EXPECT_EQ(t.expected_moved(), num(json_get(c, "expected_moved")));
        EXPECT_EQ(t.optimum(), num(json_get(c, "optimum")));
    }
}

TEST(Transitions, RouteTopGivesTheSetsAndTheAddDropOrder) {
    const auto cases = section("routes");
    ASSERT_FALSE(cases.empty());
    for (const jvalue *c : cases) {
        SCOPED_TRACE(str(json_get(c, "name")));
        const hrwhash::Transition t = transition_of(c);
        const std::size_t k = static_cast<std::size_t>(u64(json_get(c, "k")));
        const jvalue *routes = json_get(c, "routes");
        for (std::size_t i = 0; i < routes->len; i++) {
            const jvalue *r = &routes->items[i];
            SCOPED_TRACE(str(json_get(r, "key")));
            const hrwhash::RouteSet s = t.route_top(str(json_get(r, "key")), k);
            EXPECT_EQ(s.before, indexes(json_get(r, "before")));
            EXPECT_EQ(s.after, indexes(json_get(r, "after")));
            EXPECT_EQ(s.add, indexes(json_get(r, "add")));
            EXPECT_EQ(s.drop, indexes(json_get(r, "drop")));
        }
    }
}

void check_diff(const jvalue *c, const hrwhash::Diff &d, bool top) {
    EXPECT_EQ(d.keys(), u64(json_get(c, "keys_counted")));
    EXPECT_EQ(d.moved(), u64(json_get(c, "moved")));
    // A replica diff, whatever its k, has no flows.
    const jvalue *flows = json_get(c, "flows");
    const std::vector<hrwhash::Flow> got = d.flows();
    ASSERT_EQ(got.size(), top ? 0u : flows->len);
    for (std::size_t i = 0; i < got.size(); i++) {
        const jvalue *w = &flows->items[i];
        EXPECT_EQ(got[i].from, u64(&w->items[0])) << "flow " << i;
        EXPECT_EQ(got[i].to, u64(&w->items[1])) << "flow " << i;
        EXPECT_EQ(got[i].count, u64(&w->items[2])) << "flow " << i;
    }
    const jvalue *rows = json_get(c, "nodes");
    const std::vector<hrwhash::NodeChange> nodes = d.nodes();
    ASSERT_EQ(nodes.size(), rows->len);
    std::uint64_t added = 0, dropped = 0;
    for (std::size_t i = 0; i < nodes.size(); i++) {
        const jvalue *w = &rows->items[i];
        EXPECT_EQ(nodes[i].old_index, index_of(json_get(w, "old_index"))) << "row " << i;
        EXPECT_EQ(nodes[i].new_index, index_of(json_get(w, "new_index"))) << "row " << i;
        EXPECT_EQ(nodes[i].before, u64(json_get(w, "before"))) << "row " << i;
        EXPECT_EQ(nodes[i].after, u64(json_get(w, "after"))) << "row " << i;
        EXPECT_EQ(nodes[i].added, u64(json_get(w, "added"))) << "row " << i;
        EXPECT_EQ(nodes[i].dropped, u64(json_get(w, "dropped"))) << "row " << i;
        added += nodes[i].added;
        dropped += nodes[i].dropped;
    }
    if (json_get(c, "copies_added") != nullptr) {
        EXPECT_EQ(added, u64(json_get(c, "copies_added")));
        EXPECT_EQ(dropped, u64(json_get(c, "copies_dropped")));
    }
}

TEST(Transitions, DiffsGiveTheFlowsAndRowsAndPlanTopListsTheChangedKeys) {
    const auto cases = section("diffs");
    ASSERT_FALSE(cases.empty());
    for (const jvalue *c : cases) {
        SCOPED_TRACE(str(json_get(c, "name")));
        const hrwhash::Transition t = transition_of(c);
        const std::size_t k = static_cast<std::size_t>(u64(json_get(c, "k")));
        const std::vector<std::string> keys = generated_keys(u64(json_get(c, "keys")));
        // diff_top(1) counts what diff counts, without flows.
        if (k == 1) {
            hrwhash::Diff d = t.diff();
            d.add_many(keys);
            check_diff(c, d, false);
        }
        hrwhash::Diff d = t.diff_top(k);
        d.add_many(keys);
        check_diff(c, d, true);

        // plan_top lists exactly the keys the diff counts as moved, in batch order, each with
        // a route set that adds or drops a replica.
        const std::vector<hrwhash::ReplicaMove> plan = t.plan_top(keys, k);
        EXPECT_EQ(plan.size(), u64(json_get(c, "moved")));
        for (std::size_t i = 0; i < plan.size(); i++) {
            if (i > 0) {
                EXPECT_GT(plan[i].key_index, plan[i - 1].key_index);
            }
            const hrwhash::RouteSet again = t.route_top(keys[plan[i].key_index], k);
            EXPECT_EQ(plan[i].route.add, again.add);
            EXPECT_EQ(plan[i].route.drop, again.drop);
            EXPECT_FALSE(plan[i].route.add.empty() && plan[i].route.drop.empty());
        }
    }
}

}  // namespace
