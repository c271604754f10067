// The tracking panel's job (RBM family): tracked log Z and log-likelihoods with their band, exact/AIS references,
// early stopping.
import * as zeta from '../zeta/zeta.js';
import { post, pause, loadData } from './host.js';

export class Tracking {
  constructor(p) {
    const { train, test } = loadData();
    this.p = p;
    this.trainFit = train.slice(0, 2000); // rows trained on
    this.trainEval = train.slice(0, 1000); // training log-likelihood measured on these
    this.heldOut = test; // held-out log-likelihood
    this.rbm = new zeta.Rbm(784, p.nHidden, p.seed).initFromData(this.trainFit, 0.01);
    this.trainer = new zeta.Trainer(this.rbm, {
      learning_rate: p.learningRate, n_temperatures: p.nTemperatures, chains_per_temperature: p.nChains,
      adaptive_tempering: 0, seed: p.seed,
    });
    this.offset = 0;
    this.best = { ll: -Infinity, step: 0 };
    this.sinceBest = 0;
    this.stopped = null;
    this.useExact = p.reference === 'exact' && Math.min(p.nHidden, 784) <= 20;
    this.evaluate([]); // the starting point (step 0)
  }
  reference() {
    if (this.useExact) return { kind: 'exact', logZ: this.rbm.logZExact(), sd: 0 };
    const a = this.rbm.logZAis({ runs: 32, betas: 1000, seed: this.trainer.steps + 1 });
    return { kind: 'AIS', logZ: a.logZ, sd: a.stdErr };
  }
  evaluate(points) {
    const step = this.trainer.steps;
    const tr = this.trainer.logLikelihood(this.trainEval);
    const ho = this.trainer.logLikelihood(this.heldOut);
    const ref = this.reference();
    const lz = this.trainer.logZ();
    const hoRef = this.rbm.meanLogLikelihood(this.heldOut, ref.logZ);
    const trRef = this.rbm.meanLogLikelihood(this.trainEval, ref.logZ);
    if (step > 0 && !this.stopped) {
      if (ho.mean > this.best.ll) {
        this.best = { ll: ho.mean, step };
        this.sinceBest = 0;
      } else if (++this.sinceBest >= this.p.patience) {
        this.stopped = { step: this.best.step, at: step, ll: this.best.ll };
      }
    }
    post('progress', {
      steps: step, points, evaluation: {
        step, logZ: lz.mean, logZSd: Number.isFinite(lz.stdDev) ? lz.stdDev : null, trainLL: tr.mean,
        trainSd: Number.isFinite(tr.stdDev) ? tr.stdDev : null, heldLL: ho.mean,
        heldSd: Number.isFinite(ho.stdDev) ? ho.stdDev : null, refKind: ref.kind, refLogZ: ref.logZ, refSd: ref.sd,
        heldRef: hoRef, trainRef: trRef,
      },
      best: this.best, earlyStop: this.stopped, learningRate: this.trainer.learningRate,
    });
    if (this.stopped && this.p.stopEarly && step > 0) {
      pause();
      post('stopped', { reason: `early stopping: no better held-out log-likelihood for ${this.p.patience} evaluations` });
    }
  }
  slice(deadline) {
    const points = [];
    const { trainFit } = this;
    do {
      if (this.offset + this.p.batchSize > trainFit.nRows) this.offset = 0;
      this.trainer.step(trainFit.slice(this.offset, this.p.batchSize));
      this.offset += this.p.batchSize;
      const lz = this.trainer.logZ();
      const step = this.trainer.steps;
      points.push([step, lz.mean, lz.stdDev]);
      if (step % this.p.evalEvery === 0) {
        this.evaluate(points);
        return;
      }
      if (step >= this.p.maxUpdates) break;
    } while (performance.now() < deadline);
    post('progress', { steps: this.trainer.steps, points });
    if (this.trainer.steps >= this.p.maxUpdates) {
      pause();
      post('stopped', { reason: `reached ${this.p.maxUpdates} updates` });
    }
  }
  dispose() {
    this.trainer.dispose();
    this.rbm.dispose();
  }
}
