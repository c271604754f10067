// What every panel's job shares inside the demo's Web Worker: posting to the page, the data set compiled into
// the module, and the loop that runs the current job in slices of about SLICE_MS, between which the worker reads
// messages (start / pause / reset), so the page never waits on the module and pausing is immediate.
import * as zeta from '../zeta/zeta.js';

const SLICE_MS = 80;
let job = null;
let running = false;
let timer = null;
let data = null; // { train, test } Datasets (the data set compiled into the module), trainBytes

export function post(type, payload = {}, transfer = []) {
  self.postMessage({ type, ...payload }, transfer);
}

export function loadData() {
  if (!data) {
    const train = zeta.Dataset.default('train');
    // The training rows also as 0/1 bytes, the narrowest rows a trainer takes: a step copies an eighth of the
    // memory of doubles and the trainer reads them as bytes (zeta_trainer_step_u8).
    data = { train, test: zeta.Dataset.default('test'), trainBytes: Uint8Array.from(train.toArray()) };
  }
  return data;
}

/** Rows [start, start + count) of the training split as 0/1 bytes (a view, no copy), for a trainer's step. */
export function trainBatch(start, count) {
  const { train, trainBytes } = loadData();
  return trainBytes.subarray(start * train.nCols, (start + count) * train.nCols);
}

function loop() {
  timer = null;
  if (!running || !job) return;
  try {
    job.slice(performance.now() + SLICE_MS);
  } catch (e) {
    pause();
    post('error', { message: `${e.name}: ${e.message}` });
    return;
  }
  if (running) timer = setTimeout(loop, 0);
}

/** Stops the loop after the current slice (a job calls it when it is done). */
export function pause() {
  running = false;
  if (timer) clearTimeout(timer);
  timer = null;
}

/** Disposes the current job, if any, and makes `next()` the job the loop runs. */
export function replaceJob(next) {
  pause();
  if (job) job.dispose();
  job = null;
  job = next();
}

export const hasJob = () => job !== null;

/** Runs the current job's slices until paused. */
export function resume() {
  if (!running) {
    running = true;
    loop();
  }
}
