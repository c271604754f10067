// softmax.js — many-class softmax with sampled normalisation (zeta_softmax_*; present when the build has them:
// hasFunction).
import {
  Handle, check, copyOutF64, copyOutI32, hasFunction, mod, modelBytes, modelFromBytes, outF64, outI64, outPtr,
  readI32, toInt, withOptions, withProgress, withScope,
} from './runtime.js';
import { labelsArg, labelsOf, rowsArg } from './data.js';

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
      ptr = withOptions(options, (op) => outPtr((out) => mod()._zeta_softmax_new(nFeatures, nClasses, op, out)));
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
    return SoftmaxClassifier._wrap(modelFromBytes(mod()._zeta_softmax_from_bytes, bytes));
  }
  toBytes() {
    return modelBytes(mod()._zeta_softmax_to_bytes, this._check());
  }
  clone() {
    const p = this._check();
    return SoftmaxClassifier._wrap(outPtr((out) => mod()._zeta_softmax_clone(p, out)));
  }
  get steps() {
    const p = this._check();
    return outI64((out) => mod()._zeta_softmax_steps(p, out));
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
    return outF64((out, s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labelsOf(x, labels), n, 'labels');
      return mod()._zeta_softmax_train_batch(p, d, l, BigInt(n), out);
    });
  }
  trainEpochs(x, labels, { batchSize = 32, epochs = 1, shuffle = true, onProgress } = {}) {
    const p = this._check();
    withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labelsOf(x, labels), n, 'labels');
      withProgress(onProgress, (fn, ud) => mod()._zeta_softmax_train_epochs(p, d, l, BigInt(n), BigInt(batchSize),
                                                                              epochs, shuffle ? 1 : 0, fn, ud));
    });
    return this;
  }
  // rows x nClasses numbers from fn(model, x, nRows, out).
  _rowsOut(fn, x) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const out = s.f64(n * this.nClasses);
      check(fn(p, d, BigInt(n), out));
      return copyOutF64(out, n * this.nClasses);
    });
  }
  /** Exact p(c|x): rows x nClasses. */
  probabilities(x) { return this._rowsOut(mod()._zeta_softmax_probabilities, x); }
  logProbabilities(x) { return this._rowsOut(mod()._zeta_softmax_log_probabilities, x); }
  predict(x) {
    const p = this._check();
    return withScope((s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const out = s.i32(n);
      check(mod()._zeta_softmax_predict(p, d, BigInt(n), out));
      return copyOutI32(out, n);
    });
  }
  // One number from fn(model, x, labels, nRows, out) over labelled rows.
  _labelled(fn, x, labels) {
    const p = this._check();
    return outF64((out, s) => {
      const [d, n] = rowsArg(s, x, this.nFeatures, 'x');
      const l = labelsArg(s, labelsOf(x, labels), n, 'labels');
      return fn(p, d, l, BigInt(n), out);
    });
  }
  /** Exact mean log-likelihood of labelled rows. */
  logLikelihood(x, labels) { return this._labelled(mod()._zeta_softmax_log_likelihood, x, labels); }
  errorRate(x, labels) { return this._labelled(mod()._zeta_softmax_error_rate, x, labels); }
  dispose() {
    if (this._ptr) mod()._zeta_softmax_free(this._ptr);
    this._ptr = 0;
  }
}
