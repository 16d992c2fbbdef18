// Every case of conformance/live-view.json through hrwhash::LiveView (hrwhash_view.hpp), its
// change callbacks and the errors it throws with their details. The C++ layer has no sources,
// so the cases' last_error (a source's record) is not checked here.
#include <hrwhash_view.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "json.h"
}

namespace {

std::string str(const jvalue *v) { return std::string(v->str, v->len); }

std::optional<std::string> seed_of(const jvalue *c) {
    const jvalue *s = json_get(c, "seed");
    if (s == nullptr) return std::nullopt;
    std::string out, h = str(s);
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoul(h.substr(i, 2), nullptr, 16)));
    return out;
}

std::optional<std::string_view> view_of(const std::optional<std::string> &s) {
    if (s) return std::string_view(*s);
    return std::nullopt;
}

hrwhash::View nodes(std::initializer_list<const char *> ids, std::uint64_t epoch) {
    std::string doc = R"({"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": ")" +
                      std::to_string(epoch) + R"(", "seed": "default", "nodes": [)";
    bool first = true;
    for (const char *id : ids) {
        doc += std::string(first ? "" : ", ") + R"({"id": ")" + id + R"("})";
        first = false;
    }
    return hrwhash::View::from_json(doc + "]}");
}

}  // namespace

TEST(LiveView, EveryCaseOfLiveViewJson) {
    jvalue *root = json_load(HRWHASH_LIVE_VIEW);
    ASSERT_NE(root, nullptr);
    const jvalue *keys = json_get(root, "keys"), *cases = json_get(root, "cases");
    ASSERT_GE(cases->len, 9u);
    for (std::size_t i = 0; i < cases->len; i++) {
        const jvalue *c = &cases->items[i];
        const std::string name = str(json_get(c, "name"));
        const auto seed = seed_of(c);
        hrwhash::LiveView live(hrwhash::View::from_json(str(json_get(c, "initial")), view_of(seed)));
        const jvalue *steps = json_get(c, "steps");
        for (std::size_t n = 0; n < steps->len; n++) {
            SCOPED_TRACE(name + " step " + std::to_string(n));
            const jvalue *step = &steps->items[n];
            if (const jvalue *doc = json_get(step, "update")) {
                const jvalue *expect = json_get(step, "expect");
                auto step_seed = seed_of(step);
                if (!step_seed) step_seed = seed;
                try {
                    auto outcome = live.update(hrwhash::View::from_json(str(doc), view_of(step_seed)));
                    ASSERT_EQ(expect->type, J_STR);
                    EXPECT_EQ(outcome == hrwhash::LiveView::Outcome::applied ? "applied" : "unchanged", str(expect));
                } catch (const hrwhash::Error &e) {
                    ASSERT_EQ(expect->type, J_OBJ);
                    const std::string kind = str(json_get(expect, "error"));
                    if (kind == "StaleView") {
                        EXPECT_EQ(e.status(), HRW_STATUS_STALE_VIEW);
                        EXPECT_EQ(std::to_string(e.epoch()), str(json_get(expect, "epoch")));
                        EXPECT_EQ(std::to_string(e.current_epoch()), str(json_get(expect, "current")));
                    } else if (kind == "ViewConflict") {
                        EXPECT_EQ(e.status(), HRW_STATUS_VIEW_CONFLICT);
                        EXPECT_EQ(std::to_string(e.epoch()), str(json_get(expect, "epoch")));
                    } else if (kind == "SeedMismatch") {
                        EXPECT_EQ(e.status(), HRW_STATUS_SEED_MISMATCH);
                    } else {
                        EXPECT_NE(e.status(), HRW_STATUS_OK) << kind;
                    }
                }
            } else if (json_get(step, "finish_move") != nullptr) {
                EXPECT_EQ(live.finish_move(), json_get(step, "returns")->boolean != 0);
            }
            const jvalue *state = json_get(step, "state");
            EXPECT_EQ(std::to_string(live.epoch()), str(json_get(state, "epoch")));
            EXPECT_EQ(live.fingerprint_hex(), str(json_get(state, "fingerprint")));
            EXPECT_EQ(live.moving(), json_get(state, "moving")->boolean != 0);
            const auto snap = live.snapshot();
            EXPECT_EQ(snap.first.epoch(), live.epoch());
            EXPECT_EQ(snap.second.has_value(), live.moving());
            const jvalue *routes = json_get(state, "routes");
            for (std::size_t k = 0; k < keys->len; k++) {
                const std::string key = str(&keys->items[k]);
                const jvalue *want = &routes->items[k];
                const auto r = live.route(key);
                EXPECT_EQ(r.read, str(&want->items[0])) << key;
                EXPECT_EQ(r.write, str(&want->items[1])) << key;
                EXPECT_EQ(r.moved, want->items[2].boolean != 0) << key;
                EXPECT_EQ(live.owner(key), r.write) << key;
            }
        }
    }
    json_free(root);
}

TEST(LiveView, CallbacksGetEachChangeAndMayFinishTheMove) {
    hrwhash::LiveView live(nodes({"a", "b", "c"}, 1));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
    hrwhash::LiveView *target = &live;
    live.on_change([&](const hrwhash::View &previous, const hrwhash::View &current) {
        seen.emplace_back(previous.epoch(), current.epoch());
        EXPECT_EQ(target->epoch(), current.epoch());
        target->finish_move();
    });
    live.on_change([](const hrwhash::View &, const hrwhash::View &) { throw std::runtime_error("dropped"); });
    EXPECT_EQ(live.update(nodes({"a", "b", "c"}, 1)), hrwhash::LiveView::Outcome::unchanged);
    EXPECT_TRUE(seen.empty());
    EXPECT_EQ(live.update(nodes({"a", "b", "c", "d"}, 2)), hrwhash::LiveView::Outcome::applied);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0], std::make_pair(std::uint64_t{1}, std::uint64_t{2}));
    EXPECT_FALSE(live.moving());
    // Still usable after a callback threw, and a moved-from holder keeps its callbacks.
    hrwhash::LiveView moved = std::move(live);
    target = &moved;
    EXPECT_EQ(moved.update(nodes({"a", "b"}, 3)), hrwhash::LiveView::Outcome::applied);
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_FALSE(moved.moving());
}

TEST(LiveView, RefusalsThrowWithTheirDetails) {
    hrwhash::LiveView live(nodes({"a", "b"}, 5));
    try {
        live.update(nodes({"a"}, 4));
        FAIL() << "no error";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_STALE_VIEW);
        EXPECT_EQ(e.epoch(), 4u);
        EXPECT_EQ(e.current_epoch(), 5u);
        EXPECT_NE(std::string(e.what()).find("epoch 4, current 5"), std::string::npos) << e.what();
    }
    try {
        live.update(nodes({"a", "c"}, 5));
        FAIL() << "no error";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_VIEW_CONFLICT);
        EXPECT_EQ(e.epoch(), 5u);
    }
    EXPECT_EQ(live.epoch(), 5u);
    EXPECT_FALSE(live.moving());
    EXPECT_LT(live.since_update(), std::chrono::minutes(1));
}

TEST(LiveView, AMoveDeadlineOfZeroEndsEveryMoveAsItBegins) {
    hrwhash::LiveView now(nodes({"a", "b"}, 1), std::chrono::milliseconds(0));
    hrwhash::LiveView later(nodes({"a", "b"}, 1), std::chrono::hours(24));
    now.update(nodes({"a", "b", "c"}, 2));
    later.update(nodes({"a", "b", "c"}, 2));
    EXPECT_FALSE(now.moving());
    EXPECT_TRUE(later.moving());
    EXPECT_FALSE(now.finish_move());
    EXPECT_TRUE(later.finish_move());
}
