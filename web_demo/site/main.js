// The demo page: one panel per module in panels/ (each with its own Web Worker running zeta's module, start /
// pause / reset, a parameter form and uPlot charts), registered below. window.zetaDemo exposes the panels'
// state for the browser tests.
import sampling from './panels/sampling.js';
import tracking from './panels/tracking.js';
import classification from './panels/classification.js';
import manyclass from './panels/manyclass.js';
import pruning from './panels/pruning.js';
import darn from './panels/darn.js';

// In page order. A panel is { kind, requires, View }: kind is its section's data-kind (and its job's name in
// worker.js); a panel that `requires` a flag of the worker's `ready` message (a family the module may be built
// without) is the <template id="KIND-template"> of index.html, added only when the flag is set: at the end of the
// page, or right after the panel whose kind it names as `after`.
const PANELS = [sampling, tracking, classification, manyclass, pruning, darn];

const demo = { ready: false, version: null, panels: {}, errors: [] };
window.zetaDemo = demo;
const statusEl = document.getElementById('status');

function openPanel({ kind, View }) {
  const view = new View(document.getElementById(kind), demo);
  view.clear();
  return view;
}

const always = PANELS.filter((p) => !p.requires).map(openPanel);
const info = await always[0].ready;
demo.version = info.version;
document.getElementById('version').textContent = info.version;
for (const panel of PANELS.filter((p) => p.requires && info[p.requires])) {
  const t = document.getElementById(`${panel.kind}-template`);
  const neighbour = panel.after ? document.getElementById(panel.after) : null;
  if (neighbour) neighbour.after(t.content.cloneNode(true));
  else document.querySelector('main').append(t.content.cloneNode(true));
  await openPanel(panel).ready;
}
await Promise.all(always.map((view) => view.ready));
demo.ready = true;
demo.hasEbp = info.hasEbp;
demo.hasSoftmax = info.hasSoftmax;
demo.hasPruner = info.hasPruner;
demo.hasDarn = info.hasDarn;
statusEl.textContent = `Module ${info.version} loaded in ${Math.round(info.loadMs)} ms (${info.trainRows} training and ` +
  `${info.testRows} test images decoded in the worker). Press Start on any panel; each runs in its own worker.`;
