#!/usr/bin/env node
// `make dist`: the CLI's npm tarballs, in the layout of esbuild and @biomejs/biome:
// - `hrwhash-cli`: a launcher (`bin: hrwhash`) that runs the binary of the platform package;
// - `hrwhash-cli-<platform>`: the prebuilt binary of this machine's platform alone (`os`, `cpu`,
//   `libc`), named by the launcher as an optional dependency.
// Usage: pack.js BINARY OUT_DIR. The binary is the one taken out of the CLI's wheel, so npm and
// PyPI ship the same build.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const root = path.join(here, '..', '..');
const [binaryArg, outArg] = process.argv.slice(2);
if (!binaryArg || !outArg) throw new Error('usage: pack.js BINARY OUT_DIR');
const binary = path.resolve(binaryArg);
const out = path.resolve(outArg);
const stage = path.join(root, 'target', 'cli-npm', 'stage');
const { platformSuffix } = require(path.join(root, 'bindings-node', 'scripts', 'platform.js'));

// One version for every package: the workspace's, as the wheel has it.
const version = /^\[workspace\.package\][\s\S]*?^version = "([^"]+)"/m.exec(
  fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8'),
)[1];
const common = {
  version,
  license: 'MIT OR Apache-2.0',
  repository: { type: 'git', url: 'git+https://github.com/hrwhash/hrwhash.git', directory: 'cli' },
  engines: { node: '>= 20' },
};
const LICENSES = ['LICENSE-MIT', 'LICENSE-APACHE'];
const licenses = (dir) => {
  for (const f of LICENSES) fs.copyFileSync(path.join(root, f), path.join(dir, f));
};
// The notices of the crates compiled into the binary (packaging/third_party_licenses.py).
const THIRD_PARTY = 'THIRD-PARTY-LICENSES.txt';
const write = (dir, pkg) => fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
const npmPack = (dir) => {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  return path.join(out, name.trim().split('\n').pop());
};

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// --- the platform package: the binary alone
const suffix = platformSuffix();
const [os, cpu, libc] = suffix.split('-');
const platformName = `hrwhash-cli-${suffix}`;
const exe = os === 'win32' ? 'hrwhash.exe' : 'hrwhash';
const platformDir = path.join(stage, suffix);
fs.mkdirSync(platformDir, { recursive: true });
fs.copyFileSync(binary, path.join(platformDir, exe));
fs.chmodSync(path.join(platformDir, exe), 0o755);
licenses(platformDir);
fs.copyFileSync(path.join(root, 'cli', THIRD_PARTY), path.join(platformDir, THIRD_PARTY));
fs.writeFileSync(
  path.join(platformDir, 'README.md'),
  `# ${platformName}\n\nThe prebuilt \`hrwhash\` command for ${suffix}; install \`hrwhash-cli\`, not this package.\n`,
);
write(platformDir, {
  name: platformName,
  description: `The prebuilt hrwhash command for ${suffix}`,
  ...common,
  files: [exe, ...LICENSES, THIRD_PARTY],
  os: [os],
  cpu: [cpu],
  ...(os === 'linux' ? { libc: [libc === 'gnu' ? 'glibc' : 'musl'] } : {}),
});

// --- the launcher package
const mainDir = path.join(stage, 'main');
fs.mkdirSync(mainDir, { recursive: true });
fs.copyFileSync(path.join(here, 'hrwhash.js'), path.join(mainDir, 'hrwhash.js'));
fs.copyFileSync(path.join(root, 'bindings-node', 'scripts', 'platform.js'), path.join(mainDir, 'platform.js'));
fs.copyFileSync(path.join(root, 'cli', 'README.md'), path.join(mainDir, 'README.md'));
licenses(mainDir);
write(mainDir, {
  name: 'hrwhash-cli',
  description: 'The hrwhash command: rendezvous (hrw-v1) placement, migrations and views from the shell',
  ...common,
  keywords: ['rendezvous', 'hrw', 'consistent-hashing', 'sharding', 'cli'],
  bin: { hrwhash: 'hrwhash.js' },
  files: ['hrwhash.js', 'platform.js', ...LICENSES],
  optionalDependencies: { [platformName]: version },
});

for (const t of [npmPack(mainDir), npmPack(platformDir)]) console.log(path.relative(process.cwd(), t));
