import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { UpiVerificationService } from '../users/upi-verification.service';
import { UsersService } from '../users/users.service';
import type { PayeeResponse } from './payee.dto';

/** The name a payer sees before confirming a payment (NPCI OC-101A). */
@Injectable()
export class PayeesService {
  constructor(
    private readonly users: UsersService,
    private readonly verification: UpiVerificationService,
  ) {}

  /** Only registered users can be paid, so only they are looked up: the provider is never asked about others. */
  async lookUp(upiId: string): Promise<PayeeResponse> {
    const payee = await this.users.findByUpiId(upiId);
    if (!payee) throw new ApiError(ErrorCode.UserNotFound, `No user with UPI ID ${upiId}`);
    const providerName = await this.verification.nameOf(payee.upiId);
    return { upiId: payee.upiId, name: providerName ?? payee.name };
  }
}
