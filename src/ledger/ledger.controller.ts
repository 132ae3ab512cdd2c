import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import type { ListPage } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { ApiProblems } from '../docs/api-docs';
import { readLedgerListRequest } from './ledger-cursor';
import { LedgerEntryResponse } from './ledger-entry.dto';
import { LedgerService } from './ledger.service';

/** A user's ledger, under the user's path (the interface's), served by the module that owns ledger_entries. */
@ApiTags('Users')
@Controller('api/v1/users')
export class LedgerController {
  constructor(private readonly ledgers: LedgerService) {}

  @Get(':id/ledger')
  @ApiBearerAuth()
  // The operationId from before the route moved here: generated clients name their calls by it.
  @ApiOperation({
    summary: "The caller's ledger entries, newest first, by page or by cursor",
    operationId: 'UsersController_ledger',
  })
  @ApiListQueries()
  @ApiListPageResponse(LedgerEntryResponse)
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422)
  async ledger(
    @Param('id', UuidParamPipe) id: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ListPage<LedgerEntryResponse>> {
    return this.ledgers.pageOf(id, readLedgerListRequest(query), caller);
  }
}
