// hrwhash::ProfilePlacement against every conformance/profiles/<name>.json (recorded from the
// incumbents), and its bad inputs as typed hrwhash::Error.
#include <hrwhash_profile.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "json.h"
}

namespace {

// `name` as text, or `name_hex` decoded.
std::string text_or_hex(const jvalue *obj, const std::string &name) {
    if (const jvalue *v = json_get(obj, name.c_str())) return std::string(v->str, v->len);
    const jvalue *v = json_get(obj, (name + "_hex").c_str());
    std::string out;
    for (std::size_t i = 0; v && i + 1 < v->len; i += 2)
        out.push_back(static_cast<char>(std::stoul(std::string(v->str + i, 2), nullptr, 16)));
    return out;
}

std::size_t position(const std::vector<std::string> &ids, const std::string &id) {
    for (std::size_t i = 0; i < ids.size(); i++)
        if (ids[i] == id) return i;
    return ids.size();
}

void run_file(const std::string &name) {
    std::string path = std::string(HRWHASH_PROFILES_DIR) + "/" + name + ".json";
    jvalue *root = json_load(path.c_str());
    ASSERT_NE(root, nullptr) << path;
    ASSERT_EQ(std::string(json_get(root, "profile")->str), name);
    const jvalue *cases = json_get(root, "cases");
    std::size_t lookups = 0;
    for (std::size_t c = 0; c < cases->len; c++) {
        const jvalue *nodes = json_get(&cases->items[c], "nodes");
        std::vector<std::string> ids;
        std::vector<double> weights;
        bool weighted = false;
        for (std::size_t i = 0; i < nodes->len; i++) {
            ids.push_back(text_or_hex(&nodes->items[i], "id"));
            const jvalue *w = json_get(&nodes->items[i], "weight");
            weighted |= w != nullptr;
            weights.push_back(w ? std::strtod(w->str, nullptr) : 1.0);
        }
        hrwhash::ProfilePlacement p(name, ids, weighted ? std::optional(weights) : std::nullopt);
        EXPECT_EQ(p.profile(), name);
        EXPECT_EQ(p.size(), ids.size());
        const jvalue *ls = json_get(&cases->items[c], "lookups");
        std::vector<std::string> keys;
        std::vector<std::size_t> want;
        for (std::size_t k = 0; k < ls->len; k++) {
            const jvalue *lk = &ls->items[k];
            keys.push_back(text_or_hex(lk, "key"));
            want.push_back(position(ids, text_or_hex(lk, "owner")));
            EXPECT_EQ(p.owner(keys.back()), want.back()) << name << " case " << c << " key " << k;
            EXPECT_EQ(p.owner_id(keys.back()), ids[want.back()]);
            if (const jvalue *r = json_get(lk, "replicas")) {
                std::vector<std::size_t> ranked;
                for (std::size_t i = 0; i < r->len; i++)
                    ranked.push_back(position(ids, std::string(r->items[i].str, r->items[i].len)));
                EXPECT_EQ(p.replicas(keys.back(), ids.size()), ranked) << name << " case " << c << " key " << k;
            }
            lookups++;
        }
        EXPECT_EQ(p.owners(keys), want);
    }
    EXPECT_GT(lookups, 0u);
    json_free(root);
}

hrw_status status_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const hrwhash::Error &e) {
        return e.status();
    }
    return HRW_STATUS_OK;
}

}  // namespace

TEST(Profiles, ListsTheFourProfiles) {
    EXPECT_EQ(hrwhash::profiles(), (std::vector<std::string_view>{"go-redis-ring-v9", "pymemcache-rendezvous",
                                                                  "ketama-libmemcached", "hashring-node-3"}));
}

TEST(Profiles, GoRedisRingV9Vectors) { run_file("go-redis-ring-v9"); }
TEST(Profiles, PymemcacheRendezvousVectors) { run_file("pymemcache-rendezvous"); }
TEST(Profiles, KetamaLibmemcachedVectors) { run_file("ketama-libmemcached"); }
TEST(Profiles, HashringNode3Vectors) { run_file("hashring-node-3"); }

TEST(Profiles, PymemcacheOwnTestVectors) {
    hrwhash::ProfilePlacement p("pymemcache-rendezvous", {"0", "1", "2"});
    EXPECT_EQ(p.owner_id("ok"), "0");
    EXPECT_EQ(p.owner_id("mykey"), "1");
    EXPECT_EQ(p.owner_id("wat"), "2");
}

TEST(Profiles, BadInputsThrowTypedErrors) {
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("no-such-profile", {"a"}); }), HRW_STATUS_UNKNOWN_PROFILE);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("go-redis-ring-v9", {"a", "b"}, {{1, 2}}); }),
              HRW_STATUS_NOT_OFFERED);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("hashring-node-3", {"a", "b"}, {{1}}); }),
              HRW_STATUS_LENGTH_MISMATCH);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("hashring-node-3", std::vector<std::string>{}); }),
              HRW_STATUS_EMPTY_MEMBERSHIP);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("go-redis-ring-v9", {"a", ""}); }), HRW_STATUS_EMPTY_NODE_ID);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("go-redis-ring-v9", {"a", "a"}); }),
              HRW_STATUS_DUPLICATE_NODE_ID);
    EXPECT_EQ(status_of([] { hrwhash::ProfilePlacement("ketama-libmemcached", {"a:1"}, {{std::nan("")}}); }),
              HRW_STATUS_INVALID_WEIGHT);
    // Ids that read as two different libmemcached servers (PROFILES.md 4, "Nodes").
    for (const char *id : {"2001:db8::0", "2001:db8::11211", "/run/memcached.sock", "[::1"}) {
        EXPECT_EQ(status_of([id] { hrwhash::ProfilePlacement("ketama-libmemcached", {id}); }), HRW_STATUS_NOT_OFFERED)
            << id;
    }
    hrwhash::ProfilePlacement p("pymemcache-rendezvous", {"a:11211", "b:11211"});
    EXPECT_EQ(status_of([&] { p.replicas("k", 2); }), HRW_STATUS_NOT_OFFERED);
}

// The details of a bad weight name its node and the value, as Placement's do (they said
// "node 0: 0" whatever the node and the weight).
TEST(Profiles, BadWeightNamesTheNodeAndTheValue) {
    try {
        hrwhash::ProfilePlacement("ketama-libmemcached", {"a:1", "b:1", "c:1"}, {{1.0, 2.0, std::nan("")}});
        FAIL() << "a NaN weight was taken";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
        EXPECT_EQ(e.index(), 2u);
        EXPECT_TRUE(std::isnan(e.value()));
        EXPECT_NE(std::string(e.what()).find("node 2"), std::string::npos) << e.what();
    }
    try {
        hrwhash::ProfilePlacement("ketama-libmemcached", {"a:1", "b:1"}, {{1.0, -3.5}});
        FAIL() << "a negative weight was taken";
    } catch (const hrwhash::Error &e) {
        EXPECT_EQ(e.status(), HRW_STATUS_INVALID_WEIGHT);
        EXPECT_EQ(e.index(), 1u);
        EXPECT_EQ(e.value(), -3.5);
        EXPECT_NE(std::string(e.what()).find("-3.5"), std::string::npos) << e.what();
    }
}

TEST(Profiles, MovedFromThrows) {
    hrwhash::ProfilePlacement p("pymemcache-rendezvous", {"a:11211", "b:11211"});
    EXPECT_EQ(status_of([&] { p.node_id(2); }), HRW_STATUS_INDEX_OUT_OF_RANGE);
    hrwhash::ProfilePlacement moved = std::move(p);
    EXPECT_EQ(status_of([&] { p.owner("k"); }), HRW_STATUS_NULL_PARAMETER);
    EXPECT_LT(moved.owner("k"), 2u);
}
