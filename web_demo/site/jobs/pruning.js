// The pruning panel's job (RBM family): trains a Bars-and-Stripes 3 x 3 RBM by PCD-5, then removes hidden units
// with a Pruner (Saito & Kato 2019) while a copy of the trained model loses the same number of units naively (the
// unit of smallest exact removal cost deleted at once, without first lowering its cost). Every KL is exact (512
// visible states).
import * as zeta from '../zeta/zeta.js';
import { post, pause } from './host.js';

const NV = 9;

// The 14 distinct 3 x 3 bars-and-stripes images: every row constant, or every column constant.
function barsAndStripes() {
  const rows = new Map();
  for (let mask = 0; mask < 8; ++mask) {
    const byRow = Array.from({ length: NV }, (_, k) => (mask >> Math.floor(k / 3)) & 1);
    const byColumn = Array.from({ length: NV }, (_, k) => (mask >> (k % 3)) & 1);
    rows.set(byRow.join(''), byRow);
    rows.set(byColumn.join(''), byColumn);
  }
  return [...rows.values()];
}

// n rows cycling through the patterns, so that every batch holds them equally often (up to one row each), as
// doubles or, for the trainer, as 0/1 bytes (the narrowest rows it takes).
function cycled(patterns, n, Type = Float64Array) {
  const out = new Type(n * NV);
  for (let r = 0; r < n; ++r) out.set(patterns[r % patterns.length], r * NV);
  return out;
}

export class Pruning {
  constructor(p) {
    this.p = p;
    const patterns = barsAndStripes();
    this.patterns = patterns.length;
    this.data = cycled(patterns, patterns.length);
    this.trainBatch = cycled(patterns, 100, Uint8Array);
    this.pruneBatch = cycled(patterns, p.batchSize);
    this.rbm = new zeta.Rbm(NV, p.nHidden, p.seed).initFromData(this.data, 0.1);
    this.trainer = new zeta.Trainer(this.rbm, {
      method: 1, gibbs_steps: 5, chains_per_temperature: 100, learning_rate: p.trainRate, seed: p.seed,
    });
    this.pruner = null;
    this.naive = null;
    this.trainSteps = 0;
    this.pruneSteps = 0;
    this.removals = [];
    this.report([]);
  }
  kl(rbm) {
    return -Math.log(this.patterns) - rbm.meanLogLikelihood(this.data, rbm.logZExact());
  }
  get steps() { return this.trainSteps + this.pruneSteps; }
  // One point of the charts (pruning only): [pruning step, hidden units, KL, naive KL, tracked log Z, its sd,
  // exact log Z].
  point() {
    const exactLogZ = this.rbm.logZExact();
    const kl = -Math.log(this.patterns) - this.rbm.meanLogLikelihood(this.data, exactLogZ);
    const lz = this.pruner.logZ();
    return [this.pruneSteps, this.rbm.nHidden, kl, this.kl(this.naive), lz.mean,
            Number.isFinite(lz.stdDev) ? lz.stdDev : null, exactLogZ];
  }
  report(points, extra = {}) {
    const costs = this.pruner ? this.pruner.costs() : null;
    let minCost = null;
    let minCostSd = null;
    if (costs) {
      for (let k = 0; k < costs.costs.length; ++k) {
        if (Number.isFinite(costs.costs[k]) && (minCost === null || costs.costs[k] < minCost)) {
          minCost = costs.costs[k];
          minCostSd = costs.stdErrs[k];
        }
      }
    }
    post('progress', {
      steps: this.steps, phase: this.pruner ? 'pruning' : 'training', trainSteps: this.trainSteps,
      trainingKl: this.pruner ? null : this.kl(this.rbm), points: this.pruner ? [...points, this.point()] : [],
      removals: this.removals, minCost, minCostSd, ...extra,
    });
  }
  startPruning() {
    this.trainer.dispose();
    this.trainer = null;
    this.naive = this.rbm.clone();
    this.pruner = new zeta.Pruner(this.rbm, {
      prune_rate: this.p.rate, prune_criterion: this.p.criterion, prune_chains: this.p.chains,
      n_temperatures: this.p.nTemperatures, prune_tempered_steps: this.p.temperedSteps, seed: this.p.seed,
    });
  }
  // The naive removal: as many units as the procedure removed, each time the one of smallest exact cost.
  removeNaively(count) {
    for (let i = 0; i < count && this.naive.nHidden > 1; ++i) {
      const costs = this.naive.removalCostsExact(this.data);
      let k = 0;
      for (let j = 1; j < costs.length; ++j) if (costs[j] < costs[k]) k = j;
      this.naive.removeHidden(k);
    }
  }
  slice(deadline) {
    const points = [];
    const { p } = this;
    if (!this.pruner) {
      do {
        this.trainer.step(this.trainBatch);
        ++this.trainSteps;
      } while (this.trainSteps < p.trainUpdates && performance.now() < deadline);
      if (this.trainSteps >= p.trainUpdates) this.startPruning();
      this.report([]);
      return;
    }
    do {
      const removed = this.pruner.step(this.pruneBatch);
      ++this.pruneSteps;
      if (removed > 0) {
        this.removeNaively(removed);
        this.removals.push({ step: this.pruneSteps, removed, nHidden: this.rbm.nHidden });
        points.push(this.point());
      } else if (this.pruneSteps % p.evalEvery === 0) {
        points.push(this.point());
      }
    } while (this.pruneSteps < p.maxSteps && this.rbm.nHidden > 1 && performance.now() < deadline);
    this.report(points);
    if (this.pruneSteps >= p.maxSteps || this.rbm.nHidden <= 1) {
      pause();
      post('stopped', { reason: `${this.pruneSteps} pruning steps, ${this.rbm.nHidden} hidden units left` });
    }
  }
  dispose() {
    if (this.pruner) this.pruner.dispose();
    if (this.trainer) this.trainer.dispose();
    if (this.naive) this.naive.dispose();
    this.rbm.dispose();
  }
}
