// README.md's examples are type-checked under `strict` (with test/types.ts) and then run.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const tmp = path.join(root, '.tmp'); // inside the package, so 'hrwhash' resolves to it

function readmeExamples() {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 3, 'README.md has its placement, view and slot table examples');
  return blocks;
}

/** What each example prints, in README order. */
const OUTPUTS = [
  /^hrw-v1: session:1234 -> 10\.0\.0\.[123]:11211\n$/,
  /^\d+ steps moving 0\.\d{3} \(direct: 0\.250\)\n$/,
  /^epoch 8, moving false\n$/,
  /^levelled table of 4096 slots, fingerprint 32 hex digits\n$/,
];

const compilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  // No `types: ['node']`: index.d.ts must bring in the Node types it uses (Buffer) itself.
  types: [],
  typeRoots: [path.join(root, 'node_modules', '@types')],
  skipLibCheck: true,
};

test('README example and test/types.ts type-check under strict', () => {
  fs.mkdirSync(tmp, { recursive: true });
  const examples = readmeExamples().map((code, i) => {
    const file = path.join(tmp, `readme-${i}.ts`);
    fs.writeFileSync(file, code);
    return file;
  });
  const program = ts.createProgram([...examples, path.join(__dirname, 'types.ts')], compilerOptions);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
  assert.equal(diagnostics.length, 0, text);
});

test('README examples run', () => {
  fs.mkdirSync(tmp, { recursive: true });
  const examples = readmeExamples();
  assert.equal(examples.length, OUTPUTS.length, 'every README example has its expected output here');
  examples.forEach((code, i) => {
    const js = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText;
    const file = path.join(tmp, `readme-${i}.js`);
    fs.writeFileSync(file, js);
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
    assert.match(out, OUTPUTS[i]);
  });
});
