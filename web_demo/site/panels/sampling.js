// Panel 1, sampling with parallel tempering (RBM family): the persistent chains of every temperature drawn as
// image grids, each neighbouring pair's swap rate, and a chart of the swap rates over training.
import { makeChart, paletteColor } from '../charts.js';
import { Panel, fmt } from './panel.js';

class SamplingPanel extends Panel {
  constructor(section, demo) {
    super(section, demo);
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

export default { kind: 'sampling', requires: null, View: SamplingPanel };
