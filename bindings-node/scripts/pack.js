#!/usr/bin/env node
// `make dist`: the npm tarballs users install. Two packages, in napi-rs's layout:
// - `hrwhash`: the JavaScript loader, the types, and every Rust source a build from source needs
//   (the core included, manifests without workspace inheritance), with the platform package as
//   an optional dependency;
// - `hrwhash-<platform>`: the prebuilt addon of this machine's platform alone, or, for the
//   platform `wasm32-wasi`, napi-rs's WebAssembly build with its loaders (`hrwhash-wasm32-wasi`).
// With both, `npm install --ignore-scripts` works on a machine without Rust.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { platformSuffix } = require('./platform.js');

const here = path.join(__dirname, '..');
const root = path.join(here, '..');
// pack.js [--addon FILE] [--suffix SUFFIX] [--platforms SUFFIX,...] [--only main|platform] [OUT_DIR]
// FILE is the addon to ship (default: the one `napi build` made), built for SUFFIX (default: this
// machine's platform, as `make dist` packs it); the main package names the platform packages of
// --platforms (default: SUFFIX alone). The release pipeline packs each other platform's addon with
// `--only platform --suffix` and the main package with `--only main --platforms` (every platform).
// For `--suffix wasm32-wasi` FILE is the `.wasm` of a wasm32-wasip1-threads `napi build`, and the
// loaders that build wrote are taken from beside it.
const args = process.argv.slice(2);
const opt = {};
while (args[0] && args[0].startsWith('--')) {
  const [flag, value] = [args.shift(), args.shift()];
  if (!['--addon', '--suffix', '--platforms', '--only'].includes(flag) || value === undefined) {
    throw new Error(`pack.js: unknown option or missing value: ${flag}`);
  }
  opt[flag.slice(2)] = value;
}
const addonArg = opt.addon ? path.resolve(opt.addon) : null;
if (opt.only && !['main', 'platform'].includes(opt.only)) throw new Error('pack.js: --only main|platform');
const out = path.resolve(args[0] || path.join(root, 'dist'));
const stage = path.join(here, 'target', 'npm-stage');

const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));

// [workspace.package] and [workspace.dependencies] of the root manifest, to spell out what the
// members inherit: a tarball has no workspace around it.
function workspaceTables() {
  const text = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const table = (name) => {
    const m = new RegExp(`^\\[${name.replace('.', '\\.')}\\]\\n([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`, 'm').exec(text);
    if (!m) throw new Error(`Cargo.toml has no [${name}]`);
    return Object.fromEntries(
      m[1]
        .split('\n')
        .map((l) => /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(l.trim()))
        .filter(Boolean)
        .map((m2) => [m2[1], m2[2]]),
    );
  };
  return { pkg: table('workspace.package'), deps: table('workspace.dependencies') };
}

// `paths`: where each workspace crate the manifest depends on sits, relative to the manifest.
function standalone(manifest, ws, paths) {
  let section = '';
  return manifest
    .split('\n')
    .map((line) => {
      const header = /^\[(.+)\]$/.exec(line);
      if (header) section = header[1];
      let m = /^([A-Za-z0-9_-]+)\.workspace = true$/.exec(line);
      if (m && section === 'package') {
        if (!(m[1] in ws.pkg)) throw new Error(`no workspace value for ${m[1]}`);
        return `${m[1]} = ${ws.pkg[m[1]]}`;
      }
      if (m && m[1] in paths) return `${m[1]} = { path = "${paths[m[1]]}", default-features = false }`;
      if (m) {
        if (!(m[1] in ws.deps)) throw new Error(`no workspace dependency ${m[1]}`);
        return `${m[1]} = ${ws.deps[m[1]]}`;
      }
      m = /^([A-Za-z0-9_-]+) = \{ workspace = true(.*)\}$/.exec(line);
      if (m) {
        const extra = m[2].replace(/\s+$/, '');
        if (m[1] in paths) return `${m[1]} = { path = "${paths[m[1]]}", default-features = false${extra} }`;
        const inherited = ws.deps[m[1]];
        if (!inherited) throw new Error(`no workspace dependency ${m[1]}`);
        const table = inherited.startsWith('{') ? inherited.replace(/\s*\}$/, '') : `{ version = ${inherited}`;
        return `${m[1]} = ${table}${extra} }`;
      }
      if (/workspace/.test(line)) throw new Error(`cannot make this line standalone: ${line}`);
      return line;
    })
    .join('\n');
}

// Drops a manifest section (tests and benchmarks are not shipped).
function without(manifest, header) {
  return manifest.replace(new RegExp(`^\\[${header.replace(/[[\]]/g, '\\$&')}\\]\\n[\\s\\S]*?(?=^\\[|(?![\\s\\S]))`, 'gm'), '');
}

function copy(from, to) {
  fs.cpSync(from, to, { recursive: true, dereference: true });
}

function npmPack(dir) {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  return path.join(out, name.trim().split('\n').pop());
}


const ws = workspaceTables();
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// --- the platform package: one prebuilt addon
const suffix = opt.suffix || platformSuffix();
const platforms = opt.platforms ? opt.platforms.split(',') : [suffix];
// napi-rs's suffixes with a native addon (the loader, main.js, requires `hrwhash-<suffix>`), and
// its WebAssembly fallback; a typo would publish a package no platform installs.
for (const s of [suffix, ...platforms]) {
  if (!/^(linux-(x64|arm64)-(gnu|musl)|darwin-(x64|arm64)|win32-(x64|arm64)-msvc|wasm32-wasi)$/.test(s)) {
    throw new Error(`pack.js: unknown platform ${s}`);
  }
}
const wasi = suffix === 'wasm32-wasi';
const addonName = wasi ? 'hrwhash.wasm32-wasi.wasm' : `hrwhash.${suffix}.node`;
const addon = addonArg || path.join(here, addonName);
if (opt.only !== 'main' && !fs.existsSync(addon)) {
  throw new Error(
    `${addon} is missing: run 'make -C bindings-node ${wasi ? 'wasm' : 'build'}' first`,
  );
}
const platformName = `${pkg.name}-${suffix}`;
const platformDir = path.join(stage, suffix);
fs.mkdirSync(platformDir, { recursive: true });
if (opt.only !== 'main') fs.copyFileSync(addon, path.join(platformDir, addonName));
// What napi-rs's own wasm32-wasi packages hold (`napi create-npm-dirs`): the Node loader (CommonJS
// in a package of type module), its types, the browser loader and the workers of emnapi's threads.
const wasiLoaders = ['hrwhash.wasi.cjs', 'hrwhash.wasi.d.cts', 'hrwhash.wasi-browser.js', 'wasi-worker.mjs', 'wasi-worker-browser.mjs'];
if (wasi && opt.only !== 'main') {
  for (const f of wasiLoaders) {
    const from = path.join(path.dirname(addon), f);
    if (!fs.existsSync(from)) throw new Error(`${from} is missing: the wasm32-wasip1-threads build writes it beside ${addonName}`);
    fs.copyFileSync(from, path.join(platformDir, f));
  }
}
const [os, cpu, libc] = suffix.split('-');
// The loaders' runtime, at the versions the build linked against (emnapi's archive and its
// JavaScript half must match) and the tests ran with: the pinned devDependencies.
const wasiRuntime = ['@napi-rs/wasm-runtime', '@emnapi/core', '@emnapi/runtime'];
const platformFields = wasi
  ? {
      main: 'hrwhash.wasi.cjs',
      types: 'hrwhash.wasi.d.cts',
      browser: 'hrwhash.wasi-browser.js',
      type: 'module',
      files: [addonName, ...wasiLoaders, 'LICENSE-MIT', 'LICENSE-APACHE', 'THIRD-PARTY-LICENSES.txt'],
      // npm installs it only where asked to (`--cpu=wasm32`), as napi-rs's own packages do: on a
      // platform with a native package it would be a megabyte nobody loads.
      cpu: ['wasm32'],
      // What @napi-rs/wasm-runtime supports (node:wasi with shared memory).
      engines: { node: '^20.19.0 || ^22.13.0 || >=23.5.0' },
      dependencies: Object.fromEntries(
        wasiRuntime.map((d) => {
          if (!pkg.devDependencies[d]) throw new Error(`package.json has no devDependency ${d}`);
          return [d, pkg.devDependencies[d]];
        }),
      ),
    }
  : {
      main: addonName,
      files: [addonName, 'LICENSE-MIT', 'LICENSE-APACHE', 'THIRD-PARTY-LICENSES.txt'],
      os: [os === 'win32' ? 'win32' : os],
      cpu: [cpu],
      ...(os === 'linux' ? { libc: [libc === 'gnu' ? 'glibc' : 'musl'] } : {}),
      engines: pkg.engines,
    };
fs.writeFileSync(
  path.join(platformDir, 'package.json'),
  JSON.stringify(
    {
      name: platformName,
      version: pkg.version,
      description: wasi ? `The WebAssembly build of ${pkg.name}, for platforms with no prebuilt addon` : `The prebuilt ${suffix} addon of ${pkg.name}`,
      license: pkg.license,
      repository: pkg.repository,
      ...platformFields,
    },
    null,
    2,
  ) + '\n',
);
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) fs.copyFileSync(path.join(root, f), path.join(platformDir, f));
// The notices of the crates compiled into the addon (packaging/third_party_licenses.py); the
// WebAssembly build also links emnapi's C half (libemnapi-napi-rs-mt.a), so its licence follows.
let notices = fs.readFileSync(path.join(here, 'THIRD-PARTY-LICENSES.txt'), 'utf8');
if (wasi) {
  const emnapi = path.dirname(require.resolve('emnapi/package.json', { paths: [here] }));
  const version = JSON.parse(fs.readFileSync(path.join(emnapi, 'package.json'), 'utf8')).version;
  notices += `\n${'='.repeat(80)}\nemnapi ${version} (its C library, linked into hrwhash.wasm32-wasi.wasm)\n\n${fs.readFileSync(path.join(emnapi, 'LICENSE'), 'utf8')}`;
}
fs.writeFileSync(path.join(platformDir, 'THIRD-PARTY-LICENSES.txt'), notices);
fs.writeFileSync(
  path.join(platformDir, 'README.md'),
  wasi
    ? `# ${platformName}\n\nThe WebAssembly build of [${pkg.name}](https://www.npmjs.com/package/${pkg.name}) (wasm32-wasip1-threads), which \`${pkg.name}\` loads when no prebuilt addon matches the platform. npm installs it only when asked: \`npm install --cpu=wasm32 ${pkg.name}\`. \`NAPI_RS_FORCE_WASI=true\` prefers it over a native addon, \`NAPI_RS_FORCE_WASI=error\` requires it.\n`
    : `# ${platformName}\n\nThe prebuilt addon of [${pkg.name}](https://www.npmjs.com/package/${pkg.name}) for ${suffix}; install \`${pkg.name}\`, not this package.\n`,
);

// --- the main package: loader, types, and the sources of a build from source
const mainDir = path.join(stage, 'main');
fs.mkdirSync(mainDir, { recursive: true });
for (const f of pkg.files) if (f !== 'Cargo.toml') copy(path.join(here, f), path.join(mainDir, f));
fs.rmSync(path.join(mainDir, 'scripts', 'pack.js'));
// Run after `napi build` on the repository's index.d.ts; the package ships the result.
fs.rmSync(path.join(mainDir, 'scripts', 'generic-ids.js'));
for (const f of ['README.md']) copy(path.join(here, f), path.join(mainDir, f));
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) fs.copyFileSync(path.join(root, f), path.join(mainDir, f));
let manifest = fs.readFileSync(path.join(here, 'Cargo.toml'), 'utf8');
manifest = without(manifest, '[example]');
// An empty workspace table: the package builds alone even when it sits inside another Cargo project.
manifest = standalone(manifest, ws, { hrwhash: 'core', 'hrwhash-compat': 'compat' }) + '\n[workspace]\n\n[profile.release]\ncodegen-units = 1\nlto = "thin"\n';
fs.writeFileSync(path.join(mainDir, 'Cargo.toml'), manifest);
copy(path.join(root, 'Cargo.lock'), path.join(mainDir, 'Cargo.lock'));
// The workspace crates the addon is built from: the core and the compatibility profiles.
for (const dir of ['core', 'compat']) {
  copy(path.join(root, dir, 'src'), path.join(mainDir, dir, 'src'));
  let crateManifest = fs.readFileSync(path.join(root, dir, 'Cargo.toml'), 'utf8');
  crateManifest = without(without(crateManifest, 'dev-dependencies'), '[bench]');
  crateManifest = standalone(crateManifest, ws, { hrwhash: '../core' }).replace(/^readme = .*\n/m, '');
  fs.writeFileSync(path.join(mainDir, dir, 'Cargo.toml'), crateManifest);
}
const mainPkg = {
  ...pkg,
  files: [...pkg.files, 'Cargo.lock', 'core', 'compat', 'LICENSE-MIT', 'LICENSE-APACHE'],
  optionalDependencies: {
    ...(pkg.optionalDependencies || {}),
    ...Object.fromEntries(platforms.map((s) => [`${pkg.name}-${s}`, pkg.version])),
  },
};
delete mainPkg.devDependencies;
delete mainPkg.scripts.build;
delete mainPkg.scripts.test;
fs.writeFileSync(path.join(mainDir, 'package.json'), JSON.stringify(mainPkg, null, 2) + '\n');

const tarballs = [];
if (opt.only !== 'platform') tarballs.push(npmPack(mainDir));
if (opt.only !== 'main') tarballs.push(npmPack(platformDir));
for (const t of tarballs) console.log(path.relative(process.cwd(), t));
