import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import Big from 'big.js';
import type { Pool } from 'pg';
import { hashPin } from '../access/pin-hash';
import { ApiError, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';
import { formatMoney } from '../common/money/money';
import { type Page, type PageRequest, toPage } from '../common/paging/page';
import { AppConfig } from '../config/app-config';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import { LedgerEntriesRepository } from '../ledger/ledger-entries.repository';
import { UpiVerificationService } from './upi-verification.service';
import { type UserRow, type UserSortKey, UsersRepository } from './users.repository';

export { USER_SORT_KEYS } from './users.repository';

export interface NewUser {
  name: string;
  upiId: string;
  phoneNumber: string;
  balance: Big;
  pin?: string;
}

@Injectable()
export class UsersService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly users: UsersRepository,
    private readonly ledger: LedgerEntriesRepository,
    private readonly upiVerification: UpiVerificationService,
    private readonly config: AppConfig,
  ) {}

  /** The user and the opening CREDIT of their balance commit together, so balance = credits - debits from the start. */
  async register(input: NewUser): Promise<UserRow> {
    this.checkRegistrationRules(input);
    await this.upiVerification.verify(input.upiId);
    const { pin, balance, ...fields } = input;
    const pinHash = pin === undefined ? null : await hashPin(pin);
    try {
      return await inTransaction(this.pool, async (client) => {
        const user = await this.users.insert(client, {
          ...fields,
          balance: formatMoney(balance),
          pinHash,
          referenceId: randomUUID(),
        });
        if (!balance.eq(0)) await this.ledger.recordOpeningBalance(client, user.id);
        return user;
      });
    } catch (error) {
      if (pgErrorCode(error) === PgErrorCode.UniqueViolation) {
        throw new ApiError(ErrorCode.DuplicateUpiId, `UPI ID ${input.upiId} is already registered`);
      }
      throw error;
    }
  }

  /** The rules that depend on configuration, checked before anything is called or written. */
  private checkRegistrationRules(input: NewUser): void {
    const errors: Record<string, string> = {};
    if (this.config.authPinRequired && input.pin === undefined) errors.pin = 'pin is required';
    if (input.balance.gt(new Big(this.config.openingBalanceMax))) {
      errors.balance = `balance must not exceed ${this.config.openingBalanceMax}`;
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  findByReferenceId(referenceId: string): Promise<UserRow | null> {
    return this.users.findByReferenceId(referenceId);
  }

  findByUpiId(upiId: string): Promise<UserRow | null> {
    return this.users.findByUpiId(upiId);
  }

  findForLogin(upiId: string): Promise<UserRow | null> {
    return this.users.findForLogin(upiId);
  }

  async list(request: PageRequest<UserSortKey>): Promise<Page<UserRow>> {
    const { total, rows } = await this.users.findPage(request.sortBy, request);
    return toPage(rows, request, total);
  }

  listWithBalanceAbove(threshold: Big): Promise<UserRow[]> {
    return this.users.findWithBalanceAbove(threshold.toFixed(4));
  }
}
