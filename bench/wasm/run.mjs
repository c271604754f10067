// PCD-1 and SML-PT update throughput in node, side by side in one run (bench/wasm/run.sh drives it):
//   zeta wasm       the WebAssembly module (SIMD, one thread) through zeta.js: Trainer.step on a Dataset, or with
//                   --rows u8 on 0/1 bytes held in JavaScript (a Uint8Array, copied into the module per step);
//   zeta native     libzeta through the C API (native_pcd, OMP_NUM_THREADS=1), the same calls (--rows u8:
//                   zeta_trainer_step_u8 on bytes);
//   tfjs-wasm       TensorFlow.js with its wasm backend (SIMD; threads set to 1), the same PCD-1 math in float32;
//   GEMM reference  Eigen's GEMM compiled with the module's flags (gemm.cpp -> gemm.mjs): float and double
//                   GFLOP/s of the (100 x 784)(784 x 500) product, in this run; and zeta wasm's
//                   Rbm.hiddenProbs on 1000 rows (double GEMM + sigmoid through the C API).
// Model 784 x 500, batch 100, 100 persistent chains (PT: 10 temperatures x 10 chains); float kernels
// (single_precision 1) unless --double. Prints a table and writes results.json next to the arguments' out dir.
// Usage: node run.mjs PKG_DIR NATIVE_EXE OUT_JSON GEMM_MJS [--updates N] [--double] [--rows f64|u8]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import os from 'node:os';

const args = process.argv.slice(2);
const [pkgDir, nativeExe, outJson, gemmMjs] = args;
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : dflt; };
const UPDATES = opt('--updates', 20);
const SINGLE = args.includes('--double') ? 0 : 1;
const ROWS = args.includes('--rows') ? args[args.indexOf('--rows') + 1] : 'f64';
if (ROWS !== 'f64' && ROWS !== 'u8') throw new Error('--rows must be f64 or u8');
const NV = 784, NH = 500, BATCH = 100, CHAINS = 100, PT_M = 10, PT_N = 10;
// Flops of one PCD-1 update: positive phase and its gradient 2*2*n*nv*nh; negative phase h|v, v|h, h|v' and
// its gradient 4*2*N*nv*nh. PT with M*N chains does the same per chain (plus swaps, negligible).
const pcdFlops = 2 * NV * NH * (2 * BATCH + 4 * CHAINS);

const zeta = await import(pathToFileURL(path.resolve(pkgDir, 'zeta.js')).href);
await zeta.init();
const train = zeta.Dataset.default('train');
const trainBytes = ROWS === 'u8' ? Uint8Array.from(train.toArray()) : null;

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function timeBlocks(fn, updates, blocks = 5) {
  for (let i = 0; i < 3; ++i) fn(); // warm-up
  const ms = [];
  for (let b = 0; b < blocks; ++b) {
    const t0 = performance.now();
    for (let i = 0; i < updates; ++i) fn();
    ms.push((performance.now() - t0) / updates);
  }
  return { ms: median(ms), min: Math.min(...ms), max: Math.max(...ms) };
}

function zetaWasm(method) {
  const rbm = new zeta.Rbm(NV, NH, 1).initFromData(train, 0.01);
  const o = { method, learning_rate: 0.01, single_precision: SINGLE, data_move_rungs: 0,
              chains_per_temperature: method === 2 ? PT_N : CHAINS };
  if (method === 2) o.n_temperatures = PT_M;
  const tr = new zeta.Trainer(rbm, o);
  let off = 0;
  return {
    step: () => {
      if (off + BATCH > train.nRows) off = 0;
      tr.step(trainBytes ? trainBytes.subarray(off * NV, (off + BATCH) * NV) : train.slice(off, BATCH));
      off += BATCH;
    },
    dispose: () => { tr.dispose(); rbm.dispose(); },
  };
}

async function eigenGemm() {
  const { default: factory } = await import(pathToFileURL(path.resolve(gemmMjs)).href);
  const m = await factory();
  return { float: () => m._gemm_gflops(BATCH, NV, NH, 20, 1), double: () => m._gemm_gflops(BATCH, NV, NH, 20, 0) };
}

function gemmReference() {
  const rbm = new zeta.Rbm(NV, NH, 1).initFromData(train, 0.01);
  const rows = train.slice(0, 1000);
  const r = timeBlocks(() => rbm.hiddenProbs(rows), 3);
  rbm.dispose();
  return { ...r, gflops: (2 * 1000 * NV * NH) / (r.ms * 1e6) };
}

function native(method) {
  const env = { ...process.env, OMP_NUM_THREADS: '1' };
  const p = spawnSync(nativeExe, [String(method), String(NV), String(NH), String(BATCH), String(PT_M),
                                  String(method === 2 ? PT_N : CHAINS), String(UPDATES), String(SINGLE), ROWS],
                      { env, encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`native_pcd failed: ${p.stderr}`);
  const j = JSON.parse(p.stdout);
  return { ms: j.ms_per_update, min: j.min, max: j.max };
}

async function tfjsPcd() {
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const dist = path.join(path.dirname(new URL(import.meta.resolve('@tensorflow/tfjs-backend-wasm')).pathname), '/');
  wasm.setWasmPaths(dist);
  if (wasm.setThreadsCount) wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const data = tf.tensor2d(Float32Array.from(train.toArray()), [train.nRows, NV], 'float32');
  const W = tf.variable(tf.randomNormal([NV, NH], 0, 0.01, 'float32', 1));
  const b = tf.variable(tf.zeros([NV]));
  const c = tf.variable(tf.zeros([NH]));
  const chain = tf.variable(data.slice([0, 0], [CHAINS, NV]));
  const lr = 0.01;
  let off = 0;
  let seed = 1;
  const step = () => {
    if (off + BATCH > train.nRows) off = 0;
    tf.tidy(() => {
      const v = data.slice([off, 0], [BATCH, NV]);
      const ph = tf.sigmoid(tf.add(tf.matMul(v, W), c));
      const hs = tf.cast(tf.less(tf.randomUniform([CHAINS, NH], 0, 1, 'float32', seed++),
                                 tf.sigmoid(tf.add(tf.matMul(chain, W), c))), 'float32');
      const vs = tf.cast(tf.less(tf.randomUniform([CHAINS, NV], 0, 1, 'float32', seed++),
                                 tf.sigmoid(tf.add(tf.matMul(hs, W, false, true), b))), 'float32');
      const phn = tf.sigmoid(tf.add(tf.matMul(vs, W), c));
      const dW = tf.sub(tf.div(tf.matMul(v, ph, true, false), BATCH), tf.div(tf.matMul(vs, phn, true, false), CHAINS));
      W.assign(tf.add(W, tf.mul(dW, lr)));
      b.assign(tf.add(b, tf.mul(tf.sub(tf.mean(v, 0), tf.mean(vs, 0)), lr)));
      c.assign(tf.add(c, tf.mul(tf.sub(tf.mean(ph, 0), tf.mean(phn, 0)), lr)));
      chain.assign(vs);
    });
    off += BATCH;
  };
  const threads = wasm.getThreadsCount ? wasm.getThreadsCount() : 'unknown';
  return { step: () => { step(); W.dataSync(); }, info: { backend: tf.getBackend(), threads, version: tf.version.tfjs } };
}

const results = { config: { NV, NH, batch: BATCH, chains: CHAINS, pt: `${PT_M}x${PT_N}`, updates: UPDATES,
                            precision: SINGLE ? 'float' : 'double', rows: ROWS, cpu: os.cpus()[0]?.model, node: process.version },
                  pcdFlops };
// The contenders are timed in ROUNDS rounds, one block of each per round, so that a change of machine load hits
// all of them alike; each figure is the median over rounds and each ratio the median of the per-round ratios.
const ROUNDS = opt('--rounds', 5);
const gemm = await eigenGemm();
const wasmPcd = zetaWasm(1);
const wasmPt = zetaWasm(2);
let tfjs = null;
try {
  tfjs = await tfjsPcd();
} catch (e) {
  results.tfjs_pcd = { error: String(e) };
}
const rounds = [];
for (let r = 0; r < ROUNDS; ++r) {
  const round = {};
  round.gemm_float = gemm.float();
  round.gemm_double = gemm.double();
  round.wasm_pcd = timeBlocks(wasmPcd.step, UPDATES, 1).ms;
  round.wasm_pt = timeBlocks(wasmPt.step, UPDATES, 1).ms;
  if (tfjs) round.tfjs_pcd = timeBlocks(tfjs.step, UPDATES, 1).ms;
  round.native_pcd = native(1).ms;
  round.native_pt = native(2).ms;
  round.hidden_probs = gemmReference().gflops;
  rounds.push(round);
  console.log(`round ${r + 1}: ` + Object.entries(round).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', '));
}
wasmPcd.dispose();
wasmPt.dispose();
const over = (k) => median(rounds.map((x) => x[k]));
const spread = (k) => ({ ms: over(k), min: Math.min(...rounds.map((x) => x[k])), max: Math.max(...rounds.map((x) => x[k])) });
results.rounds = rounds;
results.eigen_gemm = { float: over('gemm_float'), double: over('gemm_double') };
results.gemm = { gflops: over('hidden_probs') };
results.wasm_pcd = spread('wasm_pcd');
results.wasm_pt = spread('wasm_pt');
results.native_pcd = spread('native_pcd');
results.native_pt = spread('native_pt');
if (tfjs) results.tfjs_pcd = { ...spread('tfjs_pcd'), ...tfjs.info };
const g = (r) => (r && r.ms ? pcdFlops / (r.ms * 1e6) : NaN);
const rows = [
  ['zeta wasm PCD-1', results.wasm_pcd], ['zeta wasm SML-PT', results.wasm_pt],
  ['zeta native PCD-1 (1 thread)', results.native_pcd], ['zeta native SML-PT (1 thread)', results.native_pt],
  ['tfjs-wasm PCD-1', results.tfjs_pcd],
];
console.log(`784x500, batch ${BATCH}, ${CHAINS} chains (PT ${PT_M}x${PT_N}), ${SINGLE ? 'float' : 'double'} kernels`);
console.log(`Eigen GEMM under wasm SIMD, (100 x 784)(784 x 500): float ${results.eigen_gemm.float.toFixed(2)} GFLOP/s, ` +
            `double ${results.eigen_gemm.double.toFixed(2)} GFLOP/s`);
console.log(`zeta wasm hiddenProbs (double GEMM + sigmoid, 1000 rows): ${results.gemm.gflops.toFixed(2)} GFLOP/s`);
for (const [name, r] of rows) {
  if (!r || r.error) { console.log(`${name.padEnd(32)} failed: ${r && r.error}`); continue; }
  console.log(`${name.padEnd(32)} ${r.ms.toFixed(2).padStart(8)} ms/update  ${(1000 / r.ms).toFixed(1).padStart(7)} updates/s  ` +
              `${g(r).toFixed(2).padStart(6)} GFLOP/s`);
}
results.ratios = {
  wasm_vs_tfjs: tfjs ? median(rounds.map((x) => x.tfjs_pcd / x.wasm_pcd)) : null,
  wasm_vs_native_pcd: median(rounds.map((x) => x.native_pcd / x.wasm_pcd)),
  wasm_pcd_vs_gemm: median(rounds.map((x) => pcdFlops / (x.wasm_pcd * 1e6) / (SINGLE ? x.gemm_float : x.gemm_double))),
};
console.log(`zeta wasm / tfjs-wasm speed: ${results.ratios.wasm_vs_tfjs?.toFixed(2)}x (target >= 2)`);
console.log(`zeta wasm / native speed: ${results.ratios.wasm_vs_native_pcd.toFixed(2)}`);
console.log(`zeta wasm PCD-1 GFLOP/s / Eigen ${SINGLE ? 'float' : 'double'} GEMM under wasm SIMD: ${(100 * results.ratios.wasm_pcd_vs_gemm).toFixed(0)}% (target >= 70%)`);
if (outJson) writeFileSync(outJson, JSON.stringify(results, null, 1));
train.dispose();
