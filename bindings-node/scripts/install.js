#!/usr/bin/env node
// `npm install` hook: keeps a prebuilt addon that loads, otherwise builds it from source with
// cargo (release) and puts it where main.js looks for it. Set HRWHASH_BUILD_FROM_SOURCE=1 to
// always build.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { platformSuffix } = require('./platform.js');

const root = path.join(__dirname, '..');

function loads() {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(root)})`], { stdio: 'ignore' });
  return r.status === 0;
}


function fail(message) {
  console.error(`hrwhash: ${message}`);
  process.exit(1);
}

if (!process.env.HRWHASH_BUILD_FROM_SOURCE && loads()) process.exit(0);

const cargo = process.env.CARGO || 'cargo';
const rustc = spawnSync(process.env.RUSTC || 'rustc', ['-vV'], { encoding: 'utf8' });
const cargoFound = spawnSync(cargo, ['--version'], { stdio: 'ignore' });
if (rustc.error || rustc.status !== 0 || cargoFound.error || cargoFound.status !== 0) {
  fail(
    `no prebuilt addon for ${platformSuffix()} is installed (the optional package hrwhash-${platformSuffix()}), ` +
      "and building one from source needs Rust's cargo and rustc on PATH (https://rustup.rs)",
  );
}
console.error('hrwhash: no prebuilt addon loads on this platform; building it from source with cargo (release)');
// An explicit --target, as `napi build` passes, so both share one build directory.
const host = /^host: (\S+)$/m.exec(rustc.stdout)?.[1];
if (!host) fail('could not read the host target from `rustc -vV`');
const build = spawnSync(
  cargo,
  ['build', '--release', '--lib', '--target', host, '--manifest-path', path.join(root, 'Cargo.toml'), '--message-format=json-render-diagnostics'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20, encoding: 'utf8' },
);
if (build.error) fail(`could not run ${cargo} (${build.error.message}); install a Rust toolchain to build hrwhash from source`);
if (build.status !== 0) fail(`${cargo} build failed with status ${build.status}`);

const library = build.stdout
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((m) => m.reason === 'compiler-artifact' && m.target.name === 'hrwhash_node')
  .flatMap((m) => m.filenames)
  .find((f) => /\.(so|dylib|dll)$/.test(f));
if (!library) fail('cargo built no hrwhash_node library');

const dest = path.join(root, `hrwhash.${platformSuffix()}.node`);
fs.copyFileSync(library, dest);
if (!loads()) fail(`built ${dest}, but it does not load`);
console.error(`hrwhash: built ${path.basename(dest)}`);
