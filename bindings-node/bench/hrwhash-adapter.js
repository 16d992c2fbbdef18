// hrwhash in the shared peer harness's Node slot:
//   HRW_JS_ADAPTERS=$PWD/bench/hrwhash-adapter.js LANGS=node bash <copy of the harness>/run_peers.sh
// `require('hrwhash')` resolves to this package (its own name), so build it first (`make build`).
// HRW_NODE_BASELINE=<dir of another build of this package> adds that build as `hrwhash-before`,
// so a change is measured before and after in the same run.
'use strict';

function adapter(library, { Placement }) {
  return {
    library,
    // A Placement already has owner(key) and rank(key, k) with the harness's shapes.
    build: (nodes) => new Placement(nodes),
    buildWeighted: (nodes, weights) => new Placement(nodes, { weights }),
  };
}

module.exports = [adapter('hrwhash', require('hrwhash'))];
if (process.env.HRW_NODE_BASELINE) {
  module.exports.push(adapter('hrwhash-before', require(process.env.HRW_NODE_BASELINE)));
}
