// hrwhash.hpp: header-only C++17 wrapper of the hrwhash C ABI (hrwhash.h).
//
// hrwhash::Placement owns an hrw_placement (move-only); keys and ids are std::string_view bytes
// (NUL and non-UTF-8 bytes are fine); every failure throws hrwhash::Error carrying the C status.
// A Placement is immutable, so const methods may be called from many threads at once.
#ifndef HRWHASH_HPP
#define HRWHASH_HPP

#include <hrwhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrwhash {

inline constexpr std::string_view algorithm = HRW_ALGORITHM;

/// Every failure of the C ABI, with its status (hrw_status numbers) and build details.
class Error : public std::runtime_error {
public:
    explicit Error(hrw_status status, const hrw_error &detail = hrw_error{})
        : std::runtime_error(describe(status, detail)), status_(status), detail_(detail) {}

    hrw_status status() const noexcept { return status_; }
    /// Node position for EMPTY_NODE_ID, DUPLICATE_NODE_ID and INVALID_WEIGHT.
    std::size_t index() const noexcept { return detail_.index; }
    const hrw_error &detail() const noexcept { return detail_; }

private:
    static std::string describe(hrw_status status, const hrw_error &d) {
        std::string msg = std::string("hrwhash: ") + hrw_status_message(status);
        switch (status) {
        case HRW_STATUS_EMPTY_NODE_ID:
        case HRW_STATUS_INVALID_WEIGHT:
            msg += " (node " + std::to_string(d.index) + ")";
            break;
        case HRW_STATUS_DUPLICATE_NODE_ID:
            msg += " (node " + std::to_string(d.index) + " repeats node " +
                   std::to_string(d.first_index) + ")";
            break;
        default:
            break;
        }
        return msg;
    }

    hrw_status status_;
    hrw_error detail_;
};

namespace detail {
inline void check(hrw_status status) {
    if (status != HRW_STATUS_OK) throw Error(status);
}
inline const std::uint8_t *bytes(std::string_view s) {
    // An empty view may hold nullptr; the C ABI accepts NULL only with length 0, which holds.
    return reinterpret_cast<const std::uint8_t *>(s.data());
}
// Explicitly given bytes (a seed, a domain) must never be NULL, even when empty.
inline const std::uint8_t *given_bytes(std::string_view s) {
    return s.data() ? bytes(s) : reinterpret_cast<const std::uint8_t *>("");
}
}  // namespace detail

/// A node as the caller describes it.
struct Node {
    std::string_view id;
    double weight = 1.0;
    std::optional<std::string_view> domain = std::nullopt;
};

/// An immutable placement of nodes; lookups return node indices in build order.
class Placement {
public:
    /// Unweighted nodes with the default seed.
    explicit Placement(const std::vector<std::string_view> &ids) {
        std::vector<Node> nodes;
        nodes.reserve(ids.size());
        for (auto id : ids) nodes.push_back(Node{id});
        build(nodes, std::nullopt);
    }

    /// Weighted nodes with failure domains, and an optional 16-byte seed.
    explicit Placement(const std::vector<Node> &nodes,
                       std::optional<std::string_view> seed = std::nullopt) {
        build(nodes, seed);
    }

    Placement(Placement &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    Placement &operator=(Placement &&other) noexcept {
        if (this != &other) {
            hrw_placement_free(p_);
            p_ = std::exchange(other.p_, nullptr);
        }
        return *this;
    }
    Placement(const Placement &) = delete;
    Placement &operator=(const Placement &) = delete;
    ~Placement() { hrw_placement_free(p_); }

    std::size_t owner(std::string_view key) const {
        std::size_t index = 0;
        detail::check(hrw_placement_owner(p_, detail::bytes(key), key.size(), &index));
        return index;
    }

    /// Owners of many keys in one call.
    std::vector<std::size_t> owners(const std::vector<std::string_view> &keys) const {
        std::string joined;
        std::vector<std::size_t> lens;
        lens.reserve(keys.size());
        for (auto k : keys) {
            joined.append(k);
            lens.push_back(k.size());
        }
        std::vector<std::size_t> out(keys.size());
        detail::check(hrw_placement_owners(p_, detail::bytes(joined), joined.size(), lens.data(),
                                           lens.size(), out.data(), out.size()));
        return out;
    }

    /// The first k nodes of the ranking of key (fewer when fewer nodes are selectable).
    std::vector<std::size_t> rank(std::string_view key, std::size_t k) const {
        return top(key, k, hrw_placement_rank);
    }

    /// Up to k nodes for replicas of key, spread over failure domains.
    std::vector<std::size_t> replicas(std::string_view key, std::size_t k) const {
        return top(key, k, hrw_placement_replicas);
    }

    std::size_t size() const {
        std::size_t n = 0;
        detail::check(hrw_placement_len(p_, &n));
        return n;
    }

    std::size_t selectable_size() const {
        std::size_t n = 0;
        detail::check(hrw_placement_selectable_len(p_, &n));
        return n;
    }

    /// The id of node `index`; the view lives as long as this placement.
    std::string_view node_id(std::size_t index) const {
        const std::uint8_t *id = nullptr;
        std::size_t len = 0;
        detail::check(hrw_placement_node_id(p_, index, &id, &len));
        return {reinterpret_cast<const char *>(id), len};
    }

    std::optional<std::size_t> find(std::string_view id) const {
        std::size_t index = 0;
        hrw_status st = hrw_placement_find(p_, detail::bytes(id), id.size(), &index);
        if (st == HRW_STATUS_UNKNOWN_NODE) return std::nullopt;
        detail::check(st);
        return index;
    }

    std::uint64_t score(std::string_view key, std::size_t index) const {
        std::uint64_t s = 0;
        detail::check(hrw_placement_score(p_, detail::bytes(key), key.size(), index, &s));
        return s;
    }

    Placement with_node(const Node &node) const {
        hrw_node n = to_c(node);
        hrw_placement *out = nullptr;
        detail::check(hrw_placement_with_node(p_, &n, node.weight, &out, nullptr));
        return Placement(out);
    }

    Placement without_node(std::string_view id) const {
        hrw_placement *out = nullptr;
        detail::check(hrw_placement_without_node(p_, detail::bytes(id), id.size(), &out, nullptr));
        return Placement(out);
    }

    Placement with_weight(std::string_view id, double weight) const {
        hrw_placement *out = nullptr;
        detail::check(
            hrw_placement_with_weight(p_, detail::bytes(id), id.size(), weight, &out, nullptr));
        return Placement(out);
    }

    /// The C handle, for calls the wrapper does not cover; still owned by this object.
    const hrw_placement *get() const noexcept { return p_; }

private:
    explicit Placement(hrw_placement *p) noexcept : p_(p) {}

    static hrw_node to_c(const Node &n) {
        hrw_node c{detail::bytes(n.id), n.id.size(), nullptr, 0};
        if (n.domain) {
            c.domain = detail::given_bytes(*n.domain);
            c.domain_len = n.domain->size();
        }
        return c;
    }

    void build(const std::vector<Node> &nodes, std::optional<std::string_view> seed) {
        std::vector<hrw_node> c_nodes;
        std::vector<double> weights;
        c_nodes.reserve(nodes.size());
        weights.reserve(nodes.size());
        for (const Node &n : nodes) {
            c_nodes.push_back(to_c(n));
            weights.push_back(n.weight);
        }
        hrw_placement_options opts{nullptr, 0, weights.data(), weights.size()};
        if (seed) {
            opts.seed = detail::given_bytes(*seed);
            opts.seed_len = seed->size();
        }
        hrw_error err{};
        hrw_status st = hrw_placement_new(c_nodes.data(), c_nodes.size(), &opts, &p_, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
    }

    template <typename F>
    std::vector<std::size_t> top(std::string_view key, std::size_t k, F fill) const {
        std::vector<std::size_t> out(std::min(k, selectable_size()));
        std::size_t n = 0;
        detail::check(fill(p_, detail::bytes(key), key.size(), k, out.data(), out.size(), &n));
        out.resize(n);
        return out;
    }

    hrw_placement *p_ = nullptr;
};

/// The fixed-point form of a weight (w * 2^32, rounded half-even); throws on an invalid weight.
inline std::uint64_t weight_to_fixed(double w) {
    std::uint64_t fixed = 0;
    detail::check(hrw_weight_to_fixed(w, &fixed, nullptr));
    return fixed;
}

/// The hrw-v1 key digest under a seed (nullopt: the default seed).
inline std::uint64_t key_digest(std::string_view key,
                                std::optional<std::string_view> seed = std::nullopt) {
    std::uint64_t d = 0;
    const std::uint8_t *s = seed ? detail::given_bytes(*seed) : nullptr;
    detail::check(hrw_key_digest(s, seed ? seed->size() : 0, detail::bytes(key), key.size(), &d, nullptr));
    return d;
}

}  // namespace hrwhash

#endif  // HRWHASH_HPP
