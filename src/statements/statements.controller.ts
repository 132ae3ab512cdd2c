import { Readable } from 'node:stream';
import { applyDecorators, Controller, Get, Headers, Param, Query, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../access/access.decorators';
import { requireOwner } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { UuidParamPipe } from '../common/http/params';
import { formatMoney } from '../common/money/money';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { UsersService } from '../users/users.service';
import { prefersCsv } from './accept';
import { BalancePointResponse, StatementEntryResponse, StatementResponse } from './statement.dto';
import { CSV_HEAD, statementCsv, statementCsvText, statementJson, statementJsonText } from './statement-format';
import { BALANCE_INTERVALS, readInterval, readStatementRange, type StatementRange } from './statement-query';
import { type StatementBalances, type StatementChunk, StatementsService } from './statements.service';

/** from and to, shared by both operations. */
const ApiPeriodQueries = () =>
  applyDecorators(
    ApiQuery({
      name: 'from',
      required: false,
      description: 'ISO-8601 date or date-time with offset, inclusive; default: 30 days before to',
      schema: { type: 'string', format: 'date-time', example: '2026-11-01T00:00:00Z' },
    }),
    ApiQuery({
      name: 'to',
      required: false,
      description: 'ISO-8601 date or date-time with offset, exclusive; default: now. At most 366 days after from',
      schema: { type: 'string', format: 'date-time', example: '2026-12-01T00:00:00Z' },
    }),
  );

@ApiTags('Statements')
@ApiBearerAuth()
@Controller('api/v1/users')
export class StatementsController {
  constructor(
    private readonly users: UsersService,
    private readonly statements: StatementsService,
  ) {}

  @Get(':id/statement')
  @ApiOperation({
    summary: "The caller's statement for a period: opening and closing balance and every ledger entry between",
    description:
      'JSON by default; send Accept: text/csv for CSV (RFC 4180, streamed). The CSV carries the balances ' +
      'and the period in the headers Statement-Opening-Balance, Statement-Closing-Balance, Statement-From and ' +
      "Statement-To. In the CSV only, a note starting with = + - @ is prefixed with ' so spreadsheets keep it as text.",
  })
  @ApiPeriodQueries()
  @ApiProduces('application/json', 'text/csv')
  @ApiExtraModels(StatementResponse, StatementEntryResponse)
  @ApiOkResponse({
    description: 'The statement, oldest entry first',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(StatementResponse) } },
      'text/csv': {
        schema: { type: 'string' },
        example:
          CSV_HEAD +
          '2026-11-20T09:15:02.123Z,0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b,TRANSFER,DEBIT,bob@okbank,120.5000,379.5000,dinner\r\n',
      },
    },
  })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422, ErrorCode.HistoryArchived, 503)
  async statement(
    @Param('id', UuidParamPipe) id: string,
    @Query() query: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentUser() caller: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile | string> {
    const range = readStatementRange(query);
    const owned = await this.statements.ownedStatement(id, range);
    const owner = requireOwner(caller, owned, `No user with reference ID ${id}`);
    const csv = prefersCsv(accept);
    // Most periods fit in one batch: read with the owner in one statement and sent as one body.
    if (owner.entries) {
      if (!csv) {
        void reply.type(JSON_TYPE);
        return statementJsonText(range, owner.balances, owner.entries);
      }
      csvHeaders(reply, range, owner.balances);
      void reply.type(CSV_TYPE).header('Content-Disposition', csvDisposition(range));
      return statementCsvText(owner.entries);
    }
    const chunks = this.statements.statement(owner.id, range);
    // The balances are read before anything is sent: a failure there is still a problem+json answer.
    const first = await chunks.next();
    if (first.done || first.value.kind !== 'balances') throw new Error('A statement starts with its balances');
    const { balances } = first.value;
    if (csv) {
      csvHeaders(reply, range, balances);
      return stream(statementCsv(chunks), chunks, { type: CSV_TYPE, disposition: csvDisposition(range) });
    }
    return stream(statementJson(range, balances, chunks), chunks, { type: JSON_TYPE });
  }

  @Get(':id/balance-history')
  @ApiOperation({
    summary: "The caller's balance at the end of each hour or day (UTC) of a period",
    description: 'One point per interval overlapping [from, to); the last point is at to itself.',
  })
  @ApiPeriodQueries()
  @ApiQuery({
    name: 'interval',
    required: false,
    schema: { type: 'string', enum: [...BALANCE_INTERVALS], default: 'day', example: 'day' },
  })
  @ApiOkResponse({ type: [BalancePointResponse] })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422, ErrorCode.HistoryArchived, 503)
  async balanceHistory(
    @Param('id', UuidParamPipe) id: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<BalancePointResponse[]> {
    const range = readStatementRange(query);
    const interval = readInterval(query);
    const user = requireOwner(caller, await this.users.findByReferenceId(id), `No user with reference ID ${id}`);
    return (await this.statements.balanceHistory(user.id, range, interval)).map(BalancePointResponse.of);
  }
}

/**
 * The body as a stream. Closing it (sent, failed or the client gone) ends the statement's
 * reader too, which releases its database connection even if the body was never read.
 */
function stream(
  body: AsyncIterable<string>,
  reader: AsyncGenerator<StatementChunk>,
  options: { type: string; disposition?: string },
): StreamableFile {
  const readable = Readable.from(body, { objectMode: false });
  readable.once('close', () => void reader.return(undefined));
  return new StreamableFile(readable, options);
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/** The period and the balances of a CSV statement travel in headers, the rows in the body. */
function csvHeaders(reply: FastifyReply, range: StatementRange, balances: StatementBalances): void {
  void reply
    .header('Statement-From', range.from.toISOString())
    .header('Statement-To', range.to.toISOString())
    .header('Statement-Opening-Balance', formatMoney(balances.openingBalance))
    .header('Statement-Closing-Balance', formatMoney(balances.closingBalance));
}

function csvDisposition(range: StatementRange): string {
  const day = (instant: Date) => instant.toISOString().slice(0, 10);
  return `attachment; filename="statement-${day(range.from)}-${day(range.to)}.csv"`;
}
