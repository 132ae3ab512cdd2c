import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { isSameUpiId } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError, forbidden, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { type ListPage, type ListRequest, mapPage, toListPage } from '../common/paging/page';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import type { IdempotentAnswer } from '../idempotency/stored-outcome';
import { assertTransferAmountMax } from '../limits/transfer-amount-max';
import { callMovement } from '../movements/movement-call';
import { MovementRunner, type MovementRequest, movementKey, newMovementIds } from '../movements/movement-runner';
import { refusalError } from '../movements/movement-outcomes';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { TransferService } from '../transactions/transfer.service';
import {
  type CaptureHoldRequest,
  DEFAULT_HOLD_SECONDS,
  type HoldRole,
  type HoldStatus,
  HoldResponse,
  type PlaceHoldRequest,
} from './hold.dto';
import { CAPTURE_HOLD, PLACE_HOLD, RETURN_HOLD } from './hold-parameters';
import { HoldsRepository } from './holds.repository';

/**
 * Holds: money reserved by a payer for a payee. Placing and capturing are keyed money movements
 * (place_hold, capture_hold: the movement skeleton, MovementRunner); a release and an expiry are
 * hold_return, called the same way but without a key. Every rule is decided in SQL under the
 * hold's and the accounts' row locks (./sql).
 */
@Injectable()
export class HoldsService {
  constructor(
    private readonly holds: HoldsRepository,
    private readonly movements: MovementRunner,
    private readonly transfers: TransferService,
    private readonly outbox: OutboxRelay,
    private readonly config: AppConfig,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  async place(command: MovementRequest & { request: PlaceHoldRequest }): Promise<IdempotentAnswer> {
    const { request, caller, context } = command;
    const expiresInSeconds = request.expiresInSeconds ?? DEFAULT_HOLD_SECONDS;
    if (expiresInSeconds > this.config.holdMaxSeconds) {
      const detail = `expiresInSeconds must not be greater than ${this.config.holdMaxSeconds}`;
      throw new ValidationError({ expiresInSeconds: detail }, detail);
    }
    assertTransferAmountMax(request.amount, this.config.transferAmountMax);
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    const key = movementKey(command, {
      hold: 'place',
      payeeUpiId: request.payeeUpiId.toLowerCase(),
      amount,
      note,
      expiresInSeconds: String(expiresInSeconds),
    });
    const replay = await this.transfers.verifyReceiver(
      request.payeeUpiId,
      key.owner,
      key.idempotencyKey,
      key.requestHash,
    );
    if (replay) return this.movements.answer(PLACE_HOLD, replay);
    return this.movements.run(PLACE_HOLD, {
      ...key,
      payerUpiId: caller.upiId,
      payeeUpiId: request.payeeUpiId,
      amount,
      note,
      expiresInSeconds,
      ...newMovementIds(),
      context,
    });
  }

  capture(
    command: MovementRequest & { holdReferenceId: string; request: CaptureHoldRequest },
  ): Promise<IdempotentAnswer> {
    const { request, holdReferenceId, context } = command;
    const amount = request.amount ? formatMoney(request.amount) : null;
    const note = request.note ?? null;
    return this.movements.run(CAPTURE_HOLD, {
      ...movementKey(command, { captureOf: holdReferenceId.toLowerCase(), amount, note }),
      holdReferenceId,
      amount,
      note,
      ...newMovementIds(),
      context,
    });
  }

  /** The payee gives back what is left; a refusal is thrown as its problem, like a movement's. */
  async release(caller: AuthenticatedUser, holdReferenceId: string): Promise<HoldResponse> {
    const { outcome } = await this.returnRemainder(holdReferenceId, caller.upiId.toLowerCase());
    if (outcome.code !== 'completed') throw refusalError(outcome);
    return HoldResponse.from((await this.require(holdReferenceId)).hold);
  }

  /** Expires one due hold; false when it was not due or another instance has it. */
  async expire(holdReferenceId: string): Promise<boolean> {
    const { outcome } = await this.returnRemainder(holdReferenceId, null);
    return outcome.code === 'completed';
  }

  async get(caller: AuthenticatedUser, holdReferenceId: string): Promise<HoldResponse> {
    const { hold } = await this.require(holdReferenceId);
    if (!isSameUpiId(hold.payerUpiId, caller.upiId) && !isSameUpiId(hold.payeeUpiId, caller.upiId)) {
      throw forbidden('Only the payer and the payee of a hold may read it');
    }
    return HoldResponse.from(hold);
  }

  async listOf(
    ownerReferenceId: string,
    role: HoldRole,
    status: HoldStatus | undefined,
    request: ListRequest,
  ): Promise<ListPage<HoldResponse>> {
    const take = request.kind === 'cursor' ? request.size + 1 : request.size;
    const [rows, total] = await Promise.all([
      this.holds.listOf(ownerReferenceId, role, {
        status,
        take,
        ...(request.kind === 'cursor' ? { afterId: request.afterId } : { offset: request.page * request.size }),
      }),
      request.kind === 'offset' ? this.holds.count(ownerReferenceId, role, status) : Promise.resolve(0),
    ]);
    return mapPage(toListPage(request, rows, total), (row) => HoldResponse.from(row.hold));
  }

  private async returnRemainder(holdReferenceId: string, owner: string | null) {
    const result = await callMovement(this.pool, RETURN_HOLD, {
      holdReferenceId,
      owner,
      returnReferenceId: randomUUID(),
      eventId: randomUUID(),
    });
    if (result.outcome.code === 'completed') this.outbox.nudge();
    return result;
  }

  private async require(holdReferenceId: string) {
    const row = await this.holds.find(holdReferenceId);
    if (!row) throw new ApiError(ErrorCode.HoldNotFound, `No hold with reference ID ${holdReferenceId}`);
    return row;
  }
}
