import { Injectable } from '@nestjs/common';

/**
 * The one place a UPI ID is checked with the external verification provider
 * (CONTRACTS.md). Called on registration and, later, for a transfer's receiver.
 * Until the provider client lands, only the format rules apply: every ID passes.
 */
@Injectable()
export class UpiVerificationService {
  async verify(_upiId: string): Promise<void> {}
}
