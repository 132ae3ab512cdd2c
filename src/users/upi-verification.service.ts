import { Injectable, Logger } from '@nestjs/common';
import { isBrokenCircuitError, isTaskCancelledError } from 'cockatiel';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { findControlCharacters } from '../common/http/control-characters';
import { AppConfig } from '../config/app-config';
import { CircuitBreakers, type GuardedCall, UPI_CIRCUIT } from '../resilience/circuit-breakers';

const MAX_CACHED_IDS = 100_000;

/** The registration rule for a name: a provider's longer or blank one is treated as none. */
const MAX_NAME_LENGTH = 100;

class ProviderFailure extends Error {}

interface ProviderVerdict {
  valid: boolean;
  reason?: string;
  /** The account holder's name, when the provider answers one with an acceptance. */
  name?: string;
}

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
    let verdict: ProviderVerdict;
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

  /**
   * The account holder's name as the provider knows it, or undefined: no provider, no name in its
   * answer, a rejection, a failure or the open circuit. Never throws: the caller has a name of its own.
   */
  async nameOf(upiId: string): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    try {
      const verdict = await this.circuit.execute((signal) => this.ask(upiId, signal));
      if (verdict.valid) this.remember(upiId);
      return verdict.valid ? verdict.name : undefined;
    } catch (error) {
      this.logger.warn(
        `UPI verification gave no payee name, the registered one answers: ${this.whyUnavailable(error)}`,
      );
      return undefined;
    }
  }

  private async ask(upiId: string, signal: AbortSignal): Promise<ProviderVerdict> {
    const response = await fetch(this.config.upiVerificationUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ upiId }),
      signal,
    });
    if (!response.ok) throw new ProviderFailure(`provider answered ${response.status}`);
    const body = (await response.json().catch(() => undefined)) as
      { valid?: unknown; reason?: unknown; name?: unknown } | undefined;
    if (typeof body?.valid !== 'boolean') throw new ProviderFailure('provider answered without a boolean "valid"');
    return {
      valid: body.valid,
      reason: typeof body.reason === 'string' ? body.reason : undefined,
      name: accountHolderName(body.name),
    };
  }

  private whyUnavailable(error: unknown): string {
    return isBrokenCircuitError(error)
      ? `the ${UPI_CIRCUIT} circuit is open after repeated provider failures`
      : isTaskCancelledError(error)
        ? `the provider did not answer within ${this.config.upiVerificationTimeoutMs} ms (circuit ${UPI_CIRCUIT})`
        : `the provider failed (circuit ${UPI_CIRCUIT}): ${(error as Error).message}`;
  }

  private unavailable(error: unknown): ApiError {
    const why = this.whyUnavailable(error);
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

/** A name a client may show: a non-blank string of at most 100 characters without control characters. */
function accountHolderName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim();
  const printable = findControlCharacters(name).length === 0;
  return name.length > 0 && name.length <= MAX_NAME_LENGTH && printable ? name : undefined;
}
