// rbm.js — binary RBMs (zeta_rbm_*) and their SML trainer with log Z tracking (zeta_trainer_*).
import {
  Handle, check, copyOutF64, mod, modelBytes, modelFromBytes, outEstimate, outF64, outI32, outI64, outPtr,
  readF64, readI32, toInt, toU64, withOptions, withProgress, withScope,
} from './runtime.js';
import { rowsArg, typedRowsArg } from './data.js';

/** Bits of Trainer.trackingHealth().warnings (the C API's ZETA_TRACKING_*): a neighbouring pair of rungs swapped
 *  < 20% of the time; < 20% of the beta = 1 chains changed mode; an update's beta = 1 importance weights had an
 *  effective sample size < 30% of the chains; the bridges between rungs gave < 10 independent readings. */
export const TRACKING_LOW_SWAP_RATE = 1;
export const TRACKING_COLD_CHAINS_STUCK = 2;
export const TRACKING_LOW_ESS = 4;
export const TRACKING_FEW_BRIDGE_SAMPLES = 8;

// The C functions that take a trainer's rows, by the type typedRowsArg gives the rows.
const STEP = { f64: '_zeta_trainer_step', f32: '_zeta_trainer_step_f32', u8: '_zeta_trainer_step_u8' };
const TRAIN = { f64: '_zeta_trainer_train', f32: '_zeta_trainer_train_f32', u8: '_zeta_trainer_train_u8' };

/** A binary restricted Boltzmann machine, E(v,h) = -v'Wh - b'v - c'h. */
export class Rbm extends Handle {
  constructor(nVisible, nHidden, seed = 0) {
    let ptr = 0;
    if (nVisible !== undefined) {
      toInt(nVisible, 'nVisible');
      toInt(nHidden, 'nHidden');
      ptr = outPtr((out) => mod()._zeta_rbm_new(nVisible, nHidden, toU64(seed), out));
    }
    super(ptr, 'Rbm');
    this._borrowers = 0;
    if (ptr) this._readShape();
  }
  static _wrap(ptr) {
    const r = new Rbm();
    r._ptr = ptr;
    r._readShape();
    return r;
  }
  _readShape() {
    withScope((s) => {
      const nv = s.i32(1);
      const nh = s.i32(1);
      check(mod()._zeta_rbm_shape(this._ptr, nv, nh));
      this.nVisible = readI32(nv);
      this.nHidden = readI32(nh);
    });
  }
  /** A model from the bytes of toBytes() (or a model file). */
  static fromBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('zeta: bytes must be a Uint8Array');
    return Rbm._wrap(modelFromBytes(mod()._zeta_rbm_from_bytes, bytes));
  }
  clone() {
    const p = this._check();
    return Rbm._wrap(outPtr((out) => mod()._zeta_rbm_clone(p, out)));
  }
  setSeed(seed) {
    check(mod()._zeta_rbm_set_seed(this._check(), toU64(seed)));
    return this;
  }
  /** {W (nVisible x nHidden, row-major), b, c} as Float64Arrays. */
  getParams() {
    const p = this._check();
    const nv = this.nVisible;
    const nh = this.nHidden;
    return withScope((s) => {
      const W = s.f64(nv * nh);
      const b = s.f64(nv);
      const c = s.f64(nh);
      check(mod()._zeta_rbm_get_params(p, W, b, c));
      return { W: copyOutF64(W, nv * nh), b: copyOutF64(b, nv), c: copyOutF64(c, nh) };
    });
  }
  setParams({ W, b, c }) {
    const p = this._check();
    const nv = this.nVisible;
    const nh = this.nHidden;
    if (!W || W.length !== nv * nh) throw new RangeError(`zeta: W must have ${nv * nh} entries`);
    if (!b || b.length !== nv) throw new RangeError(`zeta: b must have ${nv} entries`);
    if (!c || c.length !== nh) throw new RangeError(`zeta: c must have ${nh} entries`);
    withScope((s) => check(mod()._zeta_rbm_set_params(p, s.copyF64(W), s.copyF64(b), s.copyF64(c))));
    return this;
  }
  /** Hinton's initialisation from binary data; weightSd >= 0. */
  initFromData(data, weightSd = 0.01) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, data, this.nVisible, 'data');
      check(mod()._zeta_rbm_init_from_data(p, d, BigInt(n), weightSd));
    });
    return this;
  }
  /** Free energy of each binary row of v. */
  freeEnergy(v) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, v, this.nVisible, 'v');
      const out = s.f64(n);
      check(mod()._zeta_rbm_free_energy(p, d, BigInt(n), out));
      return copyOutF64(out, n);
    });
  }
  /** Mean log-likelihood of the binary rows of data given logZ. */
  meanLogLikelihood(data, logZ) {
    const p = this._check();
    return outF64((out, s) => {
      const [d, n] = rowsArg(s, data, this.nVisible, 'data');
      return mod()._zeta_rbm_mean_log_likelihood(p, d, BigInt(n), logZ, out);
    });
  }
  /** p(h = 1 | v) for each row of v: rows x nHidden. */
  hiddenProbs(v) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, v, this.nVisible, 'v');
      const out = s.f64(n * this.nHidden);
      check(mod()._zeta_rbm_hidden_probs(p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nHidden);
    });
  }
  /** p(v = 1 | h) for each row of h: rows x nVisible. */
  visibleProbs(h) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, h, this.nHidden, 'h');
      const out = s.f64(n * this.nVisible);
      check(mod()._zeta_rbm_visible_probs(p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nVisible);
    });
  }
  /** Exact log Z (smaller layer at most 30 units). onProgress({stage, done, total, value}) may return false to cancel. */
  logZExact({ onProgress } = {}) {
    const p = this._check();
    return withScope((s) => {
      const out = s.f64(1);
      withProgress(onProgress, (fn, ud) => mod()._zeta_rbm_log_z_exact_progress(p, fn, ud, out));
      return readF64(out);
    });
  }
  /** AIS estimate of log Z: {logZ, stdErr}. */
  logZAis({ runs = 100, betas = 1000, seed = 0, onProgress } = {}) {
    const p = this._check();
    toInt(runs, 'runs');
    toInt(betas, 'betas');
    return withScope((s) => {
      const lz = s.f64(1);
      const se = s.f64(1);
      const sd = toU64(seed);
      withProgress(onProgress, (fn, ud) => mod()._zeta_rbm_log_z_ais_progress(p, runs, betas, sd, fn, ud, lz, se));
      return { logZ: readF64(lz), stdErr: readF64(se) };
    });
  }
  /** nSamples independent chains, gibbsSteps sweeps each: nSamples x nVisible binary values. */
  sample(nSamples, gibbsSteps = 1) {
    const p = this._check();
    toInt(nSamples, 'nSamples');
    toInt(gibbsSteps, 'gibbsSteps');
    return withScope((s) => {
      const out = s.f64(Math.max(0, nSamples) * this.nVisible);
      check(mod()._zeta_rbm_sample(p, BigInt(nSamples), gibbsSteps, out));
      return copyOutF64(out, nSamples * this.nVisible);
    });
  }
  /** nSteps >= 1 block-Gibbs sweeps (h ~ p(h | v), then v ~ p(v | h)) from each row of v (values in [0, 1]: the first
   *  h is drawn from p(h | v) of the row as it is), one chain per row, drawn with this model's generator: the last
   *  visible states, rows x nVisible values 0/1 (scikit-learn's BernoulliRBM.gibbs for nSteps = 1). */
  gibbs(v, nSteps = 1) {
    const p = this._check();
    toInt(nSteps, 'nSteps');
    return withScope((s) => {
      const [d, n] = rowsArg(s, v, this.nVisible, 'v');
      const out = s.f64(n * this.nVisible);
      check(mod()._zeta_rbm_gibbs(p, d, BigInt(n), nSteps, out));
      return copyOutF64(out, n * this.nVisible);
    });
  }
  /** The removal cost C_k of every hidden unit against the binary rows of data: the exact change of
   *  KL(data || model) when unit k alone is deleted (C_k <= 0: it can go without the fit getting worse), p(h_k = 0)
   *  by enumeration (smaller layer at most 30 units). nHidden values. */
  removalCostsExact(data) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, data, this.nVisible, 'data');
      const out = s.f64(this.nHidden);
      check(mod()._zeta_rbm_removal_costs_exact(p, d, BigInt(n), out));
      return copyOutF64(out, this.nHidden);
    });
  }
  /** Deletes hidden unit k (0 <= k < nHidden, nHidden >= 2): W loses column k, c entry k; later units move down.
   *  A Trainer made before refuses to step afterwards; a Pruner follows. */
  removeHidden(k) {
    toInt(k, 'k');
    check(mod()._zeta_rbm_remove_hidden(this._check(), k));
    this._readShape();
    return this;
  }
  /** The model as bytes (the model-file format). */
  toBytes() {
    return modelBytes(mod()._zeta_rbm_to_bytes, this._check());
  }
  dispose() {
    if (this._borrowers > 0) {
      throw new Error('zeta: this Rbm is borrowed by a Trainer or Pruner; dispose that first');
    }
    if (this._ptr) mod()._zeta_rbm_free(this._ptr);
    this._ptr = 0;
  }
}

/** SML training (CD, PCD or parallel tempering) with online log Z tracking; borrows and updates an Rbm. */
export class Trainer extends Handle {
  constructor(rbm, options = null) {
    if (!(rbm instanceof Rbm)) throw new TypeError('zeta: Trainer needs an Rbm');
    const rp = rbm._check();
    const ptr = withOptions(options, (op) => outPtr((out) => mod()._zeta_trainer_new(rp, op, out)));
    super(ptr, 'Trainer');
    this.rbm = rbm;
    rbm._borrowers += 1;
  }
  /** One update from a mini-batch of rows: binary, or values in [0, 1] with the option visible_probabilities. A
   *  Float32Array goes to the library as float, a Uint8Array (0/1 bytes) as bytes, a Float64Array or a Dataset as
   *  doubles: the same numbers for the same values, the narrower types copied faster into wasm memory. */
  step(batch) {
    const p = this._check();
    withScope((s) => {
      const [d, n, type] = typedRowsArg(s, batch, this.rbm.nVisible, 'batch');
      check(mod()[STEP[type]](p, d, BigInt(n)));
    });
    return this;
  }
  /** `updates` steps on consecutive mini-batches of `batchSize` rows of data (wrapping around); rows as for step. */
  train(data, { batchSize = 100, updates = 1, onProgress } = {}) {
    const p = this._check();
    toInt(batchSize, 'batchSize');
    toInt(updates, 'updates');
    withScope((s) => {
      const [d, n, type] = typedRowsArg(s, data, this.rbm.nVisible, 'data');
      withProgress(onProgress, (fn, ud) =>
        mod()[TRAIN[type]](p, d, BigInt(n), BigInt(batchSize), BigInt(updates), fn, ud));
    });
    return this;
  }
  /** Tracked log Z: {mean, stdDev} (needs parallel tempering, method 2). */
  logZ() {
    const p = this._check();
    return outEstimate((m, sd) => mod()._zeta_trainer_log_z(p, m, sd));
  }
  /** The tracker's own diagnostics over its last complete window of 150 updates (zeta_trainer_tracking_health):
   *  {minSwapRate, coldModeChanges, minEssFraction, warnings (TRACKING_* bits), lowSwapRate, coldChainsStuck,
   *  lowEss, fewBridgeSamples}. A warning says the tracked sd should not be believed, not that the value is wrong. NaN values and no
   *  warning before the first window; needs parallel tempering, method 2. */
  trackingHealth() {
    const p = this._check();
    return withScope((s) => {
      const swap = s.f64(1);
      const modes = s.f64(1);
      const ess = s.f64(1);
      const bits = s.i32(1);
      check(mod()._zeta_trainer_tracking_health(p, swap, modes, ess, bits));
      const warnings = readI32(bits);
      return {
        minSwapRate: readF64(swap), coldModeChanges: readF64(modes), minEssFraction: readF64(ess), warnings,
        lowSwapRate: (warnings & TRACKING_LOW_SWAP_RATE) !== 0,
        coldChainsStuck: (warnings & TRACKING_COLD_CHAINS_STUCK) !== 0,
        lowEss: (warnings & TRACKING_LOW_ESS) !== 0,
        fewBridgeSamples: (warnings & TRACKING_FEW_BRIDGE_SAMPLES) !== 0,
      };
    });
  }
  /** log Z of the current model held fixed for `sweeps` sampler iterations on a copy of the chains, the first
   *  `burnIn` dropped: {mean, stdDev} (zeta_trainer_settled_log_z; training is unaffected; needs method 2). */
  settledLogZ(sweeps, burnIn) {
    const p = this._check();
    toInt(sweeps, 'sweeps');
    toInt(burnIn, 'burnIn');
    return outEstimate((m, sd) => mod()._zeta_trainer_settled_log_z(p, sweeps, burnIn, m, sd));
  }
  /** Mean log-likelihood of the rows of data from the tracked log Z: {mean, stdDev}. */
  logLikelihood(data) {
    const p = this._check();
    return outEstimate((m, sd, s) => {
      const [d, n] = rowsArg(s, data, this.rbm.nVisible, 'data');
      return mod()._zeta_trainer_log_likelihood(p, d, BigInt(n), m, sd);
    });
  }
  get steps() {
    const p = this._check();
    return outI64((out) => mod()._zeta_trainer_steps(p, out));
  }
  get roundTrips() {
    const p = this._check();
    return outI64((out) => mod()._zeta_trainer_round_trips(p, out));
  }
  get nTemperatures() {
    const p = this._check();
    return outI32((out) => mod()._zeta_trainer_n_temperatures(p, out));
  }
  get nChains() {
    const p = this._check();
    return outI32((out) => mod()._zeta_trainer_n_chains(p, out));
  }
  get learningRate() {
    const p = this._check();
    return outF64((out) => mod()._zeta_trainer_learning_rate(p, out));
  }
  /** The inverse temperatures, beta_1 = 1 first. */
  betas() {
    const p = this._check();
    const m = this.nTemperatures;
    return withScope((s) => {
      const out = s.f64(m);
      check(mod()._zeta_trainer_betas(p, out, m));
      return copyOutF64(out, m);
    });
  }
  /** Swap acceptance rate of each neighbouring pair of temperatures. */
  swapRates() {
    const p = this._check();
    const m = Math.max(0, this.nTemperatures - 1);
    return withScope((s) => {
      const out = s.f64(m);
      check(mod()._zeta_trainer_swap_rates(p, out, m));
      return copyOutF64(out, m);
    });
  }
  /** The chains at temperature index i (0 = beta 1): nChains x nVisible values 0/1. */
  chains(temperatureIndex = 0) {
    const p = this._check();
    toInt(temperatureIndex, 'temperatureIndex');
    const n = this.nChains * this.rbm.nVisible;
    return withScope((s) => {
      const out = s.f64(n);
      check(mod()._zeta_trainer_chains(p, temperatureIndex, out, BigInt(n)));
      return copyOutF64(out, n);
    });
  }
  dispose() {
    if (this._ptr) {
      mod()._zeta_trainer_free(this._ptr);
      this.rbm._borrowers -= 1;
    }
    this._ptr = 0;
  }
}
