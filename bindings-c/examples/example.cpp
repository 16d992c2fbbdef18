#include <hrwhash.hpp>

#include <iostream>

int main() {
    hrwhash::Placement placement({
        hrwhash::Node{"cache-a", 1.0, "rack-1"},
        hrwhash::Node{"cache-b", 2.0, "rack-1"},  // twice the share of keys
        hrwhash::Node{"cache-c", 1.0, "rack-2"},
    });
    std::size_t owner = placement.owner("user:42");
    auto replicas = placement.replicas("user:42", 2);  // on two different racks
    std::cout << "user:42 -> " << placement.node_id(owner) << ", replicas "
              << placement.node_id(replicas[0]) << " " << placement.node_id(replicas[1]) << "\n";

    try {
        hrwhash::Placement bad({"a", "b", "a"});  // ids alone: weight 1, no domain
    } catch (const hrwhash::Error &e) {
        std::cout << e.what() << "\n";  // hrwhash: two nodes share an id (node 2 repeats node 0)
        return e.status() == HRW_STATUS_DUPLICATE_NODE_ID && e.index() == 2 ? 0 : 1;
    }
    return 1;
}
