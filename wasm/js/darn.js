// darn.js — deep autoregressive networks (zeta_darn_*; present when the build has them: hasFunction).
import {
  Handle, check, copyOutF64, hasFunction, mod, modelBytes, modelFromBytes, outF64, outPtr, readI32, readI64,
  readPtr, toInt, toU64, withOptions, withProgress, withScope,
} from './runtime.js';
import { rowsArg } from './data.js';

/** darn_estimator values. */
export const DARN_ESTIMATOR_DARN = 0;
export const DARN_ESTIMATOR_REINFORCE = 1;

// The most layer sizes a network has (zeta_darn_new: 2 <= n_layers <= 9).
const MAX_LAYERS = 9;

/**
 * A deep autoregressive network (Gregor et al. 2014) with its trainer: binary layers generated top down with exact
 * ancestral sampling, an encoder q(h | x), training by the expected description length, exact or
 * importance-sampled log p(x). sizes[0] is the visible layer, then the stochastic layers from the bottom up.
 * Rows of x are binary; every log-probability and description length is in nats.
 */
export class Darn extends Handle {
  constructor(sizes, options = null) {
    let ptr = 0;
    if (sizes !== undefined) {
      if (!hasFunction('zeta_darn_new')) throw new Error('zeta: this build has no DARN (zeta_darn_new)');
      if (sizes == null || typeof sizes.length !== 'number') throw new TypeError('zeta: sizes must be an array');
      Array.from(sizes).forEach((n, i) => toInt(n, `sizes[${i}]`));
      ptr = withOptions(options, (op) => outPtr((out, s) => {
        const p = s.copyI32(sizes);
        return mod()._zeta_darn_new(p, sizes.length, op, out);
      }));
    }
    super(ptr, 'Darn');
    if (ptr) this._readShape();
  }
  static _wrap(ptr) {
    const d = new Darn();
    d._ptr = ptr;
    d._readShape();
    return d;
  }
  _readShape() {
    const m = mod();
    withScope((s) => {
      const sizes = s.i32(MAX_LAYERS);
      const n = s.i32(1);
      check(m._zeta_darn_shape(this._ptr, sizes, MAX_LAYERS, n));
      /** The layer sizes, visible first. */
      this.sizes = Array.from({ length: readI32(n) }, (_, i) => readI32(sizes + 4 * i));
      const count = s.i32(1);
      check(m._zeta_darn_param_count(this._ptr, count));
      const name = s.alloc(4);
      const rows = s.i64();
      const cols = s.i64();
      /** The parameter blocks, {name, rows, cols}, in the library's order. */
      this.blocks = [];
      for (let i = 0; i < readI32(count); ++i) {
        check(m._zeta_darn_param_info(this._ptr, i, name, rows, cols));
        this.blocks.push({ name: m.UTF8ToString(readPtr(name)), rows: readI64(rows), cols: readI64(cols) });
      }
    });
    this.nVisible = this.sizes[0];
  }
  /** A network from the bytes of toBytes() (or a model file). */
  static fromBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('zeta: bytes must be a Uint8Array');
    return Darn._wrap(modelFromBytes(mod()._zeta_darn_from_bytes, bytes));
  }
  toBytes() {
    return modelBytes(mod()._zeta_darn_to_bytes, this._check());
  }
  /** An independent copy (parameters, trainer state, training generator). */
  clone() {
    const p = this._check();
    return Darn._wrap(outPtr((out) => mod()._zeta_darn_clone(p, out)));
  }
  _block(name) {
    const b = this.blocks.find((x) => x.name === name);
    if (!b) throw new RangeError(`zeta: unknown DARN parameter block '${name}'`);
    return b;
  }
  /** A copy of block name (row-major rows x cols). */
  getParam(name) {
    const p = this._check();
    const { rows, cols } = this._block(name);
    const n = rows * cols;
    return withScope((s) => {
      const out = s.f64(n);
      check(mod()._zeta_darn_get_param(p, s.cstring(name), out, BigInt(n)));
      return copyOutF64(out, n);
    });
  }
  /** Replaces block name; nothing changes unless every value is accepted (finite; zero on and above the
   *  diagonal of "prior.weight" and the ".autoregressive" blocks). */
  setParam(name, values) {
    const p = this._check();
    if (values == null || typeof values.length !== 'number') throw new TypeError('zeta: values must be an array');
    withScope((s) => check(mod()._zeta_darn_set_param(p, s.cstring(String(name)), s.copyF64(values),
                                                       BigInt(values.length))));
    return this;
  }
  /** One update on a mini-batch of binary rows; returns the batch's mean description length before it. */
  trainBatch(x) {
    const p = this._check();
    return outF64((out, s) => {
      const [d, n] = rowsArg(s, x, this.nVisible, 'x');
      return mod()._zeta_darn_train_batch(p, d, BigInt(n), out);
    });
  }
  /** epochs passes in shuffled mini-batches; onProgress gets the epoch's running mean description length. */
  trainEpochs(x, { batchSize = 100, epochs = 1, onProgress } = {}) {
    const p = this._check();
    toInt(batchSize, 'batchSize');
    toInt(epochs, 'epochs');
    withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nVisible, 'x');
      withProgress(onProgress, (fn, ud) => mod()._zeta_darn_train_epochs(p, d, BigInt(n), batchSize, epochs, fn, ud));
    });
    return this;
  }
  // One number per row from call(model, x, nRows, out, scope).
  _perRow(x, call) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nVisible, 'x');
      const out = s.f64(n);
      check(call(p, d, BigInt(n), out));
      return copyOutF64(out, n);
    });
  }
  /** Exact log p(x) of each row (at most 30 hidden units in all, else ZETA_ERR_UNSUPPORTED). */
  logProbExact(x) {
    return this._perRow(x, (p, d, n, out) => mod()._zeta_darn_log_prob_exact(p, d, n, out));
  }
  /** Importance-sampled log p(x) of each row with its delta-method standard error: {logProb, stdErr}. */
  logProbImportance(x, { samples = 1000, seed = 0 } = {}) {
    const p = this._check();
    const s64 = toU64(seed);
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nVisible, 'x');
      const lp = s.f64(n);
      const se = s.f64(n);
      check(mod()._zeta_darn_log_prob_is(p, d, BigInt(n), BigInt(samples), s64, lp, se));
      return { logProb: copyOutF64(lp, n), stdErr: copyOutF64(se, n) };
    });
  }
  /** The expected description length of each row (an upper bound on -log p(x)). */
  descriptionLength(x, { samples = 10, seed = 0 } = {}) {
    const s64 = toU64(seed);
    return this._perRow(x, (p, d, n, out) => mod()._zeta_darn_description_length(p, d, n, BigInt(samples), s64, out));
  }
  /** n exact independent samples: n x nVisible values 0/1. */
  sample(n, seed = 0) {
    const p = this._check();
    toInt(n, 'n');
    const s64 = toU64(seed);
    return withScope((s) => {
      const out = s.f64(Math.max(1, n) * this.nVisible); // n < 1: the library names n in its error
      check(mod()._zeta_darn_sample(p, BigInt(n), s64, out));
      return copyOutF64(out, n * this.nVisible);
    });
  }
  dispose() {
    if (this._ptr) mod()._zeta_darn_free(this._ptr);
    this._ptr = 0;
  }
}
