// The DARN panel's job (deep autoregressive networks): training on the images by the description length
// (RMSprop), a fresh set of exact independent samples after every slice, and every `evalEvery` updates the bound
// and the log-likelihood of held-out images: exact when the hidden units are few enough to enumerate on the page,
// else importance-sampled with its 95% interval.
import * as zeta from '../zeta/zeta.js';
import { post, loadData } from './host.js';

// Exact log p(x) up to 2^12 hidden configurations: about 0.1 s for 200 images in the module, short enough to run
// between slices; beyond that, importance sampling.
const EXACT_MAX_BITS = 12;

export class DarnJob {
  constructor(p) {
    const { train, test } = loadData();
    this.p = p;
    const hidden = String(p.layers).split(',').map((s) => Number(s.trim()));
    if (hidden.some((n) => !Number.isInteger(n) || n < 1)) {
      throw new RangeError(`hidden layers must be positive integers separated by commas, got "${p.layers}"`);
    }
    this.sizes = [784, ...hidden];
    this.bits = hidden.reduce((a, b) => a + b, 0);
    this.darn = new zeta.Darn(this.sizes, {
      darn_learning_rate: p.learningRate, darn_estimator: p.estimator === 'reinforce' ? 1 : 0,
      darn_deterministic: p.deterministic, seed: p.seed,
      // Batch-by-batch training shares the weights' description length among the images it cycles through.
      darn_weight_noise: p.weightNoise ? 1 : 0, darn_weight_noise_examples: train.nRows,
    });
    this.heldOut = test.slice(0, Math.min(p.evalRows, test.nRows));
    this.offset = 0;
    this.steps = 0;
    this.busyMs = 0;
    this.sampleSeed = 0;
    this.sampleMs = 0; // time spent sampling, over every slice (a worker's clock is too coarse for one draw)
    this.sampled = 0;
    this.sinceEval = 0;
    this.pending = []; // evaluations not yet posted
    this.evaluate(); // the starting point
  }
  evaluate() {
    const bound = -mean(this.darn.descriptionLength(this.heldOut, { samples: 5, seed: this.steps + 1 }));
    let logP;
    let halfWidth = 0;
    let method;
    if (this.bits <= EXACT_MAX_BITS) {
      logP = mean(this.darn.logProbExact(this.heldOut));
      method = 'exact';
    } else {
      const r = this.darn.logProbImportance(this.heldOut, { samples: this.p.isSamples, seed: this.steps + 2 });
      logP = mean(r.logProb);
      // The rows are independent: the mean's variance is the sum of the rows' over n².
      halfWidth = (1.96 * Math.sqrt(r.stdErr.reduce((a, s) => a + s * s, 0))) / r.stdErr.length;
      method = 'importance sampling';
    }
    this.pending.push({ step: this.steps, bound, logP, halfWidth, method });
    this.sinceEval = 0;
  }
  slice(deadline) {
    const { train } = loadData();
    const b = this.p.batchSize;
    const t0 = performance.now();
    let sum = 0;
    let n = 0;
    do {
      if (this.offset + b > train.nRows) this.offset = 0;
      sum += this.darn.trainBatch(train.slice(this.offset, b));
      this.offset += b;
      this.steps++;
      this.sinceEval++;
      n++;
    } while (performance.now() < deadline);
    this.busyMs += performance.now() - t0;
    if (this.sinceEval >= this.p.evalEvery) this.evaluate();
    const s0 = performance.now();
    const x = this.darn.sample(this.p.nSamples, ++this.sampleSeed);
    this.sampleMs += performance.now() - s0;
    this.sampled += this.p.nSamples;
    const samples = new Uint8Array(x.length);
    for (let i = 0; i < x.length; ++i) samples[i] = x[i];
    post('progress', {
      steps: this.steps, updatesPerSecond: (1000 * this.steps) / this.busyMs, trainBound: -sum / n,
      evaluations: this.pending.splice(0),
      samples, nSamples: this.p.nSamples,
      samplesPerSecond: this.sampleMs > 0 ? (1000 * this.sampled) / this.sampleMs : null,
      sizes: this.sizes,
    }, [samples.buffer]);
  }
  dispose() {
    this.darn.dispose();
  }
}

function mean(a) {
  return a.reduce((s, v) => s + v, 0) / a.length;
}
