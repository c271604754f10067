// Compiled with `tsc --noEmit --strict` against the installed package's zeta.d.ts (CTest: wasm_npm_package).
import zetaDefault, { init, Rbm, Trainer, Dataset, Options, ZetaError, EbpNet, EBP_P, type Progress } from 'zeta-wasm';
import { buildInfo, numThreads, setNumThreads, type TrainerRows } from 'zeta-wasm';
import { TRACKING_LOW_ESS, type TrackingHealth } from 'zeta-wasm';
import { Darn, DARN_ESTIMATOR_REINFORCE, type DarnBlock } from 'zeta-wasm';

async function main(): Promise<number> {
  await init();
  const data: Dataset = Dataset.default('train');
  const rbm = new Rbm(784, 16, 1n).initFromData(data.slice(0, 500), 0.01);
  const opts = new Options({ learning_rate: 0.005, adaptive_tempering: true }).set('n_temperatures', 8);
  const trainer = new Trainer(rbm, opts);
  trainer.train(data, { batchSize: 100, updates: 10, onProgress: (p: Progress) => p.done < 5 });
  const bytes: TrainerRows = new Uint8Array(2 * 784);
  trainer.step(bytes).step(new Float32Array(784)).train(new Uint8Array(784 * 4), { batchSize: 2 });
  const visible: Float64Array = rbm.gibbs(new Float64Array(784).fill(0.5), 2);
  setNumThreads(1);
  const info: string = `${buildInfo()} on ${numThreads()} thread`;
  const { mean, stdDev }: { mean: number; stdDev: number } = trainer.logZ();
  const rates: Float64Array = trainer.swapRates();
  const health: TrackingHealth = trainer.trackingHealth();
  const lowEss: boolean = health.lowEss === ((health.warnings & TRACKING_LOW_ESS) !== 0);
  const ais = rbm.logZAis({ runs: 10, betas: 100, seed: 2 });
  const net: EbpNet | null = zetaDefault.hasFunction('zeta_ebp_new') ? new EbpNet(784, [50], 10) : null;
  const err: number = net ? net.errorRate(data, null, EBP_P) : 0;
  const darn = new Darn([784, 8], { darn_estimator: DARN_ESTIMATOR_REINFORCE, seed: 3 });
  darn.trainEpochs(data.slice(0, 200), { batchSize: 100, epochs: 1, onProgress: (p: Progress) => p.value > 0 });
  const blocks: DarnBlock[] = darn.blocks;
  const exact: Float64Array = darn.logProbExact(data.slice(0, 2));
  const { logProb, stdErr } = darn.logProbImportance(data.slice(0, 2), { samples: 10, seed: 1n });
  const bound: Float64Array = darn.descriptionLength(data.slice(0, 2));
  const x: Float64Array = darn.setParam(blocks[0].name, darn.getParam(blocks[0].name)).sample(2, 5);
  try {
    rbm.sample(0);
  } catch (e) {
    if (e instanceof ZetaError) console.log(e.code, e.status);
  }
  trainer.dispose();
  opts.dispose();
  rbm.dispose();
  net?.dispose();
  darn.dispose();
  data.dispose();
  return visible.length + info.length +
      mean + stdDev + rates.length + (lowEss ? 0 : 1) + ais.logZ + err + exact[0] + logProb[0] + stdErr[0] + bound[0] + x.length;
}
main().then(console.log);
