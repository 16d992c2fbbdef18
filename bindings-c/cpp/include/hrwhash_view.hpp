// hrwhash_view.hpp: views, transitions and ramps of conformance/VIEW.md over the C ABI
// (hrw_view_*, hrw_transition_*, hrw_diff_*, hrw_ramp_*), header-only C++17.
//
// hrwhash::View, Transition, Diff and RampPlan own their C handles (move-only); failures throw
// hrwhash::Error with the C status and its details (line()/column() of INVALID_JSON; field(),
// node_index() and reason() of INVALID_VIEW). Views, transitions and ramps are immutable, so
// their const methods may be called from many threads at once; a Diff is used by one thread at
// a time (give each thread its own and merge them).
#ifndef HRWHASH_VIEW_HPP
#define HRWHASH_VIEW_HPP

#include <hrwhash.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <functional>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace hrwhash {

namespace detail {
inline void check(hrw_status status, const hrw_error &err) {
    if (status != HRW_STATUS_OK) throw Error(status, err);
}
template <std::size_t N>
inline std::string hex(const std::array<std::uint8_t, N> &bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

}  // namespace detail

/// A membership with its epoch and seed identity, read from and written as one JSON document.
class View {
public:
    /// Loads a view document (UTF-8 JSON), placing keys with `seed` (16 bytes; nullopt: the
    /// default seed). Throws Error: INVALID_JSON, INVALID_VIEW, the membership errors, or
    /// SEED_MISMATCH when the view was written for another seed.
    static View from_json(std::string_view text, std::optional<std::string_view> seed = std::nullopt) {
        hrw_view *v = nullptr;
        hrw_error err{};
        detail::check(hrw_view_from_json(detail::bytes(text), text.size(), detail::seed_ptr(seed),
                                         detail::seed_len(seed), &v, &err),
                      err);
        return View(v);
    }

    /// Loads the view document in the file at `path`. A file that cannot be read throws
    /// std::system_error (its code the errno of the failure); its contents as from_json.
    static View from_file(const std::string &path, std::optional<std::string_view> seed = std::nullopt) {
        // c_str() would end the path at its first NUL and open another file; the C ABI reports
        // HRW_STATUS_IO for the same bytes, so this is the system error of an unusable path.
        if (path.find('\0') != std::string::npos) {
            errno = EINVAL;
            throw file_error(path);
        }
        errno = 0;
        std::FILE *f = std::fopen(path.c_str(), "rb");
        if (f == nullptr) throw file_error(path);
        std::string text;
        char buf[1 << 16];
        std::size_t got;
        while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
        // A directory opens but fails to read (EISDIR): ferror tells it from an empty file.
        const bool failed = std::ferror(f) != 0;
        const int code = errno;
        std::fclose(f);
        if (failed) {
            errno = code;
            throw file_error(path);
        }
        return from_json(text, seed);
    }

    /// A view of `placement` at `epoch` (the nodes are shared, not copied).
    View(const Placement &placement, std::uint64_t epoch) {
        hrw_view *v = nullptr;
        hrw_error err{};
        detail::check(hrw_view_new(placement.get(), epoch, &v, &err), err);
        h_ = Owned(v);
    }

    /// The same membership at another epoch.
    View with_epoch(std::uint64_t epoch) const {
        hrw_view *v = nullptr;
        detail::check(hrw_view_with_epoch(get(), epoch, &v));
        return View(v);
    }

    std::uint64_t epoch() const { return figures().epoch; }

    /// The 16-byte view fingerprint: equal exactly when two views place every key alike.
    std::array<std::uint8_t, HRW_VIEW_FINGERPRINT_LEN> fingerprint() const {
        std::array<std::uint8_t, HRW_VIEW_FINGERPRINT_LEN> out{};
        const hrw_view_figures f = figures();
        std::copy(std::begin(f.fingerprint), std::end(f.fingerprint), out.begin());
        return out;
    }

    /// The fingerprint as 32 lowercase hex digits.
    std::string fingerprint_hex() const { return detail::hex(fingerprint()); }

    /// The 8-byte seed fingerprint, which names the seed without revealing it.
    std::array<std::uint8_t, HRW_SEED_FINGERPRINT_LEN> seed_fingerprint() const {
        std::array<std::uint8_t, HRW_SEED_FINGERPRINT_LEN> out{};
        const hrw_view_figures f = figures();
        std::copy(std::begin(f.seed_fingerprint), std::end(f.seed_fingerprint), out.begin());
        return out;
    }

    /// The seed fingerprint as 16 lowercase hex digits.
    std::string seed_fingerprint_hex() const { return detail::hex(seed_fingerprint()); }

    bool has_default_seed() const { return figures().has_default_seed; }

    /// The canonical JSON form (VIEW.md section 3), ending in a line feed.
    std::string to_json() const {
        std::size_t len = 0, written = 0;
        detail::check(hrw_view_to_json(get(), nullptr, 0, &len, nullptr));
        std::string out(len, '\0');
        hrw_error err{};
        detail::check(hrw_view_to_json(get(), reinterpret_cast<std::uint8_t *>(out.data()), out.size(),
                                       &written, &err),
                      err);
        out.resize(written);
        return out;
    }

    /// The membership, for lookups; it shares the view's nodes and outlives the view.
    Placement placement() const {
        hrw_placement *p = nullptr;
        detail::check(hrw_view_placement(get(), &p));
        return Placement::adopt(p);
    }

    /// Same fingerprint and epoch.
    bool operator==(const View &o) const { return epoch() == o.epoch() && fingerprint() == o.fingerprint(); }
    bool operator!=(const View &o) const { return !(*this == o); }

    const hrw_view *get() const noexcept { return h_.get(); }

private:
    using Owned = detail::Handle<hrw_view, hrw_view_free>;

    hrw_view_figures figures() const {
        hrw_view_figures f{};
        detail::check(hrw_view_summary(get(), &f));
        return f;
    }
    static std::system_error file_error(const std::string &path) {
        return std::system_error(errno ? errno : EIO, std::generic_category(), "cannot read the view file " + path);
    }
    explicit View(hrw_view *v) noexcept : h_(v) {}
    Owned h_;
    friend class RampPlan;
    friend class LiveView;
};

/// Owners of one key before and after.
struct Route {
    std::size_t old_index;
    std::size_t new_index;
    bool moved;
};

/// The top-k replica sets of one key before and after, and what changes between them.
struct RouteSet {
    std::vector<std::size_t> before, after, add, drop;
};

/// A key of a batch that changes owner: its position in the batch, the old node to copy from
/// and the new node to copy to.
struct Move {
    std::size_t key_index;
    std::size_t from;
    std::size_t to;
};

/// Moved keys from one old node to one new node.
struct Flow {
    std::size_t from;
    std::size_t to;
    std::uint64_t count;
};

/// One id of either membership with the keys it owns (for a replica diff: holds a replica of)
/// before and after, and the moved keys (replicas) it receives (`added`) and gives up
/// (`dropped`).
struct NodeChange {
    std::optional<std::size_t> old_index;
    std::optional<std::size_t> new_index;
    std::uint64_t before;
    std::uint64_t after;
    std::uint64_t added = 0;
    std::uint64_t dropped = 0;
};

/// One key of a batch whose replica set changes (Transition::plan_top): its position in the
/// batch and its route set (fill `route.add`, then drop `route.drop`).
struct ReplicaMove {
    std::size_t key_index;
    RouteSet route;
};

/// Owner counts over a stream of keys; memory independent of the number of keys.
class Diff {
public:
    void add(std::string_view key) {
        std::size_t len = key.size();
        detail::check(hrw_diff_add_many(h_.get(), detail::bytes(key), len, &len, 1));
    }

    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    void add_many(const Keys &keys) {
        detail::KeyBatch batch(keys);
        detail::check(hrw_diff_add_many(h_.get(), batch.data(), batch.bytes.size(), batch.lens.data(),
                                        batch.lens.size()));
    }
    void add_many(std::initializer_list<std::string_view> keys) {
        add_many<std::initializer_list<std::string_view>>(keys);
    }

    /// Adds the counts of a diff of the same Transition object and k; NULL_PARAMETER otherwise.
    void merge(const Diff &other) { detail::check(hrw_diff_merge(h_.get(), other.h_.get())); }

    std::uint64_t keys() const { return summary().keys; }
    std::uint64_t moved() const { return summary().moved; }
    double expected_moved() const { return summary().expected_moved; }
    double optimum() const { return summary().optimum; }

    /// Moved keys per (old node, new node), ordered by old index then new index; none for a
    /// replica diff (Transition::diff_top).
    std::vector<Flow> flows() const {
        std::size_t n = 0;
        detail::check(hrw_diff_flows(h_.get(), nullptr, 0, &n));
        std::vector<hrw_flow> rows(n);
        detail::check(hrw_diff_flows(h_.get(), rows.data(), rows.size(), &n));
        std::vector<Flow> out;
        for (std::size_t i = 0; i < n; i++) out.push_back(Flow{rows[i].from, rows[i].to, rows[i].count});
        return out;
    }

    /// Every old node in old order, then every node only in the new membership in new order.
    std::vector<NodeChange> nodes() const {
        std::size_t n = 0;
        detail::check(hrw_diff_nodes(h_.get(), nullptr, 0, &n));
        std::vector<hrw_node_change> rows(n);
        detail::check(hrw_diff_nodes(h_.get(), rows.data(), rows.size(), &n));
        std::vector<std::uint64_t> added(n), dropped(n);
        detail::check(hrw_diff_node_moves(h_.get(), added.data(), dropped.data(), n, &n));
        std::vector<NodeChange> out;
        for (std::size_t i = 0; i < n; i++) {
            const hrw_node_change &r = rows[i];
            out.push_back(NodeChange{r.has_old ? std::optional<std::size_t>(r.old_index) : std::nullopt,
                                     r.has_new ? std::optional<std::size_t>(r.new_index) : std::nullopt, r.before,
                                     r.after, added[i], dropped[i]});
        }
        return out;
    }

    const hrw_diff *get() const noexcept { return h_.get(); }

private:
    friend class Transition;
    explicit Diff(hrw_diff *d) noexcept : h_(d) {}
    hrw_diff_figures summary() const {
        hrw_diff_figures f{};
        detail::check(hrw_diff_summary(h_.get(), &f));
        return f;
    }
    detail::Handle<hrw_diff, hrw_diff_free> h_;
};

/// The change from an old membership to a new one; nodes are the same node when their ids
/// are equal.
class Transition {
public:
    Transition(const View &old_view, const View &new_view)
        : Transition(old_view.placement(), new_view.placement()) {}
    Transition(const Placement &old_placement, const Placement &new_placement) {
        hrw_transition *t = nullptr;
        detail::check(hrw_transition_new(old_placement.get(), new_placement.get(), &t));
        h_ = Owned(t);
    }

    /// Owners of `key` before and after: read from the new one, on a miss from the old one.
    Route route(std::string_view key) const {
        hrw_route r{};
        detail::check(hrw_transition_route(get(), detail::bytes(key), key.size(), &r));
        return Route{r.old_index, r.new_index, r.moved};
    }

    /// The key's replicas(key, k) on both sides, the replicas to add and to drop.
    RouteSet route_top(std::string_view key, std::size_t k) const {
        const std::size_t cap = std::max(std::min(k, old_placement().selectable_size()),
                                         std::min(k, new_placement().selectable_size()));
        RouteSet s{std::vector<std::size_t>(cap), std::vector<std::size_t>(cap), std::vector<std::size_t>(cap),
                   std::vector<std::size_t>(cap)};
        hrw_route_set lens{};
        detail::check(hrw_transition_route_top(get(), detail::bytes(key), key.size(), k, s.before.data(),
                                               s.after.data(), s.add.data(), s.drop.data(), cap, &lens));
        s.before.resize(lens.before_len);
        s.after.resize(lens.after_len);
        s.add.resize(lens.add_len);
        s.drop.resize(lens.drop_len);
        return s;
    }

    /// The keys of a batch that change owner, in batch order; call it batch by batch for a
    /// stream of any length.
    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    std::vector<Move> plan(const Keys &keys) const {
        detail::KeyBatch batch(keys);
        std::vector<hrw_move> moves(batch.lens.size());
        std::size_t n = 0;
        detail::check(hrw_transition_plan(get(), batch.data(), batch.bytes.size(), batch.lens.data(),
                                          batch.lens.size(), moves.data(), moves.size(), &n));
        std::vector<Move> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; i++) out.push_back(Move{moves[i].key_index, moves[i].from, moves[i].to});
        return out;
    }
    std::vector<Move> plan(std::initializer_list<std::string_view> keys) const {
        return plan<std::initializer_list<std::string_view>>(keys);
    }

    /// A new, empty diff of this transition.
    Diff diff() const {
        hrw_diff *d = nullptr;
        detail::check(hrw_transition_diff(get(), &d));
        return Diff(d);
    }

    /// A new, empty replica diff: each key's replicas(key, k) on either side, compared as sets;
    /// `moved` counts the keys whose set changed and the rows count replicas.
    Diff diff_top(std::size_t k) const {
        hrw_diff *d = nullptr;
        detail::check(hrw_transition_diff_top(get(), k, &d));
        return Diff(d);
    }

    /// The keys of a batch whose set of k replicas changes, in batch order, with their route
    /// sets; call it batch by batch for a stream of any length.
    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    std::vector<ReplicaMove> plan_top(const Keys &keys, std::size_t k) const {
        detail::KeyBatch batch(keys);
        std::vector<std::size_t> listed(batch.lens.size());
        std::size_t n = 0;
        detail::check(hrw_transition_plan_top(get(), batch.data(), batch.bytes.size(), batch.lens.data(),
                                              batch.lens.size(), k, listed.data(), listed.size(), &n));
        std::vector<ReplicaMove> out;
        out.reserve(n);
        std::size_t at = 0, offset = 0;
        for (std::size_t i = 0; i < n; i++) {
            for (; at < listed[i]; at++) offset += batch.lens[at];
            const std::string_view key = std::string_view(batch.bytes).substr(offset, batch.lens[listed[i]]);
            out.push_back(ReplicaMove{listed[i], route_top(key, k)});
        }
        return out;
    }
    std::vector<ReplicaMove> plan_top(std::initializer_list<std::string_view> keys, std::size_t k) const {
        return plan_top<std::initializer_list<std::string_view>>(keys, k);
    }

    /// The expected fraction of keys that move, from the weights alone (VIEW.md 6.1).
    double expected_moved() const { return figures().expected_moved; }

    /// The least fraction any scheme must move (VIEW.md 6.2).
    double optimum() const { return figures().optimum; }

    Placement old_placement() const { return member(hrw_transition_old_placement); }
    Placement new_placement() const { return member(hrw_transition_new_placement); }

    /// The new index of old node `old_index`'s id, or nullopt when the new membership lacks it.
    std::optional<std::size_t> old_to_new(std::size_t old_index) const {
        return match(hrw_transition_old_to_new, old_index);
    }
    std::optional<std::size_t> new_to_old(std::size_t new_index) const {
        return match(hrw_transition_new_to_old, new_index);
    }

    const hrw_transition *get() const noexcept { return h_.get(); }

private:
    using Owned = detail::Handle<hrw_transition, hrw_transition_free>;

    hrw_transition_figures figures() const {
        hrw_transition_figures f{};
        detail::check(hrw_transition_summary(get(), &f));
        return f;
    }
    Placement member(hrw_status (*f)(const hrw_transition *, hrw_placement **)) const {
        hrw_placement *p = nullptr;
        detail::check(f(get(), &p));
        return Placement::adopt(p);
    }
    std::optional<std::size_t> match(hrw_status (*f)(const hrw_transition *, std::size_t, std::size_t *),
                                     std::size_t index) const {
        std::size_t out = 0;
        hrw_status st = f(get(), index, &out);
        if (st == HRW_STATUS_UNKNOWN_NODE) return std::nullopt;
        detail::check(st);
        return out;
    }
    Owned h_;
};

/// One step of a ramp.
struct RampStep {
    std::uint64_t epoch;
    std::uint32_t position;
    double moved;
    bool removes_drained;
};

/// Positions of a ramp's line from the old weights (0) to the new ones (`RampStep::position`).
inline constexpr std::uint32_t ramp_grid = HRW_RAMP_GRID;

/// A change of view split into steps that each move at most `max_move` of the keys.
class RampPlan {
public:
    RampPlan(const View &old_view, const View &new_view, double max_move) {
        hrw_ramp *r = nullptr;
        hrw_error err{};
        detail::check(hrw_ramp_new(old_view.get(), new_view.get(), max_move, &r, &err), err);
        h_ = Owned(r);
    }

    std::size_t size() const {
        hrw_ramp_figures f{};
        detail::check(hrw_ramp_summary(get(), &f));
        return f.len;
    }

    RampStep step(std::size_t i) const {
        hrw_ramp_step s{};
        hrw_error err{};
        detail::check(hrw_ramp_get_step(get(), i, &s, nullptr, &err), err);
        return RampStep{s.epoch, s.position, s.moved, s.removes_drained};
    }

    std::vector<RampStep> steps() const {
        std::vector<RampStep> out;
        for (std::size_t i = 0, n = size(); i < n; i++) out.push_back(step(i));
        return out;
    }

    /// The view of step i; the last one has the new view's membership.
    View view(std::size_t i) const {
        hrw_view *v = nullptr;
        hrw_ramp_step s{};
        hrw_error err{};
        detail::check(hrw_ramp_get_step(get(), i, &s, &v, &err), err);
        return View(v);
    }

    double max_move() const { return summary().max_move; }
    double total_moved() const { return summary().total_moved; }
    double direct_moved() const { return summary().direct_moved; }
    double optimum() const { return summary().optimum; }

    const hrw_ramp *get() const noexcept { return h_.get(); }

private:
    using Owned = detail::Handle<hrw_ramp, hrw_ramp_free>;
    hrw_ramp_figures summary() const {
        hrw_ramp_figures s{};
        detail::check(hrw_ramp_summary(get(), &s));
        return s;
    }
    Owned h_;
};

/// Where a key is read and written during a move (LIVE-VIEW.md section 3): its owner's id in
/// the previous view and in the current one. With no move in progress both are the owner.
struct LiveRoute {
    std::string read;
    std::string write;
    bool moved;
};

/// The view a client follows as its publisher issues new epochs (conformance/LIVE-VIEW.md).
/// Move-only. Every method may be called from many threads at once: lookups never wait for an
/// update and each answers from one state.
class LiveView {
public:
    /// What update did with a view it accepted.
    enum class Outcome { applied, unchanged };

    /// A live view of `initial`, whose seed it keeps; moves end by finish_move only.
    explicit LiveView(const View &initial) {
        hrw_live_view *lv = nullptr;
        detail::check(hrw_live_view_new(initial.get(), nullptr, &lv));
        h_ = Owned(lv);
    }

    /// A live view whose moves also end by themselves `move_deadline` after the update that
    /// began them.
    LiveView(const View &initial, std::chrono::milliseconds move_deadline) {
        hrw_live_view *lv = nullptr;
        const auto ms = static_cast<std::uint64_t>(std::max<std::int64_t>(0, move_deadline.count()));
        detail::check(hrw_live_view_new(initial.get(), &ms, &lv));
        h_ = Owned(lv);
    }

    /// Offers `view`: Outcome::applied (a higher epoch; a move begins and the change callbacks
    /// run before this returns) or Outcome::unchanged (the same epoch and fingerprint). Throws
    /// Error: SEED_MISMATCH, STALE_VIEW (epoch(), current_epoch()) or VIEW_CONFLICT (epoch()),
    /// and then nothing changed.
    Outcome update(const View &view) {
        hrw_update_outcome o = HRW_UPDATE_OUTCOME_UNCHANGED;
        hrw_error err{};
        detail::check(hrw_live_view_update(get(), view.get(), &o, &err), err);
        return o == HRW_UPDATE_OUTCOME_APPLIED ? Outcome::applied : Outcome::unchanged;
    }

    /// Ends the move in progress; returns whether one was.
    bool finish_move() {
        bool was = false;
        detail::check(hrw_live_view_finish_move(get(), &was));
        return was;
    }

    /// The id of the owner of `key` in the current view: where to write it.
    std::string owner(std::string_view key) const {
        std::string id(64, '\0');
        for (;;) {
            std::size_t len = 0;
            hrw_error err{};
            const hrw_status st = hrw_live_view_owner(get(), detail::bytes(key), key.size(),
                                                      reinterpret_cast<std::uint8_t *>(id.data()), id.size(), &len, &err);
            // The view may change between two tries: grow until the id fits.
            if (st == HRW_STATUS_BUFFER_TOO_SMALL) {
                id.resize(err.expected);
                continue;
            }
            detail::check(st, err);
            id.resize(len);
            return id;
        }
    }

    /// Where `key` is read and written.
    LiveRoute route(std::string_view key) const {
        std::string ids(128, '\0');
        for (;;) {
            hrw_live_route r{};
            hrw_error err{};
            const hrw_status st = hrw_live_view_route(get(), detail::bytes(key), key.size(),
                                                      reinterpret_cast<std::uint8_t *>(ids.data()), ids.size(), &r, &err);
            if (st == HRW_STATUS_BUFFER_TOO_SMALL) {
                ids.resize(err.expected);
                continue;
            }
            detail::check(st, err);
            return LiveRoute{ids.substr(0, r.read_len), ids.substr(r.read_len, r.write_len), r.moved};
        }
    }

    /// One state, for a batch of lookups: the current view and, while a move is in progress,
    /// the previous one.
    std::pair<View, std::optional<View>> snapshot() const {
        hrw_view *cur = nullptr, *prev = nullptr;
        detail::check(hrw_live_view_snapshot(get(), &cur, &prev));
        View current(cur);
        std::optional<View> previous;
        if (prev != nullptr) previous.emplace(View(prev));
        return {std::move(current), std::move(previous)};
    }

    std::uint64_t epoch() const { return figures().epoch; }

    std::array<std::uint8_t, HRW_VIEW_FINGERPRINT_LEN> fingerprint() const {
        std::array<std::uint8_t, HRW_VIEW_FINGERPRINT_LEN> out{};
        const hrw_live_view_figures f = figures();
        std::copy(std::begin(f.fingerprint), std::end(f.fingerprint), out.begin());
        return out;
    }

    std::string fingerprint_hex() const { return detail::hex(fingerprint()); }

    bool moving() const { return figures().moving; }

    /// Time since the last update that was applied or unchanged.
    std::chrono::milliseconds since_update() const {
        const std::uint64_t ms = figures().since_update_ms;
        return std::chrono::milliseconds(static_cast<std::int64_t>(std::min<std::uint64_t>(ms, INT64_MAX)));
    }

    /// Registers `callback`, called with the previous and the current view after every applied
    /// update, on the updating thread. It may call finish_move and lookups, but not update or
    /// on_change; an exception it throws is caught and dropped (it cannot cross the C ABI).
    void on_change(std::function<void(const View &previous, const View &current)> callback) {
        callbacks_.push_back(std::make_unique<Callback>(std::move(callback)));
        detail::check(hrw_live_view_on_change(get(), &LiveView::trampoline, callbacks_.back().get()));
    }

    const hrw_live_view *get() const noexcept { return h_.get(); }

private:
    using Owned = detail::Handle<hrw_live_view, hrw_live_view_free>;

    hrw_live_view_figures figures() const {
        hrw_live_view_figures f{};
        detail::check(hrw_live_view_summary(get(), &f));
        return f;
    }
    using Callback = std::function<void(const View &, const View &)>;

    static void trampoline(void *user_data, const hrw_view *previous, const hrw_view *current) {
        try {
            // Owned copies (a shared reference each), so the callback may keep them.
            hrw_view *p = nullptr, *c = nullptr;
            hrw_view_figures pf{}, cf{};
            if (hrw_view_summary(previous, &pf) != HRW_STATUS_OK || hrw_view_summary(current, &cf) != HRW_STATUS_OK ||
                hrw_view_with_epoch(previous, pf.epoch, &p) != HRW_STATUS_OK)
                return;
            View prev(p);
            if (hrw_view_with_epoch(current, cf.epoch, &c) != HRW_STATUS_OK) return;
            View cur(c);
            (*static_cast<Callback *>(user_data))(prev, cur);
        } catch (...) {
        }
    }

    // Declared before the handle, so the live view (which calls them) is freed first.
    std::vector<std::unique_ptr<Callback>> callbacks_;
    Owned h_;
};

}  // namespace hrwhash

#endif  // HRWHASH_VIEW_HPP
