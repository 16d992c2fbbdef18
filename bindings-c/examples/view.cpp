#include <hrwhash_view.hpp>

#include <iostream>

int main() {
    hrwhash::View current(hrwhash::Placement({"cache-a", "cache-b", "cache-c"}), 41);
    hrwhash::View next(hrwhash::Placement({"cache-a", "cache-b", "cache-c", "cache-d"}), 42);
    // What every client loads: the canonical document, read back to the same view.
    hrwhash::View loaded = hrwhash::View::from_json(next.to_json());
    std::cout << "epoch " << loaded.epoch() << ", fingerprint " << loaded.fingerprint_hex() << "\n";

    hrwhash::Transition t(current, loaded);
    hrwhash::Route r = t.route("user:42");  // write to r.new_index, read r.old_index on a miss
    std::cout << "user:42 moved: " << r.moved << ", expected " << t.expected_moved() << "\n";

    // Or in steps that each move at most 10% of the keys.
    hrwhash::RampPlan ramp(current, loaded, 0.10);
    for (const hrwhash::RampStep &s : ramp.steps()) std::cout << "epoch " << s.epoch << ": " << s.moved << "\n";

    try {
        hrwhash::View::from_json(R"({"format": "hrwhash-view-v1", "nodes": {}})");
    } catch (const hrwhash::Error &e) {
        std::cout << e.what() << "\n";  // ... (member "algorithm": missing)
        return e.status() == HRW_STATUS_INVALID_VIEW && e.field() == "algorithm" ? 0 : 1;
    }
    return 1;
}
