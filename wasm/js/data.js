// data.js — Dataset (rows kept in wasm memory) and the rows/labels arguments every family's methods take.
import {
  Handle, check, copyOutF64, copyOutI32, f64, malloc, mod, readI32, readI64, toInt, withScope,
} from './runtime.js';

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
    const ptr = malloc(Math.max(8, 8 * data.length));
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
    const ptr = malloc(8 * nRows * nCols);
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

/**
 * Rows of data: a Float64Array / array (length a multiple of nCols), copied into the scope, or a Dataset (whose
 * memory is already in the wasm heap: no copy). Returns [pointer, nRows].
 */
export function rowsArg(scope, data, nCols, what) {
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

/**
 * Rows for the calls that also take float and 0/1-byte rows (a trainer's step and train): a Float32Array is copied
 * into the scope as float, a Uint8Array (or Uint8ClampedArray) as bytes, anything else as rowsArg does. Returns
 * [pointer, nRows, type], type 'f64', 'f32' or 'u8' naming the C function to call (zeta_*, zeta_*_f32, zeta_*_u8).
 */
export function typedRowsArg(scope, data, nCols, what) {
  const u8 = data instanceof Uint8Array || data instanceof Uint8ClampedArray;
  if (!u8 && !(data instanceof Float32Array)) return [...rowsArg(scope, data, nCols, what), 'f64'];
  if (data.length % nCols !== 0) {
    throw new RangeError(`zeta: ${what} has ${data.length} numbers, not a multiple of the ${nCols} columns`);
  }
  return u8 ? [scope.copyU8(data), data.length / nCols, 'u8'] : [scope.copyF32(data), data.length / nCols, 'f32'];
}

/** One int32 label per row, copied into the scope. */
export function labelsArg(scope, labels, nRows, what) {
  if (labels == null) throw new TypeError(`zeta: ${what} is required`);
  if (labels.length !== nRows) {
    throw new RangeError(`zeta: ${what} has ${labels.length} entries, the data has ${nRows} rows`);
  }
  return scope.copyI32(labels);
}

/** The labels given, else those of a Dataset x (null for plain arrays: labelsArg then asks for them). */
export function labelsOf(x, labels) {
  return labels ?? (x instanceof Dataset ? x.labels : null);
}
