import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import {
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  handleAll,
  isBrokenCircuitError,
  isTaskCancelledError,
  type IPolicy,
  timeout,
  TimeoutStrategy,
  wrap,
} from 'cockatiel';
import type { Counter, Gauge } from 'prom-client';

export const UPI_CIRCUIT = 'upiValidation';
export const AI_CIRCUIT = 'aiCircuitBreaker';

export type CircuitStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN' | 'ISOLATED';
export type CallOutcome = 'success' | 'failure' | 'timeout' | 'rejected';

const CIRCUIT_STATE_METRIC = 'payments_circuit_breaker_state';
const CIRCUIT_CALLS_METRIC = 'payments_circuit_breaker_calls_total';

export const circuitMetricProviders = [
  makeGaugeProvider({
    name: CIRCUIT_STATE_METRIC,
    help: 'Circuit breaker state: 0 closed, 1 open, 2 half-open, 3 isolated',
    labelNames: ['name'],
  }),
  makeCounterProvider({
    name: CIRCUIT_CALLS_METRIC,
    help: 'Calls through a circuit breaker by outcome (rejected = refused while open)',
    labelNames: ['name', 'outcome'],
  }),
];

const STATE_NAMES: Record<CircuitState, CircuitStateName> = {
  [CircuitState.Closed]: 'CLOSED',
  [CircuitState.Open]: 'OPEN',
  [CircuitState.HalfOpen]: 'HALF_OPEN',
  [CircuitState.Isolated]: 'ISOLATED',
};

export interface CircuitOptions {
  timeoutMs: number;
  /** Consecutive failures that open the circuit. */
  threshold: number;
  /** How long it stays open before one trial call is let through. */
  halfOpenAfterMs: number;
}

/** A named timeout + consecutive-failure breaker whose state and outcomes are visible to health and metrics. */
export interface GuardedCall {
  readonly name: string;
  readonly state: CircuitStateName;
  /**
   * Open, but its half-open delay has passed: the next call is the trial. Readiness counts such
   * a circuit as ready, since an instance out of rotation gets no call to try with.
   */
  readonly trialDue: boolean;
  execute<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** The service's circuit breakers, by name (cockatiel policies). */
@Injectable()
export class CircuitBreakers {
  private readonly circuits = new Map<string, GuardedCall>();

  constructor(
    @InjectMetric(CIRCUIT_STATE_METRIC) private readonly stateGauge: Gauge,
    @InjectMetric(CIRCUIT_CALLS_METRIC) private readonly callCounter: Counter,
  ) {}

  create(name: string, options: CircuitOptions): GuardedCall {
    const breaker = circuitBreaker(handleAll, {
      halfOpenAfter: options.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(options.threshold),
    });
    const policy: IPolicy = wrap(breaker, timeout(options.timeoutMs, TimeoutStrategy.Aggressive));
    let openedAt = 0;
    breaker.onStateChange((state) => {
      if (state === CircuitState.Open) openedAt = Date.now();
      this.stateGauge.set({ name }, state);
    });
    this.stateGauge.set({ name }, breaker.state);
    const circuit: GuardedCall = {
      name,
      get state() {
        return STATE_NAMES[breaker.state];
      },
      get trialDue() {
        return breaker.state === CircuitState.Open && Date.now() - openedAt >= options.halfOpenAfterMs;
      },
      execute: async <T>(call: (signal: AbortSignal) => Promise<T>) => {
        try {
          const result = await policy.execute(({ signal }) => call(signal));
          this.callCounter.inc({ name, outcome: 'success' });
          return result as T;
        } catch (error) {
          this.callCounter.inc({ name, outcome: outcomeOf(error) });
          throw error;
        }
      },
    };
    this.circuits.set(name, circuit);
    return circuit;
  }

  /** Every circuit's state, for health and readiness. */
  states(): Record<string, CircuitStateName> {
    return Object.fromEntries([...this.circuits].map(([name, circuit]) => [name, circuit.state]));
  }

  /** Circuits that refuse calls right now: open (or isolated) and not yet due for a trial call. */
  refusing(): string[] {
    return [...this.circuits.values()]
      .filter((c) => c.state === 'ISOLATED' || (c.state === 'OPEN' && !c.trialDue))
      .map((c) => c.name);
  }
}

function outcomeOf(error: unknown): CallOutcome {
  if (isBrokenCircuitError(error)) return 'rejected';
  if (isTaskCancelledError(error)) return 'timeout';
  return 'failure';
}
