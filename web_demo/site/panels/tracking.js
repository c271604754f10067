// Panel 2, tracking log Z while training (RBM family): the tracked log Z with its ±2σ band against exact or AIS
// references, training and held-out log-likelihoods, and the early-stopping point.
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

export default { kind: 'tracking', requires: null, View: TrackingPanel };
