// pruner.js — removal of hidden units from a trained RBM (zeta_pruner_*), with log Z tracked across it.
import {
  Handle, check, copyOutF64, mod, outEstimate, outI32, outI64, outPtr, readI32, readI64, toInt, withOptions, withProgress,
  withScope,
} from './runtime.js';
import { rowsArg } from './data.js';
import { Rbm } from './rbm.js';

/**
 * Removes hidden units of a trained Rbm while the fit holds (Saito & Kato, "Decreasing the Size of the Restricted
 * Boltzmann Machine", 2019): each step removes every unit whose sampled removal cost passes C_k + m sd_k <= 0, or
 * else moves the parameters so that the cheapest unit's cost and the KL divergence both fall, and tracks log Z
 * across the updates and the removals. Borrows the Rbm and shrinks it in place (rbm.nHidden follows). Options: the
 * prune_* keys, n_temperatures, tempering, single_precision, tracker_sigma_b2 and seed (null: every default).
 */
export class Pruner extends Handle {
  constructor(rbm, options = null) {
    if (!(rbm instanceof Rbm)) throw new TypeError('zeta: Pruner needs an Rbm');
    const rp = rbm._check();
    const ptr = withOptions(options, (op) => outPtr((out) => mod()._zeta_pruner_new(rp, op, out)));
    super(ptr, 'Pruner');
    this.rbm = rbm;
    rbm._borrowers += 1;
  }
  /** One step on a mini-batch of binary rows; returns the number of units it removed. */
  step(batch) {
    const p = this._check();
    try {
      return withScope((s) => {
        const [d, n] = rowsArg(s, batch, this.rbm.nVisible, 'batch');
        const removed = s.i32(1);
        check(mod()._zeta_pruner_step(p, d, BigInt(n), removed));
        return readI32(removed);
      });
    } finally {
      this.rbm._readShape();
    }
  }
  /** `steps` steps on consecutive mini-batches of `batchSize` rows of data (wrapping around); onProgress gets stage
   *  "pruning" and value = the number of hidden units after every step (false cancels, finished steps kept). */
  run(data, { batchSize = 1000, steps = 1, onProgress } = {}) {
    const p = this._check();
    toInt(batchSize, 'batchSize');
    toInt(steps, 'steps');
    try {
      withScope((s) => {
        const [d, n] = rowsArg(s, data, this.rbm.nVisible, 'data');
        withProgress(onProgress, (fn, ud) => mod()._zeta_pruner_run(p, d, BigInt(n), batchSize, BigInt(steps), fn, ud));
      });
    } finally {
      this.rbm._readShape();
    }
    return this;
  }
  /** The last step's estimated removal costs and their standard errors, one per hidden unit: {costs, stdErrs}
   *  (NaN and Infinity before the first step and after the Rbm was changed outside the pruner). */
  costs() {
    const p = this._check();
    const nh = this.rbm.nHidden;
    return withScope((s) => {
      const c = s.f64(nh);
      const e = s.f64(nh);
      check(mod()._zeta_pruner_costs(p, c, e, nh));
      return { costs: copyOutF64(c, nh), stdErrs: copyOutF64(e, nh) };
    });
  }
  get steps() {
    const p = this._check();
    return outI64((out) => mod()._zeta_pruner_steps(p, out));
  }
  /** Anchors a single rung's (n_temperatures 1) log Z tracking at an independent estimate of log Z of the model as
   *  it is now (e.g. rbm.logZAis()); the updates and removals then carry it (zeta_pruner_anchor_log_z). Anchoring
   *  again is a check that calibrates the carried value's drift (logZCheck). */
  anchorLogZ(mean, stdDev) {
    const p = this._check();
    check(mod()._zeta_pruner_anchor_log_z(p, mean, stdDev));
    return this;
  }
  /** Anchors a single rung's log Z by AIS (runs runs, nBetas temperatures) whose runs' final states go on as
   *  weighted witnesses that carry it across the updates and removals (zeta_pruner_anchor_ais): unbiased in Z
   *  however slowly the chains mix, where anchorLogZ's carried value runs away on large models, but behind where
   *  the model moves mass to where no witness is. Anchoring again is a check (logZCheck) that calibrates the
   *  witnesses' own drift. */
  anchorAis(runs, nBetas) {
    const p = this._check();
    check(mod()._zeta_pruner_anchor_ais(p, runs, nBetas));
    return this;
  }
  /** Sweeps run before the first step's costs (prune_burn_in plus settling). */
  get settlingSweeps() {
    const p = this._check();
    return outI64((out) => mod()._zeta_pruner_settling(p, out, 0));
  }
  /** 1: the chains from the base rates and from the data agreed before the first costs; 0: not within
   *  prune_settle_max_sweeps (the costs rest on chains not at equilibrium); -1: not known (before the first step,
   *  or settling off). */
  get settled() {
    const p = this._check();
    return outI32((out) => mod()._zeta_pruner_settling(p, 0, out));
  }
  /** The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1, N = prune_chains), nVisible
   *  binary values per row, for checkpoints (zeta_pruner_chains). */
  chains() {
    const p = this._check();
    return withScope((s) => {
      const rows = s.i64();
      check(mod()._zeta_pruner_chains(p, 0, 0n, rows));
      const n = readI64(rows) * this.rbm.nVisible;
      const out = s.f64(n);
      check(mod()._zeta_pruner_chains(p, out, BigInt(n), rows));
      return copyOutF64(out, n);
    });
  }
  /** Starts the chains from given states, stacked as chains() gives them, or a PCD trainer's persistent chains
   *  (trainer.chains(0), as many): taken as they are, no burn-in or settling (zeta_pruner_set_chains). */
  setChains(chains) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, chains, this.rbm.nVisible, 'chains');
      check(mod()._zeta_pruner_set_chains(p, d, BigInt(n)));
    });
    return this;
  }
  /** The last check of a single rung's carried log Z (anchorLogZ on an anchored pruner; zeta_pruner_log_z_check):
   *  {step (-1: none yet), difference (carried - new), z, driftVariance (per update, widening logZ().stdDev)}. */
  logZCheck() {
    const p = this._check();
    return withScope((s) => {
      const step = s.i64();
      const values = s.f64(3);
      check(mod()._zeta_pruner_log_z_check(p, step, values, values + 8, values + 16));
      const v = copyOutF64(values, 3);
      return { step: readI64(step), difference: v[0], z: v[1], driftVariance: v[2] };
    });
  }
  /** Tracked log Z of the model as the last step left it: {mean, stdDev}. */
  logZ() {
    const p = this._check();
    return outEstimate((m, sd) => mod()._zeta_pruner_log_z(p, m, sd));
  }
  dispose() {
    if (this._ptr) {
      mod()._zeta_pruner_free(this._ptr);
      this.rbm._borrowers -= 1;
    }
    this._ptr = 0;
  }
}
