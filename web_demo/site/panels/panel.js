// The page side of a panel: its Web Worker (worker.js, running zeta's module), the Start / Pause / Reset buttons,
// the parameter form and the state the browser tests read (window.zetaDemo.panels[kind]). Each panel module
// extends Panel with clear() and progress(msg), which draw what the panel's job in the worker posts.

export function readParams(form) {
  const p = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') p[el.name] = el.checked;
    else if (el.type === 'number') p[el.name] = Number(el.value);
    else p[el.name] = el.value;
  }
  return p;
}

export const fmt = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));

export class Panel {
  constructor(section, demo) {
    this.el = section;
    this.demo = demo;
    this.kind = section.dataset.kind;
    this.form = section.querySelector('form.params');
    this.stepsEl = section.querySelector('.steps');
    this.rateEl = section.querySelector('.rate');
    this.statsEl = section.querySelector('.stats');
    this.buttons = {
      start: section.querySelector('.start'), pause: section.querySelector('.pause'),
      reset: section.querySelector('.reset'),
    };
    this.state = { steps: 0, running: false, updates: 0, stopped: null };
    demo.panels[this.kind] = this.state;
    this.form.addEventListener('submit', (e) => e.preventDefault());
    this.worker = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => this.fail(`worker error: ${ev.message}`);
    this.buttons.start.onclick = () => this.start();
    this.buttons.pause.onclick = () => this.pause();
    this.buttons.reset.onclick = () => this.reset();
    this.ready = new Promise((resolve) => { this.resolveReady = resolve; });
    this.worker.postMessage({ type: 'init' });
    this.setButtons();
  }
  setButtons() {
    const ok = !!this.info;
    this.buttons.start.disabled = !ok || this.state.running;
    this.buttons.pause.disabled = !ok || !this.state.running;
    this.buttons.reset.disabled = !ok;
  }
  fail(message) {
    this.demo.errors.push(`${this.kind}: ${message}`);
    this.state.running = false;
    this.state.error = message;
    this.statsEl.innerHTML = `<span class="error">${message}</span>`;
    console.error(`[${this.kind}] ${message}`);
    this.setButtons();
  }
  start() {
    if (!this.initialised) this.clear();
    this.initialised = true;
    this.state.running = true;
    this.state.stopped = null;
    this.worker.postMessage({ type: 'start', kind: this.kind, params: readParams(this.form) });
    this.setButtons();
  }
  pause() {
    this.state.running = false;
    this.worker.postMessage({ type: 'pause' });
    this.setButtons();
  }
  reset() {
    this.state.running = false;
    this.clear();
    this.initialised = true;
    // The old job may still be finishing a slice: its messages, until the worker's 'resetting', are dropped, or
    // they would land in the cleared charts.
    this.dropUntilResetting = true;
    this.worker.postMessage({ type: 'reset', kind: this.kind, params: readParams(this.form) });
    this.setButtons();
  }
  clear() {
    this.state.steps = 0;
    this.state.updates = 0;
    this.stepsEl.textContent = '0';
    this.rateEl.textContent = '';
  }
  onMessage(msg) {
    if (msg.type === 'resetting') {
      this.dropUntilResetting = false;
      return;
    }
    if (this.dropUntilResetting && (msg.type === 'progress' || msg.type === 'stopped')) return;
    if (msg.type === 'ready') {
      this.info = msg;
      this.resolveReady(msg);
      this.setButtons();
    } else if (msg.type === 'progress') {
      this.state.steps = msg.steps;
      this.state.updates++;
      this.stepsEl.textContent = String(msg.steps);
      this.progress(msg);
    } else if (msg.type === 'stopped') {
      this.state.running = false;
      this.state.stopped = msg.reason;
      this.rateEl.textContent = `stopped: ${msg.reason}`;
      this.setButtons();
    } else if (msg.type === 'error') {
      this.fail(msg.message);
    }
  }
}
