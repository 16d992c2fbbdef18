// Compiled (not run) under `strict` by readme.test.js: the typings accept what the API accepts
// and reject what it rejects.
import { Placement, keyDigest, draw, weightToFixed, type NodeId, type NodeInfo, type HrwErrorCode } from 'hrwhash'
import { View, Transition, type ProfilePlacement, RampPlan, ramp, type Route, type RouteSet, type Diff, type Move, type ReplicaMove, type NodeChange, type RampStep, type ViewFault } from 'hrwhash'

const p = new Placement(['a', Buffer.from('b'), new Uint8Array([99]), { id: 'd', weight: 2, domain: 'r1' }], {
  seed: '00112233445566778899aabbccddeeff',
})
const owner: NodeId = p.owner('k')
const owners: NodeId[] = p.owners(['k', Buffer.from('k')])
const rows: NodeId[][] = p.rankMany(['k'], 2)
const idx: Uint32Array = p.ownerIndices(Buffer.from('ab'), Uint32Array.of(0, 1, 2))
const score: bigint = p.score('k', 'a')
const d: bigint = draw(keyDigest('k'))
const info: NodeInfo[] = p.withNode({ id: 'e' }).withoutNode('a').withWeight('d', 0.5).nodes()
const fixed: bigint = info[0].weightFixed
const n: number = p.length + p.selectableLength + p.ownerIndex('k')
const seedHex: string = p.seed
const code: HrwErrorCode = 'HRW_UNKNOWN_NODE'
const codes: HrwErrorCode[] = ['HRW_INVALID_TEXT', 'HRW_INVALID_COUNT', 'HRW_RESULT_TOO_LARGE', 'ERR_INVALID_ARG_TYPE']
const arrow: Uint32Array = p.ownerIndices(Buffer.from('ab'), Int32Array.of(0, 1, 2))
const zoned = new Placement(['a', 'b'], { weights: [1, 2], domains: ['r1', null], seed: null })
const again = new Placement(zoned.nodes())
const w: bigint = weightToFixed(1.5)
void [owner, owners, rows, idx, score, d, fixed, n, seedHex, code, codes, arrow, again, w]

// @ts-expect-error keys are strings or bytes
p.owner(42)
// @ts-expect-error k is required
p.rank('k')
// @ts-expect-error weights are numbers
new Placement(['a'], { weights: ['1'] })
// @ts-expect-error a lookup may return a Buffer
const s: string = p.owner('k')
void s
// @ts-expect-error unknown option names are errors
new Placement(['a'], { domainz: ['x'] })
// @ts-expect-error the getters are read-only
p.length = 3

const view = new View(p, 1n)
const loaded: View = View.fromJson(Buffer.from(view.toJson()), { seed: '00112233445566778899aabbccddeeff' })
const fromFile: (path: string) => View = (f) => View.fromFile(f, null)
const epoch: bigint = loaded.withEpoch(2).epoch
const fp: string = loaded.fingerprint + loaded.seedFingerprint
const back: Placement = loaded.placement
const t = new Transition(view, p)
const route: Route = t.route('k')
const sides: Array<Placement | ProfilePlacement> = [t.oldPlacement, t.newPlacement]
const moved: boolean = route.moved
const set: RouteSet = t.routeTop(Buffer.from('k'), 2)
const diff: Diff = t.diff(new Set(['a', 'b']))
const moves: Move[] = [...t.plan(['a', 'b'])]
const replicaDiff: Diff = t.diffTop(['a', 'b'], 2)
const row: NodeChange = replicaDiff.nodes[0]
const rowCounts: number = row.added + row.dropped + (row.oldIndex ?? -1) + (row.newIndex ?? -1) + replicaDiff.copiesAdded + replicaDiff.k
const replicaMoves: ReplicaMove[] = [...t.planTop(['a', 'b'], 2)]
const firstAdd = t.planTop(['a'], 2).next().value?.route.add[0]
const r = ramp(view, loaded, 0.05)
const steps: RampStep[] = new RampPlan(view, loaded, 0.1).steps
const last: View = r.views()[r.steps.length - 1]
const totals: number = r.totalMoved - r.directMoved + r.optimum + r.maxMove
const movement: [number | null, number | null] = [t.expectedMoved, t.optimum]
const fault: ViewFault = 'wrong_type'
const viewCodes: HrwErrorCode[] = ['HRW_INVALID_JSON', 'HRW_INVALID_VIEW', 'HRW_SEED_MISMATCH', 'HRW_INVALID_MOVE_LIMIT']
void [sides, fromFile, epoch, fp, back, moved, set, diff, moves, rowCounts, replicaMoves, firstAdd, steps, last, totals, movement, fault, viewCodes]

// @ts-expect-error a view is built from a Placement, not from ids
new View(['a'], 1)
// @ts-expect-error a ramp goes between views
ramp(p, view, 0.1)
// @ts-expect-error unknown load options are errors
View.fromJson('{}', { seeds: 'x' })
// @ts-expect-error the fingerprint is read-only
view.fingerprint = 'x'

import { SlotTable, SLOT_TABLE_POLICY, RANKED_SLOT_TABLE_POLICY, SLOT_HISTORY_FORMAT, type SlotMode, type SlotTableOptions } from 'hrwhash'

const table = new SlotTable(p, 1024)
const rankedTable = new SlotTable(view, 1024, { mode: 'ranked', overloadPpm: 50_000, epoch: 3n })
const tableOptions: SlotTableOptions = { mode: null, overloadPpm: null, epoch: 1 }
const mode: SlotMode = rankedTable.mode
const ppm: number | null = rankedTable.overloadPpm
const caps: number[] | null = rankedTable.capacities()
const slotOwner: NodeId = table.owner('k')
const slotOf: number = table.slot(Buffer.from('k'))
const ofSlot: NodeId = table.ownerOfSlot(slotOf)
const counts: number[] = table.slotCounts().concat(table.assignments())
table.addNode({ id: 'e', weight: 2 })
table.removeNode('a')
table.setWeight('d', 3)
const copies: SlotTable[] = [table.withNode('f'), table.withoutNode('e'), table.withWeight('d', 1), table.withEpoch(2n)]
const shared: SlotTable = SlotTable.fromJson(Buffer.from(table.toJson()), { seed: '00112233445566778899aabbccddeeff' })
const tableEpoch: bigint = shared.epoch
const tableFp: string = shared.fingerprint + shared.view().fingerprint
const members: Placement[] = [shared.placement, shared.initial]
const changed: number = shared.changeCount + shared.slots
const tags: string[] = [SLOT_TABLE_POLICY, RANKED_SLOT_TABLE_POLICY, SLOT_HISTORY_FORMAT]
const tableCodes: HrwErrorCode[] = ['HRW_INVALID_SLOT_COUNT', 'HRW_SLOT_OUT_OF_RANGE']
void [tableOptions, mode, ppm, caps, slotOwner, ofSlot, counts, copies, tableEpoch, tableFp, members, changed, tags, tableCodes]

// @ts-expect-error the mode is one of two names
new SlotTable(p, 8, { mode: 'fair' })
// @ts-expect-error unknown options are errors
new SlotTable(p, 8, { overload: 5 })
// @ts-expect-error a table is built from a Placement or a View
new SlotTable(['a'], 8)
// @ts-expect-error the mode is read-only
table.mode = 'ranked'
// @ts-expect-error a change in place returns nothing
const nothing: SlotTable = table.addNode('g')
void nothing

// hrwhash/live: sources, publishers and the ramp.
import { EtcdSource, FileSource, publishEtcd, publishRamp, type SourceEvent, type Published } from 'hrwhash/live'
import { LiveView, type LiveRoute } from 'hrwhash'
async function followAndRamp(plan: RampPlan): Promise<Published[]> {
  const source = new EtcdSource('http://127.0.0.1:2379', '/fleet', { onEvent: (e: SourceEvent) => void e.event })
  const live: LiveView = await source.start({ moveDeadline: 60_000 })
  const r: LiveRoute = live.route('k')
  void r.moved
  void new FileSource('/etc/fleet.json', { interval: 500, backoff: [100, 5000] })
  // @ts-expect-error the interval is required
  void publishRamp(plan, (v) => publishEtcd('http://127.0.0.1:2379', '/fleet', v), {})
  return publishRamp(plan, (v) => publishEtcd('http://127.0.0.1:2379', '/fleet', v), { interval: 30_000 })
}
void followAndRamp

// Ids keep their type: a class built from string ids answers strings, from bytes Buffers
// (Python's `Placement[str]`). `Exact` fails unless the two types are the same, so an answer
// widened back to `NodeId` (or to `any`) fails here.
import { BoundedLoad, Domains, ReplicaBalance, ProfilePlacement as Profile, type Move as MoveOf } from 'hrwhash'
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const same = <A, B>(ok: Exact<A, B>): void => void ok

const names = new Placement(['a', 'b', { id: 'c', weight: 2 }])
const named: Placement<string> = names
same<typeof names, Placement<string>>(true)
same<ReturnType<typeof names.owner>, string>(true)
const nameOwner: string = names.owner('k')
const nameLists: string[][] = [names.owners(['k']), names.rank('k', 2), names.replicas('k', 2), names.replicasStrict('k', 1), ...names.rankMany(['k'], 2)]
const nameIds: string[] = names.nodes().map((n) => n.id)
const grown: Placement<string> = names.withNode('d').withNode({ id: 'e' }).withoutNode('a').withWeight('b', 3)
const bytes = new Placement([Buffer.from('a'), Buffer.from('b')])
const byteOwner: Buffer = bytes.owner('k')
const byteIds: Buffer[] = bytes.nodes().map((n) => n.id)
const raw = new Placement([new Uint8Array([1]), new Uint8Array([2])])
const rawOwner: Buffer = raw.owner('k')
const both = new Placement(['a', Buffer.from('b')])
same<ReturnType<typeof both.owner>, string | Buffer>(true)
const fromIds: string[] = ['x', 'y']
same<typeof fromIds extends ReadonlyArray<infer I> ? ReturnType<Placement<I>['owner']> : never, string>(true)
void [named, nameOwner, nameLists, nameIds, grown, byteOwner, byteIds, rawOwner]

// A view gives back a string for every id that is UTF-8: string ids stay strings, bytes may not.
const nameView = new View(names, 1)
const viewOwner: string = nameView.withEpoch(2).placement.owner('k')
same<ReturnType<typeof nameView.placement.owner>, string>(true)
const byteView = new View(bytes, 1)
same<ReturnType<typeof byteView.placement.owner>, string | Buffer>(true)
const loadedNames: View<string> = View.fromJson<string>(nameView.toJson())
same<ReturnType<ReturnType<typeof View.fromJson>['placement']['owner']>, string | Buffer>(true)
void [viewOwner, loadedNames]

const move = new Transition(names, nameView.withEpoch(2))
const moveRoute: Route<string, string> = move.route('k')
const movedTo: string = moveRoute.new
const moveSet: string[] = [...move.routeTop('k', 2).add, ...move.routeTop('k', 2).drop]
const moveFlows: string[] = move.diff(['k']).flows.map((f) => f.from + f.to)
for (const m of move.plan(['k'])) {
  const copy: MoveOf<string, string> = m
  const to: string = m.to
  void [copy, to]
}
const toBytes = new Transition(names, bytes)
same<ReturnType<typeof toBytes.route>, Route<string, Buffer>>(true)
const sideOld: Placement<string> | Profile<string> = move.oldPlacement
void [movedTo, moveSet, moveFlows, sideOld]

const bounded: string = new BoundedLoad(names, 1.25).owner('k', [0, 0, 0])
const boundedAll: string[] = new BoundedLoad(nameView, [5, 4]).assign(['k'])
const balanced: string[] = new ReplicaBalance(names, 2).replicas('k')
const zones = new Domains(new Placement([{ id: 'a', domain: 'r1/h1' }, { id: 'b', domain: 'r2/h1' }]), 0)
const zoned2: string[] = [zones.owner('k'), ...zones.replicas('k', 2)]
const zonesOf: Placement<string> = zones.placement
const slots = new SlotTable(names, 64)
const slotNames: string[] = [slots.owner('k'), slots.ownerOfSlot(0), slots.placement.owner('k'), slots.initial.owner('k')]
const slotsChanged: SlotTable<string> = slots.withNode('x').withoutNode('a').withWeight('b', 2).withEpoch(3)
slots.addNode({ id: 'y', weight: 2 })
const slotsLoaded: SlotTable<string> = SlotTable.fromJson<string>(slots.toJson())
const slotView: View<string> = slots.view()
const incumbent = new Profile('hashring-node-3', ['a', 'b'])
const incumbentIds: string[] = [incumbent.owner('k'), ...incumbent.owners(['k']), ...incumbent.nodes, ...incumbent.replicas('k', 2)]
const stringRamp = ramp(nameView, nameView.withEpoch(5), 0.5)
const rampViews: View<string>[] = [...stringRamp.views(), stringRamp.view(0)]
const live = new LiveView(nameView)
const liveOwner: string = live.owner('k')
const liveRoute: LiveRoute<string> = live.route('k')
live.onChange((t) => {
  const r: Route<string, string> = t.route('k')
  void r
})
live.update(nameView.withEpoch(3))
const liveCurrent: View<string> = live.current
void [bounded, boundedAll, balanced, zoned2, zonesOf, slotNames, slotsChanged, slotsLoaded, slotView, incumbentIds, rampViews, liveOwner, liveRoute, liveCurrent]

// @ts-expect-error a Placement<string> answers strings, never a Buffer
const notBytes: Buffer = names.owner('k')
// @ts-expect-error nor a Buffer list
const notByteList: Buffer[] = names.owners(['k'])
// @ts-expect-error a Placement<Buffer> answers Buffers
const notText: string = bytes.owner('k')
// @ts-expect-error ids are strings or bytes, in a list or in node objects alike
new Placement([42])
// @ts-expect-error a node object's id too
new Placement([{ id: 42 }])
// @ts-expect-error a mixed placement may answer either
const notOnlyText: Placement<string> = both
// @ts-expect-error a view of byte ids may answer a Buffer
const notTextView: string = byteView.placement.owner('k')
// @ts-expect-error a transition to byte ids routes to Buffers
const notTextRoute: string = toBytes.route('k').new
// @ts-expect-error a table of string ids takes no byte ids in place (its answers would change type)
slots.addNode(Buffer.from('z'))
// @ts-expect-error a live view of strings takes no view that may answer Buffers
live.update(View.fromJson('{}'))
// @ts-expect-error the policies answer the placement's ids
const notBounded: Buffer = new BoundedLoad(names, 1.25).owner('k', [0, 0, 0])
// @ts-expect-error
const notSlot: Buffer = slots.owner('k')
// @ts-expect-error
const notProfile: Buffer = incumbent.owner('k')
// @ts-expect-error
const notLive: Buffer = live.owner('k')
// @ts-expect-error
const notZone: Buffer = zones.owner('k')
// @ts-expect-error
const notBalanced: Buffer[] = new ReplicaBalance(names, 2).replicas('k')
// @ts-expect-error `Exact` tells types apart
same<string, NodeId>(true)
void [notBytes, notByteList, notText, notOnlyText, notTextView, notTextRoute, notBounded, notSlot, notProfile, notLive, notZone, notBalanced]
