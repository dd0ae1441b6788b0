// A small bar chart of 24 hourly buckets in inline SVG: sent and received side by side per hour,
// failed deliveries as a red mark on top. It carries a text summary for screen readers.
import type { HourCounts } from '../types';

export interface HourlyChartProps {
  hours: HourCounts[];
  /** What the chart shows, said by screen readers before the summary. */
  label: string;
  /** The drawing's size in its own units; the chart fills its container's width at this aspect ratio. */
  width?: number;
  height?: number;
}

function hourLabel(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : String(d.getHours()).padStart(2, '0');
}

export function HourlyChart({ hours, label, width = 288, height = 72 }: HourlyChartProps) {
  const max = Math.max(1, ...hours.map((h) => Math.max(h.sent, h.received, h.deliveries_failed)));
  const slot = width / Math.max(1, hours.length);
  const bar = Math.max(1, slot / 2 - 1);
  const plot = height - 14;
  const scale = (n: number) => (n === 0 ? 0 : Math.max(1.5, (n / max) * (plot - 4)));
  const total = (key: keyof Omit<HourCounts, 'hour'>) => hours.reduce((sum, h) => sum + h[key], 0);
  const busiest = hours.reduce<HourCounts | null>((best, h) => (!best || h.sent + h.received > best.sent + best.received ? h : best), null);
  const summary = `${label}: ${total('sent')} sent, ${total('received')} received, ${total('deliveries_failed')} failed deliveries in 24 hours${
    busiest && busiest.sent + busiest.received > 0 ? `; busiest hour ${hourLabel(busiest.hour)}:00 with ${busiest.sent + busiest.received} messages` : ''
  }.`;

  return (
    <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <line className="chart-axis" x1={0} y1={plot + 0.5} x2={width} y2={plot + 0.5} />
      {hours.map((h, i) => {
        const x = i * slot;
        return (
          <g key={h.hour}>
            <rect className="chart-sent" x={x + 0.5} y={plot - scale(h.sent)} width={bar} height={scale(h.sent)} />
            <rect className="chart-received" x={x + 0.5 + bar + 0.5} y={plot - scale(h.received)} width={bar} height={scale(h.received)} />
            {h.deliveries_failed > 0 ? (
              <rect className="chart-failed" x={x + 0.5} y={Math.max(0, plot - scale(h.deliveries_failed))} width={bar * 2 + 0.5} height={2.5} />
            ) : null}
            {i % 6 === 0 ? (
              <text className="chart-label" x={x + 1} y={height - 2}>
                {hourLabel(h.hour)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
