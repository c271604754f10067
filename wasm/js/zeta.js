// zeta.js — the JavaScript API of zeta's WebAssembly module (issue 6).
//
// A thin layer over the C API (capi/zeta.h), which is the module's export list: every method below calls one
// or two zeta_* functions. Conventions:
//   - call `await init()` once (in node too: the .wasm next to this file is read from disk there);
//   - objects own wasm memory: call dispose() when done (or use `using` where supported);
//   - numbers in and out are Float64Array (plain arrays are accepted as input); matrices are row-major, one
//     example per row, and the row count is the array length divided by the number of columns;
//   - a failing call throws ZetaError (an Error) whose message is zeta_last_error() and whose `status` is the
//     C status code (`code` its name, e.g. "ZETA_ERR_ARGUMENT"); the object is left as it was;
//   - 64-bit seeds accept a number (integer up to 2^53) or a BigInt.
// Heap views are re-read from the module after every call, because memory growth replaces the buffer.
import createZetaModule from './zeta_wasm.mjs';

let M = null;
let initPromise = null;
let progressPtr = 0;
const progressCallbacks = new Map();
let nextProgressId = 1;

/** Error thrown by every failing zeta call: message = zeta_last_error(). */
export class ZetaError extends Error {
  constructor(message, status, code) {
    super(message);
    this.name = 'ZetaError';
    this.status = status;
    this.code = code;
  }
}

function isNode() {
  return typeof process === 'object' && process !== null && typeof process.versions === 'object' &&
         typeof process.versions.node === 'string' && typeof window === 'undefined';
}

/**
 * Loads and instantiates the module (once; later calls return the same promise).
 * options.wasmBinary: the .wasm bytes (default: fetched next to this file; read from disk in node);
 * options.locateFile: Emscripten's hook to find the .wasm elsewhere.
 */
export function init(options = {}) {
  if (initPromise) return initPromise;
  initPromise = (async () => {
    const moduleArgs = {};
    if (options.locateFile) moduleArgs.locateFile = options.locateFile;
    if (options.wasmBinary) {
      moduleArgs.wasmBinary = options.wasmBinary;
    } else if (isNode() && !options.locateFile) {
      // Emscripten 3.1.6's web build cannot fetch a file: URL in node; hand it the bytes instead.
      const fs = await import('node:fs/promises');
      moduleArgs.wasmBinary = await fs.readFile(new URL('./zeta_wasm.wasm', import.meta.url));
    }
    M = await createZetaModule(moduleArgs);
    progressPtr = M.addFunction(progressTrampoline, 'iii');
    return M;
  })();
  initPromise.catch(() => { initPromise = null; });
  return initPromise;
}

function mod() {
  if (!M) throw new Error('zeta: call `await init()` before using the module');
  return M;
}

/** True when the module was built with the named C function (e.g. 'zeta_ebp_new'). */
export function hasFunction(name) {
  return typeof mod()['_' + name] === 'function';
}

// ---- small helpers -----------------------------------------------------------------------------------------

function check(status) {
  if (status !== 0) {
    const m = mod();
    throw new ZetaError(m.UTF8ToString(m._zeta_last_error()), status, m.UTF8ToString(m._zeta_status_name(status)));
  }
}

function toU64(seed, what = 'seed') {
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed >= (1n << 64n)) throw new RangeError(`zeta: ${what} must be in [0, 2^64)`);
    return seed;
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`zeta: ${what} must be a non-negative integer (number up to 2^53, or BigInt)`);
  }
  return BigInt(seed);
}

function toInt(value, what) {
  if (!Number.isInteger(value)) throw new TypeError(`zeta: ${what} must be an integer, got ${value}`);
  return value;
}

function f64() { return mod().HEAPF64; }
function i32() { return mod().HEAP32; }

// Scratch allocations freed at the end of a call.
class Scope {
  constructor() { this.ptrs = []; }
  alloc(bytes) {
    const p = mod()._malloc(Math.max(8, bytes));
    if (!p) throw new ZetaError('zeta: out of wasm memory', 2, 'ZETA_ERR_MEMORY');
    this.ptrs.push(p);
    return p;
  }
  f64(n) { return this.alloc(8 * n); }
  i32(n) { return this.alloc(4 * n); }
  i64() { return this.alloc(8); }
  copyF64(array) {
    const p = this.f64(array.length);
    f64().set(array, p >> 3);
    return p;
  }
  copyI32(array) {
    const p = this.i32(array.length);
    i32().set(array, p >> 2);
    return p;
  }
  cstring(s) {
    const m = mod();
    const n = m.lengthBytesUTF8(s) + 1;
    const p = this.alloc(n);
    m.stringToUTF8(s, p, n);
    return p;
  }
  free() {
    const m = mod();
    for (const p of this.ptrs) m._free(p);
    this.ptrs.length = 0;
  }
}

function withScope(fn) {
  const scope = new Scope();
  try {
    return fn(scope);
  } finally {
    scope.free();
  }
}

const readF64 = (p) => f64()[p >> 3];
const readI32 = (p) => i32()[p >> 2];
const readI64 = (p) => Number(mod().HEAP64[p >> 3]);
const readPtr = (p) => mod().HEAPU32[p >> 2];
const copyOutF64 = (p, n) => f64().slice(p >> 3, (p >> 3) + n);
const copyOutI32 = (p, n) => i32().slice(p >> 2, (p >> 2) + n);

// Rows of data: a Float64Array / array (length a multiple of nCols) or a Dataset (whose memory is already in
// the wasm heap: no copy). Returns [pointer, nRows].
function rowsArg(scope, data, nCols, what) {
  if (data instanceof Dataset) {
    data._check();
    if (data.nCols !== nCols) {
      throw new RangeError(`zeta: ${what} has ${data.nCols} columns, the model needs ${nCols}`);
    }
    return [data._ptr, data.nRows];
  }
  if (!(data instanceof Float64Array) && !Array.isArray(data) && !ArrayBuffer.isView(data)) {
    throw new TypeError(`zeta: ${what} must be a Float64Array, an array of numbers or a Dataset`);
  }
  if (data.length % nCols !== 0) {
    throw new RangeError(`zeta: ${what} has ${data.length} numbers, not a multiple of the ${nCols} columns`);
  }
  return [scope.copyF64(data), data.length / nCols];
}

function labelsArg(scope, labels, nRows, what) {
  if (labels == null) throw new TypeError(`zeta: ${what} is required`);
  if (labels.length !== nRows) {
    throw new RangeError(`zeta: ${what} has ${labels.length} entries, the data has ${nRows} rows`);
  }
  return scope.copyI32(labels);
}

// Progress callbacks: one wasm table entry for the whole module; user_data carries the id of the JS callback.
function progressTrampoline(progress, userData) {
  const entry = progressCallbacks.get(userData);
  if (!entry) return 0;
  try {
    const m = mod();
    const info = {
      stage: m.UTF8ToString(readPtr(progress)),
      done: readI64(progress + 8),
      total: readI64(progress + 16),
      value: readF64(progress + 24),
    };
    return entry.fn(info) === false ? 1 : 0;
  } catch (e) {
    entry.error = e;
    return 1;
  }
}

// Runs call(progressFnPtr, userData) with onProgress (or none); an exception thrown by onProgress cancels the
// call and is rethrown; returning false from onProgress cancels (ZetaError with code ZETA_ERR_CANCELLED).
function withProgress(onProgress, call) {
  if (!onProgress) return check(call(0, 0));
  if (typeof onProgress !== 'function') throw new TypeError('zeta: onProgress must be a function');
  const id = nextProgressId++;
  const entry = { fn: onProgress, error: null };
  progressCallbacks.set(id, entry);
  try {
    const status = call(progressPtr, id);
    if (entry.error) throw entry.error;
    check(status);
  } finally {
    progressCallbacks.delete(id);
  }
}

class Handle {
  constructor(ptr, kind) {
    this._ptr = ptr;
    this._kind = kind;
  }
  _check() {
    if (!this._ptr) throw new Error(`zeta: this ${this._kind} has been disposed`);
    return this._ptr;
  }
  get disposed() { return this._ptr === 0; }
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() { this.dispose(); }
}

// ---- module-level functions ---------------------------------------------------------------------------------

/** "MAJOR.MINOR.PATCH" of the library. */
export function version() { return mod().UTF8ToString(mod()._zeta_version()); }
/** ZETA_ABI_VERSION of the library. */
export function abiVersion() { return mod()._zeta_abi_version(); }
/** The option keys the library knows. */
export function optionKeys() {
  const m = mod();
  const keys = [];
  const n = m._zeta_options_count();
  for (let i = 0; i < n; ++i) keys.push(m.UTF8ToString(m._zeta_options_key(i)));
  return keys;
}
/** Bytes of wasm memory (grows, never shrinks). */
export function memoryBytes() { return mod().HEAPU8.length; }

// ---- Options ------------------------------------------------------------------------------------------------

/** Key/value knobs (see zeta.h for keys, defaults and ranges). */
export class Options extends Handle {
  constructor(values = {}) {
    const ptr = withScope((s) => {
      const out = s.alloc(4);
      check(mod()._zeta_options_new(out));
      return readPtr(out);
    });
    super(ptr, 'Options');
    try {
      for (const [k, v] of Object.entries(values)) this.set(k, v);
    } catch (e) {
      this.dispose();
      throw e;
    }
  }
  set(key, value) {
    const p = this._check();
    if (typeof value === 'boolean') value = value ? 1 : 0;
    withScope((s) => check(mod()._zeta_options_set(p, s.cstring(String(key)), Number(value))));
    return this;
  }
  get(key) {
    const p = this._check();
    return withScope((s) => {
      const out = s.f64(1);
      check(mod()._zeta_options_get(p, s.cstring(String(key)), out));
      return readF64(out);
    });
  }
  toObject() {
    const o = {};
    for (const k of optionKeys()) o[k] = this.get(k);
    return o;
  }
  dispose() {
    if (this._ptr) mod()._zeta_options_free(this._ptr);
    this._ptr = 0;
  }
}

function withOptions(options, fn) {
  if (options == null) return fn(0);
  if (options instanceof Options) return fn(options._check());
  const o = new Options(options);
  try {
    return fn(o._ptr);
  } finally {
    o.dispose();
  }
}

// ---- Dataset ------------------------------------------------------------------------------------------------

/**
 * Rows of doubles kept in wasm memory, so that training on them copies nothing per call. Made from a JS array
 * (Dataset.fromArray) or from the data set compiled into zeta (Dataset.default). slice() gives a view sharing
 * the memory, valid while the parent is (disposing a view does nothing; dispose the parent).
 */
export class Dataset extends Handle {
  constructor(ptr, nRows, nCols, labels, owner) {
    super(ptr, 'Dataset');
    this.nRows = nRows;
    this.nCols = nCols;
    /** Int32Array of labels, or null. */
    this.labels = labels;
    this._owner = owner;
  }
  static fromArray(data, nCols, labels = null) {
    toInt(nCols, 'nCols');
    if (nCols <= 0) throw new RangeError('zeta: nCols must be positive');
    if (data.length % nCols !== 0) {
      throw new RangeError(`zeta: data has ${data.length} numbers, not a multiple of nCols = ${nCols}`);
    }
    const nRows = data.length / nCols;
    if (labels != null && labels.length !== nRows) throw new RangeError('zeta: labels must have one entry per row');
    const ptr = mod()._malloc(Math.max(8, 8 * data.length));
    if (!ptr) throw new ZetaError('zeta: out of wasm memory', 2, 'ZETA_ERR_MEMORY');
    f64().set(data, ptr >> 3);
    return new Dataset(ptr, nRows, nCols, labels ? Int32Array.from(labels) : null, null);
  }
  /** The data set compiled into zeta: 'train' (3000 rows) or 'test' (1000 rows) of 784 binary pixels. */
  static default(split = 'train') {
    const code = split === 'train' || split === 0 ? 0 : split === 'test' || split === 1 ? 1 : -1;
    if (code < 0) throw new RangeError("zeta: split must be 'train' or 'test'");
    const m = mod();
    const [nRows, nCols] = withScope((s) => {
      const r = s.i64();
      const c = s.i32(1);
      check(m._zeta_data_default_shape(code, r, c));
      return [readI64(r), readI32(c)];
    });
    const ptr = m._malloc(8 * nRows * nCols);
    if (!ptr) throw new ZetaError('zeta: out of wasm memory', 2, 'ZETA_ERR_MEMORY');
    try {
      check(m._zeta_data_default(code, ptr, BigInt(nRows * nCols)));
      const labels = withScope((s) => {
        const l = s.i32(nRows);
        check(m._zeta_data_default_labels(code, l, BigInt(nRows)));
        return copyOutI32(l, nRows);
      });
      return new Dataset(ptr, nRows, nCols, labels, null);
    } catch (e) {
      m._free(ptr);
      throw e;
    }
  }
  /** Rows [start, start + count) as a Dataset sharing this one's memory. */
  slice(start, count = this.nRows - start) {
    this._check();
    toInt(start, 'start');
    toInt(count, 'count');
    if (start < 0 || count < 0 || start + count > this.nRows) throw new RangeError('zeta: slice out of range');
    return new Dataset(this._ptr + 8 * start * this.nCols, count, this.nCols,
                       this.labels ? this.labels.subarray(start, start + count) : null, this._owner || this);
  }
  /** Row i (a copy). */
  row(i) {
    this._check();
    const at = (this._ptr >> 3) + i * this.nCols;
    return f64().slice(at, at + this.nCols);
  }
  /** All rows (a copy). */
  toArray() {
    this._check();
    return copyOutF64(this._ptr, this.nRows * this.nCols);
  }
  _check() {
    if (!this._ptr || (this._owner && !this._owner._ptr)) throw new Error('zeta: this Dataset has been disposed');
    return this._ptr;
  }
  dispose() {
    if (this._ptr && !this._owner) mod()._free(this._ptr);
    this._ptr = 0;
  }
}

// ---- Rbm ----------------------------------------------------------------------------------------------------

/** A binary restricted Boltzmann machine, E(v,h) = -v'Wh - b'v - c'h. */
export class Rbm extends Handle {
  constructor(nVisible, nHidden, seed = 0) {
    let ptr = 0;
    if (nVisible !== undefined) {
      toInt(nVisible, 'nVisible');
      toInt(nHidden, 'nHidden');
      ptr = withScope((s) => {
        const out = s.alloc(4);
        check(mod()._zeta_rbm_new(nVisible, nHidden, toU64(seed), out));
        return readPtr(out);
      });
    }
    super(ptr, 'Rbm');
    this._borrowers = 0;
    if (ptr) this._readShape();
  }
  static _wrap(ptr) {
    const r = new Rbm();
    r._ptr = ptr;
    r._readShape();
    return r;
  }
  _readShape() {
    withScope((s) => {
      const nv = s.i32(1);
      const nh = s.i32(1);
      check(mod()._zeta_rbm_shape(this._ptr, nv, nh));
      this.nVisible = readI32(nv);
      this.nHidden = readI32(nh);
    });
  }
  /** A model from the bytes of toBytes() (or a model file). */
  static fromBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('zeta: bytes must be a Uint8Array');
    return withScope((s) => {
      const p = s.alloc(bytes.length);
      mod().HEAPU8.set(bytes, p);
      const out = s.alloc(4);
      check(mod()._zeta_rbm_from_bytes(p, BigInt(bytes.length), out));
      return Rbm._wrap(readPtr(out));
    });
  }
  clone() {
    const p = this._check();
    return withScope((s) => {
      const out = s.alloc(4);
      check(mod()._zeta_rbm_clone(p, out));
      return Rbm._wrap(readPtr(out));
    });
  }
  setSeed(seed) {
    check(mod()._zeta_rbm_set_seed(this._check(), toU64(seed)));
    return this;
  }
  /** {W (nVisible x nHidden, row-major), b, c} as Float64Arrays. */
  getParams() {
    const p = this._check();
    const nv = this.nVisible;
    const nh = this.nHidden;
    return withScope((s) => {
      const W = s.f64(nv * nh);
      const b = s.f64(nv);
      const c = s.f64(nh);
      check(mod()._zeta_rbm_get_params(p, W, b, c));
      return { W: copyOutF64(W, nv * nh), b: copyOutF64(b, nv), c: copyOutF64(c, nh) };
    });
  }
  setParams({ W, b, c }) {
    const p = this._check();
    const nv = this.nVisible;
    const nh = this.nHidden;
    if (!W || W.length !== nv * nh) throw new RangeError(`zeta: W must have ${nv * nh} entries`);
    if (!b || b.length !== nv) throw new RangeError(`zeta: b must have ${nv} entries`);
    if (!c || c.length !== nh) throw new RangeError(`zeta: c must have ${nh} entries`);
    withScope((s) => check(mod()._zeta_rbm_set_params(p, s.copyF64(W), s.copyF64(b), s.copyF64(c))));
    return this;
  }
  /** Hinton's initialisation from binary data; weightSd >= 0. */
  initFromData(data, weightSd = 0.01) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, data, this.nVisible, 'data');
      check(mod()._zeta_rbm_init_from_data(p, d, BigInt(n), weightSd));
    });
    return this;
  }
  /** Free energy of each binary row of v. */
  freeEnergy(v) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, v, this.nVisible, 'v');
      const out = s.f64(n);
      check(mod()._zeta_rbm_free_energy(p, d, BigInt(n), out));
      return copyOutF64(out, n);
    });
  }
  /** Mean log-likelihood of the binary rows of data given logZ. */
  meanLogLikelihood(data, logZ) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, data, this.nVisible, 'data');
      const out = s.f64(1);
      check(mod()._zeta_rbm_mean_log_likelihood(p, d, BigInt(n), logZ, out));
      return readF64(out);
    });
  }
  /** p(h = 1 | v) for each row of v: rows x nHidden. */
  hiddenProbs(v) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, v, this.nVisible, 'v');
      const out = s.f64(n * this.nHidden);
      check(mod()._zeta_rbm_hidden_probs(p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nHidden);
    });
  }
  /** p(v = 1 | h) for each row of h: rows x nVisible. */
  visibleProbs(h) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, h, this.nHidden, 'h');
      const out = s.f64(n * this.nVisible);
      check(mod()._zeta_rbm_visible_probs(p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nVisible);
    });
  }
  /** Exact log Z (smaller layer at most 30 units). onProgress({stage, done, total, value}) may return false to cancel. */
  logZExact({ onProgress } = {}) {
    const p = this._check();
    return withScope((s) => {
      const out = s.f64(1);
      withProgress(onProgress, (fn, ud) => mod()._zeta_rbm_log_z_exact_progress(p, fn, ud, out));
      return readF64(out);
    });
  }
  /** AIS estimate of log Z: {logZ, stdErr}. */
  logZAis({ runs = 100, betas = 1000, seed = 0, onProgress } = {}) {
    const p = this._check();
    toInt(runs, 'runs');
    toInt(betas, 'betas');
    return withScope((s) => {
      const lz = s.f64(1);
      const se = s.f64(1);
      const sd = toU64(seed);
      withProgress(onProgress, (fn, ud) => mod()._zeta_rbm_log_z_ais_progress(p, runs, betas, sd, fn, ud, lz, se));
      return { logZ: readF64(lz), stdErr: readF64(se) };
    });
  }
  /** nSamples independent chains, gibbsSteps sweeps each: nSamples x nVisible binary values. */
  sample(nSamples, gibbsSteps = 1) {
    const p = this._check();
    toInt(nSamples, 'nSamples');
    toInt(gibbsSteps, 'gibbsSteps');
    return withScope((s) => {
      const out = s.f64(Math.max(0, nSamples) * this.nVisible);
      check(mod()._zeta_rbm_sample(p, BigInt(nSamples), gibbsSteps, out));
      return copyOutF64(out, nSamples * this.nVisible);
    });
  }
  /** The model as bytes (the model-file format). */
  toBytes() {
    const p = this._check();
    return withScope((s) => {
      const size = s.i64();
      check(mod()._zeta_rbm_to_bytes(p, 0, 0n, size));
      const n = readI64(size);
      const buf = s.alloc(n);
      check(mod()._zeta_rbm_to_bytes(p, buf, BigInt(n), size));
      return mod().HEAPU8.slice(buf, buf + n);
    });
  }
  dispose() {
    if (this._borrowers > 0) {
      throw new Error('zeta: this Rbm is borrowed by a Trainer; dispose the Trainer first');
    }
    if (this._ptr) mod()._zeta_rbm_free(this._ptr);
    this._ptr = 0;
  }
}

// ---- Trainer ------------------------------------------------------------------------------------------------

/** SML training (CD, PCD or parallel tempering) with online log Z tracking; borrows and updates an Rbm. */
export class Trainer extends Handle {
  constructor(rbm, options = null) {
    if (!(rbm instanceof Rbm)) throw new TypeError('zeta: Trainer needs an Rbm');
    const rp = rbm._check();
    const ptr = withOptions(options, (op) => withScope((s) => {
      const out = s.alloc(4);
      check(mod()._zeta_trainer_new(rp, op, out));
      return readPtr(out);
    }));
    super(ptr, 'Trainer');
    this.rbm = rbm;
    rbm._borrowers += 1;
  }
  /** One update from a mini-batch of binary rows. */
  step(batch) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, batch, this.rbm.nVisible, 'batch');
      check(mod()._zeta_trainer_step(p, d, BigInt(n)));
    });
    return this;
  }
  /** `updates` steps on consecutive mini-batches of `batchSize` rows of data (wrapping around). */
  train(data, { batchSize = 100, updates = 1, onProgress } = {}) {
    const p = this._check();
    toInt(batchSize, 'batchSize');
    toInt(updates, 'updates');
    withScope((s) => {
      const [d, n] = rowsArg(s, data, this.rbm.nVisible, 'data');
      withProgress(onProgress, (fn, ud) =>
        mod()._zeta_trainer_train(p, d, BigInt(n), BigInt(batchSize), BigInt(updates), fn, ud));
    });
    return this;
  }
  /** Tracked log Z: {mean, stdDev} (needs parallel tempering, method 2). */
  logZ() {
    const p = this._check();
    return this._estimate((s, m, sd) => mod()._zeta_trainer_log_z(p, m, sd));
  }
  /** log Z of the current model held fixed for `sweeps` sampler iterations on a copy of the chains, the first
   *  `burnIn` dropped: {mean, stdDev} (zeta_trainer_settled_log_z; training is unaffected; needs method 2). */
  settledLogZ(sweeps, burnIn) {
    const p = this._check();
    toInt(sweeps, 'sweeps');
    toInt(burnIn, 'burnIn');
    return this._estimate((s, m, sd) => mod()._zeta_trainer_settled_log_z(p, sweeps, burnIn, m, sd));
  }
  /** Mean log-likelihood of the rows of data from the tracked log Z: {mean, stdDev}. */
  logLikelihood(data) {
    const p = this._check();
    return this._estimate((s, m, sd) => {
      const [d, n] = rowsArg(s, data, this.rbm.nVisible, 'data');
      return mod()._zeta_trainer_log_likelihood(p, d, BigInt(n), m, sd);
    });
  }
  // {mean, stdDev} from a C call that writes both through out-pointers: call(scope, meanPtr, sdPtr) -> status.
  _estimate(call) {
    return withScope((s) => {
      const m = s.f64(1);
      const sd = s.f64(1);
      check(call(s, m, sd));
      return { mean: readF64(m), stdDev: readF64(sd) };
    });
  }
  _getI64(fn) {
    const p = this._check();
    return withScope((s) => {
      const out = s.i64();
      check(fn(p, out));
      return readI64(out);
    });
  }
  _getI32(fn) {
    const p = this._check();
    return withScope((s) => {
      const out = s.i32(1);
      check(fn(p, out));
      return readI32(out);
    });
  }
  get steps() { return this._getI64(mod()._zeta_trainer_steps); }
  get roundTrips() { return this._getI64(mod()._zeta_trainer_round_trips); }
  get nTemperatures() { return this._getI32(mod()._zeta_trainer_n_temperatures); }
  get nChains() { return this._getI32(mod()._zeta_trainer_n_chains); }
  get learningRate() {
    const p = this._check();
    return withScope((s) => {
      const out = s.f64(1);
      check(mod()._zeta_trainer_learning_rate(p, out));
      return readF64(out);
    });
  }
  /** The inverse temperatures, beta_1 = 1 first. */
  betas() {
    const p = this._check();
    const m = this.nTemperatures;
    return withScope((s) => {
      const out = s.f64(m);
      check(mod()._zeta_trainer_betas(p, out, m));
      return copyOutF64(out, m);
    });
  }
  /** Swap acceptance rate of each neighbouring pair of temperatures. */
  swapRates() {
    const p = this._check();
    const m = Math.max(0, this.nTemperatures - 1);
    return withScope((s) => {
      const out = s.f64(m);
      check(mod()._zeta_trainer_swap_rates(p, out, m));
      return copyOutF64(out, m);
    });
  }
  /** The chains at temperature index i (0 = beta 1): nChains x nVisible values 0/1. */
  chains(temperatureIndex = 0) {
    const p = this._check();
    toInt(temperatureIndex, 'temperatureIndex');
    const n = this.nChains * this.rbm.nVisible;
    return withScope((s) => {
      const out = s.f64(n);
      check(mod()._zeta_trainer_chains(p, temperatureIndex, out, BigInt(n)));
      return copyOutF64(out, n);
    });
  }
  dispose() {
    if (this._ptr) {
      mod()._zeta_trainer_free(this._ptr);
      this.rbm._borrowers -= 1;
    }
    this._ptr = 0;
  }
}

// ---- Expectation backpropagation (present when the C API has zeta_ebp_*) -----------------------------------

/** Output kinds of EbpNet scores/predictions. */
export const EBP_P = 0;
export const EBP_D = 1;
export const EBP_P_Z = 2;

/** A net of sign units trained by expectation backpropagation (Soudry, Hubara & Meir 2014). */
export class EbpNet extends Handle {
  constructor(nInputs, hiddenSizes = [], nOutputs = 1, options = null) {
    let ptr = 0;
    if (nInputs !== undefined) {
      if (!hasFunction('zeta_ebp_new')) throw new Error('zeta: this build has no EBP (zeta_ebp_new)');
      toInt(nInputs, 'nInputs');
      toInt(nOutputs, 'nOutputs');
      ptr = withOptions(options, (op) => withScope((s) => {
        const hs = s.copyI32(hiddenSizes);
        const out = s.alloc(4);
        check(mod()._zeta_ebp_new(nInputs, hiddenSizes.length ? hs : 0, hiddenSizes.length, nOutputs, op, out));
        return readPtr(out);
      }));
    }
    super(ptr, 'EbpNet');
    if (ptr) this._readShape();
  }
  static _wrap(ptr) {
    const e = new EbpNet();
    e._ptr = ptr;
    e._readShape();
    return e;
  }
  _readShape() {
    withScope((s) => {
      const ni = s.i32(1);
      const nl = s.i32(1);
      const no = s.i32(1);
      check(mod()._zeta_ebp_shape(this._ptr, ni, nl, no));
      this.nInputs = readI32(ni);
      this.nOutputs = readI32(no);
      const layers = readI32(nl);
      const hs = s.i32(Math.max(1, layers));
      check(mod()._zeta_ebp_hidden_sizes(this._ptr, hs, layers));
      this.hiddenSizes = Array.from(copyOutI32(hs, layers));
    });
  }
  static fromBytes(bytes) {
    return withScope((s) => {
      const p = s.alloc(bytes.length);
      mod().HEAPU8.set(bytes, p);
      const out = s.alloc(4);
      check(mod()._zeta_ebp_from_bytes(p, BigInt(bytes.length), out));
      return EbpNet._wrap(readPtr(out));
    });
  }
  toBytes() {
    const p = this._check();
    return withScope((s) => {
      const size = s.i64();
      check(mod()._zeta_ebp_to_bytes(p, 0, 0n, size));
      const n = readI64(size);
      const buf = s.alloc(n);
      check(mod()._zeta_ebp_to_bytes(p, buf, BigInt(n), size));
      return mod().HEAPU8.slice(buf, buf + n);
    });
  }
  get examplesSeen() {
    const p = this._check();
    return withScope((s) => {
      const out = s.i64();
      check(mod()._zeta_ebp_examples_seen(p, out));
      return readI64(out);
    });
  }
  /** One EBP update from a mini-batch (x: rows x nInputs, labels: one per row). */
  trainBatch(x, labels) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      check(mod()._zeta_ebp_train_batch(p, d, labelsArg(s, labels, n, 'labels'), BigInt(n)));
    });
    return this;
  }
  /** Epochs over x (labels default to a Dataset's labels). */
  trainEpochs(x, labels, { batchSize = 1, epochs = 1, shuffle = true, onProgress } = {}) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      const l = labelsArg(s, labels ?? (x instanceof Dataset ? x.labels : null), n, 'labels');
      withProgress(onProgress, (fn, ud) => mod()._zeta_ebp_train_epochs(p, d, l, BigInt(n), BigInt(batchSize),
                                                                          epochs, shuffle ? 1 : 0, fn, ud));
    });
    return this;
  }
  scores(x, output = EBP_P) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      const out = s.f64(n * this.nOutputs);
      check(mod()._zeta_ebp_scores(p, d, BigInt(n), output, out));
      return copyOutF64(out, n * this.nOutputs);
    });
  }
  predict(x, output = EBP_P) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      const out = s.i32(n);
      check(mod()._zeta_ebp_predict(p, d, BigInt(n), output, out));
      return copyOutI32(out, n);
    });
  }
  errorRate(x, labels, output = EBP_P) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      const l = labelsArg(s, labels ?? (x instanceof Dataset ? x.labels : null), n, 'labels');
      const out = s.f64(1);
      check(mod()._zeta_ebp_error_rate(p, d, l, BigInt(n), output, out));
      return readF64(out);
    });
  }
  clone() {
    const p = this._check();
    return withScope((s) => {
      const out = s.alloc(4);
      check(mod()._zeta_ebp_clone(p, out));
      return EbpNet._wrap(readPtr(out));
    });
  }
  dispose() {
    if (this._ptr) mod()._zeta_ebp_free(this._ptr);
    this._ptr = 0;
  }
}

// ---- Many-class softmax with sampled normalisation (present when the C API has zeta_softmax_*) -------------

/** softmax_method values. */
export const SOFTMAX_EXACT = 0;
export const SOFTMAX_IMPORTANCE = 1;
export const SOFTMAX_BERNOULLI = 2;
export const SOFTMAX_RANKING = 3;
export const SOFTMAX_NEGATIVE_SAMPLING = 4;
export const SOFTMAX_NCE = 5;
export const SOFTMAX_BLACKOUT = 6;

/** Softmax regression over many classes, trained exactly or by a sampled approximation (option softmax_method). */
export class SoftmaxClassifier extends Handle {
  constructor(nFeatures, nClasses, options = null) {
    let ptr = 0;
    if (nFeatures !== undefined) {
      if (!hasFunction('zeta_softmax_new')) throw new Error('zeta: this build has no softmax (zeta_softmax_new)');
      toInt(nFeatures, 'nFeatures');
      toInt(nClasses, 'nClasses');
      ptr = withOptions(options, (op) => withScope((s) => {
        const out = s.alloc(4);
        check(mod()._zeta_softmax_new(nFeatures, nClasses, op, out));
        return readPtr(out);
      }));
    }
    super(ptr, 'SoftmaxClassifier');
    if (ptr) this._readShape();
  }
  static _wrap(ptr) {
    const c = new SoftmaxClassifier();
    c._ptr = ptr;
    c._readShape();
    return c;
  }
  _readShape() {
    withScope((s) => {
      const f = s.i32(1);
      const c = s.i32(1);
      check(mod()._zeta_softmax_shape(this._ptr, f, c));
      this.nFeatures = readI32(f);
      this.nClasses = readI32(c);
    });
  }
  static fromBytes(bytes) {
    return withScope((s) => {
      const p = s.alloc(bytes.length);
      mod().HEAPU8.set(bytes, p);
      const out = s.alloc(4);
      check(mod()._zeta_softmax_from_bytes(p, BigInt(bytes.length), out));
      return SoftmaxClassifier._wrap(readPtr(out));
    });
  }
  toBytes() {
    const p = this._check();
    return withScope((s) => {
      const size = s.i64();
      check(mod()._zeta_softmax_to_bytes(p, 0, 0n, size));
      const n = readI64(size);
      const buf = s.alloc(n);
      check(mod()._zeta_softmax_to_bytes(p, buf, BigInt(n), size));
      return mod().HEAPU8.slice(buf, buf + n);
    });
  }
  clone() {
    const p = this._check();
    return withScope((s) => {
      const out = s.alloc(4);
      check(mod()._zeta_softmax_clone(p, out));
      return SoftmaxClassifier._wrap(readPtr(out));
    });
  }
  get steps() {
    const p = this._check();
    return withScope((s) => {
      const out = s.i64();
      check(mod()._zeta_softmax_steps(p, out));
      return readI64(out);
    });
  }
  /** Class counts (e.g. of the training labels) for the proposal and Bernoulli distributions. */
  setClassCounts(counts) {
    const p = this._check();
    withScope((s) => {
      const c = s.alloc(8 * counts.length);
      const view = mod().HEAP64;
      for (let i = 0; i < counts.length; ++i) view[(c >> 3) + i] = BigInt(counts[i]);
      check(mod()._zeta_softmax_set_class_counts(p, c, counts.length));
    });
    return this;
  }
  /** One update from a mini-batch; returns the batch mean of the method's objective before the update. */
  trainBatch(x, labels) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labels ?? (x instanceof Dataset ? x.labels : null), n, 'labels');
      const out = s.f64(1);
      check(mod()._zeta_softmax_train_batch(p, d, l, BigInt(n), out));
      return readF64(out);
    });
  }
  trainEpochs(x, labels, { batchSize = 32, epochs = 1, shuffle = true, onProgress } = {}) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labels ?? (x instanceof Dataset ? x.labels : null), n, 'labels');
      withProgress(onProgress, (fn, ud) => mod()._zeta_softmax_train_epochs(p, d, l, BigInt(n), BigInt(batchSize),
                                                                              epochs, shuffle ? 1 : 0, fn, ud));
    });
    return this;
  }
  _rowsOut(fnName, x) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const out = s.f64(n * this.nClasses);
      check(mod()[fnName](p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nClasses);
    });
  }
  /** Exact p(c|x): rows x nClasses. */
  probabilities(x) { return this._rowsOut('_zeta_softmax_probabilities', x); }
  logProbabilities(x) { return this._rowsOut('_zeta_softmax_log_probabilities', x); }
  predict(x) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const out = s.i32(n);
      check(mod()._zeta_softmax_predict(p, d, BigInt(n), out));
      return copyOutI32(out, n);
    });
  }
  _labelled(fnName, x, labels) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labels ?? (x instanceof Dataset ? x.labels : null), n, 'labels');
      const out = s.f64(1);
      check(mod()[fnName](p, d, l, BigInt(n), out));
      return readF64(out);
    });
  }
  /** Exact mean log-likelihood of labelled rows. */
  logLikelihood(x, labels) { return this._labelled('_zeta_softmax_log_likelihood', x, labels); }
  errorRate(x, labels) { return this._labelled('_zeta_softmax_error_rate', x, labels); }
  dispose() {
    if (this._ptr) mod()._zeta_softmax_free(this._ptr);
    this._ptr = 0;
  }
}

/** Raw access to the Emscripten module (the C API as `_zeta_*` functions), for what the classes do not cover. */
export function rawModule() { return mod(); }

export default { init, version, abiVersion, optionKeys, memoryBytes, hasFunction, rawModule, ZetaError, Options,
                 Dataset, Rbm, Trainer, EbpNet, EBP_P, EBP_D, EBP_P_Z, SoftmaxClassifier, SOFTMAX_EXACT,
                 SOFTMAX_IMPORTANCE, SOFTMAX_BERNOULLI, SOFTMAX_RANKING, SOFTMAX_NEGATIVE_SAMPLING, SOFTMAX_NCE,
                 SOFTMAX_BLACKOUT };
