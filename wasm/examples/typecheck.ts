// Compiled with `tsc --noEmit --strict` against the installed package's zeta.d.ts (CTest: wasm_npm_package).
import zetaDefault, { init, Rbm, Trainer, Dataset, Options, ZetaError, EbpNet, EBP_P, type Progress } from 'zeta-wasm';

async function main(): Promise<number> {
  await init();
  const data: Dataset = Dataset.default('train');
  const rbm = new Rbm(784, 16, 1n).initFromData(data.slice(0, 500), 0.01);
  const opts = new Options({ learning_rate: 0.005, adaptive_tempering: true }).set('n_temperatures', 8);
  const trainer = new Trainer(rbm, opts);
  trainer.train(data, { batchSize: 100, updates: 10, onProgress: (p: Progress) => p.done < 5 });
  const { mean, stdDev }: { mean: number; stdDev: number } = trainer.logZ();
  const rates: Float64Array = trainer.swapRates();
  const ais = rbm.logZAis({ runs: 10, betas: 100, seed: 2 });
  const net: EbpNet | null = zetaDefault.hasFunction('zeta_ebp_new') ? new EbpNet(784, [50], 10) : null;
  const err: number = net ? net.errorRate(data, null, EBP_P) : 0;
  try {
    rbm.sample(0);
  } catch (e) {
    if (e instanceof ZetaError) console.log(e.code, e.status);
  }
  trainer.dispose();
  opts.dispose();
  rbm.dispose();
  net?.dispose();
  data.dispose();
  return mean + stdDev + rates.length + ais.logZ + err;
}
main().then(console.log);
