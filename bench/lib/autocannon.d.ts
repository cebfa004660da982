declare module "autocannon" {
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface Client {
    setHeaders(headers: Record<string, string>): void;
  }
  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    setupClient?: (client: Client) => void;
  }
  export interface Result {
    duration: number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  }
  /** What autocannon returns without a callback: the result's promise, and its events. */
  export interface Instance extends Promise<Result> {
    /** Every response, with its time in milliseconds (a float; the result's histogram holds whole milliseconds). */
    on(
      event: "response",
      listener: (client: Client, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
