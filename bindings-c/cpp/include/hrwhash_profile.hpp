// hrwhash_profile.hpp: hrwhash::ProfilePlacement, the C++17 wrapper of hrw_profile_placement (a
// membership placed exactly as an incumbent library places it, conformance/PROFILES.md).
//
// Move-only, immutable (const methods may be called from many threads at once); keys and ids are
// std::string_view bytes; every failure throws hrwhash::Error with the C status
// (HRW_STATUS_UNKNOWN_PROFILE, HRW_STATUS_NOT_OFFERED, ...).
#ifndef HRWHASH_PROFILE_HPP
#define HRWHASH_PROFILE_HPP

#include <hrwhash.hpp>

namespace hrwhash {

/// The names of every profile this library knows, in the order of PROFILES.md.
inline std::vector<std::string_view> profiles() {
    std::vector<std::string_view> names;
    const char *name = nullptr;
    for (std::size_t i = 0; hrw_profile_name(i, &name) == HRW_STATUS_OK; i++) names.emplace_back(name);
    return names;
}

class ProfilePlacement {
public:
    /// `ProfilePlacement p("ketama-libmemcached", {"cache-a:11211", "cache-b:11211"}, {{1, 2}})`:
    /// the nodes by id, with one weight each where the incumbent is weighted.
    ProfilePlacement(std::string_view profile, std::initializer_list<std::string_view> ids,
                     std::optional<std::vector<double>> weights = std::nullopt) {
        build(profile, std::vector<std::string_view>(ids), weights);
    }

    /// Nodes by id from any list of strings (`std::vector<std::string>`, ...).
    template <typename Ids, typename = std::enable_if_t<detail::is_text_list_v<Ids>>>
    ProfilePlacement(std::string_view profile, const Ids &ids,
                     std::optional<std::vector<double>> weights = std::nullopt) {
        std::vector<std::string_view> views;
        for (const auto &id : ids) views.emplace_back(id);
        build(profile, views, weights);
    }

    /// The index of the node the incumbent gives `key` to.
    std::size_t owner(std::string_view key) const {
        return detail::owner(hrw_profile_placement_owner, p_.get(), key);
    }

    /// The id of that node; the view lives as long as this placement.
    std::string_view owner_id(std::string_view key) const { return node_id(owner(key)); }

    std::vector<std::size_t> owners(std::initializer_list<std::string_view> keys) const {
        return owners<std::initializer_list<std::string_view>>(keys);
    }

    template <typename Keys, typename = std::enable_if_t<detail::is_text_list_v<Keys>>>
    std::vector<std::size_t> owners(const Keys &keys) const {
        return detail::owners(hrw_profile_placement_owners, p_.get(), keys);
    }

    /// The incumbent's top-k for `key`, owner first (fewer when fewer nodes are reached);
    /// throws HRW_STATUS_NOT_OFFERED where the incumbent has no top-k lookup.
    std::vector<std::size_t> replicas(std::string_view key, std::size_t k) const {
        std::vector<std::size_t> out(std::min(k, size()));
        std::size_t n = 0;
        detail::check(hrw_profile_placement_replicas(p_.get(), detail::bytes(key), key.size(), k, out.data(),
                                                     out.size(), &n));
        out.resize(n);
        return out;
    }

    std::size_t size() const {
        std::size_t n = 0;
        detail::check(hrw_profile_placement_len(p_.get(), &n));
        return n;
    }

    std::string_view node_id(std::size_t index) const {
        const std::uint8_t *id = nullptr;
        std::size_t len = 0;
        detail::check(hrw_profile_placement_node_id(p_.get(), index, &id, &len));
        return {reinterpret_cast<const char *>(id), len};
    }

    /// The profile's name, for example "hashring-node-3".
    std::string_view profile() const {
        const char *name = nullptr;
        detail::check(hrw_profile_placement_profile(p_.get(), &name));
        return name;
    }

private:
    void build(std::string_view profile, const std::vector<std::string_view> &ids,
               const std::optional<std::vector<double>> &weights) {
        if (weights && weights->size() != ids.size()) throw detail::length_mismatch(ids.size(), weights->size());
        std::vector<const std::uint8_t *> ptrs;
        std::vector<std::size_t> lens;
        for (std::string_view id : ids) {
            ptrs.push_back(detail::given_bytes(id));
            lens.push_back(id.size());
        }
        hrw_error err{};
        hrw_profile_placement *p = nullptr;
        const hrw_status st = hrw_profile_placement_new(detail::given_bytes(profile), profile.size(), ptrs.data(),
                                                        lens.data(), weights ? weights->data() : nullptr,
                                                        ids.size(), &p, &err);
        if (st != HRW_STATUS_OK) throw Error(st, err);
        p_ = Owned(p);
    }

    using Owned = detail::Handle<hrw_profile_placement, hrw_profile_placement_free>;
    Owned p_;
};

}  // namespace hrwhash

#endif  // HRWHASH_PROFILE_HPP
