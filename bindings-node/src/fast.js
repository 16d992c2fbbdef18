// Placement.prototype.owner and .rank, compiled into the addon (src/fast.rs runs this expression
// once per environment and installs the two functions it returns).
//
// Through Node-API, an answer of string ids costs a new string per id (V8 decodes its UTF-8
// again) and, for rank, an array filled by generic element stores or a call back into JS. Here
// the native lookup checks everything and answers with the placement's own array of the
// caller's id strings, writing the positions to look up into `scratch` ([0]: the owner's index,
// or rank's count followed by the indices). JS then reads the strings on V8's fast paths. When
// scratch[0] is still NONE the native call has already returned the whole answer (byte ids, long
// rankings, or an environment without a scratch of its own).
(function (ownerIds, rankIds, scratch) {
  'use strict';
  const NONE = 0xffffffff;
  function owner(key) {
    scratch[0] = NONE;
    const r = ownerIds.call(this, key);
    const i = scratch[0];
    return i === NONE ? r : r[i];
  }
  function rank(key, k) {
    scratch[0] = NONE;
    const r = rankIds.call(this, key, k);
    const n = scratch[0];
    if (n === NONE) return r;
    const out = new Array(n);
    for (let j = 0; j < n; j++) out[j] = r[scratch[j + 1]];
    return out;
  }
  return [owner, rank];
})
