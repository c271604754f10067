// TypeScript declarations of zeta's WebAssembly module (zeta.js). See zeta.h for the meaning, cost and
// error conditions of each underlying C function.

/** Row-major numbers in: a Float64Array (copied into wasm memory) or a Dataset (already there: no copy). */
export type Rows = Float64Array | ArrayLike<number> | Dataset;
/** A trainer's rows: also a Float32Array (handed to the library as float) or a Uint8Array / Uint8ClampedArray of 0/1
 *  bytes (as bytes), each copied into wasm memory in its own type: the narrower, the less to copy. */
export type TrainerRows = Rows | Float32Array | Uint8Array | Uint8ClampedArray;
/** A 64-bit seed: an integer number up to 2^53 or a BigInt below 2^64. */
export type Seed = number | bigint;

export interface InitOptions {
  /** The bytes of zeta_wasm.wasm (default: fetched next to zeta.js; read from disk in node). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's hook to locate zeta_wasm.wasm elsewhere. */
  locateFile?: (path: string, scriptDirectory: string) => string;
}

/** Loads the module once; every other function needs it to have resolved. */
export function init(options?: InitOptions): Promise<unknown>;
/** "MAJOR.MINOR.PATCH". */
export function version(): string;
export function abiVersion(): number;
/** zeta_build_info: the version, the backend of the large products and the build's vector extensions, one per line. */
export function buildInfo(): string;
/** zeta_set_num_threads: the module has no threads and runs on one whatever n (>= 0) is. */
export function setNumThreads(n: number): void;
/** zeta_get_num_threads: 1 in the module. */
export function numThreads(): number;
/** The option keys of zeta_options_set. */
export function optionKeys(): string[];
/** Current size of the module's memory in bytes (grows, never shrinks). */
export function memoryBytes(): number;
/** True when the build has the named C function, e.g. hasFunction('zeta_ebp_new'). */
export function hasFunction(name: string): boolean;
/** The Emscripten module: the C API as `_zeta_*` functions plus HEAP views. */
export function rawModule(): any;

/** Thrown by every failing call: message is zeta_last_error(). */
export class ZetaError extends Error {
  /** zeta_status value (1 ZETA_ERR_ARGUMENT ... 8 ZETA_ERR_INTERNAL). */
  readonly status: number;
  /** The status's name, e.g. "ZETA_ERR_ARGUMENT". */
  readonly code: string;
}

export interface Progress {
  /** "exact log Z", "AIS", "training" or "pruning". */
  stage: string;
  done: number;
  total: number;
  /** Running figure of the stage (AIS: running log Z; training: tracked log Z, or a DARN's running mean
   *  description length; pruning: the number of hidden units), else NaN. */
  value: number;
}
/** Return false (or throw) to cancel: the call then throws ZetaError ZETA_ERR_CANCELLED (or your exception). */
export type ProgressCallback = (progress: Progress) => boolean | void;

/** Option keys and values (generated from the C API's option table into options.d.ts). */
import type { OptionValues } from './options.js';
export type { OptionValues };

interface Disposable {
  /** Frees the wasm memory; further use throws. Calling it twice is harmless. */
  dispose(): void;
  readonly disposed: boolean;
}

export class Options implements Disposable {
  constructor(values?: OptionValues);
  set(key: string, value: number | boolean): this;
  get(key: string): number;
  toObject(): Record<string, number>;
  dispose(): void;
  readonly disposed: boolean;
}

/** Rows of doubles kept in wasm memory. */
export class Dataset implements Disposable {
  static fromArray(data: ArrayLike<number>, nCols: number, labels?: ArrayLike<number> | null): Dataset;
  /** The data set compiled into zeta: binarised Fashion-MNIST, 784 columns; 'train' 3000 rows, 'test' 1000. */
  static default(split?: 'train' | 'test'): Dataset;
  readonly nRows: number;
  readonly nCols: number;
  readonly labels: Int32Array | null;
  /** Rows [start, start + count), sharing this Dataset's memory (valid until this one is disposed). */
  slice(start: number, count?: number): Dataset;
  row(i: number): Float64Array;
  toArray(): Float64Array;
  dispose(): void;
  readonly disposed: boolean;
}

export interface RbmParams {
  /** nVisible x nHidden, row-major. */
  W: ArrayLike<number>;
  b: ArrayLike<number>;
  c: ArrayLike<number>;
}

/** Binary RBM, E(v,h) = -v'Wh - b'v - c'h. */
export class Rbm implements Disposable {
  constructor(nVisible: number, nHidden: number, seed?: Seed);
  static fromBytes(bytes: Uint8Array): Rbm;
  readonly nVisible: number;
  readonly nHidden: number;
  clone(): Rbm;
  setSeed(seed: Seed): this;
  getParams(): { W: Float64Array; b: Float64Array; c: Float64Array };
  setParams(params: RbmParams): this;
  initFromData(data: Rows, weightSd?: number): this;
  freeEnergy(v: Rows): Float64Array;
  meanLogLikelihood(data: Rows, logZ: number): number;
  hiddenProbs(v: Rows): Float64Array;
  visibleProbs(h: Rows): Float64Array;
  logZExact(options?: { onProgress?: ProgressCallback }): number;
  logZAis(options?: { runs?: number; betas?: number; seed?: Seed; onProgress?: ProgressCallback }):
      { logZ: number; stdErr: number };
  sample(nSamples: number, gibbsSteps?: number): Float64Array;
  /** nSteps (default 1) block-Gibbs sweeps from each row of v (values in [0, 1]), one chain per row, with this
   *  model's generator: the last visible states (0/1), as many rows as v. */
  gibbs(v: Rows, nSteps?: number): Float64Array;
  /** C_k of every hidden unit against the rows of data: the exact change of KL(data || model) when unit k alone is
   *  deleted, by enumeration (smaller layer at most 30 units). */
  removalCostsExact(data: Rows): Float64Array;
  /** Deletes hidden unit k (W column k, c entry k); later units move down. nHidden falls by one. */
  removeHidden(k: number): this;
  toBytes(): Uint8Array;
  /** Throws while a Trainer or Pruner borrows this model. */
  dispose(): void;
  readonly disposed: boolean;
}

/** Bits of TrackingHealth.warnings (the C API's ZETA_TRACKING_*). */
export const TRACKING_LOW_SWAP_RATE: 1;
export const TRACKING_COLD_CHAINS_STUCK: 2;
export const TRACKING_LOW_ESS: 4;
export const TRACKING_FEW_BRIDGE_SAMPLES: 8;

/** The tracker's own diagnostics over its last complete window of 150 updates; NaN and no warning before it. */
export interface TrackingHealth {
  /** The lowest swap acceptance rate of a neighbouring pair of rungs. */
  minSwapRate: number;
  /** The share of beta = 1 chains whose mode (most probable h) changed over the window. */
  coldModeChanges: number;
  /** The lowest effective sample size of one update's beta = 1 importance weights, as a fraction of the chains. */
  minEssFraction: number;
  /** TRACKING_* bits (0: none). */
  warnings: number;
  /** minSwapRate < 0.2 */
  lowSwapRate: boolean;
  /** coldModeChanges < 0.2 */
  coldChainsStuck: boolean;
  /** minEssFraction < 0.3 */
  lowEss: boolean;
  /** The bridges between rungs gave < 10 independent readings in the window. */
  fewBridgeSamples: boolean;
}

/** SML training (CD, PCD or parallel tempering) with online log Z tracking. Borrows its Rbm. */
export class Trainer implements Disposable {
  constructor(rbm: Rbm, options?: Options | OptionValues | null);
  readonly rbm: Rbm;
  /** One update; rows binary, or in [0, 1] with the option visible_probabilities (bytes: 0/1 only). */
  step(batch: TrainerRows): this;
  train(data: TrainerRows, options?: { batchSize?: number; updates?: number; onProgress?: ProgressCallback }): this;
  logZ(): { mean: number; stdDev: number };
  /** The tracker's warnings and the diagnostics behind them (needs parallel tempering). */
  trackingHealth(): TrackingHealth;
  /** log Z with the model held fixed for `sweeps` sampler iterations on a copy of the chains (first `burnIn`
   *  dropped); training is unaffected. */
  settledLogZ(sweeps: number, burnIn: number): { mean: number; stdDev: number };
  logLikelihood(data: Rows): { mean: number; stdDev: number };
  readonly steps: number;
  readonly roundTrips: number;
  readonly nTemperatures: number;
  readonly nChains: number;
  readonly learningRate: number;
  betas(): Float64Array;
  swapRates(): Float64Array;
  chains(temperatureIndex?: number): Float64Array;
  dispose(): void;
  readonly disposed: boolean;
}

/** Removes hidden units of a trained Rbm while the fit holds (Saito & Kato 2019), tracking log Z across the
 *  removals. Borrows its Rbm and shrinks it (rbm.nHidden follows). Options: the prune_* keys, n_temperatures,
 *  tempering, single_precision, tracker_sigma_b2 and seed. */
export class Pruner implements Disposable {
  constructor(rbm: Rbm, options?: Options | OptionValues | null);
  readonly rbm: Rbm;
  /** One step on a mini-batch; returns the number of units removed. */
  step(batch: Rows): number;
  run(data: Rows, options?: { batchSize?: number; steps?: number; onProgress?: ProgressCallback }): this;
  /** The last step's costs C_k and standard errors (NaN / Infinity before the first step). */
  costs(): { costs: Float64Array; stdErrs: Float64Array };
  readonly steps: number;
  /** Anchors a single rung's (n_temperatures 1) log Z tracking at an estimate of log Z of the model as it is now;
   *  anchoring again is a check that calibrates the carried value's drift (logZCheck). */
  anchorLogZ(mean: number, stdDev: number): this;
  /** Anchors a single rung's log Z by AIS (runs >= 20 runs, nBetas temperatures) whose runs' final states go on as
   *  weighted witnesses carrying it across updates and removals (unbiased in Z however slowly the chains mix;
   *  behind where the model moves mass to where no witness is: anchor again to check, which calibrates a drift). */
  anchorAis(runs: number, nBetas: number): this;
  /** The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1), nVisible values per row. */
  chains(): Float64Array;
  /** Starts the chains from given states (as chains() gives them, or a PCD trainer's chains(0)): no burn-in or
   *  settling follows. */
  setChains(chains: Rows): this;
  /** The last check of the carried log Z: step (-1: none yet), difference (carried - new estimate), z (|z| > 3:
   *  drifted beyond its error bars), driftVariance (per update, pooled over the checks of the kind now carrying log Z, witnesses or carried value;
   *  widens logZ().stdDev). */
  logZCheck(): { step: number; difference: number; z: number; driftVariance: number };
  /** Sweeps run before the first step's costs (prune_burn_in plus settling). */
  readonly settlingSweeps: number;
  /** 1: the chains from the base rates and from the data agreed before the first costs; 0: not within
   *  prune_settle_max_sweeps (the costs rest on chains not at equilibrium); -1: not known. */
  readonly settled: number;
  /** Tracked log Z of the model as the last step left it. */
  logZ(): { mean: number; stdDev: number };
  dispose(): void;
  readonly disposed: boolean;
}

/** EbpNet output kinds: posterior-averaged (EBP-P), deterministic MAP net (EBP-D), mu/sigma of EBP-P. */
export const EBP_P: 0;
export const EBP_D: 1;
export const EBP_P_Z: 2;
export type EbpOutput = 0 | 1 | 2;

/** Expectation backpropagation net (present when hasFunction('zeta_ebp_new')). */
export class EbpNet implements Disposable {
  constructor(nInputs: number, hiddenSizes?: number[], nOutputs?: number, options?: Options | OptionValues | null);
  static fromBytes(bytes: Uint8Array): EbpNet;
  readonly nInputs: number;
  readonly nOutputs: number;
  readonly hiddenSizes: number[];
  readonly examplesSeen: number;
  trainBatch(x: Rows, labels: ArrayLike<number>): this;
  trainEpochs(x: Rows, labels?: ArrayLike<number> | null,
              options?: { batchSize?: number; epochs?: number; shuffle?: boolean; onProgress?: ProgressCallback }): this;
  scores(x: Rows, output?: EbpOutput): Float64Array;
  predict(x: Rows, output?: EbpOutput): Int32Array;
  errorRate(x: Rows, labels?: ArrayLike<number> | null, output?: EbpOutput): number;
  clone(): EbpNet;
  toBytes(): Uint8Array;
  dispose(): void;
  readonly disposed: boolean;
}

/** softmax_method values. */
export const SOFTMAX_EXACT: 0;
export const SOFTMAX_IMPORTANCE: 1;
export const SOFTMAX_BERNOULLI: 2;
export const SOFTMAX_RANKING: 3;
export const SOFTMAX_NEGATIVE_SAMPLING: 4;
export const SOFTMAX_NCE: 5;
export const SOFTMAX_BLACKOUT: 6;

/** Many-class softmax regression, trained exactly or by a sampled approximation (present when
 * hasFunction('zeta_softmax_new')). Options: the softmax_* keys and seed. */
export class SoftmaxClassifier implements Disposable {
  constructor(nFeatures: number, nClasses: number, options?: Options | OptionValues | null);
  static fromBytes(bytes: Uint8Array): SoftmaxClassifier;
  readonly nFeatures: number;
  readonly nClasses: number;
  readonly steps: number;
  setClassCounts(counts: ArrayLike<number>): this;
  /** Returns the batch mean of the method's objective before the update. */
  trainBatch(x: Rows, labels?: ArrayLike<number> | null): number;
  trainEpochs(x: Rows, labels?: ArrayLike<number> | null,
              options?: { batchSize?: number; epochs?: number; shuffle?: boolean; onProgress?: ProgressCallback }): this;
  probabilities(x: Rows): Float64Array;
  logProbabilities(x: Rows): Float64Array;
  predict(x: Rows): Int32Array;
  logLikelihood(x: Rows, labels?: ArrayLike<number> | null): number;
  errorRate(x: Rows, labels?: ArrayLike<number> | null): number;
  clone(): SoftmaxClassifier;
  toBytes(): Uint8Array;
  dispose(): void;
  readonly disposed: boolean;
}

/** darn_estimator values: the paper's (biased, low variance) and REINFORCE with a learned baseline (unbiased). */
export const DARN_ESTIMATOR_DARN: 0;
export const DARN_ESTIMATOR_REINFORCE: 1;

/** A named parameter block of a DARN (row-major rows x cols values); see zeta.h for every block's meaning. */
export interface DarnBlock {
  name: string;
  rows: number;
  cols: number;
}

/**
 * A deep autoregressive network (Gregor et al. 2014) with its trainer: exact ancestral sampling, training by the
 * expected description length, exact or importance-sampled log p(x). Values in nats; rows of x are binary.
 */
export class Darn implements Disposable {
  /** sizes[0] = visible units, then the stochastic layers from the bottom up (2 to 9 sizes); options: darn_* and
   *  seed. */
  constructor(sizes: ArrayLike<number>, options?: Options | OptionValues | null);
  static fromBytes(bytes: Uint8Array): Darn;
  /** The layer sizes, visible first. */
  readonly sizes: number[];
  readonly nVisible: number;
  /** The parameter blocks in the library's order ("prior.bias", "prior.weight", "decoder.bias", ...). */
  readonly blocks: DarnBlock[];
  getParam(name: string): Float64Array;
  /** Nothing changes unless every value is accepted (finite; strictly lower-triangular blocks zero on and above
   *  the diagonal). */
  setParam(name: string, values: ArrayLike<number>): this;
  /** Returns the batch's mean description length before the update. */
  trainBatch(x: Rows): number;
  /** onProgress's value is the epoch's running mean description length. */
  trainEpochs(x: Rows, options?: { batchSize?: number; epochs?: number; onProgress?: ProgressCallback }): this;
  /** Exact log p(x) per row (at most 30 hidden units in all). */
  logProbExact(x: Rows): Float64Array;
  /** Importance-sampled log p(x) per row with the delta-method standard error (samples >= 2). */
  logProbImportance(x: Rows, options?: { samples?: number; seed?: Seed }):
      { logProb: Float64Array; stdErr: Float64Array };
  /** The expected description length per row (an upper bound on -log p(x)). */
  descriptionLength(x: Rows, options?: { samples?: number; seed?: Seed }): Float64Array;
  /** n exact independent samples: n x nVisible values 0/1. */
  sample(n: number, seed?: Seed): Float64Array;
  clone(): Darn;
  toBytes(): Uint8Array;
  dispose(): void;
  readonly disposed: boolean;
}

/** Every named export above as one object (`import zeta from 'zeta-wasm'`). */
declare const zeta: Omit<typeof import('./zeta.js'), 'default'>;
export default zeta;
