// hrwhash in the shared peer harness's Node slot:
//   HRW_JS_ADAPTERS=$PWD/bench/hrwhash-adapter.js LANGS=node bash <copy of the harness>/run_peers.sh
// `require('hrwhash')` resolves to this package (its own name), so build it first (`make build`).
'use strict';
const { Placement } = require('hrwhash');

module.exports = [
  {
    library: 'hrwhash',
    // A Placement already has owner(key) and rank(key, k) with the harness's shapes.
    build: (nodes) => new Placement(nodes),
    buildWeighted: (nodes, weights) => new Placement(nodes, { weights }),
  },
];
