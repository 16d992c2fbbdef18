// README.md's example is type-checked under `strict` (with test/types.ts) and then run.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const tmp = path.join(root, '.tmp'); // inside the package, so 'hrwhash' resolves to it

function readmeExample() {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'README.md has one TypeScript example');
  return blocks[0];
}

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
  const example = path.join(tmp, 'readme.ts');
  fs.writeFileSync(example, readmeExample());
  const program = ts.createProgram([example, path.join(__dirname, 'types.ts')], compilerOptions);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
  assert.equal(diagnostics.length, 0, text);
});

test('README example runs', () => {
  fs.mkdirSync(tmp, { recursive: true });
  const js = ts.transpileModule(readmeExample(), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  const file = path.join(tmp, 'readme.js');
  fs.writeFileSync(file, js);
  const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
  assert.match(out, /^hrw-v1: session:1234 -> 10\.0\.0\.[123]:11211\n$/);
});
