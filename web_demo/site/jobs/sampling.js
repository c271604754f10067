// The sampling panel's job (RBM family): SML-PT training on the images, the PT chains of every temperature
// posted after every slice.
import * as zeta from '../zeta/zeta.js';
import { post, loadData, trainBatch } from './host.js';

export class Sampling {
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
    const { train } = loadData();
    const t0 = performance.now();
    do {
      if (this.offset + this.p.batchSize > train.nRows) this.offset = 0;
      this.trainer.step(trainBatch(this.offset, this.p.batchSize));
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
