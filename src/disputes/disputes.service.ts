import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isSameUpiId, requireOwner } from '../access/access-rules';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { ApiError, forbidden } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { type ListPage, type ListRequest, mapPage, toListPage } from '../common/paging/page';
import { AppConfig } from '../config/app-config';
import type { IdempotentAnswer, MovementResult } from '../idempotency/stored-outcome';
import { refusalError } from '../movements/movement-outcomes';
import { MovementRunner, type MovementRequest, movementKey } from '../movements/movement-runner';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { UsersService } from '../users/users.service';
import type Big from 'big.js';
import { type DisputeFields, DisputeResponse, type OpenDisputeRequest } from './dispute.dto';
import { type DisputeAction, OPEN_DISPUTE } from './dispute-parameters';
import { type DisputeFilter, type DisputeRole, type DisputeRow, DisputesRepository } from './disputes.repository';

export interface OpenDisputeCommand extends MovementRequest {
  transactionReferenceId: string;
  request: OpenDisputeRequest;
}

/**
 * UPI-style disputes: the payer opens one on a transfer (a keyed call of open_dispute), the payee
 * accepts (a refund through the reversal rules) or rejects, the clock escalates silence, an admin
 * settles what is escalated. Every change is one call of dispute_act, which decides under the row lock.
 */
@Injectable()
export class DisputesService {
  constructor(
    private readonly disputes: DisputesRepository,
    private readonly movements: MovementRunner,
    private readonly outbox: OutboxRelay,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  open(command: OpenDisputeCommand): Promise<IdempotentAnswer> {
    const { transactionReferenceId, request, context } = command;
    const amount = request.amount ? formatMoney(request.amount) : null;
    const description = request.description ?? null;
    return this.movements.run(OPEN_DISPUTE, {
      ...movementKey(command, {
        disputeOf: transactionReferenceId.toLowerCase(),
        reason: request.reason,
        amount,
        description,
      }),
      transactionReferenceId,
      reason: request.reason,
      amount,
      description,
      referenceId: randomUUID(),
      windowSeconds: this.config.disputeWindowSeconds,
      responseSeconds: this.config.disputeResponseSeconds,
      resolutionSeconds: this.config.disputeResolutionSeconds,
      context,
    });
  }

  /** Either party or an admin; unknown is 404, anyone else 403. */
  async get(caller: AuthenticatedUser, referenceId: string): Promise<DisputeResponse> {
    const dispute = await this.disputes.findByReferenceId(referenceId);
    if (!dispute) throw notFound(referenceId);
    const party = [dispute.raisedByUpiId, dispute.counterpartyUpiId].some((upiId) => isSameUpiId(upiId, caller.upiId));
    if (!party && !caller.roles.includes(ROLE_ADMIN)) {
      throw forbidden('Only the payer, the payee or an admin may read a dispute');
    }
    return DisputeResponse.of(dispute);
  }

  /** The payee's accept or reject, the payer's withdrawal, an admin's decision: the dispute as it now is. */
  async act(
    caller: AuthenticatedUser,
    referenceId: string,
    action: DisputeAction,
    details: { amount?: Big; note?: string } = {},
  ): Promise<DisputeResponse> {
    const result = await this.disputes.act({
      actor: caller.upiId.toLowerCase(),
      referenceId,
      action,
      amount: details.amount ? formatMoney(details.amount) : null,
      note: details.note ?? null,
      resolutionSeconds: this.config.disputeResolutionSeconds,
    });
    return this.answer(result);
  }

  async listOf(
    caller: AuthenticatedUser,
    userReferenceId: string,
    role: DisputeRole,
    filter: DisputeFilter,
    request: ListRequest,
  ): Promise<ListPage<DisputeResponse>> {
    requireOwner(
      caller,
      await this.users.findByReferenceId(userReferenceId),
      `No user with reference ID ${userReferenceId}`,
    );
    return this.page(role, userReferenceId, filter, request);
  }

  listAll(filter: DisputeFilter, request: ListRequest): Promise<ListPage<DisputeResponse>> {
    return this.page('all', null, filter, request);
  }

  private async page(
    scope: DisputeRole | 'all',
    userReferenceId: string | null,
    filter: DisputeFilter,
    request: ListRequest,
  ): Promise<ListPage<DisputeResponse>> {
    const slice =
      request.kind === 'cursor'
        ? { afterId: request.afterId, take: request.size + 1 }
        : { take: request.size, offset: request.page * request.size };
    const [rows, total] = await Promise.all([
      this.disputes.page(scope, userReferenceId, filter, slice),
      request.kind === 'cursor' ? Promise.resolve(0) : this.disputes.count(scope, userReferenceId, filter),
    ]);
    return mapPage(toListPage<DisputeRow>(request, rows, total), (row) => DisputeResponse.of(row.dispute));
  }

  private answer({ outcome }: MovementResult): DisputeResponse {
    if (outcome.code !== 'completed') throw refusalError(outcome);
    this.outbox.nudge();
    return DisputeResponse.of(outcome.data as unknown as DisputeFields);
  }
}

function notFound(referenceId: string): ApiError {
  return new ApiError(ErrorCode.DisputeNotFound, `No dispute with reference ID ${referenceId}`);
}
