// The many-class panel's job (softmax family): exact softmax vs sampled normalisation, on data drawn from a
// softmax teacher.
import * as zeta from '../zeta/zeta.js';
import { post, pause } from './host.js';

const METHODS = [
  ['exact', 0], ['importance', 1], ['Bernoulli', 2], ['ranking', 3], ['negative sampling', 4], ['NCE', 5],
  ['BlackOut', 6],
];

export class ManyClass {
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
