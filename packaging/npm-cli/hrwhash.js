#!/usr/bin/env node
// `npx hrwhash`, or `hrwhash` after `npm install -g hrwhash-cli`: runs the prebuilt binary of
// this platform's package (hrwhash-cli-<platform>, an optional dependency), as esbuild and biome do.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { platformSuffix } = require('./platform.js');

const suffix = platformSuffix();
const exe = process.platform === 'win32' ? 'hrwhash.exe' : 'hrwhash';
let binary;
try {
  binary = path.join(path.dirname(require.resolve(`hrwhash-cli-${suffix}/package.json`)), exe);
} catch {
  process.stderr.write(
    `hrwhash: no prebuilt binary for ${suffix}: the package hrwhash-cli-${suffix} is not installed ` +
      `(npm leaves it out under --omit=optional, and platforms without one get none); ` +
      `'cargo install --path cli' in a checkout of https://github.com/hrwhash/hrwhash builds the command from source\n`,
  );
  process.exit(1);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`hrwhash: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(1);
}
// A binary stopped by a signal stops this process the same way, so a shell sees what it would
// have seen without the launcher.
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status);
