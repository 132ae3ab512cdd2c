import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { ValidationPipe } from '@nestjs/common';
import {
  Allow,
  Equals,
  IsDefined,
  IsOptional,
  IsString,
  Validate,
  validate,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import { LoginRequest } from '../../auth/login.dto';
import { RoleGrantRequest } from '../../auth/roles.controller';
import { FreezeRequest, LimitOverridesRequest } from '../../limits/limits.dto';
import { CreatePaymentRequest, PayPaymentRequest } from '../../payment-requests/payment-request.dto';
import { CreateScheduledTransferRequest } from '../../schedules/scheduled-transfer.dto';
import { ReversalRequest } from '../../transactions/reversal.dto';
import { TransferRequest } from '../../transactions/transfer.dto';
import { DepositRequest } from '../../treasury/deposit.dto';
import { RegisterUserRequest } from '../../users/user.dto';
import { CreateWebhookRequest } from '../../webhooks/webhook.dto';
import { JsonNumberText } from '../money/json-body';
import { acceptanceOf, compilable, type RequestClass } from './compiled-acceptance';
import { BODY_VALIDATION, createValidationPipe } from './validation';

type Body = Record<string, unknown>;

/** A valid body per request class; every test case is one of them with one field changed. */
const VALID: [RequestClass, () => Body][] = [
  [
    TransferRequest,
    () => ({ senderUpiId: 'alice@okbank', receiverUpiId: 'bob@okbank', amount: '100.50', note: 'dinner' }),
  ],
  [
    RegisterUserRequest,
    () => ({
      name: 'Alice',
      upiId: 'alice@okbank',
      phoneNumber: '9876543210',
      balance: new JsonNumberText('10'),
      pin: '482916',
    }),
  ],
  [LoginRequest, () => ({ upiId: 'alice@okbank', pin: '1234' })],
  [ReversalRequest, () => ({ amount: '5', note: 'refund' })],
  [DepositRequest, () => ({ upiId: 'alice@okbank', amount: new JsonNumberText('5000'), note: 'bank' })],
  [LimitOverridesRequest, () => ({ dailyAmountMax: '50000', dailyCountMax: new JsonNumberText('10') })],
  [FreezeRequest, () => ({ reason: 'Court order 2026/117' })],
  [RoleGrantRequest, () => ({ role: 'ROLE_ADMIN', granted: true })],
  [CreatePaymentRequest, () => ({ amount: '250.50', note: 'Dinner', expiresInSeconds: new JsonNumberText('900') })],
  [PayPaymentRequest, () => ({ amount: '250.5' })],
  [
    CreateScheduledTransferRequest,
    () => ({
      receiverUpiId: 'bob@okbank',
      amount: '10',
      frequency: 'MONTHLY',
      startAt: '2030-01-01T10:00:00+05:30',
      maxOccurrences: new JsonNumberText('12'),
    }),
  ],
];

/** What a field is changed to: absent, wrong types, edges of the rules, control characters. */
const REPLACEMENTS: (() => unknown)[] = [
  () => undefined,
  () => null,
  () => 0,
  () => 12.5,
  () => true,
  () => '',
  () => ' ',
  () => 'x'.repeat(101),
  () => 'x'.repeat(256),
  () => 'a\u0007b',
  () => ['alice@okbank'],
  () => ({}),
  () => '0.001',
  () => '-5',
  () => '1e3',
  () => '100.50',
  () => 'bob@okbank',
  () => 'ALICE@OKBANK',
  () => '123456',
  () => '12345',
  () => 'WEEKLY',
  () => new JsonNumberText('12.5'),
  () => new JsonNumberText('61'),
  () => new JsonNumberText('-1'),
  () => 'ADMIN',
];

function cases(valid: () => Body): Body[] {
  const list: Body[] = [valid(), { ...valid(), extra: 'dropped' }, {}];
  for (const field of Object.keys(valid())) {
    const { [field]: _dropped, ...without } = valid();
    list.push(without);
    for (const replacement of REPLACEMENTS) list.push({ ...valid(), [field]: replacement() });
  }
  return list;
}

async function byClassValidator(target: RequestClass, body: Body) {
  const entity = plainToInstance(target as new () => object, body);
  return { accepted: (await validate(entity, BODY_VALIDATION)).length === 0, entity };
}

function byAcceptance(target: RequestClass, body: Body) {
  const entity = plainToInstance(target as new () => object, body);
  return { accepted: acceptanceOf(target)!(entity as Body), entity };
}

describe('compiled acceptance of request bodies', () => {
  it.each(VALID.map(([target, valid]) => [target.name, target, valid] as const))(
    'accepts exactly the %s bodies class-validator accepts, and leaves the same instance',
    async (_name, target, valid) => {
      expect(acceptanceOf(target)).toBeDefined();
      let accepted = 0;
      const all = cases(valid);
      for (const body of all) {
        const expected = await byClassValidator(target, body);
        const actual = byAcceptance(target, body);
        expect({ body, accepted: actual.accepted }).toEqual({ body, accepted: expected.accepted });
        if (expected.accepted) {
          expect(actual.entity).toEqual(expected.entity);
          accepted += 1;
        }
      }
      // Both verdicts occur: the comparison is not vacuous.
      expect(accepted).toBeGreaterThan(1);
      expect(accepted).toBeLessThan(all.length);
    },
  );

  it('decides IsDefined and Allow as class-validator does', async () => {
    class Marked {
      @IsDefined() required!: unknown;
      @IsOptional() @IsDefined() @IsString() optional?: string;
      @Allow() anything?: unknown;
    }
    const bodies: Body[] = [
      { required: 0 },
      { required: null },
      {},
      { required: 1, optional: null },
      { required: 1, optional: 5 },
      { required: 1, optional: 'x', anything: { deep: [1] }, extra: true },
    ];
    const verdicts: boolean[] = [];
    for (const body of bodies) {
      const expected = await byClassValidator(Marked, body);
      const actual = byAcceptance(Marked, body);
      expect({ body, accepted: actual.accepted }).toEqual({ body, accepted: expected.accepted });
      if (expected.accepted) expect(actual.entity).toEqual(expected.entity);
      verdicts.push(actual.accepted);
    }
    expect(verdicts).toEqual([true, false, false, true, false, true]);
  });

  it('is what the pipe uses: a passing body never reaches class-validator, a failing one is worded by it', async () => {
    const pipe = createValidationPipe();
    const classValidator = jest.spyOn(ValidationPipe.prototype as unknown as { validate: () => unknown }, 'validate');
    try {
      const metadata = { type: 'body', metatype: TransferRequest } as const;
      const valid = { senderUpiId: 'alice@okbank', receiverUpiId: 'bob@okbank', amount: '10', extra: 1 };
      const accepted = await pipe.transform(valid, metadata);
      expect(accepted).toBeInstanceOf(TransferRequest);
      expect(accepted).not.toHaveProperty('extra');
      expect(classValidator).not.toHaveBeenCalled();
      await expect(pipe.transform({ ...valid, senderUpiId: 7 }, metadata)).rejects.toMatchObject({
        extras: { errors: { senderUpiId: 'senderUpiId must be a string' } },
      });
      expect(classValidator).toHaveBeenCalledTimes(1);
    } finally {
      classValidator.mockRestore();
    }
  });

  it('leaves a class with per-item or nested rules to class-validator', () => {
    class Inner {
      @IsString() name!: string;
    }
    class Nested {
      @ValidateNested() inner!: Inner;
    }
    expect(acceptanceOf(CreateWebhookRequest)).toBeUndefined();
    expect(acceptanceOf(Nested)).toBeUndefined();
    // A class without any rule is refused under forbidUnknownValues: class-validator says so.
    expect(acceptanceOf(class Bare {})).toBeUndefined();
  });

  it('does not accept on an asynchronous check, whatever it would answer', async () => {
    @ValidatorConstraint({ async: true })
    class EventuallyTrue {
      validate() {
        return Promise.resolve(true);
      }
    }
    class Later {
      @Validate(EventuallyTrue) value!: string;
      @Equals('x') other!: string;
    }
    const entity = plainToInstance(Later, { value: 'a', other: 'x' });
    expect(acceptanceOf(Later)!(entity as unknown as Body)).toBe(false);
    expect(await validate(entity, BODY_VALIDATION)).toEqual([]);
  });

  it('is used only under the options it decides like class-validator', () => {
    expect(compilable(BODY_VALIDATION)).toBe(true);
    expect(compilable({ ...BODY_VALIDATION, whitelist: false })).toBe(false);
    expect(compilable({ ...BODY_VALIDATION, forbidNonWhitelisted: true })).toBe(false);
    expect(compilable({ ...BODY_VALIDATION, skipMissingProperties: true })).toBe(false);
    expect(compilable({ ...BODY_VALIDATION, groups: ['admin'] })).toBe(false);
  });
});
