// Panel 1b, exact samples from a deep autoregressive network (DARN family), placed beside panel 1's tempered
// chains: a fresh grid of independent samples after every slice (drawn as panel 1 draws its chains), and the
// held-out bound and log-likelihood (exact or importance-sampled) over training.
import { makeChart, COLORS } from '../charts.js';
import { Panel, fmt } from './panel.js';

const PER_ROW = 8;

class DarnPanel extends Panel {
  constructor(section, demo) {
    super(section, demo);
    this.grids = section.querySelector('.grids');
  }
  clear() {
    super.clear();
    this.grids.innerHTML = '';
    this.rows = null;
    this.lastSamples = null;
    if (this.chart) this.chart.destroy();
    // step, training bound, held-out bound, held-out log p(x), its upper and lower 95% limits
    this.data = [[], [], [], [], [], []];
    this.chart = makeChart(this.el.querySelector('.darn-chart'), {
      xLabel: 'updates', yLabel: 'nats per image',
      series: [
        { label: 'training bound', color: COLORS.train, width: 1 },
        { label: 'held-out bound', color: COLORS.held },
        { label: 'held-out log p(x)', color: COLORS.reference },
        { label: '+95%', color: 'rgba(220,38,38,0.35)', width: 1 },
        { label: '−95%', color: 'rgba(220,38,38,0.35)', width: 1 },
      ],
      bands: [[4, 5, 'rgba(220,38,38,0.12)']],
    });
    this.statsEl.textContent = '';
    this.state.sampleChanges = 0;
    this.state.evaluations = 0;
    this.state.firstEvaluation = null;
    this.state.lastEvaluation = null;
  }
  buildRows(nRows) {
    this.grids.innerHTML = '';
    this.rows = [];
    for (let r = 0; r < nRows; ++r) {
      const row = document.createElement('div');
      row.className = 'grid-row';
      const canvas = document.createElement('canvas');
      canvas.width = PER_ROW * 29 - 1;
      canvas.height = 28;
      canvas.style.width = `${(PER_ROW * 29 - 1) * 2}px`;
      canvas.style.height = '56px';
      row.append(canvas);
      this.grids.append(row);
      const ctx = canvas.getContext('2d');
      this.rows.push({ canvas, ctx, image: ctx.createImageData(canvas.width, 28) });
    }
  }
  drawSamples(samples, n) {
    const nRows = Math.ceil(n / PER_ROW);
    if (!this.rows || this.rows.length !== nRows) this.buildRows(nRows);
    for (let r = 0; r < nRows; ++r) {
      const { canvas, ctx, image } = this.rows[r];
      const px = image.data;
      px.fill(255);
      for (let k = 0; k < PER_ROW && r * PER_ROW + k < n; ++k) {
        const base = (r * PER_ROW + k) * 784;
        for (let y = 0; y < 28; ++y) {
          for (let x = 0; x < 28; ++x) {
            const on = samples[base + y * 28 + x];
            const o = 4 * (y * canvas.width + k * 29 + x);
            const v = on ? 20 : 245;
            px[o] = v; px[o + 1] = v; px[o + 2] = on ? 40 : 250; px[o + 3] = 255;
          }
        }
      }
      ctx.putImageData(image, 0, 0);
    }
  }
  progress(msg) {
    const { samples } = msg;
    if (this.lastSamples && this.lastSamples.length === samples.length) {
      for (let i = 0; i < samples.length; ++i) {
        if (samples[i] !== this.lastSamples[i]) {
          this.state.sampleChanges++;
          break;
        }
      }
    }
    this.lastSamples = samples;
    this.drawSamples(samples, msg.nSamples);
    // The training bound after every slice; the held-out figures where an evaluation landed.
    this.data[0].push(msg.steps);
    this.data[1].push(msg.trainBound);
    for (let k = 2; k < 6; ++k) this.data[k].push(null);
    for (const e of msg.evaluations) {
      const row = [e.step, null, e.bound, e.logP, e.logP + e.halfWidth, e.logP - e.halfWidth];
      const i = this.data[0].length - 1;
      row.forEach((v, k) => this.data[k].splice(i, 0, v));
      this.state.evaluations++;
      if (!this.state.firstEvaluation) this.state.firstEvaluation = e;
      this.state.lastEvaluation = e;
    }
    this.chart.setData(this.data);
    this.rateEl.textContent = `${fmt(msg.updatesPerSecond, 0)} updates/s · ${fmt(msg.samplesPerSecond, 0)} samples/s`;
    const e = this.state.lastEvaluation;
    const interval = e && e.halfWidth > 0 ? ` ± ${fmt(e.halfWidth)}` : '';
    this.statsEl.innerHTML = `<div><b>network</b> ${msg.sizes.join('–')}</div>
      <div><b>training bound</b> ${fmt(msg.trainBound)}</div>
      ${e ? `<div><b>held-out bound</b> ${fmt(e.bound)}</div>
      <div><b>held-out log p(x)</b> ${fmt(e.logP)}${interval} (${e.method}, at ${e.step} updates)</div>
      <div><b>gap</b> ${fmt(e.logP - e.bound)} nats</div>` : ''}`;
  }
}

export default { kind: 'darn', requires: 'hasDarn', after: 'sampling', View: DarnPanel };
