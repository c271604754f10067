// runtime.js — what every family's wrappers share: loading the module, errors, marshalling numbers in and out of
// wasm memory, the progress-callback trampoline, options, and the module-level functions of the C API.
// Only the names that zeta.js re-exports are public; the rest is for the family modules.
//
// Heap views are re-read from the module on every access (f64(), i32(), mod().HEAPU8 …), never cached: with
// memory growth a call that allocates replaces the buffer and leaves any earlier view empty.
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

/** The Emscripten module; throws until init() has resolved. */
export function mod() {
  if (!M) throw new Error('zeta: call `await init()` before using the module');
  return M;
}

/** True when the module was built with the named C function (e.g. 'zeta_ebp_new'). */
export function hasFunction(name) {
  return typeof mod()['_' + name] === 'function';
}

/** Raw access to the Emscripten module (the C API as `_zeta_*` functions), for what the classes do not cover. */
export function rawModule() { return mod(); }

// ---- checking arguments and statuses ---------------------------------------------------------------------

/** Throws ZetaError for a non-zero zeta_status. */
export function check(status) {
  if (status !== 0) {
    const m = mod();
    throw new ZetaError(m.UTF8ToString(m._zeta_last_error()), status, m.UTF8ToString(m._zeta_status_name(status)));
  }
}

/** A 64-bit seed as the BigInt the module takes for a C uint64_t. */
export function toU64(seed, what = 'seed') {
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed >= (1n << 64n)) throw new RangeError(`zeta: ${what} must be in [0, 2^64)`);
    return seed;
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`zeta: ${what} must be a non-negative integer (number up to 2^53, or BigInt)`);
  }
  return BigInt(seed);
}

export function toInt(value, what) {
  if (!Number.isInteger(value)) throw new TypeError(`zeta: ${what} must be an integer, got ${value}`);
  return value;
}

// ---- wasm memory -----------------------------------------------------------------------------------------

export function f64() { return mod().HEAPF64; }
export function f32() { return mod().HEAPF32; }
export function i32() { return mod().HEAP32; }
export function u8() { return mod().HEAPU8; }

/** malloc that throws ZETA_ERR_MEMORY instead of returning 0. */
export function malloc(bytes) {
  const p = mod()._malloc(bytes);
  if (!p) throw new ZetaError('zeta: out of wasm memory', 2, 'ZETA_ERR_MEMORY');
  return p;
}

/** Scratch allocations freed at the end of a call (withScope). */
class Scope {
  constructor() { this.ptrs = []; }
  alloc(bytes) {
    const p = malloc(Math.max(8, bytes));
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
  copyF32(array) {
    const p = this.alloc(4 * array.length);
    f32().set(array, p >> 2);
    return p;
  }
  copyI32(array) {
    const p = this.i32(array.length);
    i32().set(array, p >> 2);
    return p;
  }
  copyU8(bytes) {
    const p = this.alloc(bytes.length);
    u8().set(bytes, p);
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

export function withScope(fn) {
  const scope = new Scope();
  try {
    return fn(scope);
  } finally {
    scope.free();
  }
}

export const readF64 = (p) => f64()[p >> 3];
export const readI32 = (p) => i32()[p >> 2];
export const readI64 = (p) => Number(mod().HEAP64[p >> 3]);
export const readPtr = (p) => mod().HEAPU32[p >> 2];
export const copyOutF64 = (p, n) => f64().slice(p >> 3, (p >> 3) + n);
export const copyOutI32 = (p, n) => i32().slice(p >> 2, (p >> 2) + n);

// One C out-parameter: call(outPtr, scope) -> status; returns the value written.
export const outPtr = (call) => withScope((s) => { const out = s.alloc(4); check(call(out, s)); return readPtr(out); });
export const outI32 = (call) => withScope((s) => { const out = s.i32(1); check(call(out, s)); return readI32(out); });
export const outI64 = (call) => withScope((s) => { const out = s.i64(); check(call(out, s)); return readI64(out); });
export const outF64 = (call) => withScope((s) => { const out = s.f64(1); check(call(out, s)); return readF64(out); });

/** {mean, stdDev} from a C call writing both through out-pointers: call(meanPtr, sdPtr, scope) -> status. */
export function outEstimate(call) {
  return withScope((s) => {
    const m = s.f64(1);
    const sd = s.f64(1);
    check(call(m, sd, s));
    return { mean: readF64(m), stdDev: readF64(sd) };
  });
}

/** A model's bytes from zeta_<family>_to_bytes(ptr, buf, size, &needed): asked for the size, then filled. */
export function modelBytes(toBytes, ptr) {
  return withScope((s) => {
    const size = s.i64();
    check(toBytes(ptr, 0, 0n, size));
    const n = readI64(size);
    const buf = s.alloc(n);
    check(toBytes(ptr, buf, BigInt(n), size));
    return u8().slice(buf, buf + n);
  });
}

/** The pointer of a model read by zeta_<family>_from_bytes(bytes, size, &out). */
export function modelFromBytes(fromBytes, bytes) {
  return outPtr((out, s) => fromBytes(s.copyU8(bytes), BigInt(bytes.length), out));
}

// ---- progress callbacks ----------------------------------------------------------------------------------

// One wasm table entry for the whole module; user_data carries the id of the JS callback.
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

/**
 * Runs call(progressFnPtr, userData) with onProgress (or none); an exception thrown by onProgress cancels the
 * call and is rethrown; returning false from onProgress cancels (ZetaError with code ZETA_ERR_CANCELLED).
 */
export function withProgress(onProgress, call) {
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

// ---- objects owning wasm memory --------------------------------------------------------------------------

export class Handle {
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

// ---- module-level functions --------------------------------------------------------------------------------

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
/** What a seed's numbers depend on besides the thread count, as lines of text (zeta_build_info, the same as
 *  `zeta --version`): the version, the backend of the large products, the vector extensions of the build. */
export function buildInfo() { return mod().UTF8ToString(mod()._zeta_build_info()); }
/** The thread count of zeta calls (zeta_set_num_threads): the module has no threads, so it runs on one whatever n
 *  (>= 0) is; kept for code shared with the native bindings. */
export function setNumThreads(n) { check(mod()._zeta_set_num_threads(toInt(n, 'n'))); }
/** The thread count zeta calls use: 1 in the module. */
export function numThreads() { return outI32((out) => mod()._zeta_get_num_threads(out)); }
/** Bytes of wasm memory (grows, never shrinks). */
export function memoryBytes() { return mod().HEAPU8.length; }

// ---- Options -----------------------------------------------------------------------------------------------

/** Key/value knobs (see zeta.h for keys, defaults and ranges). */
export class Options extends Handle {
  constructor(values = {}) {
    super(outPtr((out) => mod()._zeta_options_new(out)), 'Options');
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
    return outF64((out, s) => mod()._zeta_options_get(p, s.cstring(String(key)), out));
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

/** fn(optionsPtr) with an Options, a plain object of option values (a temporary Options) or null (0). */
export function withOptions(options, fn) {
  if (options == null) return fn(0);
  if (options instanceof Options) return fn(options._check());
  const o = new Options(options);
  try {
    return fn(o._ptr);
  } finally {
    o.dispose();
  }
}
