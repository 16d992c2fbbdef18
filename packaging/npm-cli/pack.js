#!/usr/bin/env node
// `make dist`: the CLI's npm tarballs, in the layout of esbuild and @biomejs/biome:
// - `hrwhash-cli`: a launcher (`bin: hrwhash`) that runs the binary of the platform package;
// - `hrwhash-cli-<platform>`: the prebuilt binary of one platform (`os`, `cpu`, `libc`), named by
//   the launcher as an optional dependency.
// Usage:
//   pack.js BINARY OUT_DIR                    `make dist`: this machine's platform package and a
//                                             launcher naming it alone (the binary is the one
//                                             taken out of the CLI's wheel, so npm and PyPI ship
//                                             the same build)
//   pack.js platform SUFFIX BINARY OUT_DIR    the release pipeline: one platform package for a
//                                             binary built elsewhere (`win32-*`: hrwhash.exe)
//   pack.js launcher SUFFIX,SUFFIX,... OUT_DIR  the launcher naming every platform of the release
// SUFFIX is napi-rs's spelling (bindings-node/scripts/platform.js): linux-x64-gnu, linux-arm64-musl,
// darwin-arm64, win32-x64-msvc, ...
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const root = path.join(here, '..', '..');
const { platformSuffix } = require(path.join(root, 'bindings-node', 'scripts', 'platform.js'));
const USAGE = 'usage: pack.js BINARY OUT_DIR | pack.js platform SUFFIX BINARY OUT_DIR | pack.js launcher SUFFIX,... OUT_DIR';
const argv = process.argv.slice(2);
let mode, suffixes, binaryArg, outArg;
if (argv[0] === 'platform' && argv.length === 4) [mode, suffixes, binaryArg, outArg] = argv;
else if (argv[0] === 'launcher' && argv.length === 3) [mode, suffixes, outArg] = argv;
else if (argv.length === 2) [mode, suffixes, binaryArg, outArg] = ['both', platformSuffix(), ...argv];
else throw new Error(USAGE);
suffixes = suffixes.split(',');
// os-cpu[-libc], as npm's `os` and `cpu` fields spell them; a typo would publish a package that
// installs nowhere.
for (const s of suffixes) {
  if (!/^(linux-(x64|arm64)-(gnu|musl)|darwin-(x64|arm64)|win32-(x64|arm64)-msvc)$/.test(s)) {
    throw new Error(`unknown platform ${s} (${USAGE})`);
  }
}
if (mode === 'platform' && suffixes.length !== 1) throw new Error(`one platform per binary (${USAGE})`);
const binary = binaryArg && path.resolve(binaryArg);
if (binary && !fs.existsSync(binary)) throw new Error(`${binary} is missing`);
const out = path.resolve(outArg);
const stage = path.join(root, 'target', 'cli-npm', 'stage');

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

// --- a platform package: the binary alone
function platformPackage(suffix) {
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
  return platformDir;
}

// --- the launcher package, naming each platform package of the release: npm installs the one
// whose os/cpu/libc match and skips the others (and any it cannot find in the registry).
function launcherPackage() {
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
    optionalDependencies: Object.fromEntries(suffixes.map((s) => [`hrwhash-cli-${s}`, version])),
  });
  return mainDir;
}

const dirs = [];
if (mode !== 'platform') dirs.push(launcherPackage());
if (mode !== 'launcher') dirs.push(platformPackage(suffixes[0]));
for (const d of dirs) console.log(path.relative(process.cwd(), npmPack(d)));
