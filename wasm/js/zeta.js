// zeta.js — the JavaScript API of zeta's WebAssembly module: the one entry point users import.
//
// A thin layer over the C API (capi/zeta.h), which is the module's export list: every method calls one or two
// zeta_* functions and only marshals arguments and results. Conventions:
//   - call `await init()` once (in node too: the .wasm next to this file is read from disk there);
//   - objects own wasm memory: call dispose() when done (or use `using` where supported);
//   - numbers in and out are Float64Array (plain arrays are accepted as input; a trainer's rows may also be a
//     Float32Array or a Uint8Array of 0/1); matrices are row-major, one example per row, and the row count is the
//     array length divided by the number of columns;
//   - a failing call throws ZetaError (an Error) whose message is zeta_last_error() and whose `status` is the
//     C status code (`code` its name, e.g. "ZETA_ERR_ARGUMENT"); the object is left as it was;
//   - 64-bit seeds accept a number (integer up to 2^53) or a BigInt.
//
// runtime.js holds what every family shares (loading, errors, marshalling, progress callbacks, options); each
// model family is one module. A new family is one module and one line below.
export {
  init, version, abiVersion, buildInfo, setNumThreads, numThreads, optionKeys, memoryBytes, hasFunction, rawModule,
  ZetaError, Options,
} from './runtime.js';
export { Dataset } from './data.js';
export {
  Rbm, Trainer, TRACKING_LOW_SWAP_RATE, TRACKING_COLD_CHAINS_STUCK, TRACKING_LOW_ESS, TRACKING_FEW_BRIDGE_SAMPLES,
} from './rbm.js';
export { Pruner } from './pruner.js';
export { EbpNet, EBP_P, EBP_D, EBP_P_Z } from './ebp.js';
export {
  SoftmaxClassifier, SOFTMAX_EXACT, SOFTMAX_IMPORTANCE, SOFTMAX_BERNOULLI, SOFTMAX_RANKING, SOFTMAX_NEGATIVE_SAMPLING,
  SOFTMAX_NCE, SOFTMAX_BLACKOUT,
} from './softmax.js';
export { Darn, DARN_ESTIMATOR_DARN, DARN_ESTIMATOR_REINFORCE } from './darn.js';

// The default export holds every named export above (`import zeta from './zeta.js'`), read from this module's
// own namespace so that the list is written once.
import * as api from './zeta.js';

export default Object.fromEntries(Reflect.ownKeys(api).filter((k) => typeof k === 'string' && k !== 'default')
  .map((k) => [k, api[k]]));
