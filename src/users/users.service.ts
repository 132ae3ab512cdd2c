import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import Big from 'big.js';
import { DataSource, type Repository } from 'typeorm';
import { hashPin } from '../access/pin-hash';
import { ApiError, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { type ListRequest, type Page, type PageRequest, toPage } from '../common/paging/page';
import { AppConfig } from '../config/app-config';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';
import { LedgerService } from '../ledger/ledger.service';
import { UpiVerificationService } from './upi-verification.service';
import { AccountKind, User } from './user.entity';

export const USER_SORT_KEYS = ['userId', 'name', 'upiId', 'balance', 'createdAt'] as const;
export type UserSortKey = (typeof USER_SORT_KEYS)[number];

const SORT_COLUMNS: Record<UserSortKey, string> = {
  userId: 'u.id',
  name: 'u.name',
  upiId: 'u.upiId',
  balance: 'u.balance',
  createdAt: 'u.createdAt',
};

export interface NewUser {
  name: string;
  upiId: string;
  phoneNumber: string;
  balance: Big;
  pin?: string;
}

@Injectable()
export class UsersService {
  private readonly users: Repository<User>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly upiVerification: UpiVerificationService,
    private readonly config: AppConfig,
  ) {
    this.users = dataSource.getRepository(User);
  }

  /** The user and the opening CREDIT of their balance commit together, so balance = credits - debits from the start. */
  async register(input: NewUser): Promise<User> {
    this.checkRegistrationRules(input);
    await this.upiVerification.verify(input.upiId);
    const { pin, ...fields } = input;
    const pinHash = pin === undefined ? null : await hashPin(pin);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const users = manager.getRepository(User);
        const user = await users.save(users.create({ ...fields, pinHash, referenceId: randomUUID() }));
        delete user.pinHash;
        await this.ledger.recordOpeningBalance(manager, user);
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

  findByReferenceId(referenceId: string): Promise<User | null> {
    return this.users.findOneBy({ referenceId });
  }

  findByUpiId(upiId: string): Promise<User | null> {
    return this.users.createQueryBuilder('u').where('lower(u.upi_id) = lower(:upiId)', { upiId }).getOne();
  }

  /** The one read that includes the PIN hash: login compares it and nothing else sees it. */
  findForLogin(upiId: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .addSelect('u.pinHash')
      .where('lower(u.upi_id) = lower(:upiId)', { upiId })
      .getOne();
  }

  async list(request: PageRequest<UserSortKey>): Promise<Page<User>> {
    const [content, total] = await this.users
      .createQueryBuilder('u')
      .where('u.kind = :kind', { kind: AccountKind.User })
      .orderBy(SORT_COLUMNS[request.sortBy], 'ASC')
      .addOrderBy('u.id', 'ASC')
      .offset(request.page * request.size)
      .limit(request.size)
      .getManyAndCount();
    return toPage(content, request, total);
  }

  listWithBalanceAbove(threshold: Big): Promise<User[]> {
    return this.users
      .createQueryBuilder('u')
      .where('u.balance > :threshold', { threshold: threshold.toFixed(4) })
      .andWhere('u.kind = :kind', { kind: AccountKind.User })
      .orderBy('u.id', 'ASC')
      .getMany();
  }

  /** An offset page of the ledger of the account with this reference ID, with that account's owner fields. */
  ledgerPageOf(referenceId: string, request: PageRequest) {
    return this.ledger.ownedPage(referenceId, request);
  }

  ledgerOf(user: User, request: ListRequest) {
    return this.ledger.history(user.id, request);
  }
}
