// Node tests of the WebAssembly module through its JavaScript API (run by CTest: wasm_node).
// Usage: node test_node.mjs PKG_DIR NATIVE_JSON [EXPORTS]
//   PKG_DIR:     the built package (zeta.js, zeta_wasm.mjs, zeta_wasm.wasm);
//   NATIVE_JSON: output of native_reference (the native libzeta on the same cases, computed in the same CTest
//                run); the cases below must stay in step with native_reference.c;
//   EXPORTS:     capi/zeta.exports: the module's zeta_* exports must be exactly these.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [pkgDir, nativeJson, exportsFile] = process.argv.slice(2);
if (!pkgDir || !nativeJson) {
  console.error('usage: node test_node.mjs PKG_DIR NATIVE_JSON');
  process.exit(2);
}
const zeta = await import(pathToFileURL(path.resolve(pkgDir, 'zeta.js')).href);
await zeta.init();
const native = JSON.parse(readFileSync(nativeJson, 'utf8'));
const { Rbm, Options, Trainer, Pruner, Dataset, ZetaError } = zeta;

function close(actual, expected, rel, what) {
  const tol = rel * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tol,
            `${what}: wasm ${actual} vs native ${expected} (|diff| ${Math.abs(actual - expected)} > ${tol})`);
}

function expectZetaError(fn, code, mention) {
  let caught = null;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, `expected ${code}, nothing was thrown`);
  assert.ok(caught instanceof ZetaError, `expected ZetaError, got ${caught}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.code, code, caught.message);
  assert.ok(caught.message.length > 0);
  if (mention) assert.ok(caught.message.includes(mention), `message "${caught.message}" should mention ${mention}`);
  return caught;
}

// The cases of native_reference.c, computed through the module.
function referenceCases() {
  const out = { version: zeta.version() };
  const NV = 10;
  const NH = 8;
  const W = new Float64Array(NV * NH).map((_, i) => 0.3 * Math.sin(1.7 * i + 0.1));
  const b = new Float64Array(NV).map((_, i) => 0.2 * Math.cos(0.9 * i));
  const c = new Float64Array(NH).map((_, j) => -0.1 + 0.05 * j);
  const v = new Float64Array(4 * NV).map((_, i) => (((i * 7 + Math.floor(i / NV) * 3) % 5) < 2 ? 1 : 0));
  const rbm = new Rbm(NV, NH, 42).setParams({ W, b, c });
  out.small_exact = rbm.logZExact();
  const a = rbm.logZAis({ runs: 50, betas: 500, seed: 3 });
  out.small_ais = a.logZ;
  out.small_ais_se = a.stdErr;
  out.small_free_energy = Array.from(rbm.freeEnergy(v));
  const pruned = rbm.clone().removeHidden(3);
  out.pruned_exact_costs = Array.from(pruned.removalCostsExact(v));
  const pruner = new Pruner(pruned, { prune_chains: 50, n_temperatures: 3, prune_tempered_steps: 10,
                                      prune_burn_in: 0, prune_settle_max_sweeps: 0, single_precision: 0, seed: 7 });
  pruner.run(v, { batchSize: 4, steps: 5 });
  out.pruned_n_hidden = [pruned.nHidden];
  const { costs, stdErrs } = pruner.costs();
  out.pruned_costs = Array.from(costs);
  out.pruned_std_errs = Array.from(stdErrs);
  const pz = pruner.logZ();
  out.pruned_tracked = pz.mean;
  out.pruned_tracked_sd = pz.stdDev;
  pruner.dispose();
  pruned.dispose();
  out.small_gibbs = Array.from(rbm.setSeed(13).gibbs(v.map((x) => 0.125 + 0.75 * x), 2));
  rbm.dispose();

  const train = Dataset.default('train');
  const testSet = Dataset.default('test');
  const big = new Rbm(train.nCols, 12, 7).initFromData(train.slice(0, 500), 0.05);
  out.data_exact = big.logZExact();
  const a2 = big.logZAis({ runs: 20, betas: 300, seed: 11 });
  out.data_ais = a2.logZ;
  out.data_ais_se = a2.stdErr;
  out.data_test_ll = big.meanLogLikelihood(testSet.slice(0, 200), out.data_exact);
  const trainer = new Trainer(big, { learning_rate: 0.05, n_temperatures: 5, chains_per_temperature: 4, seed: 5,
                                     single_precision: 0 });
  trainer.train(train, { batchSize: 50, updates: 30 });
  const t = trainer.logZ();
  out.trained_tracked = t.mean;
  out.trained_tracked_sd = t.stdDev;
  out.trained_exact = big.logZExact();
  out.trained_swap_rates = Array.from(trainer.swapRates());
  out.trained_samples = Array.from(big.sample(2, 3));
  trainer.train(train, { batchSize: 50, updates: 130 });
  const h = trainer.trackingHealth();
  out.trained_health = [h.minSwapRate, h.coldModeChanges, h.minEssFraction, h.warnings];
  trainer.dispose();
  big.dispose();
  if (zeta.hasFunction('zeta_darn_new')) {
    const darn = new zeta.Darn([784, 10], { seed: 9, darn_learning_rate: 1e-3, darn_single_precision: 0 });
    darn.trainEpochs(train.slice(0, 500), { batchSize: 100, epochs: 1 });
    const rows = testSet.slice(0, 20);
    out.darn_exact = Array.from(darn.logProbExact(rows));
    const is = darn.logProbImportance(rows, { samples: 100, seed: 4 });
    out.darn_is = Array.from(is.logProb);
    out.darn_is_se = Array.from(is.stdErr);
    out.darn_bound = Array.from(darn.descriptionLength(rows, { samples: 20, seed: 5 }));
    out.darn_samples = Array.from(darn.sample(2, 6));
    darn.dispose();
  }
  train.dispose();
  testSet.dispose();
  return out;
}

test('log Z, AIS, free energies and a training run match the native library (same seeds)', () => {
  const w = referenceCases();
  assert.equal(w.version, native.version);
  const report = {};
  for (const key of ['small_exact', 'small_ais', 'small_ais_se', 'data_exact', 'data_ais', 'data_ais_se',
                     'data_test_ll', 'trained_tracked', 'trained_tracked_sd', 'trained_exact', 'pruned_tracked',
                     'pruned_tracked_sd']) {
    report[key] = { wasm: w[key], native: native[key], diff: w[key] - native[key] };
  }
  console.log(JSON.stringify(report, null, 1));
  // Exact enumeration and AIS with the same seed: the same numbers up to floating-point summation order
  // (native uses AVX/OpenMP reductions, wasm 128-bit SIMD).
  close(w.small_exact, native.small_exact, 1e-12, 'small exact log Z');
  close(w.small_ais, native.small_ais, 1e-9, 'small AIS log Z');
  close(w.small_ais_se, native.small_ais_se, 1e-6, 'small AIS std err');
  w.small_free_energy.forEach((x, i) => close(x, native.small_free_energy[i], 1e-12, `free energy ${i}`));
  close(w.data_exact, native.data_exact, 1e-12, 'data exact log Z');
  close(w.data_ais, native.data_ais, 1e-9, 'data AIS log Z');
  close(w.data_ais_se, native.data_ais_se, 1e-6, 'data AIS std err');
  close(w.data_test_ll, native.data_test_ll, 1e-12, 'test log-likelihood');
  // 30 SML-PT updates in double precision with the same seed: the same chains, hence the same model.
  close(w.trained_exact, native.trained_exact, 1e-9, 'trained exact log Z');
  close(w.trained_tracked, native.trained_tracked, 1e-9, 'trained tracked log Z');
  close(w.trained_tracked_sd, native.trained_tracked_sd, 1e-6, 'trained tracked sd');
  w.trained_swap_rates.forEach((x, i) => close(x, native.trained_swap_rates[i], 1e-12, `swap rate ${i}`));
  assert.deepEqual(w.trained_samples, native.trained_samples, 'samples after training');
  assert.deepEqual(w.small_gibbs, native.small_gibbs, 'Gibbs sweeps from mean-field rows');
  // 130 more updates close the tracker's first window: the same diagnostics and warnings.
  close(w.trained_health[0], native.trained_health[0], 1e-12, 'tracking health: lowest swap rate');
  assert.equal(w.trained_health[1], native.trained_health[1], 'tracking health: cold mode changes');
  close(w.trained_health[2], native.trained_health[2], 1e-9, 'tracking health: lowest ESS fraction');
  assert.equal(w.trained_health[3], native.trained_health[3], 'tracking health: warnings');
  // Exact removal costs, and 5 pruning steps in double precision with the same seed: the same chains and removals.
  w.pruned_exact_costs.forEach((x, i) => close(x, native.pruned_exact_costs[i], 1e-12, `exact removal cost ${i}`));
  assert.deepEqual(w.pruned_n_hidden, native.pruned_n_hidden, 'hidden units left after pruning');
  w.pruned_costs.forEach((x, i) => close(x, native.pruned_costs[i], 1e-9, `pruner cost ${i}`));
  w.pruned_std_errs.forEach((x, i) => close(x, native.pruned_std_errs[i], 1e-9, `pruner cost std err ${i}`));
  close(w.pruned_tracked, native.pruned_tracked, 1e-9, 'pruner tracked log Z');
  close(w.pruned_tracked_sd, native.pruned_tracked_sd, 1e-6, 'pruner tracked sd');
  if (w.darn_exact) {
    // One epoch of DARN training in double precision with the same seed: the same encoder draws and updates,
    // hence the same network; its scores agree up to summation order and its samples exactly.
    w.darn_exact.forEach((x, i) => close(x, native.darn_exact[i], 1e-9, `DARN exact log p ${i}`));
    w.darn_is.forEach((x, i) => close(x, native.darn_is[i], 1e-9, `DARN importance-sampled log p ${i}`));
    w.darn_is_se.forEach((x, i) => close(x, native.darn_is_se[i], 1e-6, `DARN importance std err ${i}`));
    w.darn_bound.forEach((x, i) => close(x, native.darn_bound[i], 1e-9, `DARN bound ${i}`));
    assert.deepEqual(w.darn_samples, native.darn_samples, 'DARN samples');
  }
});

test('the module exports exactly the C API of capi/zeta.exports', { skip: !exportsFile }, () => {
  const wanted = readFileSync(exportsFile, 'utf8').split('\n').filter((l) => /^zeta_/.test(l)).sort();
  const raw = zeta.rawModule();
  const have = Object.keys(raw).filter((k) => /^_zeta_/.test(k) && typeof raw[k] === 'function')
    .map((k) => k.slice(1)).sort();
  assert.deepEqual(have, wanted);
  console.log(`${have.length} C API functions exported`);
  // The JavaScript constants of the tracker's warning bits are the header's.
  const header = readFileSync(path.join(path.dirname(exportsFile), 'zeta.h'), 'utf8');
  const bits = [...header.matchAll(/^#define ZETA_(TRACKING_\w+) (\d+)/gm)];
  assert.equal(bits.length, 4);
  for (const [, name, value] of bits) assert.equal(zeta[name], Number(value), name);
});

// One trainer per kind of rows on twin models, the same steps and train calls (11 batches of 8 from 64 rows wrap
// around): every kind gives the double path's model bytes and tracked log Z to the last bit (as the C API's
// test_trainer_row_types); a Float32Array goes to zeta_trainer_*_f32, a Uint8Array to zeta_trainer_*_u8.
test('trainer rows: Float32Array and Uint8Array train as Float64Array, bad values are named', () => {
  const NV = 16;
  const B = 8;
  const data = new Float64Array(64 * NV).map((_, i) => (((i * 7 + Math.floor(i / NV) * 3) % 5) < 2 ? 1 : 0));
  const set = Dataset.fromArray(data, NV);
  const kinds = {
    Float64Array: data, Float32Array: Float32Array.from(data), Uint8Array: Uint8Array.from(data),
    Uint8ClampedArray: Uint8ClampedArray.from(data), array: Array.from(data), Dataset: set,
  };
  const rows = (x, from, count) => (x instanceof Dataset ? x.slice(from, count)
    : Array.isArray(x) ? x.slice(from * NV, (from + count) * NV) : x.subarray(from * NV, (from + count) * NV));
  const params = {
    W: new Float64Array(NV * 6).map((_, i) => 0.3 * Math.sin(1.3 * i)), b: new Float64Array(NV), c: new Float64Array(6),
  };
  // Which C function each kind of rows reaches: the raw module's trainer entry points, counted.
  const raw = zeta.rawModule();
  const entries = ['step', 'step_f32', 'step_u8', 'train', 'train_f32', 'train_u8'].map((e) => `_zeta_trainer_${e}`);
  const originals = Object.fromEntries(entries.map((e) => [e, raw[e]]));
  const calls = {};
  // Emscripten's export stubs replace themselves on the module at their first call: a counter reinstalls itself.
  const counter = (e) => function count(...args) {
    calls[e] = (calls[e] ?? 0) + 1;
    try {
      return originals[e](...args);
    } finally {
      raw[e] = count;
    }
  };
  for (const e of entries) raw[e] = counter(e);
  const reached = {};
  for (const method of [1, 2]) {
    const results = {};
    const trainers = {};
    for (const [kind, x] of Object.entries(kinds)) {
      for (const e of entries) calls[e] = 0;
      const rbm = new Rbm(NV, 6, 1).setParams(params);
      const t = new Trainer(rbm, { method, learning_rate: 0.05, n_temperatures: 4, chains_per_temperature: 10,
                                   seed: 7 });
      for (let i = 0; i < 5; ++i) t.step(rows(x, i * B, B));
      t.train(x, { batchSize: B, updates: 11 });
      let reports = 0;
      t.train(x, { batchSize: B, updates: 3, onProgress: () => { reports += 1; } });
      assert.equal(t.steps, 19, kind);
      assert.equal(reports, 3, kind);
      reached[kind] = entries.filter((e) => calls[e] > 0).map((e) => e.replace('_zeta_trainer_', '')).join(' ');
      results[kind] = { bytes: rbm.toBytes(), logZ: method === 2 ? t.logZ() : null };
      trainers[kind] = t;
    }
    const ref = results.Float64Array;
    for (const [kind, r] of Object.entries(results)) {
      assert.deepEqual(r.bytes, ref.bytes, `method ${method}: ${kind} rows train as Float64Array ones`);
      assert.deepEqual(r.logZ, ref.logZ, `method ${method}: ${kind} rows, the same tracked log Z`);
    }
    const tf = trainers.Float32Array;
    const tb = trainers.Uint8Array;
    const badF = Float32Array.from(data);
    badF[3 * NV + 5] = 0.5;
    expectZetaError(() => tf.step(badF.subarray(0, B * NV)), 'ZETA_ERR_ARGUMENT', 'row 3, column 5 is 0.5');
    expectZetaError(() => tf.train(badF, { batchSize: B, updates: 2 }), 'ZETA_ERR_ARGUMENT', 'binary');
    badF[3 * NV + 5] = NaN;
    expectZetaError(() => tf.step(badF.subarray(0, B * NV)), 'ZETA_ERR_ARGUMENT',
                    'non-finite value (row 3, column 5)');
    const badB = Uint8Array.from(data);
    badB[7] = 2;
    expectZetaError(() => tb.step(badB.subarray(0, B * NV)), 'ZETA_ERR_ARGUMENT', 'row 0, column 7 is 2');
    expectZetaError(() => tb.train(badB, { batchSize: B, updates: 2 }), 'ZETA_ERR_ARGUMENT', 'binary');
    expectZetaError(() => tb.step(new Uint8Array(0)), 'ZETA_ERR_ARGUMENT', 'n_rows');
    expectZetaError(() => tf.train(kinds.Float32Array, { batchSize: 0 }), 'ZETA_ERR_ARGUMENT', 'batch_size');
    assert.throws(() => tb.step(new Uint8Array(NV + 1)), RangeError);
    assert.throws(() => tf.train(new Float32Array(NV - 1)), RangeError);
    assert.equal(tf.steps, 19);
    assert.deepEqual(tf.rbm.toBytes(), ref.bytes, 'bad float rows changed nothing');
    assert.deepEqual(tb.rbm.toBytes(), ref.bytes, 'bad byte rows changed nothing');
    for (const t of Object.values(trainers)) {
      const { rbm } = t;
      t.dispose();
      rbm.dispose();
    }
  }
  for (const e of entries) raw[e] = originals[e];
  assert.deepEqual(reached, {
    Float64Array: 'step train', Float32Array: 'step_f32 train_f32', Uint8Array: 'step_u8 train_u8',
    Uint8ClampedArray: 'step_u8 train_u8', array: 'step train', Dataset: 'step train',
  });
  set.dispose();

  // Mean-field rows k/16 (exact in float) with visible_probabilities: float and double rows train alike; bytes must
  // still be 0 or 1.
  const grey = new Float64Array(32 * NV).map((_, i) => ((i * 37) % 17) / 16);
  const a = new Rbm(NV, 6, 1).setParams(params);
  const c = new Rbm(NV, 6, 1).setParams(params);
  const options = { visible_probabilities: 1, learning_rate: 0.05, n_temperatures: 4, seed: 7 };
  const ta = new Trainer(a, options);
  const tc = new Trainer(c, options);
  ta.train(grey, { batchSize: 8, updates: 20 });
  tc.train(Float32Array.from(grey), { batchSize: 8, updates: 20 });
  assert.deepEqual(a.toBytes(), c.toBytes(), 'visible probabilities: float rows train as double ones');
  const threes = new Uint8Array(8 * NV).fill(1);
  threes[4] = 3;
  expectZetaError(() => ta.step(threes), 'ZETA_ERR_ARGUMENT', 'binary');
  for (const o of [ta, tc, a, c]) o.dispose();
});

test('Gibbs sweeps, build info and the thread count', () => {
  const rbm = new Rbm(6, 4, 3);
  const v = new Float64Array(12).fill(0.5);
  const out = rbm.setSeed(2).gibbs(v, 3);
  assert.equal(out.length, 12);
  assert.ok(out.every((x) => x === 0 || x === 1));
  assert.deepEqual(rbm.setSeed(2).gibbs(v, 3), out, 'reseeded: the same draws');
  v[7] = 1.25;
  expectZetaError(() => rbm.gibbs(v), 'ZETA_ERR_ARGUMENT', '[0, 1]: row 1, column 1 is 1.25');
  v[7] = 0;
  expectZetaError(() => rbm.gibbs(v, 0), 'ZETA_ERR_ARGUMENT', 'n_steps');
  assert.throws(() => rbm.gibbs(new Float64Array(7)), RangeError);
  rbm.dispose();
  const info = zeta.buildInfo();
  assert.ok(info.startsWith(`zeta ${zeta.version()}\n`) && info.includes('\nproducts: ') && info.includes('\nSIMD: '),
            info);
  console.log(info);
  assert.equal(zeta.numThreads(), 1);
  zeta.setNumThreads(3); // accepted; the module still runs on one thread
  assert.equal(zeta.numThreads(), 1);
  zeta.setNumThreads(0);
  expectZetaError(() => zeta.setNumThreads(-2), 'ZETA_ERR_ARGUMENT', 'n must be 0');
  assert.throws(() => zeta.setNumThreads(1.5), TypeError);
});

test('bad inputs throw ZetaError with zeta_last_error() and leave the object as it was', () => {
  expectZetaError(() => new Rbm(0, 5), 'ZETA_ERR_ARGUMENT', 'n_visible');
  expectZetaError(() => new Rbm(10, -1), 'ZETA_ERR_ARGUMENT', 'n_hidden');
  assert.throws(() => new Rbm(10, 5, -1), RangeError);
  assert.throws(() => new Rbm(10, 5, 1.5), RangeError);
  const rbm = new Rbm(6, 4, 1);
  const before = rbm.toBytes();
  expectZetaError(() => rbm.freeEnergy(new Float64Array(6).fill(0.5)), 'ZETA_ERR_ARGUMENT', 'binary');
  expectZetaError(() => rbm.freeEnergy(new Float64Array(0)), 'ZETA_ERR_ARGUMENT', 'n_rows');
  assert.throws(() => rbm.freeEnergy(new Float64Array(7)), RangeError);
  const W = new Float64Array(24);
  W[3] = NaN;
  expectZetaError(() => rbm.setParams({ W, b: new Float64Array(6), c: new Float64Array(4) }), 'ZETA_ERR_ARGUMENT', 'W');
  W[3] = Infinity;
  expectZetaError(() => rbm.setParams({ W, b: new Float64Array(6), c: new Float64Array(4) }), 'ZETA_ERR_ARGUMENT');
  expectZetaError(() => rbm.logZAis({ runs: 1, betas: 10 }), 'ZETA_ERR_ARGUMENT', 'n_runs');
  expectZetaError(() => rbm.sample(0, 1), 'ZETA_ERR_ARGUMENT');
  assert.deepEqual(rbm.toBytes(), before, 'failed calls left the model as it was');
  const corrupt = before.slice();
  corrupt[corrupt.length - 3] ^= 0xff;
  expectZetaError(() => Rbm.fromBytes(corrupt), 'ZETA_ERR_FORMAT');
  expectZetaError(() => Rbm.fromBytes(before.slice(0, 20)), 'ZETA_ERR_FORMAT');
  const round = Rbm.fromBytes(before);
  assert.deepEqual(round.toBytes(), before);
  round.dispose();
  const tooBig = new Rbm(40, 40, 1);
  expectZetaError(() => tooBig.logZExact(), 'ZETA_ERR_UNSUPPORTED');
  tooBig.dispose();
  const opts = new Options();
  expectZetaError(() => opts.set('no_such_key', 1), 'ZETA_ERR_ARGUMENT', 'no_such_key');
  expectZetaError(() => opts.set('learning_rate', -1), 'ZETA_ERR_ARGUMENT', 'learning_rate');
  expectZetaError(() => opts.set('n_temperatures', 2.5), 'ZETA_ERR_ARGUMENT', 'n_temperatures');
  expectZetaError(() => opts.set('learning_rate', NaN), 'ZETA_ERR_ARGUMENT', 'learning_rate');
  assert.equal(opts.get('learning_rate'), 1e-3);
  opts.set('method', 1);
  const pcd = new Trainer(rbm, opts);
  expectZetaError(() => pcd.logZ(), 'ZETA_ERR_UNSUPPORTED');
  expectZetaError(() => pcd.trackingHealth(), 'ZETA_ERR_UNSUPPORTED', 'method');
  assert.throws(() => rbm.dispose(), /borrowed/);
  pcd.dispose();
  opts.dispose();
  expectZetaError(() => new Trainer(rbm, { n_temperatures: 1 }), 'ZETA_ERR_ARGUMENT', 'n_temperatures');
  rbm.dispose();
  assert.throws(() => rbm.freeEnergy(new Float64Array(6)), /disposed/);
  rbm.dispose(); // twice is fine
  assert.equal(zeta.rawModule().UTF8ToString(zeta.rawModule()._zeta_last_error()).length > 0, true);
});

test('progress callbacks report, cancel, and propagate exceptions', () => {
  const train = Dataset.default('train');
  const rbm = new Rbm(784, 8, 3).initFromData(train);
  const trainer = new Trainer(rbm, { learning_rate: 0.01, n_temperatures: 4, chains_per_temperature: 2 });
  const seen = [];
  trainer.train(train, { batchSize: 20, updates: 7, onProgress: (p) => { seen.push(p); } });
  assert.equal(seen.length, 7);
  assert.equal(seen[6].stage, 'training');
  assert.equal(seen[6].done, 7);
  assert.ok(Number.isFinite(seen[6].value));
  const err = expectZetaError(
    () => trainer.train(train, { batchSize: 20, updates: 10, onProgress: (p) => p.done < 3 }), 'ZETA_ERR_CANCELLED');
  assert.ok(err.message.length > 0);
  assert.equal(trainer.steps, 10, 'finished updates are kept after cancellation');
  assert.throws(() => trainer.train(train, { batchSize: 20, updates: 5, onProgress: () => { throw new TypeError('boom'); } }),
                /boom/);
  let exactCalls = 0;
  const lz = rbm.logZExact({ onProgress: () => { exactCalls++; } });
  assert.ok(Number.isFinite(lz) && exactCalls > 0);
  trainer.dispose();
  rbm.dispose();
  train.dispose();
});

test('views stay valid across memory growth', () => {
  const rbm = new Rbm(20, 6, 9);
  rbm.setParams({ W: new Float64Array(120).map((_, i) => Math.cos(i)), b: new Float64Array(20).fill(-0.1),
                  c: new Float64Array(6).fill(0.2) });
  const v = new Float64Array(20 * 3).map((_, i) => i % 3 === 0 ? 1 : 0);
  const fe1 = rbm.freeEnergy(v);
  const bytesBefore = zeta.memoryBytes();
  const big = Dataset.fromArray(new Float64Array(40e6 / 8 * 10).fill(1), 20); // 400 MB: forces growth
  assert.ok(zeta.memoryBytes() > bytesBefore);
  const fe2 = rbm.freeEnergy(v);
  assert.deepEqual(fe2, fe1);
  assert.equal(big.row(123456)[5], 1);
  big.dispose();
  rbm.dispose();
});

test('dispose frees: 10,000 create/dispose cycles do not grow memory', () => {
  const data = Dataset.fromArray(new Float64Array(50 * 784).map((_, i) => (i * 31) % 7 < 3 ? 1 : 0), 784);
  const cycle = (i) => {
    const rbm = new Rbm(784, 100, i); // 627 kB of parameters: 10k leaked would be 6 GB, over the 2 GB cap
    const opts = new Options({ n_temperatures: 3, chains_per_temperature: 2 });
    const trainer = new Trainer(rbm, opts);
    if (i % 1000 === 0) trainer.step(data);
    const copy = rbm.clone();
    trainer.dispose();
    opts.dispose();
    copy.dispose();
    rbm.dispose();
    const d = Dataset.fromArray(new Float64Array(784), 784);
    d.dispose();
  };
  for (let i = 0; i < 200; ++i) cycle(i);
  const bytes = zeta.memoryBytes();
  const t0 = performance.now();
  for (let i = 0; i < 10000; ++i) cycle(i);
  console.log(`10000 cycles in ${(performance.now() - t0).toFixed(0)} ms; wasm memory ${bytes} -> ${zeta.memoryBytes()} bytes`);
  assert.equal(zeta.memoryBytes(), bytes);
  data.dispose();
});

test('tracked training run on the embedded data: tracked log Z follows exact log Z', () => {
  const train = Dataset.default('train');
  const testSet = Dataset.default('test');
  const rbm = new Rbm(784, 14, 21).initFromData(train, 0.01);
  const trainer = new Trainer(rbm, { learning_rate: 0.005, n_temperatures: 8, chains_per_temperature: 8, seed: 4 });
  const held0 = rbm.meanLogLikelihood(testSet, rbm.logZExact());
  const rows = [];
  for (let chunk = 0; chunk < 6; ++chunk) {
    trainer.train(train, { batchSize: 100, updates: 50 });
    const t = trainer.logZ();
    const exact = rbm.logZExact();
    const ll = trainer.logLikelihood(testSet);
    const h = trainer.trackingHealth();
    rows.push({ steps: trainer.steps, tracked: t.mean, sd: t.stdDev, exact, heldOutTracked: ll.mean,
                heldOutExact: rbm.meanLogLikelihood(testSet, exact), swap: h.minSwapRate, modes: h.coldModeChanges,
                ess: h.minEssFraction, warnings: h.warnings });
    if (trainer.steps < 150) {
      // No complete window of 150 updates yet: nothing known, nothing flagged.
      assert.ok(Number.isNaN(h.minSwapRate) && Number.isNaN(h.coldModeChanges) && Number.isNaN(h.minEssFraction));
      assert.equal(h.warnings, 0);
      assert.ok(!h.lowSwapRate && !h.coldChainsStuck && !h.lowEss);
    } else {
      for (const x of [h.minSwapRate, h.coldModeChanges, h.minEssFraction]) assert.ok(x >= 0 && x <= 1, `${x}`);
      assert.ok(h.minEssFraction > 0);
      // Each bit is its threshold, and the booleans are the bits.
      assert.equal(h.lowSwapRate, h.minSwapRate < 0.2);
      assert.equal(h.coldChainsStuck, h.coldModeChanges < 0.2);
      assert.equal(h.lowEss, h.minEssFraction < 0.3);
      // fewBridgeSamples rests on the bridges' autocorrelation time, which the C API does not report.
      assert.equal(h.fewBridgeSamples, (h.warnings & zeta.TRACKING_FEW_BRIDGE_SAMPLES) !== 0);
      assert.equal(h.warnings & ~zeta.TRACKING_FEW_BRIDGE_SAMPLES, (h.lowSwapRate ? zeta.TRACKING_LOW_SWAP_RATE : 0) |
                   (h.coldChainsStuck ? zeta.TRACKING_COLD_CHAINS_STUCK : 0) | (h.lowEss ? zeta.TRACKING_LOW_ESS : 0));
    }
  }
  console.table(rows);
  for (const r of rows) {
    assert.ok(Number.isFinite(r.tracked) && r.sd > 0);
    // The tracker's error on this run is about 0.2 nats (its reported sd is smaller than that on this short run).
    assert.ok(Math.abs(r.tracked - r.exact) < 0.5 + 4 * r.sd, `tracked ${r.tracked} vs exact ${r.exact}`);
  }
  // Settled log Z: the model held fixed on a copy of the chains; the trainer itself is left as it was.
  const settled = trainer.settledLogZ(400, 100);
  assert.ok(settled.stdDev > 0 && Math.abs(settled.mean - rows[rows.length - 1].exact) < 4 * settled.stdDev,
            `settled ${settled.mean} +- ${settled.stdDev} vs exact ${rows[rows.length - 1].exact}`);
  assert.equal(trainer.logZ().mean, rows[rows.length - 1].tracked);
  expectZetaError(() => trainer.settledLogZ(10, 10), 'ZETA_ERR_ARGUMENT');
  assert.throws(() => trainer.settledLogZ(1.5, 0), TypeError);
  const last = rows[rows.length - 1];
  assert.ok(last.heldOutExact > held0 + 1, `held-out log-likelihood ${held0} -> ${last.heldOutExact}`);
  assert.equal(trainer.steps, 300);
  assert.ok(trainer.roundTrips > 0);
  const rates = trainer.swapRates();
  assert.equal(rates.length, 7);
  rates.forEach((r) => assert.ok(r >= 0 && r <= 1));
  const chains = trainer.chains(0);
  assert.equal(chains.length, 8 * 784);
  assert.ok(chains.every((x) => x === 0 || x === 1));
  trainer.dispose();
  rbm.dispose();
  train.dispose();
  testSet.dispose();
});

test('pruner: removes a hurting unit, follows removeHidden, reports progress, cancels, refuses bad input', () => {
  // 3 x 3 bars and stripes; a 9 x 3 model whose unit 2 is on only for one state far from every pattern, with
  // about the model's whole mass there: its removal cost is about -log 2. The chains start spread over all 512
  // states and find that one within a few steps; then it goes.
  const patterns = [];
  for (let mask = 0; mask < 8; ++mask) {
    patterns.push(Array.from({ length: 9 }, (_, k) => (mask >> Math.floor(k / 3)) & 1));
    if (mask > 0 && mask < 7) patterns.push(Array.from({ length: 9 }, (_, k) => (mask >> (k % 3)) & 1));
  }
  const data = new Float64Array(patterns.flat());
  const u = [1, 0, 0, 0, 1, 0, 0, 0, 1]; // at least 2 bits from every pattern
  const rbm = new Rbm(9, 3, 1);
  const W = new Float64Array(27).map((_, i) => (i % 3 === 2 ? (u[Math.floor(i / 3)] ? 12 : -12) : 0.1 * Math.sin(i)));
  const plain = Math.log(512); // log Z without unit 2 is close to 9 log 2 (small weights, b = 0)
  rbm.setParams({ W, b: new Float64Array(9), c: new Float64Array([0, 0, plain - 36]) });
  const exact = rbm.removalCostsExact(data);
  assert.ok(exact[2] < -0.5, `exact cost of the hurting unit ${exact[2]}`);
  const before = rbm.toBytes();
  const pruner = new Pruner(rbm, { prune_chains: 200, prune_gibbs_steps: 20, n_temperatures: 3,
                                   prune_tempered_steps: 10, seed: 2 });
  assert.ok(Number.isNaN(pruner.costs().costs[0]), 'costs unknown before the first step');
  assert.equal(pruner.settled, -1, 'settling unknown before the first step');
  assert.equal(pruner.settlingSweeps, 0);
  expectZetaError(() => pruner.step(new Float64Array(9).fill(0.5)), 'ZETA_ERR_ARGUMENT', 'binary');
  expectZetaError(() => pruner.run(data, { batchSize: 0 }), 'ZETA_ERR_ARGUMENT', 'batch_size');
  assert.deepEqual(rbm.toBytes(), before, 'failed calls left the model as it was');
  assert.throws(() => rbm.dispose(), /borrowed/);
  let removed = 0;
  while (removed === 0 && pruner.steps < 20) removed = pruner.step(data);
  assert.ok(removed >= 1 && rbm.nHidden === 3 - removed, `removed ${removed} in ${pruner.steps} steps, ${rbm.nHidden} left`);
  assert.ok(pruner.settled === 0 || pruner.settled === 1, `settled ${pruner.settled}`);
  assert.ok(pruner.settlingSweeps >= 10 && pruner.settlingSweeps % 10 === 0, `${pruner.settlingSweeps} sweeps`);
  const stepsBefore = pruner.steps;
  assert.equal(pruner.costs().costs.length, rbm.nHidden);
  const seen = [];
  pruner.run(data, { batchSize: 14, steps: 3, onProgress: (p) => { seen.push(p); } });
  assert.equal(seen.length, 3);
  assert.equal(seen[2].stage, 'pruning');
  assert.equal(seen[2].value, rbm.nHidden);
  expectZetaError(() => pruner.run(data, { batchSize: 14, steps: 10, onProgress: (p) => p.done < 2 }),
                  'ZETA_ERR_CANCELLED');
  assert.equal(pruner.steps, stepsBefore + 5, 'finished steps are kept after cancellation');
  const lz = pruner.logZ();
  assert.ok(Number.isFinite(lz.mean) && lz.stdDev > 0);
  pruner.dispose();
  expectZetaError(() => new Pruner(rbm, { learning_rate: 0.1 }), 'ZETA_ERR_ARGUMENT', 'learning_rate');
  expectZetaError(() => new Options({ prune_chains: 1 }), 'ZETA_ERR_ARGUMENT', 'prune_chains');
  // One rung: no ladder to track with, until anchored at an estimate.
  const single = new Pruner(rbm, { n_temperatures: 1 });
  expectZetaError(() => single.logZ(), 'ZETA_ERR_UNSUPPORTED', 'anchor');
  expectZetaError(() => single.anchorLogZ(5, 0), 'ZETA_ERR_ARGUMENT', 'standard deviation');
  const anchored = single.anchorLogZ(5, 0.25).logZ();
  assert.ok(anchored.mean === 5 && Math.abs(anchored.stdDev - 0.25) < 1e-12, `anchored ${JSON.stringify(anchored)}`);
  const none = single.logZCheck();
  assert.ok(none.step === -1 && Number.isNaN(none.z) && none.driftVariance === 0, 'no check before the first');
  // Anchored by AIS: the witnesses carry it on.
  expectZetaError(() => single.anchorAis(10, 100), 'ZETA_ERR_ARGUMENT', 'runs');
  const witnessed = single.anchorAis(40, 200).logZ();
  assert.ok(Number.isFinite(witnessed.mean) && witnessed.stdDev > 0, `AIS-anchored ${JSON.stringify(witnessed)}`);
  single.dispose();
  // Anchoring again checks the carried value (on a copy, with no removals: an update step to carry across).
  const copy = Rbm.fromBytes(rbm.toBytes());
  const kept = new Pruner(copy, { n_temperatures: 1, prune_criterion: 1e6 });
  kept.anchorLogZ(5, 0.25);
  kept.step(data);
  const carried = kept.logZ();
  kept.anchorLogZ(carried.mean - 1, 0.25);
  const first = kept.logZCheck();
  const sd = Math.sqrt(carried.stdDev * carried.stdDev + 0.0625);
  assert.ok(first.step === 1 && Math.abs(first.difference - 1) < 1e-9 && Math.abs(first.z - 1 / sd) < 1e-9 &&
            first.driftVariance >= 0, `log Z check ${JSON.stringify(first)}`);
  // The chains, for checkpoints, and set from given states (a checkpoint's, or a PCD trainer's).
  const chains = kept.chains();
  assert.equal(chains.length, 1000 * rbm.nVisible);
  chains[0] = 1 - chains[0];
  assert.deepEqual(Array.from(kept.setChains(chains).chains()), Array.from(chains));
  expectZetaError(() => kept.setChains(chains.subarray(rbm.nVisible)), 'ZETA_ERR_ARGUMENT', 'chains');
  kept.dispose();
  copy.dispose();
  if (rbm.nHidden >= 2) {
    rbm.removeHidden(0);
  }
  expectZetaError(() => rbm.removeHidden(0), 'ZETA_ERR_ARGUMENT', 'only hidden unit');
  const big = new Rbm(31, 31);
  expectZetaError(() => big.removalCostsExact(new Float64Array(31)), 'ZETA_ERR_UNSUPPORTED');
  big.dispose();
  rbm.dispose();
});

test('EBP net: trains on the embedded data, bad inputs throw', { skip: !zeta.hasFunction('zeta_ebp_new') }, () => {
  const train = Dataset.default('train');
  const testSet = Dataset.default('test');
  const net = new zeta.EbpNet(784, [50], 10, { seed: 3 });
  assert.deepEqual(net.hiddenSizes, [50]);
  const before = net.errorRate(testSet);
  net.trainEpochs(train.slice(0, 1000), null, { batchSize: 1, epochs: 1 });
  const after = net.errorRate(testSet);
  console.log(`EBP test error ${before} -> ${after} after ${net.examplesSeen} examples`);
  assert.equal(net.examplesSeen, 1000);
  assert.ok(after < 0.5 && after < before);
  const copy = zeta.EbpNet.fromBytes(net.toBytes());
  assert.deepEqual(copy.predict(testSet.slice(0, 50)), net.predict(testSet.slice(0, 50)));
  copy.dispose();
  expectZetaError(() => net.trainBatch(train.slice(0, 2), [0, 10]), 'ZETA_ERR_ARGUMENT', 'label');
  expectZetaError(() => new zeta.EbpNet(0, [], 10), 'ZETA_ERR_ARGUMENT', 'n_inputs');
  net.dispose();
  train.dispose();
  testSet.dispose();
});

test('many-class softmax: exact and sampled methods train, bad inputs throw', { skip: !zeta.hasFunction('zeta_softmax_new') }, () => {
  const C = 50;
  const D = 10;
  const N = 400;
  const X = new Float64Array(N * D).map((_, i) => Math.sin(1.3 * i) + Math.cos(0.7 * i * i));
  const teacher = new zeta.SoftmaxClassifier(D, C, { softmax_init_sd: 1, seed: 7 });
  const labels = teacher.predict(X);
  teacher.dispose();
  const data = Dataset.fromArray(X, D, labels);
  for (const method of [zeta.SOFTMAX_EXACT, zeta.SOFTMAX_IMPORTANCE, zeta.SOFTMAX_BLACKOUT]) {
    const m = new zeta.SoftmaxClassifier(D, C, { softmax_method: method, softmax_negatives: 10,
                                                 softmax_learning_rate: 0.1, seed: 1 });
    const ll0 = m.logLikelihood(data);
    m.trainEpochs(data, null, { batchSize: 20, epochs: 5 });
    const ll1 = m.logLikelihood(data);
    assert.ok(ll1 > ll0 + 0.3, `method ${method}: log-likelihood ${ll0} -> ${ll1}`);
    assert.equal(m.steps, 100);
    const p = m.probabilities(data.slice(0, 3));
    assert.ok(Math.abs(p.subarray(0, C).reduce((a, b) => a + b, 0) - 1) < 1e-9);
    m.dispose();
  }
  expectZetaError(() => new zeta.SoftmaxClassifier(D, 1), 'ZETA_ERR_ARGUMENT', 'n_classes');
  expectZetaError(() => new zeta.SoftmaxClassifier(D, C, { softmax_negatives: C }), 'ZETA_ERR_ARGUMENT');
  expectZetaError(() => new zeta.SoftmaxClassifier(D, C, { learning_rate: 0.1 }), 'ZETA_ERR_ARGUMENT', 'learning_rate');
  data.dispose();
});

test('DARN: blocks, exact probabilities, training with progress, sampling, bad inputs throw and change nothing',
     { skip: !zeta.hasFunction('zeta_darn_new') }, () => {
  const small = new zeta.Darn([4, 3], { seed: 2, darn_single_precision: 0 });
  assert.deepEqual(small.sizes, [4, 3]);
  assert.deepEqual(small.blocks.map((b) => `${b.name} ${b.rows}x${b.cols}`),
                   ['prior.bias 3x1', 'prior.weight 3x3', 'decoder.bias 4x1', 'decoder.weight 4x3', 'encoder.bias 3x1',
                    'encoder.weight 3x4']);
  const w = [0, 0, 0, 0.5, 0, 0, -1, 2, 0];
  small.setParam('prior.weight', w);
  assert.deepEqual(Array.from(small.getParam('prior.weight')), w);
  const all = new Float64Array(16 * 4).map((_, i) => (Math.floor(i / 4) >> (i % 4)) & 1);
  const total = small.logProbExact(all).reduce((a, lp) => a + Math.exp(lp), 0);
  assert.ok(Math.abs(total - 1) < 1e-12, `exact probabilities sum to ${total}`);
  const before = small.toBytes();
  expectZetaError(() => small.setParam('prior.weight', [0, 1, 0, 0, 0, 0, 0, 0, 0]), 'ZETA_ERR_ARGUMENT', '(0, 1)');
  expectZetaError(() => small.setParam('decoder.bias', [0, NaN, 0, 0]), 'ZETA_ERR_ARGUMENT', 'finite');
  expectZetaError(() => small.setParam('nope', [1]), 'ZETA_ERR_ARGUMENT', 'nope');
  expectZetaError(() => small.trainBatch([0, 1, 0.5, 0]), 'ZETA_ERR_ARGUMENT', 'binary');
  expectZetaError(() => small.logProbImportance(all, { samples: 1 }), 'ZETA_ERR_ARGUMENT', 'n_samples');
  expectZetaError(() => small.sample(0), 'ZETA_ERR_ARGUMENT', 'n');
  assert.throws(() => small.getParam('nope'), RangeError);
  assert.throws(() => small.trainBatch([0, 1, 0]), RangeError);
  assert.deepEqual(small.toBytes(), before, 'bad inputs change nothing');
  small.dispose();
  assert.throws(() => small.sample(1), /disposed/);

  const train = Dataset.default('train');
  const darn = new zeta.Darn([784, 8], { seed: 3, darn_learning_rate: 1e-3 });
  const rows = train.slice(0, 400);
  const lp0 = darn.logProbExact(rows).reduce((a, b) => a + b, 0) / 400;
  let calls = 0;
  darn.trainEpochs(rows, { batchSize: 100, epochs: 3, onProgress: (p) => {
    calls += 1;
    assert.equal(p.stage, 'training');
    assert.ok(Number.isFinite(p.value) && p.value > 0);
  } });
  const lp1 = darn.logProbExact(rows).reduce((a, b) => a + b, 0) / 400;
  console.log(`DARN 784-8: mean exact log p(x) ${lp0} -> ${lp1} after 3 epochs`);
  assert.equal(calls, 12);
  assert.ok(lp1 > lp0 + 10);
  const is = darn.logProbImportance(rows.slice(0, 5), { samples: 500, seed: 1 });
  const bound = darn.descriptionLength(rows.slice(0, 5), { samples: 20, seed: 1 });
  const exact = darn.logProbExact(rows.slice(0, 5));
  exact.forEach((e, i) => {
    assert.ok(is.logProb[i] <= e + 5 * is.stdErr[i] + 1e-6, `IS ${is.logProb[i]} above exact ${e}`);
    assert.ok(-bound[i] <= e + 1, `bound ${-bound[i]} above exact ${e}`);
  });
  const samples = darn.sample(3, 7);
  assert.equal(samples.length, 3 * 784);
  assert.ok(samples.every((v) => v === 0 || v === 1));
  assert.deepEqual(darn.sample(3, 7), samples, 'the same seed gives the same samples');
  const trained = darn.toBytes();
  expectZetaError(() => darn.trainEpochs(rows, { batchSize: 100, epochs: 2, onProgress: (p) => p.done < 2 }),
                  'ZETA_ERR_CANCELLED');
  assert.notDeepEqual(darn.toBytes(), trained, 'cancelled training keeps its finished batches');
  const copy = zeta.Darn.fromBytes(darn.toBytes());
  const twin = darn.clone();
  assert.deepEqual(copy.toBytes(), darn.toBytes());
  assert.equal(copy.trainBatch(rows.slice(0, 50)), twin.trainBatch(rows.slice(0, 50)));
  assert.deepEqual(copy.toBytes(), twin.toBytes(), 'copies train on identically');
  copy.dispose();
  twin.dispose();
  const wide = new zeta.Darn([784, 31]);
  expectZetaError(() => wide.logProbExact(rows.slice(0, 1)), 'ZETA_ERR_UNSUPPORTED', '2^31');
  wide.dispose();
  expectZetaError(() => new zeta.Darn([784]), 'ZETA_ERR_ARGUMENT', 'n_layers');
  expectZetaError(() => new zeta.Darn([784, 4], { learning_rate: 0.1 }), 'ZETA_ERR_ARGUMENT', 'learning_rate');
  darn.dispose();
  train.dispose();
});
