// The demo's Web Worker: one per panel, each with its own instance of zeta's WebAssembly module. Work runs in
// slices of about SLICE_MS between which the worker reads messages (start / pause / reset), so the page never
// waits on the module and pausing is immediate. Every number it posts is computed here, by the module.
import * as zeta from './zeta/zeta.js';

const SLICE_MS = 80;
let panel = null;
let running = false;
let timer = null;
let data = null; // { train, test } Datasets (the data set compiled into the module)

function post(type, payload = {}, transfer = []) {
  self.postMessage({ type, ...payload }, transfer);
}

function loadData() {
  if (!data) data = { train: zeta.Dataset.default('train'), test: zeta.Dataset.default('test') };
  return data;
}

// ---- Sampling: SML-PT training on the images, the PT chains of every temperature shown live ------------------
class Sampling {
  constructor(p) {
    const { train } = loadData();
    this.p = p;
    this.rbm = new zeta.Rbm(784, p.nHidden, p.seed).initFromData(train, 0.01);
    this.trainer = new zeta.Trainer(this.rbm, {
      learning_rate: p.learningRate, n_temperatures: p.nTemperatures, chains_per_temperature: p.nChains,
      gibbs_steps: p.gibbsSteps, adaptive_tempering: p.adaptive ? 1 : 0, adapt_interval: 50, seed: p.seed,
    });
    this.offset = 0;
    this.updates = 0;
    this.busyMs = 0;
  }
  slice(deadline) {
    const { train } = data;
    const t0 = performance.now();
    do {
      if (this.offset + this.p.batchSize > train.nRows) this.offset = 0;
      this.trainer.step(train.slice(this.offset, this.p.batchSize));
      this.offset += this.p.batchSize;
      this.updates++;
    } while (performance.now() < deadline);
    this.busyMs += performance.now() - t0;
    const M = this.trainer.nTemperatures;
    const N = this.trainer.nChains;
    const chains = new Uint8Array(M * N * 784);
    for (let m = 0; m < M; ++m) {
      const c = this.trainer.chains(m);
      for (let i = 0; i < c.length; ++i) chains[m * N * 784 + i] = c[i];
    }
    const lz = this.trainer.logZ();
    post('progress', {
      steps: this.trainer.steps, updatesPerSecond: (1000 * this.updates) / this.busyMs, nTemperatures: M, nChains: N,
      betas: Array.from(this.trainer.betas()), swapRates: Array.from(this.trainer.swapRates()),
      roundTrips: this.trainer.roundTrips, logZ: lz.mean, logZSd: lz.stdDev, chains,
    }, [chains.buffer]);
  }
  dispose() {
    this.trainer.dispose();
    this.rbm.dispose();
  }
}

// ---- Tracking: tracked log Z and log-likelihoods with their band, exact/AIS references, early stopping ------
class Tracking {
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

// ---- Classification: expectation backpropagation trained online, test error measured live --------------------
class Classification {
  constructor(p) {
    const { train, test } = loadData();
    this.p = p;
    this.net = new zeta.EbpNet(784, p.hidden > 0 ? [p.hidden] : [], 10,
                               { ebp_binary_weights: p.binaryWeights ? 1 : 0, seed: p.seed });
    this.train = train;
    this.testEval = test.slice(0, 500);
    this.trainEval = train.slice(0, 500);
    this.offset = 0;
    this.nextEval = 0;
    this.busyMs = 0;
  }
  evaluate() {
    const seen = this.net.examplesSeen;
    const e = {
      seen,
      testP: this.net.errorRate(this.testEval, null, zeta.EBP_P),
      testD: this.net.errorRate(this.testEval, null, zeta.EBP_D),
      trainP: this.net.errorRate(this.trainEval, null, zeta.EBP_P),
    };
    this.nextEval = seen + this.p.evalEvery;
    return e;
  }
  slice(deadline) {
    const t0 = performance.now();
    let evaluation = null;
    if (this.nextEval === 0) evaluation = this.evaluate();
    while (!evaluation && performance.now() < deadline) {
      const b = this.p.batchSize;
      if (this.offset + b > this.train.nRows) this.offset = 0;
      const batch = this.train.slice(this.offset, b);
      this.net.trainBatch(batch, batch.labels);
      this.offset += b;
      if (this.net.examplesSeen >= this.nextEval) evaluation = this.evaluate();
    }
    this.busyMs += performance.now() - t0;
    const seen = this.net.examplesSeen;
    post('progress', { steps: seen, examplesPerSecond: (1000 * seen) / this.busyMs, evaluation,
                       epoch: seen / this.train.nRows });
    if (seen >= this.p.maxExamples) {
      pause();
      post('stopped', { reason: `reached ${this.p.maxExamples} examples` });
    }
  }
  dispose() {
    this.net.dispose();
  }
}

// ---- Many classes: exact softmax vs sampled normalisation, on data drawn from a softmax teacher -----------------
const METHODS = [
  ['exact', 0], ['importance', 1], ['Bernoulli', 2], ['ranking', 3], ['negative sampling', 4], ['NCE', 5],
  ['BlackOut', 6],
];

class ManyClass {
  constructor(p) {
    this.p = p;
    const C = p.classes;
    const D = p.features;
    const N = p.trainRows;
    // Features x ~ N(0, I) from a seeded generator; labels drawn from p(c|x) of a random softmax teacher made
    // by the module (softmax_init_sd sets its weight scale).
    let state = (p.seed * 2654435761 + 1) >>> 0;
    const uniform = () => { state = (Math.imul(state, 1664525) + 1013904223) >>> 0; return (state + 0.5) / 4294967296; };
    const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const X = new Float64Array(N * D);
    for (let i = 0; i < X.length; ++i) X[i] = gauss();
    const teacher = new zeta.SoftmaxClassifier(D, C, { softmax_init_sd: p.teacherScale, seed: p.seed + 1000 });
    const labels = new Int32Array(N);
    const chunk = 250;
    for (let r0 = 0; r0 < N; r0 += chunk) {
      const n = Math.min(chunk, N - r0);
      const P = teacher.probabilities(X.subarray(r0 * D, (r0 + n) * D));
      for (let i = 0; i < n; ++i) {
        let u = uniform();
        let c = 0;
        while (c < C - 1 && (u -= P[i * C + c]) > 0) c++;
        labels[r0 + i] = c;
      }
    }
    this.teacherLL = teacher.logLikelihood(X, labels);
    teacher.dispose();
    this.train = zeta.Dataset.fromArray(X, D, labels);
    this.evalSet = this.train.slice(0, Math.min(500, N));
    const counts = new Array(C).fill(0);
    for (const l of labels) counts[l]++;
    this.models = METHODS.filter(([name]) => p[`m_${name.replace(/ /g, '_')}`]).map(([name, method]) => {
      const m = new zeta.SoftmaxClassifier(D, C, {
        softmax_method: method, softmax_negatives: p.negatives, softmax_learning_rate: p.learningRate, seed: p.seed,
      });
      m.setClassCounts(counts);
      return { name, method, model: m, ms: 0, offset: 0, objective: NaN };
    });
    if (!this.models.length) throw new Error('choose at least one method');
    this.updates = 0;
    this.evaluated = -1;
  }
  evaluate() {
    return {
      step: this.updates,
      methods: this.models.map((m) => ({
        name: m.name, ll: m.model.logLikelihood(this.evalSet), error: m.model.errorRate(this.evalSet),
        msPerUpdate: this.updates ? m.ms / this.updates : null,
      })),
    };
  }
  slice(deadline) {
    let evaluation = null;
    if (this.evaluated < 0) {
      evaluation = this.evaluate();
      this.evaluated = 0;
    }
    const b = this.p.batchSize;
    while (!evaluation && performance.now() < deadline) {
      for (const m of this.models) {
        if (m.offset + b > this.train.nRows) m.offset = 0;
        const batch = this.train.slice(m.offset, b);
        const t0 = performance.now();
        m.objective = m.model.trainBatch(batch);
        m.ms += performance.now() - t0;
        m.offset += b;
      }
      this.updates++;
      if (this.updates % this.p.evalEvery === 0) evaluation = this.evaluate();
    }
    post('progress', { steps: this.updates, evaluation, teacherLL: this.teacherLL,
                       names: this.models.map((m) => m.name) });
    if (this.updates >= this.p.maxUpdates) {
      pause();
      post('stopped', { reason: `reached ${this.p.maxUpdates} updates` });
    }
  }
  dispose() {
    for (const m of this.models) m.model.dispose();
    this.train.dispose();
  }
}

const PANELS = { sampling: Sampling, tracking: Tracking, classification: Classification, manyclass: ManyClass };

function loop() {
  timer = null;
  if (!running || !panel) return;
  try {
    panel.slice(performance.now() + SLICE_MS);
  } catch (e) {
    pause();
    post('error', { message: `${e.name}: ${e.message}` });
    return;
  }
  if (running) timer = setTimeout(loop, 0);
}

function pause() {
  running = false;
  if (timer) clearTimeout(timer);
  timer = null;
}

function reset(kind, params) {
  pause();
  if (panel) panel.dispose();
  panel = null;
  panel = new PANELS[kind](params);
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'init') {
      const t0 = performance.now();
      await zeta.init();
      loadData();
      post('ready', { version: zeta.version(), hasEbp: zeta.hasFunction('zeta_ebp_new'),
                      hasSoftmax: zeta.hasFunction('zeta_softmax_new'), loadMs: performance.now() - t0,
                      trainRows: data.train.nRows, testRows: data.test.nRows });
    } else if (msg.type === 'reset') {
      reset(msg.kind, msg.params);
      post('reset', {});
    } else if (msg.type === 'start') {
      if (!panel) reset(msg.kind, msg.params);
      if (!running) {
        running = true;
        loop();
      }
    } else if (msg.type === 'pause') {
      pause();
      post('paused', {});
    }
  } catch (e) {
    pause();
    post('error', { message: `${e.name}: ${e.message}` });
  }
};
