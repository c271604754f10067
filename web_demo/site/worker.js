// The demo's Web Worker: one per panel, each with its own instance of zeta's WebAssembly module, running that
// panel's job (one module per panel in jobs/, registered below) in slices (jobs/host.js). Every number it posts
// is computed here, by the module.
import * as zeta from './zeta/zeta.js';
import { hasJob, loadData, pause, post, replaceJob, resume } from './jobs/host.js';
import { Sampling } from './jobs/sampling.js';
import { Tracking } from './jobs/tracking.js';
import { Classification } from './jobs/classification.js';
import { ManyClass } from './jobs/manyclass.js';
import { Pruning } from './jobs/pruning.js';
import { DarnJob } from './jobs/darn.js';

// Keyed by the panel's kind (its section's data-kind).
const JOBS = {
  sampling: Sampling, tracking: Tracking, classification: Classification, manyclass: ManyClass, pruning: Pruning,
  darn: DarnJob,
};

function reset(kind, params) {
  replaceJob(() => new JOBS[kind](params));
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'init') {
      const t0 = performance.now();
      await zeta.init();
      const data = loadData();
      post('ready', { version: zeta.version(), hasEbp: zeta.hasFunction('zeta_ebp_new'),
                      hasSoftmax: zeta.hasFunction('zeta_softmax_new'), hasDarn: zeta.hasFunction('zeta_darn_new'),
                      hasPruner: zeta.hasFunction('zeta_pruner_new'), loadMs: performance.now() - t0,
                      trainRows: data.train.nRows, testRows: data.test.nRows });
    } else if (msg.type === 'reset') {
      // Everything the old job posted comes before this mark; the page drops that (panel.js).
      post('resetting', {});
      reset(msg.kind, msg.params);
      post('reset', {});
    } else if (msg.type === 'start') {
      if (!hasJob()) reset(msg.kind, msg.params);
      resume();
    } else if (msg.type === 'pause') {
      pause();
      post('paused', {});
    }
  } catch (e) {
    pause();
    post('error', { message: `${e.name}: ${e.message}` });
  }
};
