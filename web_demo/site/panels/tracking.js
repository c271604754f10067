// Panel 2, tracking log Z while training (RBM family): the tracked log Z with its ±2σ band against exact or AIS
// references, training and held-out log-likelihoods, the early-stopping point, and the tracker's warnings (a line
// above the log Z chart while the last window raised any, and the windows that did shaded on the chart).
import { makeChart, COLORS } from '../charts.js';
import { Panel, fmt } from './panel.js';

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
    this.warningRanges = []; // [from, to] update ranges of the windows that raised a warning
    this.state.health = null;
    this.state.healthWindows = 0;
    this.state.warningRanges = this.warningRanges;
    this.state.sampler = null;
    this.warningEl = this.el.querySelector('.tracking-warning');
    this.warningEl.hidden = true;
    this.warningEl.textContent = '';
    this.statsEl.textContent = '';
    const marker = { getX: () => (this.earlyStop ? this.earlyStop.step : null), label: 'early stop' };
    this.lzChart = makeChart(this.el.querySelector('.logz-chart'), {
      xLabel: 'updates', yLabel: 'log Z', marker,
      shade: { getRanges: () => this.warningRanges, color: COLORS.warning },
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
  /** A window of the tracker closed: its health replaces the last one; a window with warnings is shaded. */
  showHealth(h) {
    this.state.health = h;
    this.state.healthWindows++;
    if (h.warnings) {
      const last = this.warningRanges[this.warningRanges.length - 1];
      if (last && last[1] === h.from) last[1] = h.to;
      else this.warningRanges.push([h.from, h.to]);
    }
    this.warningEl.hidden = !h.warnings;
    if (!h.warnings) return;
    const pct = (x) => `${(100 * x).toFixed(0)}%`;
    const what = [];
    if (h.lowSwapRate) {
      what.push(`low swap rate (a pair of temperatures swapped ${pct(h.minSwapRate)} of the time, < 20%)`);
    }
    if (h.coldChainsStuck) {
      what.push(`cold chains stuck (${pct(h.coldModeChanges)} of the β = 1 chains changed mode, < 20%)`);
    }
    if (h.lowEss) {
      what.push(`low ESS (an update's β = 1 weights had ESS ${pct(h.minEssFraction)} of the chains, < 30%)`);
    }
    if (h.fewBridgeSamples) {
      what.push('few bridge readings (the bridges between temperatures gave < 10 independent readings)');
    }
    this.warningEl.textContent = `⚠ Tracker warning, updates ${h.from + 1}–${h.to}: ${what.join('; ')}. ` +
      'The ±2σ band may understate the error there (shaded on the chart).';
  }
  healthText() {
    const h = this.state.health;
    if (!h) return 'none yet (the first window ends at update 150)';
    const names = [h.lowSwapRate && 'low swap rate', h.coldChainsStuck && 'cold chains stuck', h.lowEss && 'low ESS',
      h.fewBridgeSamples && 'few bridge readings'];
    return `${names.filter(Boolean).join(', ') || 'none'} (updates ${h.from + 1}–${h.to})`;
  }
  progress(msg) {
    if (msg.sampler) this.state.sampler = msg.sampler;
    for (const h of msg.health || []) this.showHealth(h);
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
        <div><b>tracker warnings</b> ${this.healthText()}</div>
        <div><b>early stop</b> ${this.earlyStop ? `at ${this.earlyStop.step} updates` : msg.best && msg.best.step ? `best so far at ${msg.best.step}` : '–'}</div>`;
      this.llChart.setData(this.ll);
    }
    this.state.points = this.lz[0].length;
    this.lzChart.setData(this.lz);
  }
}

export default { kind: 'tracking', requires: null, View: TrackingPanel };
