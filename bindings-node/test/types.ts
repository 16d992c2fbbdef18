// Compiled (not run) under `strict` by readme.test.js: the typings accept what the API accepts
// and reject what it rejects.
import { Placement, keyDigest, draw, type NodeId, type NodeInfo, type HrwErrorCode } from 'hrwhash'

const p = new Placement(['a', Buffer.from('b'), new Uint8Array([99]), { id: 'd', weight: 2, domain: 'r1' }], {
  seed: '00112233445566778899aabbccddeeff',
})
const owner: NodeId = p.owner('k')
const owners: NodeId[] = p.owners(['k', Buffer.from('k')])
const rows: NodeId[][] = p.rankMany(['k'], 2)
const idx: Uint32Array = p.ownersPacked(Buffer.from('ab'), Uint32Array.of(0, 1, 2))
const score: bigint = p.score('k', 'a')
const d: bigint = draw(keyDigest('k'))
const info: NodeInfo[] = p.withNode({ id: 'e' }).withoutNode('a').withWeight('d', 0.5).nodes()
const fixed: bigint = info[0].weightFixed
const n: number = p.length + p.selectableLength + p.ownerIndex('k')
const seedHex: string = p.seed
const code: HrwErrorCode = 'HRW_UNKNOWN_NODE'
void [owner, owners, rows, idx, score, d, fixed, n, seedHex, code]

// @ts-expect-error keys are strings or bytes
p.owner(42)
// @ts-expect-error k is required
p.rank('k')
// @ts-expect-error weights are numbers
new Placement(['a'], { weights: ['1'] })
// @ts-expect-error a lookup may return a Buffer
const s: string = p.owner('k')
void s
