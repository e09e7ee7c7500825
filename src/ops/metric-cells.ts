import type client from 'prom-client';

/**
 * Counters and histograms whose label sets are resolved once, for the per-request metrics (issue 29's cost budget).
 * prom-client hashes and validates the label object on every `inc`/`observe` (its `labels()` children too), about
 * 1 µs a call; here a label set is resolved to a cell the first time it is seen (the sets are bounded: kinds,
 * decisions, capped rule ids, configured servers), and counting is then a number increment. The registry reads the
 * cells only when /metrics is scraped; the text is prom-client's own formatting of `get()`.
 */
export interface CounterCell {
  inc(by?: number): void;
}
export interface HistogramCell {
  observe(seconds: number): void;
}

interface Exported {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** A family of cells registered as one metric; `T` is the cell. */
abstract class CellFamily<T> {
  protected readonly cells = new Map<string, { labels: Record<string, string>; cell: T }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: client.Registry,
  ) {
    // prom-client reads any metric through `get()` (text and JSON alike) and `reset()`; its own classes are not needed.
    registry.registerMetric(this as unknown as client.Metric);
  }

  /** The cell of one label set (values in the order of the label names). */
  at(...values: string[]): T {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let found = this.cells.get(key);
    if (!found) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, k) => (labels[n] = values[k] ?? ''));
      found = { labels, cell: this.create() };
      this.cells.set(key, found);
    }
    return found.cell;
  }

  /** Zeroes every cell in place (cells already handed out keep counting). */
  reset(): void {
    for (const { cell } of this.cells.values()) this.zero(cell);
  }

  protected abstract create(): T;
  protected abstract zero(cell: T): void;
}

export class CounterFamily extends CellFamily<CounterCell & { value: number }> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  protected create() {
    const cell = {
      value: 0,
      inc(by = 1) {
        cell.value += by;
      },
    };
    return cell;
  }

  protected zero(cell: { value: number }) {
    cell.value = 0;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Exported[] }> {
    const values = [...this.cells.values()].map(({ labels, cell }) => ({ value: cell.value, labels }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

export class HistogramFamily extends CellFamily<HistogramCell & { counts: Float64Array; sum: number; count: number }> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  constructor(name: string, help: string, labelNames: readonly string[], private readonly bounds: readonly number[], registry: client.Registry) {
    super(name, help, labelNames, registry);
  }

  protected create() {
    const bounds = this.bounds;
    const cell = {
      counts: new Float64Array(bounds.length),
      sum: 0,
      count: 0,
      observe(v: number) {
        if (!Number.isFinite(v)) return;
        cell.sum += v;
        cell.count += 1;
        for (let k = 0; k < bounds.length; k++) {
          if (v <= bounds[k]!) {
            cell.counts[k]! += 1;
            return;
          }
        }
      },
    };
    return cell;
  }

  protected zero(cell: { counts: Float64Array; sum: number; count: number }) {
    cell.counts.fill(0);
    cell.sum = 0;
    cell.count = 0;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Exported[] }> {
    const values: Exported[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, cell } of this.cells.values()) {
      let acc = 0;
      this.bounds.forEach((le, k) => {
        acc += cell.counts[k]!;
        values.push({ value: acc, labels: { le, ...labels }, metricName: bucket });
      });
      values.push({ value: cell.count, labels: { le: '+Inf', ...labels }, metricName: bucket });
      values.push({ value: cell.sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: cell.count, labels, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
