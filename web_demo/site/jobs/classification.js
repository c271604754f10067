// The classification panel's job (EBP family): expectation backpropagation trained online, test error measured
// live.
import * as zeta from '../zeta/zeta.js';
import { post, pause, loadData } from './host.js';

export class Classification {
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
