// What compare.js and profiles.js share: the sizes and pass length read from the environment, and
// the median ns per key of REPS timed passes over K keys, K calibrated so a pass takes about
// HRW_TARGET_S (a pass much shorter than that is dominated by the timer and the first-call costs).
'use strict';

const TARGET_S = Number(process.env.HRW_TARGET_S || 0.3);
const REPS = 5;
const KMAX = 1 << 18;

/** The node counts of HRW_NS, or of `defaults` ("5,100") when it is unset. */
const nodeCounts = (defaults) => (process.env.HRW_NS || defaults).split(',').map(Number);

/**
 * `setup(k)` prepares a pass over k keys, untimed, and returns a function that times one pass and
 * returns its ns per key. K doubles from `minK` until a pass takes 50 ms (or K reaches KMAX), is
 * then scaled to TARGET_S, and the median of REPS passes over the same prepared keys is returned.
 */
function medianNsPerKey(setup, minK) {
  let k = minK;
  let perKey;
  for (;;) {
    perKey = setup(k)();
    if (perKey * k >= 50e6 || k >= KMAX) break;
    k *= 2;
  }
  k = Math.max(minK, Math.min(KMAX, Math.round((TARGET_S * 1e9) / perKey)));
  const pass = setup(k);
  const samples = Array.from({ length: REPS }, pass).sort((a, b) => a - b);
  return samples[REPS >> 1];
}

module.exports = { TARGET_S, REPS, KMAX, nodeCounts, medianNsPerKey };
