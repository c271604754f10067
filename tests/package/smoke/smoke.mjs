// The JavaScript smoke test of the npm tarball (tests/package): the shared model's log Z, exactly and by AIS,
// printed as the other artefacts' smoke programs print it. Run by node in a project that installed the tarball.
import { init, version, Rbm } from 'zeta-wasm';

const NV = 9;
const NH = 4;
const bits = (x) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

await init();
const W = new Float64Array(NV * NH);
const b = new Float64Array(NV);
const c = new Float64Array(NH);
for (let i = 0; i < NV; ++i) {
  for (let j = 0; j < NH; ++j) W[i * NH + j] = (((7 * i + 3 * j) % 11) - 5) / 8;
  b[i] = ((i % 5) - 2) / 4;
}
for (let j = 0; j < NH; ++j) c[j] = ((j % 3) - 1) / 2;
const rbm = new Rbm(NV, NH, 1).setParams({ W, b, c });
const exact = rbm.logZExact();
const { logZ: ais, stdErr: se } = rbm.logZAis({ runs: 100, betas: 1000, seed: 7 });
rbm.dispose();
console.log(`smoke zeta=${version()} exact=${bits(exact)} ais=${bits(ais)} se=${bits(se)} ` +
            `(log Z ${exact.toFixed(12)}, AIS ${ais.toFixed(6)} +- ${se.toFixed(6)})`);
