// The tracking panel's job (RBM family): tracked log Z and log-likelihoods with their band, exact/AIS references,
// early stopping, and the tracker's warnings (Trainer.trackingHealth, polled after every update).
import * as zeta from '../zeta/zeta.js';
import { post, pause, loadData, trainBatch } from './host.js';

export class Tracking {
  constructor(p) {
    const { train, test } = loadData();
    this.p = p;
    this.trainFit = train.slice(0, 2000); // rows trained on
    this.trainEval = train.slice(0, 1000); // training log-likelihood measured on these
    this.heldOut = test; // held-out log-likelihood
    this.rbm = new zeta.Rbm(784, p.nHidden, p.seed).initFromData(this.trainFit, 0.01);
    // The library's default sampler has data moves at the coldest rung; "paper" is Desjardins et al.'s sampler.
    this.sampler = p.sampler === 'paper' ? 'paper' : 'data-moves';
    this.trainer = new zeta.Trainer(this.rbm, {
      learning_rate: p.learningRate, n_temperatures: p.nTemperatures, chains_per_temperature: p.nChains,
      adaptive_tempering: 0, seed: p.seed,
      ...(this.sampler === 'paper' ? { data_move_rungs: 0 } : {}),
    });
    this.health = this.trainer.trackingHealth();
    this.healthFrom = 0; // the update after which the window of the current health began
    this.healthEvents = []; // changes of the health since the last post
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
      steps: step, points, health: this.takeHealthEvents(), sampler: this.sampler, evaluation: {
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
  /** Polls the tracker's health after an update; a change means a window closed: it spans the updates since the
   *  previous change. */
  watchHealth(step) {
    const h = this.trainer.trackingHealth();
    const keys = ['minSwapRate', 'coldModeChanges', 'minEssFraction', 'warnings'];
    if (keys.every((k) => Object.is(h[k], this.health[k]))) return;
    this.healthEvents.push({ ...h, from: this.healthFrom, to: step });
    this.health = h;
    this.healthFrom = step;
  }
  takeHealthEvents() {
    const events = this.healthEvents;
    this.healthEvents = [];
    return events;
  }
  slice(deadline) {
    const points = [];
    const { trainFit } = this;
    do {
      if (this.offset + this.p.batchSize > trainFit.nRows) this.offset = 0;
      this.trainer.step(trainBatch(this.offset, this.p.batchSize));
      this.offset += this.p.batchSize;
      const lz = this.trainer.logZ();
      const step = this.trainer.steps;
      points.push([step, lz.mean, lz.stdDev]);
      this.watchHealth(step);
      if (step % this.p.evalEvery === 0) {
        this.evaluate(points);
        return;
      }
      if (step >= this.p.maxUpdates) break;
    } while (performance.now() < deadline);
    post('progress', { steps: this.trainer.steps, points, health: this.takeHealthEvents(), sampler: this.sampler });
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
