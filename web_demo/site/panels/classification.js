// Panel 3, classification with expectation backpropagation (EBP family; shown only when the module has the EBP
// functions): test and training error while the net trains online.
import { makeChart, COLORS } from '../charts.js';
import { Panel, fmt } from './panel.js';

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

export default { kind: 'classification', requires: 'hasEbp', View: ClassificationPanel };
