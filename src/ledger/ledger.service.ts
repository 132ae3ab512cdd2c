import { Injectable } from '@nestjs/common';
import { requireOwner } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { invalidRequest } from '../common/errors/api-error';
import { type ListPage, mapPage, toListPage } from '../common/paging/page';
import { type LedgerListRequest, withLedgerCursor } from './ledger-cursor';
import { LedgerEntryResponse } from './ledger-entry.dto';
import { LedgerEntriesRepository } from './ledger-entries.repository';

/** Reads of a ledger: only its owner may see it. */
@Injectable()
export class LedgerService {
  constructor(private readonly entries: LedgerEntriesRepository) {}

  /** Newest first, by offset or after a cursor: unknown is 404, someone else's 403, a foreign cursor 400. */
  async pageOf(
    referenceId: string,
    request: LedgerListRequest,
    caller: AuthenticatedUser,
  ): Promise<ListPage<LedgerEntryResponse>> {
    const found =
      request.kind === 'offset'
        ? await this.entries.findPage(referenceId, request)
        : await this.entries.findPageAfter(referenceId, request.after, request.size + 1);
    const owner = requireOwner(caller, found?.owner ?? null, `No user with reference ID ${referenceId}`);
    if (!found?.rows) throw invalidRequest('cursor does not belong to this ledger');
    const page = withLedgerCursor(toListPage(request, found.rows, found.total), found.rows);
    return mapPage(page, (row) => LedgerEntryResponse.of(row, owner.referenceId));
  }
}
