import type { SpanExporter } from "@opentelemetry/sdk-trace";
import type { RunTracer } from "../dispatch/observe.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import type { MonitorTracer } from "./run-spans.ts";

/** Options of {@link startTracing}. */
export interface TracingOptions {
  /** The OTLP/HTTP traces URL (from OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT); unset and no `exporter`: tracing is off. */
  url?: string;
  /** An exporter of the caller's (tests: an InMemorySpanExporter), fed span by span. */
  exporter?: SpanExporter;
  /** `service.instance.id` of the resource. */
  instanceId: string;
  /** `service.name`. @default OTEL_SERVICE_NAME, else "tai42" */
  serviceName?: string;
}

/** A runtime's tracing: what the chokepoint and the monitor extension use, and its shutdown (flushes). */
export interface Tracing {
  runs: RunTracer;
  monitor: MonitorTracer;
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for one runtime, or returns null when it is off (no
 * endpoint, no exporter): then nothing is loaded and the chokepoint's only cost is an
 * `undefined` check. The tracer provider belongs to the runtime and is never made
 * global, so several runtimes in one process keep their spans apart. The context
 * manager (AsyncLocalStorage) is global by OpenTelemetry's design; it is installed
 * once, when none is, so that spans started inside a body (a monitor span, a child
 * run, the user's own instrumentation) become children of its attempt's span.
 */
export async function startTracing(options: TracingOptions, secrets: Scrubber): Promise<Tracing | null> {
  if (!options.url && !options.exporter) return null;
  const [api, sdk, hooks, resources, spans] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/resources"),
    import("./run-spans.ts"),
  ]);
  const manager = new hooks.AsyncLocalStorageContextManager().enable();
  // Another runtime (or the application's own SDK) installed one already: that one serves.
  if (!api.context.setGlobalContextManager(manager)) manager.disable();
  let processor;
  if (options.exporter) processor = new sdk.SimpleSpanProcessor({ exporter: options.exporter });
  else {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    processor = new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.url }) });
  }
  const resource = resources.resourceFromAttributes({
    "service.name": options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "tai42",
    "service.instance.id": options.instanceId,
  });
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer("tai42");
  return {
    runs: new spans.OtelRunTracer(tracer, secrets),
    monitor: new spans.MonitorTracer(tracer),
    shutdown: () => provider.shutdown(),
  };
}
