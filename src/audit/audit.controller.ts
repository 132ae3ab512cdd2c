import { Controller, Get, Header } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../access/access.decorators';
import { ROLE_ADMIN } from '../access/authenticated-user';
import { ApiProblems } from '../docs/api-docs';
import { AuditService } from './audit.service';
import { auditReportJson } from './ledger-audit';

@ApiTags('Admin')
@ApiBearerAuth()
@Controller('api/v1/admin/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Roles(ROLE_ADMIN)
  @ApiOperation({
    summary:
      'Verify the whole ledger (admin): hash chains, balances, zero-sum transactions, no orphan rows, transactions ' +
      'against their hash, entries and reversals, global sum 0',
    description:
      'The same check as `npm run audit`. Always 200: `ok` says whether everything holds, and each broken ' +
      'entry, account or transaction is named. Reads one consistent snapshot; writers are not blocked.',
  })
  @ApiOkResponse({
    description: 'The audit report',
    schema: {
      type: 'object',
      required: ['ok', 'checkedAt', 'accounts', 'entries', 'globalSum', 'brokenEntries', 'brokenAccounts'],
      properties: {
        ok: { type: 'boolean' },
        checkedAt: { type: 'string', format: 'date-time' },
        accounts: { type: 'integer' },
        entries: { type: 'integer' },
        globalSum: { type: 'number', description: 'Sum of every balance, treasury included: 0 when money is intact' },
        brokenEntries: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              entryId: { type: 'integer' },
              accountId: { type: 'integer' },
              upiId: { type: 'string', nullable: true },
              reasons: { type: 'array', items: { type: 'string' } },
            },
          },
        },
        brokenAccounts: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              accountId: { type: 'integer' },
              upiId: { type: 'string' },
              reason: { type: 'string' },
              balance: { type: 'number' },
              ledgerBalance: { type: 'number' },
              headHash: { type: 'string', nullable: true },
              newestEntryHash: { type: 'string', nullable: true },
            },
          },
        },
        unbalancedTransactions: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              transactionReferenceId: { type: 'string', format: 'uuid' },
              sum: { type: 'number' },
              entries: { type: 'integer' },
            },
          },
        },
        orphans: {
          type: 'array',
          description: 'Ledger entries and transactions naming an account or transaction that does not exist',
          items: {
            type: 'object',
            properties: {
              kind: { type: 'string', enum: ['ledger-entry', 'transaction'] },
              id: { type: 'integer' },
              missing: { type: 'string', enum: ['account', 'transaction', 'sender', 'receiver'] },
              missingId: { type: 'integer' },
            },
          },
        },
        brokenTransactions: {
          type: 'array',
          description:
            'Transactions whose row disagrees with its hash, its ledger entries or its reversals, named by reference',
          items: {
            type: 'object',
            properties: {
              transactionReferenceId: { type: 'string', format: 'uuid' },
              transactionId: { type: 'integer' },
              type: { type: 'string', enum: ['TRANSFER', 'DEPOSIT', 'REVERSAL'] },
              reasons: { type: 'array', items: { type: 'string' } },
            },
          },
        },
        counts: {
          type: 'object',
          properties: {
            brokenEntries: { type: 'integer' },
            brokenAccounts: { type: 'integer' },
            unbalancedTransactions: { type: 'integer' },
            orphans: { type: 'integer' },
            brokenTransactions: { type: 'integer' },
          },
        },
      },
      example: {
        ok: true,
        checkedAt: '2026-11-22T10:00:00.000Z',
        accounts: 3,
        entries: 6,
        globalSum: 0.0,
        brokenEntries: [],
        brokenAccounts: [],
        unbalancedTransactions: [],
        orphans: [],
        brokenTransactions: [],
        counts: { brokenEntries: 0, brokenAccounts: 0, unbalancedTransactions: 0, orphans: 0, brokenTransactions: 0 },
      },
    },
  })
  @ApiProblems(401, 403, 503)
  @Header('Content-Type', 'application/json; charset=utf-8')
  async report(): Promise<string> {
    return auditReportJson(await this.audit.run());
  }
}
