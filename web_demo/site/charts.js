// Chart helpers over uPlot (vendored from npm by the build): line charts with ±2σ bands, reference points,
// a vertical marker (the early-stopping point) and shaded x ranges (the tracker's warnings).
import uPlot from './vendor/uPlot.esm.js';

export const COLORS = {
  tracked: '#2563eb', trackedBand: 'rgba(37, 99, 235, 0.15)', reference: '#dc2626',
  train: '#059669', trainBand: 'rgba(5, 150, 105, 0.15)', held: '#7c3aed', heldBand: 'rgba(124, 58, 237, 0.15)',
  marker: '#f59e0b', grid: 'rgba(0,0,0,0.07)', warning: 'rgba(245, 158, 11, 0.18)',
};

const PALETTE = ['#2563eb', '#dc2626', '#059669', '#7c3aed', '#f59e0b', '#0891b2', '#db2777', '#65a30d',
                 '#9333ea', '#ea580c', '#0d9488', '#4f46e5'];
export const paletteColor = (i) => PALETTE[i % PALETTE.length];

const axis = (label) => ({ label, stroke: '#334155', grid: { stroke: COLORS.grid }, ticks: { stroke: COLORS.grid } });

/** A vertical dashed line at x = getX() (null: none), labelled. */
function markerPlugin(getX, label) {
  return {
    hooks: {
      draw: (u) => {
        const x = getX();
        if (x == null) return;
        const px = u.valToPos(x, 'x', true);
        const { ctx } = u;
        ctx.save();
        ctx.strokeStyle = COLORS.marker;
        ctx.lineWidth = 2 * devicePixelRatio;
        ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(px, u.bbox.top);
        ctx.lineTo(px, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = COLORS.marker;
        ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
        ctx.fillText(label, px + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
        ctx.restore();
      },
    },
  };
}

/** Vertical bands behind the series over the x ranges getRanges() returns ([[x0, x1], ...]). */
function shadePlugin(getRanges, color) {
  return {
    hooks: {
      drawClear: (u) => {
        const { ctx } = u;
        const { left, top, width, height } = u.bbox;
        ctx.save();
        ctx.fillStyle = color;
        for (const [x0, x1] of getRanges()) {
          // Clipped to the plot area: a zoomed-in chart shows the part of a range inside it.
          const a = Math.max(left, u.valToPos(x0, 'x', true));
          const b = Math.min(left + width, u.valToPos(x1, 'x', true));
          if (b > a) ctx.fillRect(a, top, b - a, height);
        }
        ctx.restore();
      },
    },
  };
}

/**
 * A chart whose series are described by spec: [{label, color, band: 'name of series to band with', points:true}].
 * data: [xs, ...ys] arrays (null = no value). shade: {getRanges, color}, x ranges shaded behind the series.
 */
export function makeChart(el, { xLabel, yLabel, series, bands = [], marker = null, shade = null, height = 260 }) {
  const opts = {
    width: Math.max(320, el.clientWidth || 600),
    height,
    scales: { x: { time: false } },
    axes: [axis(xLabel), axis(yLabel)],
    series: [{ label: xLabel }, ...series.map((s) => ({
      label: s.label,
      stroke: s.color,
      width: s.points ? 0 : (s.width ?? 2),
      fill: s.fill,
      dash: s.dash,
      spanGaps: s.points ? false : true,
      show: s.show ?? true,
      points: s.points ? { show: true, size: 8, fill: s.color, stroke: '#fff', width: 1 } : { show: false },
      paths: s.points ? () => null : undefined,
      value: (u, v) => (v == null ? '–' : v.toFixed(s.digits ?? 2)),
    }))],
    bands: bands.map(([a, b, fill]) => ({ series: [a, b], fill })),
    legend: { live: true },
    cursor: { drag: { x: true, y: false } },
    plugins: [...(marker ? [markerPlugin(marker.getX, marker.label)] : []),
              ...(shade ? [shadePlugin(shade.getRanges, shade.color)] : [])],
  };
  const empty = [[], ...series.map(() => [])];
  const u = new uPlot(opts, empty, el);
  const ro = new ResizeObserver(() => u.setSize({ width: Math.max(320, el.clientWidth), height }));
  ro.observe(el);
  return u;
}
