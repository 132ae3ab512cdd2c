import { Injectable, Logger } from '@nestjs/common';
import { isBrokenCircuitError, isTaskCancelledError } from 'cockatiel';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { CircuitBreakers, type GuardedCall, UPI_CIRCUIT } from '../resilience/circuit-breakers';

const MAX_CACHED_IDS = 100_000;

class ProviderFailure extends Error {}

/**
 * The external UPI verification provider (docs/decisions/0004-provider-contracts.md), behind the `upiValidation` circuit:
 * a timeout and a consecutive-failure breaker. Accepted IDs are cached briefly; rejections are not,
 * so a corrected registration at the provider takes effect at once. Without UPI_VERIFICATION_URL
 * only the format rules apply.
 */
@Injectable()
export class UpiVerificationService {
  private readonly logger = new Logger(UpiVerificationService.name);
  private readonly circuit: GuardedCall;
  /** Lower-cased UPI ID → expiry (ms since epoch); insertion order doubles as age for eviction. */
  private readonly accepted = new Map<string, number>();

  constructor(
    private readonly config: AppConfig,
    circuits: CircuitBreakers,
  ) {
    this.circuit = circuits.create(UPI_CIRCUIT, {
      timeoutMs: config.upiVerificationTimeoutMs,
      threshold: config.upiCircuitThreshold,
      halfOpenAfterMs: config.upiCircuitHalfOpenMs,
    });
  }

  get enabled(): boolean {
    return this.config.upiVerificationUrl !== undefined;
  }

  /** Resolves when the provider accepts the ID; 422 invalid-upi-id when it rejects it; 503 when it cannot say. */
  async verify(upiId: string): Promise<void> {
    if (!this.enabled || this.isCachedAsAccepted(upiId)) return;
    let verdict: { valid: boolean; reason?: string };
    try {
      verdict = await this.circuit.execute((signal) => this.ask(upiId, signal));
    } catch (error) {
      throw this.unavailable(error);
    }
    if (!verdict.valid) {
      const reason = verdict.reason ? `: ${verdict.reason}` : '';
      throw new ApiError(ErrorCode.InvalidUpiId, `UPI ID ${upiId} was rejected by the verification provider${reason}`);
    }
    this.remember(upiId);
  }

  private async ask(upiId: string, signal: AbortSignal): Promise<{ valid: boolean; reason?: string }> {
    const response = await fetch(this.config.upiVerificationUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ upiId }),
      signal,
    });
    if (!response.ok) throw new ProviderFailure(`provider answered ${response.status}`);
    const body = (await response.json().catch(() => undefined)) as { valid?: unknown; reason?: unknown } | undefined;
    if (typeof body?.valid !== 'boolean') throw new ProviderFailure('provider answered without a boolean "valid"');
    return { valid: body.valid, reason: typeof body.reason === 'string' ? body.reason : undefined };
  }

  private unavailable(error: unknown): ApiError {
    const why = isBrokenCircuitError(error)
      ? `the ${UPI_CIRCUIT} circuit is open after repeated provider failures`
      : isTaskCancelledError(error)
        ? `the provider did not answer within ${this.config.upiVerificationTimeoutMs} ms (circuit ${UPI_CIRCUIT})`
        : `the provider failed (circuit ${UPI_CIRCUIT}): ${(error as Error).message}`;
    this.logger.warn(`UPI verification unavailable: ${why}`);
    return new ApiError(ErrorCode.ServiceUnavailable, `UPI verification is unavailable: ${why}; retry later`, {
      headers: { 'Retry-After': '5' },
    });
  }

  private isCachedAsAccepted(upiId: string): boolean {
    const key = upiId.toLowerCase();
    const expiry = this.accepted.get(key);
    if (expiry === undefined) return false;
    if (expiry > Date.now()) return true;
    this.accepted.delete(key);
    return false;
  }

  private remember(upiId: string): void {
    if (this.config.upiVerificationCacheTtlMs === 0) return;
    const key = upiId.toLowerCase();
    this.accepted.delete(key);
    this.accepted.set(key, Date.now() + this.config.upiVerificationCacheTtlMs);
    if (this.accepted.size > MAX_CACHED_IDS) this.accepted.delete(this.accepted.keys().next().value!);
  }
}
