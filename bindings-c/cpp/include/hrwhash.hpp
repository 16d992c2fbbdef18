// hrwhash.hpp: header-only C++17 wrapper of the hrwhash C ABI (hrwhash.h).
//
// hrwhash::Placement owns an hrw_placement (move-only); keys and ids are std::string_view bytes
// (NUL and non-UTF-8 bytes are fine); every failure throws hrwhash::Error carrying the C status.
// A Placement is immutable, so const methods may be called from many threads at once.
#ifndef HRWHASH_HPP
#define HRWHASH_HPP

// std::string_view and std::optional are C++17; say so before the first use fails somewhere
// inside the header. MSVC keeps __cplusplus at 199711L unless /Zc:__cplusplus is given, and
// reports the standard in _MSVC_LANG instead.
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define HRWHASH_CPLUSPLUS _MSVC_LANG
#else
#define HRWHASH_CPLUSPLUS __cplusplus
#endif
#if HRWHASH_CPLUSPLUS < 201703L
#error "hrwhash.hpp needs C++17 (-std=c++17, /std:c++17, or CMAKE_CXX_STANDARD 17); the C header hrwhash.h works from C++98"
// Compilers go on after #error: the rest is skipped so that this stays the only message.
#else
#undef HRWHASH_CPLUSPLUS

#include <hrwhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hrwhash {

inline constexpr std::string_view algorithm = HRW_ALGORITHM;

/// Every failure of the C ABI, with its status (hrw_status numbers) and details (API.md
/// section 2): the 0-based index() of the node, first_index() of an earlier duplicate, the
/// rejected weight value(), and the expected() and actual() lengths.
class Error : public std::runtime_error {
public:
    explicit Error(hrw_status status, const hrw_error &detail = hrw_error{},
                   bool names_node = true)
        : std::runtime_error(describe(status, detail, names_node)),
          status_(status),
          detail_(detail) {
        detail_.status = status;
    }

    hrw_status status() const noexcept { return status_; }
    /// Node position for EMPTY_NODE_ID, DUPLICATE_NODE_ID and INVALID_WEIGHT (for with_node the
    /// position the new node would have had, for with_weight that node's position).
    std::size_t index() const noexcept { return detail_.index; }
    /// DUPLICATE_NODE_ID: position of the first node with that id.
    std::size_t first_index() const noexcept { return detail_.first_index; }
    /// INVALID_WEIGHT: the rejected weight.
    double value() const noexcept { return detail_.value; }
    /// LENGTH_MISMATCH, INVALID_SEED_LENGTH: the length required.
    std::size_t expected() const noexcept { return detail_.expected; }
    /// LENGTH_MISMATCH, INVALID_SEED_LENGTH: the length given.
    std::size_t actual() const noexcept { return detail_.actual; }
    /// INVALID_JSON: the 1-based line and column (in bytes) where parsing stopped.
    std::size_t line() const noexcept { return detail_.line; }
    std::size_t column() const noexcept { return detail_.column; }
    /// INVALID_VIEW: the member at fault ("format", "weight", an unknown member's own name, or
    /// "" for the document itself), cut to HRW_ERROR_FIELD_SIZE - 1 bytes.
    std::string field() const {
        const std::size_t kept = std::min(detail_.field_len, std::size_t{HRW_ERROR_FIELD_SIZE - 1});
        return std::string(reinterpret_cast<const char *>(detail_.field), kept);
    }
    /// INVALID_VIEW: the node's position in "nodes" when the fault is inside a node.
    std::optional<std::size_t> node_index() const {
        if (!detail_.has_index) return std::nullopt;
        return detail_.index;
    }
    /// INVALID_VIEW: what is wrong, and its name in conformance/views.json ("missing", ...).
    hrw_view_fault reason() const noexcept { return detail_.reason; }
    /// STALE_VIEW: the epoch of the view offered. VIEW_CONFLICT: the epoch both views claim.
    std::uint64_t epoch() const noexcept { return detail_.epoch; }
    /// STALE_VIEW: the live view's current epoch.
    std::uint64_t current_epoch() const noexcept { return detail_.current_epoch; }
    std::string_view reason_name() const noexcept { return hrw_view_fault_name(detail_.reason); }
    const hrw_error &detail() const noexcept { return detail_; }

private:
    // The shortest decimal that reads back as the same double, so that a message shows the
    // value the caller passed (1e-12, not 9.9999999999999998e-13).
    static std::string number(double v) {
        char buf[32];
        for (int precision = 1; precision <= 17; precision++) {
            std::snprintf(buf, sizeof buf, "%.*g", precision, v);
            if (std::strtod(buf, nullptr) == v) break;
        }
        return buf;
    }

    static std::string describe(hrw_status status, const hrw_error &d, bool names_node) {
        std::string msg = std::string("hrwhash: ") + hrw_status_message(status);
        const std::string node = "node " + std::to_string(d.index);
        switch (status) {
        case HRW_STATUS_EMPTY_NODE_ID:
            msg += " (" + node + ")";
            break;
        case HRW_STATUS_INVALID_WEIGHT:
            msg += " (" + (names_node ? node + ": " : std::string()) + number(d.value) + ")";
            break;
        case HRW_STATUS_DUPLICATE_NODE_ID:
            msg += " (" + node + " repeats node " + std::to_string(d.first_index) + ")";
            break;
        case HRW_STATUS_LENGTH_MISMATCH:
            msg += " (expected " + std::to_string(d.expected) + ", got " +
                   std::to_string(d.actual) + ")";
            break;
        case HRW_STATUS_INDEX_OUT_OF_RANGE:
            // A ramp's step fills in the index and the number of steps; a node index does not.
            if (d.expected != 0 || d.index != 0)
                msg += " (index " + std::to_string(d.index) + ", not below " + std::to_string(d.expected) + ")";
            break;
        case HRW_STATUS_INVALID_SEED_LENGTH:
            msg += " (got " + std::to_string(d.actual) + " bytes)";
            break;
        case HRW_STATUS_BUFFER_TOO_SMALL:
            if (d.expected != 0)
                msg += " (" + std::to_string(d.expected) + " bytes needed, " +
                       std::to_string(d.actual) + " given)";
            break;
        case HRW_STATUS_INVALID_JSON:
            msg += " (line " + std::to_string(d.line) + ", column " + std::to_string(d.column) + ")";
            break;
        case HRW_STATUS_INVALID_VIEW: {
            const std::size_t kept = std::min(d.field_len, std::size_t{HRW_ERROR_FIELD_SIZE - 1});
            const std::string field(reinterpret_cast<const char *>(d.field), kept);
            msg += " (";
            if (d.has_index) msg += "nodes[" + std::to_string(d.index) + "] ";
            msg += field.empty() && !d.has_index ? std::string("the document")
                                                 : "member \"" + field + "\"";
            msg += std::string(": ") + hrw_view_fault_name(d.reason) + ")";
            break;
        }
        case HRW_STATUS_INVALID_MOVE_LIMIT:
            msg += " (" + number(d.value) + ")";
            break;
        case HRW_STATUS_STALE_VIEW:
            msg += " (epoch " + std::to_string(d.epoch) + ", current " + std::to_string(d.current_epoch) + ")";
            break;
        case HRW_STATUS_VIEW_CONFLICT:
            msg += " (epoch " + std::to_string(d.epoch) + ")";
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
// For calls whose details are not about a node of a list (a lone weight, a seed).
inline void check(hrw_status status, const hrw_error &err, bool names_node) {
    if (status != HRW_STATUS_OK) throw Error(status, err, names_node);
}
inline const std::uint8_t *bytes(std::string_view s) {
    // An empty view may hold nullptr; the C ABI accepts NULL only with length 0, which holds.
    return reinterpret_cast<const std::uint8_t *>(s.data());
}
// Explicitly given bytes (a seed, a domain) must never be NULL, even when empty.
inline const std::uint8_t *given_bytes(std::string_view s) {
    return s.data() ? bytes(s) : reinterpret_cast<const std::uint8_t *>("");
}
inline Error length_mismatch(std::size_t expected, std::size_t actual) {
    hrw_error err{};
    err.expected = expected;
    err.actual = actual;
    return Error(HRW_STATUS_LENGTH_MISMATCH, err);
}

// A list of ids or keys: any range whose elements convert to std::string_view
// (std::vector<std::string>, std::vector<std::string_view>, std::array<const char *, N>, ...).
template <typename T, typename = void>
struct is_text_list : std::false_type {};
template <typename T>
struct is_text_list<T, std::void_t<decltype(std::begin(std::declval<const T &>())),
                                   decltype(std::end(std::declval<const T &>()))>>
    : std::bool_constant<
          std::is_convertible_v<decltype(*std::begin(std::declval<const T &>())),
                                std::string_view> &&
          !std::is_convertible_v<const T &, std::string_view>> {};
template <typename T>
inline constexpr bool is_text_list_v = is_text_list<T>::value;

inline const std::uint8_t *seed_ptr(const std::optional<std::string_view> &seed) {
    return seed ? given_bytes(*seed) : nullptr;
}
inline std::size_t seed_len(const std::optional<std::string_view> &seed) {
    return seed ? seed->size() : 0;
}

// The body of key_digest and node_digest: `f` of the bytes under a seed (nullopt: the default).
using digest_fn = hrw_status (*)(const std::uint8_t *, std::size_t, const std::uint8_t *,
                                 std::size_t, std::uint64_t *, hrw_error *);
inline std::uint64_t digest(digest_fn f, std::string_view text,
                            const std::optional<std::string_view> &seed) {
    std::uint64_t d = 0;
    hrw_error err{};
    check(f(seed_ptr(seed), seed_len(seed), bytes(text), text.size(), &d, &err), err, false);
    return d;
}

// Keys laid out for the batch calls: the bytes end to end and each key's length.
struct KeyBatch {
    std::string bytes;
    std::vector<std::size_t> lens;
    template <typename Keys>
    explicit KeyBatch(const Keys &keys) {
        for (const auto &k : keys) {
            std::string_view v(k);
            bytes.append(v);
            lens.push_back(v.size());
        }
    }
    const std::uint8_t *data() const { return detail::bytes(bytes); }
};

// The owner of one key, and of many in one call, through a handle's owner and owners calls.
template <typename H>
std::size_t owner(hrw_status (*f)(const H *, const std::uint8_t *, std::size_t, std::size_t *),
                  const H *h, std::string_view key) {
    std::size_t index = 0;
    check(f(h, bytes(key), key.size(), &index));
    return index;
}
template <typename H, typename Keys>
std::vector<std::size_t> owners(hrw_status (*f)(const H *, const std::uint8_t *, std::size_t,
                                                const std::size_t *, std::size_t, std::size_t *,
                                                std::size_t),
                                const H *h, const Keys &keys) {
    KeyBatch batch(keys);
    std::vector<std::size_t> out(batch.lens.size());
    check(f(h, batch.data(), batch.bytes.size(), batch.lens.data(), batch.lens.size(), out.data(),
            out.size()));
    return out;
}

// Owns one C handle and frees it with `Free`.
template <typename T, void (*Free)(T *)>
class Handle {
public:
    Handle() = default;
    explicit Handle(T *p) noexcept : p_(p) {}
    Handle(Handle &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    Handle &operator=(Handle &&o) noexcept {
        if (this != &o) {
            Free(p_);
            p_ = std::exchange(o.p_, nullptr);
        }
        return *this;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    ~Handle() { Free(p_); }
    T *get() const noexcept { return p_; }

private:
    T *p_ = nullptr;
};
}  // namespace detail

/// A node as the caller describes it.
struct Node {
    std::string_view id;
    double weight = 1.0;
    std::optional<std::string_view> domain = std::nullopt;
};

/// Parallel lists for a membership of ids: each list, when given, has one entry per id (else
/// LENGTH_MISMATCH). A missing weights list means weight 1 everywhere; a domain of nullopt
/// means no domain.
struct Options {
    std::optional<std::vector<double>> weights = std::nullopt;
    std::optional<std::vector<std::optional<std::string_view>>> domains = std::nullopt;
    /// 16 bytes; nullopt for the default seed.
    std::optional<std::string_view> seed = std::nullopt;
};

/// An immutable placement of nodes; lookups return node indices in build order.
class Placement {
public:
    /// Nodes given by id (`Placement p({"a", "b"})`), with optional parallel weights and
    /// domains and a seed.
    explicit Placement(std::initializer_list<std::string_view> ids, const Options &options = {}) {
        build_ids(ids, options);
    }

    /// Nodes given by id from any list of strings (`std::vector<std::string>`, ...).
    template <typename Ids, typename = std::enable_if_t<detail::is_text_list_v<Ids>>>
    explicit Placement(const Ids &ids, const Options &options = {}) {
        build_ids(ids, options);
    }

    /// Weighted nodes with failure domains, and an optional 16-byte seed.
    explicit Placement(std::initializer_list<Node> nodes,
                       std::optional<std::string_view> seed = std::nullopt) {
        build(nodes.begin(), nodes.end(), seed);
    }

    explicit Placement(const std::vector<Node> &nodes,
                       std::optional<std::string_view> seed = std::nullopt) {
        build(nodes.begin(), nodes.end(), seed);
    }

    std::size_t owner(std::string_view key) const {
        return detail::owner(hrw_placement_owner, p_.get(), key);
    }

    /// The id of the owner of `key` (`owner` gives its index), valid while the placement lives.
    std::string_view owner_id(std::string_view key) const { return node_id(owner(key)); }

    /// Owners of many keys in one call.
    std::vector<std::size_t> owners(std::initializer_list<std::string_view> keys) const {
        return owners<std::initializer_list<std::string_view>>(keys);
    }

    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    std::vector<std::size_t> owners(const Keys &keys) const {
        return detail::owners(hrw_placement_owners, p_.get(), keys);
    }

    /// The first k nodes of the ranking of each key: one row of min(k, selectable nodes)
    /// indices per key. RESULT_TOO_LARGE, before anything is allocated, when the answer would
    /// hold more than 2^32 - 1 indices.
    std::vector<std::vector<std::size_t>> rank_many(std::initializer_list<std::string_view> keys,
                                                    std::size_t k) const {
        return rank_many<std::initializer_list<std::string_view>>(keys, k);
    }

    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    std::vector<std::vector<std::size_t>> rank_many(const Keys &keys, std::size_t k) const {
        const std::size_t per_key = std::min(k, selectable_size());
        const std::size_t count =
            static_cast<std::size_t>(std::distance(std::begin(keys), std::end(keys)));
        constexpr std::size_t max_ids = 0xFFFFFFFFu;
        if (per_key != 0 && count > max_ids / per_key) throw Error(HRW_STATUS_RESULT_TOO_LARGE);
        detail::KeyBatch joined(keys);
        std::vector<std::size_t> flat(count * per_key);
        std::size_t got = 0;
        // Rows of per_key slots: ranking min(k, selectable) is ranking k.
        detail::check(hrw_placement_rank_many(p_.get(), joined.data(), joined.bytes.size(),
                                              joined.lens.data(), joined.lens.size(), per_key,
                                              flat.data(), flat.size(), &got));
        std::vector<std::vector<std::size_t>> rows;
        rows.reserve(count);
        for (std::size_t i = 0; i < count; i++) {
            auto first = flat.begin() + static_cast<std::ptrdiff_t>(i * per_key);
            rows.emplace_back(first, first + static_cast<std::ptrdiff_t>(got));
        }
        return rows;
    }

    /// The first k nodes of the ranking of key (fewer when fewer nodes are selectable).
    std::vector<std::size_t> rank(std::string_view key, std::size_t k) const {
        return top(key, k, hrw_placement_rank);
    }

    /// Up to k nodes for replicas of key, spread over failure domains.
    std::vector<std::size_t> replicas(std::string_view key, std::size_t k) const {
        return top(key, k, hrw_placement_replicas);
    }

    /// replicas(key, k) in k distinct failure domains; throws InvalidReplicaCount when fewer than
    /// k failure domains hold a node of weight above zero (where replicas() would put two
    /// replicas in one domain).
    std::vector<std::size_t> replicas_strict(std::string_view key, std::size_t k) const {
        std::vector<std::size_t> out(std::min(k, selectable_size()));
        detail::check(
            hrw_placement_replicas_strict(p_.get(), detail::bytes(key), key.size(), k, out.data(), out.size()));
        return out;
    }

    std::size_t size() const {
        std::size_t n = 0;
        detail::check(hrw_placement_len(p_.get(), &n, nullptr));
        return n;
    }

    std::size_t selectable_size() const {
        std::size_t n = 0;
        std::size_t all = 0;
        detail::check(hrw_placement_len(p_.get(), &all, &n));
        return n;
    }

    /// The weight of node `index` (0 for a drained node).
    double node_weight(std::size_t index) const {
        double w = 0;
        node(index, &w);
        return w;
    }

    /// The id of node `index`; the view lives as long as this placement.
    std::string_view node_id(std::size_t index) const {
        hrw_node n = node(index, nullptr);
        return {reinterpret_cast<const char *>(n.id), n.id_len};
    }

    /// The failure domain of node `index` (possibly empty), or nullopt when it has none; the view
    /// lives as long as this placement.
    std::optional<std::string_view> node_domain(std::size_t index) const {
        hrw_node n = node(index, nullptr);
        if (n.domain == nullptr) return std::nullopt;
        return std::string_view{reinterpret_cast<const char *>(n.domain), n.domain_len};
    }

    std::optional<std::size_t> find(std::string_view id) const {
        std::size_t index = 0;
        hrw_status st = hrw_placement_find(p_.get(), detail::bytes(id), id.size(), &index);
        if (st == HRW_STATUS_UNKNOWN_NODE) return std::nullopt;
        detail::check(st);
        return index;
    }

    /// The hrw-v1 score of key for the node of this id; Error UNKNOWN_NODE when there is none.
    std::uint64_t score(std::string_view key, std::string_view id) const {
        std::uint64_t s = 0;
        hrw_error err{};
        hrw_status st = hrw_placement_score(p_.get(), detail::bytes(key), key.size(), detail::bytes(id),
                                            id.size(), &s, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        return s;
    }

    /// A placement with one more node, appended (its index is size()).
    Placement with_node(const Node &node) const {
        hrw_node n = to_c(node);
        hrw_placement *out = nullptr;
        hrw_error err{};
        hrw_status st = hrw_placement_with_node(p_.get(), &n, node.weight, &out, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        return Placement(out);
    }

    Placement without_node(std::string_view id) const {
        hrw_placement *out = nullptr;
        hrw_error err{};
        hrw_status st =
            hrw_placement_without_node(p_.get(), detail::bytes(id), id.size(), &out, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        return Placement(out);
    }

    Placement with_weight(std::string_view id, double weight) const {
        hrw_placement *out = nullptr;
        hrw_error err{};
        hrw_status st =
            hrw_placement_with_weight(p_.get(), detail::bytes(id), id.size(), weight, &out, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        return Placement(out);
    }

    /// The C handle, for calls the wrapper does not cover; still owned by this object.
    const hrw_placement *get() const noexcept { return p_.get(); }

    /// Takes ownership of a handle from the C ABI (hrw_view_placement, ...): the Placement
    /// frees it.
    static Placement adopt(hrw_placement *owned) noexcept { return Placement(owned); }

private:
    explicit Placement(hrw_placement *p) noexcept : p_(p) {}

    /// Node `index` as the C ABI gives it (pointing into this placement), and its weight into
    /// `*weight` when that is not null.
    hrw_node node(std::size_t index, double *weight) const {
        hrw_node n{};
        double w = 0;
        detail::check(hrw_placement_node(p_.get(), index, &n, &w));
        if (weight != nullptr) *weight = w;
        return n;
    }

    static hrw_node to_c(const Node &n) {
        hrw_node c{detail::bytes(n.id), n.id.size(), nullptr, 0};
        if (n.domain) {
            c.domain = detail::given_bytes(*n.domain);
            c.domain_len = n.domain->size();
        }
        return c;
    }

    template <typename Ids>
    void build_ids(const Ids &ids, const Options &options) {
        std::vector<Node> nodes;
        for (const auto &id : ids) nodes.push_back(Node{std::string_view(id)});
        // API.md section 4: weights, then domains, against the number of nodes.
        if (options.weights && options.weights->size() != nodes.size())
            throw detail::length_mismatch(nodes.size(), options.weights->size());
        if (options.domains && options.domains->size() != nodes.size())
            throw detail::length_mismatch(nodes.size(), options.domains->size());
        for (std::size_t i = 0; i < nodes.size(); i++) {
            if (options.weights) nodes[i].weight = (*options.weights)[i];
            if (options.domains) nodes[i].domain = (*options.domains)[i];
        }
        build(nodes.begin(), nodes.end(), options.seed);
    }

    template <typename It>
    void build(It first, It last, std::optional<std::string_view> seed) {
        std::vector<hrw_node> c_nodes;
        std::vector<double> weights;
        for (It it = first; it != last; ++it) {
            c_nodes.push_back(to_c(*it));
            weights.push_back(it->weight);
        }
        // A non-NULL weights pointer is a list to match against the nodes, even when empty.
        static const double no_weights = 0;
        hrw_placement_options opts{nullptr, 0, weights.empty() ? &no_weights : weights.data(),
                                   weights.size()};
        if (seed) {
            opts.seed = detail::given_bytes(*seed);
            opts.seed_len = seed->size();
        }
        hrw_error err{};
        hrw_placement *p = nullptr;
        hrw_status st = hrw_placement_new(c_nodes.data(), c_nodes.size(), &opts, &p, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        p_ = Owned(p);
    }

    template <typename F>
    std::vector<std::size_t> top(std::string_view key, std::size_t k, F fill) const {
        std::vector<std::size_t> out(std::min(k, selectable_size()));
        std::size_t n = 0;
        detail::check(fill(p_.get(), detail::bytes(key), key.size(), k, out.data(), out.size(), &n));
        out.resize(n);
        return out;
    }

    using Owned = detail::Handle<hrw_placement, hrw_placement_free>;
    Owned p_;
};

/// The fixed-point form of a weight (w * 2^32, rounded half-even); throws on an invalid weight.
inline std::uint64_t weight_to_fixed(double w) {
    std::uint64_t fixed = 0;
    hrw_error err{};
    detail::check(hrw_weight_to_fixed(w, &fixed, &err), err, false);
    return fixed;
}

/// The hrw-v1 key digest under a seed (nullopt: the default seed).
inline std::uint64_t key_digest(std::string_view key,
                                std::optional<std::string_view> seed = std::nullopt) {
    return detail::digest(hrw_key_digest, key, seed);
}

/// The hrw-v1 node digest of an id under a seed (nullopt: the default seed).
inline std::uint64_t node_digest(std::string_view id,
                                 std::optional<std::string_view> seed = std::nullopt) {
    return detail::digest(hrw_node_digest, id, seed);
}

}  // namespace hrwhash

#endif  // C++17
#endif  // HRWHASH_HPP
