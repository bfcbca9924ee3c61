import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartType,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Tooltip,
} from 'chart.js';

// Only what the three chart kinds use, so the bundle carries nothing else of Chart.js.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, PieController, ArcElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface ChartColors {
  text: string;
  grid: string;
  series: string[];
}

export interface Series {
  labels: string[];
  values: number[];
}

/** A chart in `canvas`, sized by its container (responsive), drawn at once (no animation to wait for). */
export function drawChart(canvas: HTMLCanvasElement, kind: 'line' | 'bar' | 'pie', series: Series, colors: ChartColors, valueName: string): Chart {
  const type: ChartType = kind;
  const pie = kind === 'pie';
  const axes = {
    x: { ticks: { color: colors.text }, grid: { color: colors.grid } },
    y: { beginAtZero: true, ticks: { color: colors.text }, grid: { color: colors.grid } },
  };
  return new Chart(canvas, {
    type,
    data: {
      labels: series.labels,
      datasets: [
        {
          label: valueName,
          data: series.values,
          backgroundColor: pie ? series.labels.map((_, index) => colors.series[index % colors.series.length]) : colors.series[0],
          borderColor: pie ? colors.grid : colors.series[0],
          borderWidth: pie ? 1 : 2,
          tension: 0.25,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: colors.text,
      plugins: { legend: { display: pie, labels: { color: colors.text } } },
      scales: pie ? {} : axes,
    },
  });
}
