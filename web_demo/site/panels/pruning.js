// Panel 5, compressing an RBM (RBM family): hidden units removed by the procedure of Saito & Kato (2019) while the
// exact KL holds, beside the same number of units removed naively, and log Z tracked across the removals.
import { makeChart, COLORS } from '../charts.js';
import { Panel, fmt } from './panel.js';

class PruningPanel extends Panel {
  clear() {
    super.clear();
    if (this.unitsChart) this.unitsChart.destroy();
    if (this.klChart) this.klChart.destroy();
    this.series = [[], [], [], []]; // pruning step, hidden units, KL (procedure), KL (naive removal)
    Object.assign(this.state, { points: 0, phase: 'training', nHidden: null, removals: 0, kl: null, naiveKl: null,
                                trainedKl: null, logZ: null, logZSd: null, exactLogZ: null });
    this.statsEl.textContent = '';
    this.unitsChart = makeChart(this.el.querySelector('.units-chart'), {
      xLabel: 'pruning steps', yLabel: 'hidden units',
      series: [{ label: 'hidden units', color: COLORS.tracked, digits: 0 }],
    });
    this.klChart = makeChart(this.el.querySelector('.kl-chart'), {
      xLabel: 'pruning steps', yLabel: 'exact KL (nats)',
      series: [
        { label: 'procedure', color: COLORS.tracked, digits: 4 },
        { label: 'naive removal, same N', color: COLORS.reference, digits: 4 },
      ],
    });
  }
  progress(msg) {
    const s = this.state;
    s.phase = msg.phase;
    if (msg.phase === 'training') {
      s.kl = msg.trainingKl;
      this.statsEl.innerHTML = `<div><b>phase</b> training (PCD-5), ${msg.trainSteps} updates</div>
        <div><b>exact KL</b> ${fmt(s.kl, 4)}</div>`;
      return;
    }
    for (const [step, nHidden, kl, naiveKl, logZ, logZSd, exactLogZ] of msg.points) {
      if (this.series[0].length === 0) s.trainedKl = kl;
      this.series[0].push(step);
      this.series[1].push(nHidden);
      this.series[2].push(kl);
      this.series[3].push(naiveKl);
      Object.assign(s, { nHidden, kl, naiveKl, logZ, logZSd, exactLogZ });
    }
    s.removals = msg.removals.reduce((sum, r) => sum + r.removed, 0);
    s.points = this.series[0].length;
    const last = msg.removals.length ? msg.removals[msg.removals.length - 1] : null;
    this.statsEl.innerHTML = `<div><b>phase</b> pruning</div>
      <div><b>hidden units</b> ${s.nHidden}${last ? ` (${s.removals} removed, the last at pruning step ${last.step})` : ''}</div>
      <div><b>exact KL</b> ${fmt(s.kl, 4)} (trained: ${fmt(s.trainedKl, 4)})</div>
      <div><b>naive removal</b> ${fmt(s.naiveKl, 4)}</div>
      <div><b>smallest cost</b> ${fmt(msg.minCost, 3)} ± ${fmt(msg.minCostSd, 3)}</div>
      <div><b>tracked log Z</b> ${fmt(s.logZ, 3)} ± ${fmt(s.logZSd, 3)} (exact ${fmt(s.exactLogZ, 3)})</div>`;
    this.unitsChart.setData([this.series[0], this.series[1]]);
    this.klChart.setData([this.series[0], this.series[2], this.series[3]]);
  }
}

export default { kind: 'pruning', requires: 'hasPruner', View: PruningPanel };
