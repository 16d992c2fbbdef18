#!/usr/bin/env node
// Gives the classes that answer node ids their id type parameter in the generated index.d.ts, as
// Python's `Placement[str]`: `new Placement(['a'])` is a `Placement<string>` whose lookups return
// strings. napi-rs writes `declare class X` with no way to declare type parameters, while the
// methods' types (`ts_return_type` in src/, and types-header.d.ts) already name `Id`; a class and
// the interface merged into it must declare the same parameters. Run by `make build` after
// `napi build`; check-generated compares the result.
'use strict';
const fs = require('node:fs');

// A class's `Id` is the type of the ids it was built from (a `Uint8Array` for bytes, answered as
// a `Buffer`), by default any (`NodeIdLike`), so every instance is still a plain `Placement`; a
// transition has one for each side. A plan's are the ids it answers (`NodeId`).
const PARAMS = {
  BoundedLoad: 'out Id = NodeIdLike',
  Domains: 'out Id = NodeIdLike',
  LiveView: 'out Id = NodeIdLike',
  Placement: 'out Id = NodeIdLike',
  Plan: 'out Old = NodeId, out New = NodeId',
  ProfilePlacement: 'out Id = NodeIdLike',
  RampPlan: 'out Id = NodeIdLike',
  ReplicaBalance: 'out Id = NodeIdLike',
  SlotTable: 'out Id = NodeIdLike',
  Transition: 'out Old = NodeIdLike, out New = NodeIdLike',
  View: 'out Id = NodeIdLike',
};
const file = process.argv[2] || 'index.d.ts';
let text = fs.readFileSync(file, 'utf8');
for (const [name, params] of Object.entries(PARAMS)) {
  const plain = `export declare class ${name} {`;
  const generic = `export declare class ${name}<${params}> {`;
  if (text.includes(generic)) continue;
  if (!text.includes(plain)) throw new Error(`${file}: no \`${plain}\``);
  text = text.replace(plain, generic);
}
fs.writeFileSync(file, text);
