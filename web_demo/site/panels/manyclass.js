// Panel 4, many classes (softmax family; shown only when the module has the softmax functions): exact softmax
// against sampled normalisation, their training log-likelihood curves and cost per update.
import { makeChart, paletteColor } from '../charts.js';
import { Panel, fmt } from './panel.js';

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

export default { kind: 'manyclass', requires: 'hasSoftmax', View: ManyClassPanel };
