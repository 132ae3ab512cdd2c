import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isSameUpiId, requireOwner } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError, forbidden, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { nextOccurrenceAfter, parseInstant } from './occurrences';
import type { CreateScheduledTransferRequest } from './scheduled-transfer.dto';
import {
  type InstructionRow,
  type InstructionStatus,
  type RunRow,
  ScheduledTransfersRepository,
} from './scheduled-transfers.repository';

/** How far in the past a startAt may be and still mean "now": the time the request took to arrive. */
const START_GRACE_MS = 5_000;

/** What the receiver reads of a failed run, whatever the sender's problem was. */
const RECEIVER_RUN_PROBLEM = { slug: 'payment-not-completed', detail: 'The payment could not be completed' };

/** 422 limit-exceeded for one instruction too many; it frees up when one is cancelled or completes, not at a time. */
function scheduledTransfersLimitExceeded(max: number, live: number): ApiError {
  return new ApiError(
    ErrorCode.LimitExceeded,
    `You already have ${live} active or paused scheduled transfers, the most allowed (${max}); ` +
      'cancel one before scheduling another',
    { members: { limit: { name: 'scheduled-transfers', max, used: live, remaining: 0, resetsAt: null } } },
  );
}

/** Standing instructions as their sender manages them; the runs themselves are ScheduledTransferRunner's. */
@Injectable()
export class ScheduledTransfersService {
  private readonly receiverProblem: Pick<RunRow, 'problemType' | 'problemDetail'>;

  constructor(
    private readonly repository: ScheduledTransfersRepository,
    private readonly config: AppConfig,
  ) {
    this.receiverProblem = {
      problemType: `${config.errorsBaseUrl}/${RECEIVER_RUN_PROBLEM.slug}`,
      problemDetail: RECEIVER_RUN_PROBLEM.detail,
    };
  }

  async create(caller: AuthenticatedUser, request: CreateScheduledTransferRequest): Promise<InstructionRow> {
    const zone = this.config.businessTimeZone;
    const errors: Record<string, string> = {};
    const startAt = parseInstant(request.startAt, zone);
    const endAt = request.endAt === undefined ? null : parseInstant(request.endAt, zone);
    if (!startAt) errors.startAt = 'startAt must be an ISO-8601 date-time';
    else if (startAt.getTime() < Date.now() - START_GRACE_MS) errors.startAt = 'startAt must not be in the past';
    if (request.endAt !== undefined && !endAt) errors.endAt = 'endAt must be an ISO-8601 date-time';
    else if (endAt && startAt && endAt.getTime() < startAt.getTime()) errors.endAt = 'endAt must not be before startAt';
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (isSameUpiId(request.receiverUpiId, caller.upiId)) {
      throw new ApiError(ErrorCode.SelfTransfer, 'Sender and receiver must be different accounts');
    }
    const receiverUpiId = await this.repository.registeredUpiId(request.receiverUpiId);
    if (!receiverUpiId) throw new ApiError(ErrorCode.UserNotFound, `No user with UPI ID ${request.receiverUpiId}`);
    const max = this.config.scheduledTransfersMaxPerUser;
    const { created, live } = await this.repository.insertWithinCap(
      {
        referenceId: randomUUID(),
        senderUpiId: caller.upiId,
        receiverUpiId,
        amount: formatMoney(request.amount),
        note: request.note ?? null,
        frequency: request.frequency,
        startAt: startAt!,
        endAt,
        maxOccurrences: request.maxOccurrences ?? null,
        nextRunAt: startAt!,
      },
      max,
    );
    if (!created) throw scheduledTransfersLimitExceeded(max, live);
    return created;
  }

  /** The sender and the receiver may read an instruction; anyone else gets 403, unknown 404. */
  async get(caller: AuthenticatedUser, referenceId: string): Promise<InstructionRow> {
    const instruction = await this.find(referenceId);
    if (!isSameUpiId(instruction.senderUpiId, caller.upiId) && !isSameUpiId(instruction.receiverUpiId, caller.upiId)) {
      throw forbidden('Only the sender or the receiver may read a scheduled transfer');
    }
    return instruction;
  }

  /** The sender sees why a run failed; the receiver only that it did (the sender's balance, freeze and limits are theirs). */
  async runs(caller: AuthenticatedUser, referenceId: string): Promise<RunRow[]> {
    const instruction = await this.get(caller, referenceId);
    const runs = await this.repository.runs(instruction.id);
    if (isSameUpiId(instruction.senderUpiId, caller.upiId)) return runs;
    return runs.map((run) => (run.problemType === null ? run : { ...run, ...this.receiverProblem }));
  }

  async listForUser(caller: AuthenticatedUser, userReferenceId: string): Promise<InstructionRow[]> {
    const user = requireOwner(
      caller,
      await this.repository.userByReference(userReferenceId),
      `No user with reference ID ${userReferenceId}`,
    );
    return this.repository.listBySender(user.upiId);
  }

  pause(caller: AuthenticatedUser, referenceId: string): Promise<InstructionRow> {
    return this.change(caller, referenceId, ['ACTIVE'], 'PAUSED', () => null);
  }

  /** Occurrences that fell due while paused are skipped: the next run is the next occurrence after now. */
  resume(caller: AuthenticatedUser, referenceId: string): Promise<InstructionRow> {
    return this.change(caller, referenceId, ['PAUSED'], 'ACTIVE', (row) =>
      nextOccurrenceAfter(row, new Date(), this.config.businessTimeZone),
    );
  }

  cancel(caller: AuthenticatedUser, referenceId: string): Promise<InstructionRow> {
    return this.change(caller, referenceId, ['ACTIVE', 'PAUSED'], 'CANCELLED', () => null);
  }

  private async change(
    caller: AuthenticatedUser,
    referenceId: string,
    from: InstructionStatus[],
    to: InstructionStatus,
    nextRunAt: (row: InstructionRow) => Date | null,
  ): Promise<InstructionRow> {
    const instruction = await this.find(referenceId);
    if (!isSameUpiId(instruction.senderUpiId, caller.upiId)) {
      throw forbidden('Only the sender may pause, resume or cancel a scheduled transfer');
    }
    if (!from.includes(instruction.status)) {
      throw new ApiError(ErrorCode.Conflict, `The scheduled transfer is ${instruction.status}; it cannot become ${to}`);
    }
    const next = nextRunAt(instruction);
    // A resumed series with no occurrence left (past endAt, or a ONCE whose time went by) is over.
    const status = to === 'ACTIVE' && next === null ? 'COMPLETED' : to;
    const changed = await this.repository.transition(referenceId, instruction.status, status, next);
    // Changed meanwhile (by the scheduler or another request): answer as if this request came second.
    if (!changed) return this.change(caller, referenceId, from, to, nextRunAt);
    return changed;
  }

  private async find(referenceId: string): Promise<InstructionRow> {
    const instruction = await this.repository.find(referenceId);
    if (!instruction) throw new ApiError(ErrorCode.NotFound, `No scheduled transfer with reference ID ${referenceId}`);
    return instruction;
  }
}
