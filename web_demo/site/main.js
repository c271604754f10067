// The demo page: one Web Worker per panel (worker.js runs zeta's module), start / pause / reset, parameter
// forms, uPlot charts. window.zetaDemo exposes the panels' state for the browser tests.
import { makeChart, COLORS, paletteColor } from './charts.js';

const demo = { ready: false, version: null, panels: {}, errors: [] };
window.zetaDemo = demo;
const statusEl = document.getElementById('status');

function readParams(form) {
  const p = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') p[el.name] = el.checked;
    else if (el.type === 'number') p[el.name] = Number(el.value);
    else p[el.name] = el.value;
  }
  return p;
}

const fmt = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));

class Panel {
  constructor(section) {
    this.el = section;
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
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
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
    demo.errors.push(`${this.kind}: ${message}`);
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

// ---- 1. Sampling ----------------------------------------------------------------------------------------------
class SamplingPanel extends Panel {
  constructor(section) {
    super(section);
    this.grids = section.querySelector('.grids');
    this.swapSeries = 0;
  }
  clear() {
    super.clear();
    this.grids.innerHTML = '';
    this.rows = null;
    if (this.chart) this.chart.destroy();
    this.chart = null;
    this.swapData = null;
    this.statsEl.textContent = '';
    this.state.gridChanges = 0;
    this.state.swapRates = null;
  }
  buildRows(M, N) {
    this.grids.innerHTML = '';
    this.rows = [];
    for (let m = 0; m < M; ++m) {
      const row = document.createElement('div');
      row.className = 'grid-row';
      const label = document.createElement('div');
      label.className = 'beta';
      const canvas = document.createElement('canvas');
      canvas.width = N * 29 - 1;
      canvas.height = 28;
      canvas.style.width = `${(N * 29 - 1) * 2}px`;
      canvas.style.height = '56px';
      row.append(label, canvas);
      this.grids.append(row);
      let swap = null;
      if (m < M - 1) {
        swap = document.createElement('div');
        swap.className = 'swap';
        this.grids.append(swap);
      }
      this.rows.push({ label, canvas, ctx: canvas.getContext('2d'), image: canvas.getContext('2d').createImageData(canvas.width, 28), swap });
    }
    const series = [];
    for (let m = 0; m < M - 1; ++m) series.push({ label: `β${m + 1}↔β${m + 2}`, color: paletteColor(m), digits: 3 });
    this.chart = makeChart(this.el.querySelector('.swap-chart'), { xLabel: 'updates', yLabel: 'swap rate', series, height: 240 });
    this.swapData = [[], ...series.map(() => [])];
  }
  progress(msg) {
    const M = msg.nTemperatures;
    const N = msg.nChains;
    if (!this.rows || this.rows.length !== M) this.buildRows(M, N);
    const chains = msg.chains;
    let changed = false;
    if (this.lastChains && this.lastChains.length === chains.length) {
      for (let i = 0; i < chains.length; i += 7) if (chains[i] !== this.lastChains[i]) { changed = true; break; }
    }
    if (changed) this.state.gridChanges++;
    this.lastChains = chains;
    for (let m = 0; m < M; ++m) {
      const r = this.rows[m];
      const px = r.image.data;
      const w = r.canvas.width;
      px.fill(255);
      for (let n = 0; n < N; ++n) {
        const base = (m * N + n) * 784;
        for (let y = 0; y < 28; ++y) {
          for (let x = 0; x < 28; ++x) {
            const on = chains[base + y * 28 + x];
            const o = 4 * (y * w + n * 29 + x);
            const v = on ? 20 : 245;
            px[o] = v; px[o + 1] = v; px[o + 2] = on ? 40 : 250; px[o + 3] = 255;
          }
        }
      }
      r.ctx.putImageData(r.image, 0, 0);
      r.label.innerHTML = `β = ${fmt(msg.betas[m], 3)}`;
      if (r.swap) {
        const rate = msg.swapRates[m];
        r.swap.innerHTML = `<span class="track"><span class="bar" style="width:${Math.round(rate * 100)}%"></span></span><span>swap ${fmt(100 * rate, 1)}%</span>`;
      }
    }
    this.state.swapRates = msg.swapRates;
    this.swapData[0].push(msg.steps);
    msg.swapRates.forEach((r, i) => this.swapData[i + 1].push(r));
    this.chart.setData(this.swapData);
    this.rateEl.textContent = `${fmt(msg.updatesPerSecond, 0)} updates/s`;
    this.statsEl.innerHTML = `<div><b>round trips</b> ${msg.roundTrips}</div>
      <div><b>tracked log Z</b> ${fmt(msg.logZ)} ± ${fmt(msg.logZSd)}</div>
      <div><b>chains</b> ${M} temperatures × ${N}</div>`;
  }
}

// ---- 2. Tracking ----------------------------------------------------------------------------------------------
class TrackingPanel extends Panel {
  clear() {
    super.clear();
    if (this.lzChart) this.lzChart.destroy();
    if (this.llChart) this.llChart.destroy();
    this.lz = [[], [], [], [], []]; // step, mean, mean+2sd, mean-2sd, reference
    this.refAt = new Map();
    this.ll = [[], [], [], [], [], [], [], [], []]; // step, train, train±2sd, held, held±2sd, held ref, train ref
    this.earlyStop = null;
    this.state.points = 0;
    this.state.evaluations = 0;
    this.state.earlyStop = null;
    this.statsEl.textContent = '';
    const marker = { getX: () => (this.earlyStop ? this.earlyStop.step : null), label: 'early stop' };
    this.lzChart = makeChart(this.el.querySelector('.logz-chart'), {
      xLabel: 'updates', yLabel: 'log Z', marker,
      series: [
        { label: 'tracked', color: COLORS.tracked },
        { label: '+2σ', color: 'rgba(37,99,235,0.35)', width: 1 },
        { label: '−2σ', color: 'rgba(37,99,235,0.35)', width: 1 },
        { label: 'exact / AIS', color: COLORS.reference, points: true },
      ],
      bands: [[2, 3, COLORS.trackedBand]],
    });
    this.llChart = makeChart(this.el.querySelector('.ll-chart'), {
      xLabel: 'updates', yLabel: 'nats', marker,
      series: [
        { label: 'train (tracked)', color: COLORS.train },
        { label: '+2σ', color: 'rgba(5,150,105,0.35)', width: 1 },
        { label: '−2σ', color: 'rgba(5,150,105,0.35)', width: 1 },
        { label: 'held-out (tracked)', color: COLORS.held },
        { label: '+2σ', color: 'rgba(124,58,237,0.35)', width: 1 },
        { label: '−2σ', color: 'rgba(124,58,237,0.35)', width: 1 },
        { label: 'held-out (exact/AIS)', color: COLORS.reference, points: true },
        { label: 'train (exact/AIS)', color: '#f97316', points: true },
      ],
      bands: [[2, 3, COLORS.trainBand], [5, 6, COLORS.heldBand]],
    });
  }
  progress(msg) {
    for (const [step, mean, sd] of msg.points || []) {
      const s = Number.isFinite(sd) ? sd : null;
      this.lz[0].push(step);
      this.lz[1].push(mean);
      this.lz[2].push(s == null ? null : mean + 2 * s);
      this.lz[3].push(s == null ? null : mean - 2 * s);
      this.lz[4].push(null);
    }
    const e = msg.evaluation;
    if (e) {
      // The reference log Z goes on the log Z chart at its step.
      let i = this.lz[0].lastIndexOf(e.step);
      if (i < 0) {
        this.lz[0].push(e.step);
        this.lz[1].push(e.logZ);
        this.lz[2].push(e.logZSd == null ? null : e.logZ + 2 * e.logZSd);
        this.lz[3].push(e.logZSd == null ? null : e.logZ - 2 * e.logZSd);
        this.lz[4].push(null);
        i = this.lz[0].length - 1;
      }
      this.lz[4][i] = e.refLogZ;
      const band = (m, sd) => (sd == null ? [null, null] : [m + 2 * sd, m - 2 * sd]);
      const [tu, tl] = band(e.trainLL, e.trainSd);
      const [hu, hl] = band(e.heldLL, e.heldSd);
      [e.step, e.trainLL, tu, tl, e.heldLL, hu, hl, e.heldRef, e.trainRef].forEach((v, k) => this.ll[k].push(v));
      this.state.evaluations++;
      this.state.lastEvaluation = e;
      if (msg.earlyStop) this.earlyStop = msg.earlyStop;
      this.state.earlyStop = this.earlyStop;
      const err = e.logZ - e.refLogZ;
      this.statsEl.innerHTML = `<div><b>tracked log Z</b> ${fmt(e.logZ, 3)} ± ${fmt(e.logZSd, 3)}</div>
        <div><b>${e.refKind} log Z</b> ${fmt(e.refLogZ, 3)}${e.refSd ? ` ± ${fmt(e.refSd, 3)}` : ''}</div>
        <div><b>tracking error</b> ${fmt(err, 3)} nats</div>
        <div><b>held-out LL</b> ${fmt(e.heldLL)} (${e.refKind}: ${fmt(e.heldRef)})</div>
        <div><b>train LL</b> ${fmt(e.trainLL)} (${e.refKind}: ${fmt(e.trainRef)})</div>
        <div><b>early stop</b> ${this.earlyStop ? `at ${this.earlyStop.step} updates` : msg.best && msg.best.step ? `best so far at ${msg.best.step}` : '–'}</div>`;
      this.llChart.setData(this.ll);
    }
    this.state.points = this.lz[0].length;
    this.lzChart.setData(this.lz);
  }
}

// ---- 3. Classification (only when the module has the EBP functions) -----------------------------------------
class ClassificationPanel extends Panel {
  clear() {
    super.clear();
    if (this.chart) this.chart.destroy();
    this.err = [[], [], [], []];
    this.state.evaluations = 0;
    this.statsEl.textContent = '';
    this.chart = makeChart(this.el.querySelector('.err-chart'), {
      xLabel: 'training examples seen', yLabel: 'error rate (%)',
      series: [
        { label: 'test error, EBP-P', color: COLORS.tracked },
        { label: 'test error, EBP-D', color: COLORS.reference },
        { label: 'training error, EBP-P', color: COLORS.train, dash: [5, 4] },
      ],
    });
  }
  progress(msg) {
    this.rateEl.textContent = `${fmt(msg.examplesPerSecond, 0)} examples/s · epoch ${fmt(msg.epoch, 2)}`;
    const e = msg.evaluation;
    if (!e) return;
    this.err[0].push(e.seen);
    this.err[1].push(100 * e.testP);
    this.err[2].push(100 * e.testD);
    this.err[3].push(100 * e.trainP);
    this.state.evaluations++;
    this.state.lastEvaluation = e;
    this.chart.setData(this.err);
    this.statsEl.innerHTML = `<div><b>test error EBP-P</b> ${fmt(100 * e.testP, 1)}%</div>
      <div><b>test error EBP-D</b> ${fmt(100 * e.testD, 1)}%</div>
      <div><b>training error</b> ${fmt(100 * e.trainP, 1)}%</div>`;
  }
}

// ---- 4. Many classes (only when the module has the softmax functions) ----------------------------------------
class ManyClassPanel extends Panel {
  clear() {
    super.clear();
    if (this.chart) this.chart.destroy();
    this.chart = null;
    this.names = null;
    this.state.evaluations = 0;
    this.statsEl.textContent = '';
    this.el.querySelector('table.cost').innerHTML = '';
  }
  build(names) {
    this.names = names;
    this.data = [[], ...names.map(() => [])];
    this.chart = makeChart(this.el.querySelector('.mc-chart'), {
      xLabel: 'updates', yLabel: 'log-likelihood (nats)',
      series: names.map((n, i) => ({ label: n, color: paletteColor(i), digits: 3, width: n === 'exact' ? 3 : 2 })),
    });
  }
  progress(msg) {
    if (!this.names) this.build(msg.names);
    const e = msg.evaluation;
    if (!e) return;
    this.data[0].push(e.step);
    e.methods.forEach((m, i) => this.data[i + 1].push(m.ll));
    this.chart.setData(this.data);
    this.state.evaluations++;
    this.state.lastEvaluation = e;
    const exact = e.methods.find((m) => m.name === 'exact');
    this.el.querySelector('table.cost').innerHTML = '<tr><th>method</th><th>ms / update</th><th>speed-up vs exact</th><th>log-lik.</th><th>error</th></tr>' +
      e.methods.map((m) => `<tr><td>${m.name}</td><td>${fmt(m.msPerUpdate, 2)}</td>` +
        `<td>${exact && exact.msPerUpdate && m.msPerUpdate ? fmt(exact.msPerUpdate / m.msPerUpdate, 1) + '×' : '–'}</td>` +
        `<td>${fmt(m.ll, 3)}</td><td>${fmt(100 * m.error, 1)}%</td></tr>`).join('');
    this.statsEl.innerHTML = `<div><b>teacher's log-likelihood</b> ${fmt(msg.teacherLL, 3)}</div>
      <div><b>uniform</b> ${fmt(-Math.log(Number(this.form.elements.classes.value)), 3)}</div>`;
  }
}

// ---- start-up -------------------------------------------------------------------------------------------------
const sampling = new SamplingPanel(document.getElementById('sampling'));
const tracking = new TrackingPanel(document.getElementById('tracking'));
sampling.clear();
tracking.clear();
const info = await sampling.ready;
demo.version = info.version;
document.getElementById('version').textContent = info.version;
if (info.hasEbp) {
  const t = document.getElementById('classification-template');
  document.querySelector('main').append(t.content.cloneNode(true));
  const classification = new ClassificationPanel(document.getElementById('classification'));
  classification.clear();
  await classification.ready;
}
if (info.hasSoftmax) {
  const t = document.getElementById('manyclass-template');
  document.querySelector('main').append(t.content.cloneNode(true));
  const manyclass = new ManyClassPanel(document.getElementById('manyclass'));
  manyclass.clear();
  await manyclass.ready;
}
await tracking.ready;
demo.ready = true;
demo.hasEbp = info.hasEbp;
demo.hasSoftmax = info.hasSoftmax;
statusEl.textContent = `Module ${info.version} loaded in ${Math.round(info.loadMs)} ms (${info.trainRows} training and ` +
  `${info.testRows} test images decoded in the worker). Press Start on any panel; each runs in its own worker.`;
