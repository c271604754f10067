// ebp.js — expectation backpropagation nets (zeta_ebp_*; present when the build has them: hasFunction).
import {
  Handle, check, copyOutF64, copyOutI32, hasFunction, mod, modelBytes, modelFromBytes, outF64, outI64, outPtr,
  readI32, toInt, withOptions, withProgress, withScope,
} from './runtime.js';
import { labelsArg, labelsOf, rowsArg } from './data.js';

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
      ptr = withOptions(options, (op) => outPtr((out, s) => {
        const hs = s.copyI32(hiddenSizes);
        return mod()._zeta_ebp_new(nInputs, hiddenSizes.length ? hs : 0, hiddenSizes.length, nOutputs, op, out);
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
    return EbpNet._wrap(modelFromBytes(mod()._zeta_ebp_from_bytes, bytes));
  }
  toBytes() {
    return modelBytes(mod()._zeta_ebp_to_bytes, this._check());
  }
  get examplesSeen() {
    const p = this._check();
    return outI64((out) => mod()._zeta_ebp_examples_seen(p, out));
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
      const l = labelsArg(s, labelsOf(x, labels), n, 'labels');
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
    return outF64((out, s) => {
      const [d, n] = rowsArg(s, x, this.nInputs, 'x');
      const l = labelsArg(s, labelsOf(x, labels), n, 'labels');
      return mod()._zeta_ebp_error_rate(p, d, l, BigInt(n), output, out);
    });
  }
  clone() {
    const p = this._check();
    return EbpNet._wrap(outPtr((out) => mod()._zeta_ebp_clone(p, out)));
  }
  dispose() {
    if (this._ptr) mod()._zeta_ebp_free(this._ptr);
    this._ptr = 0;
  }
}
