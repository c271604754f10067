// The package used from node after `npm install zeta-wasm-<version>.tgz` (run by CTest: wasm_npm_package).
import { init, version, Rbm, Trainer, Dataset, ZetaError } from 'zeta-wasm';

await init();
const data = Dataset.default('train');
const rbm = new Rbm(784, 16, 1).initFromData(data);
const trainer = new Trainer(rbm, { learning_rate: 0.005, n_temperatures: 8, seed: 1 });
trainer.train(data, { batchSize: 100, updates: 100 });
const tracked = trainer.logZ();
const exact = rbm.logZExact();
console.log(`zeta ${version()}: tracked log Z ${tracked.mean.toFixed(2)} ± ${tracked.stdDev.toFixed(2)}, exact ${exact.toFixed(2)}`);
if (!(Math.abs(tracked.mean - exact) < 1)) throw new Error('tracked log Z is far from exact log Z');
try {
  rbm.freeEnergy(new Float64Array(784).fill(0.5));
  throw new Error('non-binary data was accepted');
} catch (e) {
  if (!(e instanceof ZetaError) || e.code !== 'ZETA_ERR_ARGUMENT') throw e;
  console.log(`bad input rejected: ${e.message}`);
}
trainer.dispose();
rbm.dispose();
data.dispose();
