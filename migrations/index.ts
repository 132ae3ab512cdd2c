import { CreateUsersAndLedger1764000000000 } from './1764000000000-create-users-and-ledger';
import { CreateTransfers1764000100000 } from './1764000100000-create-transfers';
import { TransferFunction1764000200000 } from './1764000200000-transfer-function';
import { CreateTransactionInsights1764000300000 } from './1764000300000-create-transaction-insights';
import { PinLoginAndRevocation1764000400000 } from './1764000400000-pin-login-and-revocation';
import { SqlFunctionsAsOutcomes1764000500000 } from './1764000500000-sql-functions-as-outcomes';
import { KeysetPagingIndexes1764000600000 } from './1764000600000-keyset-paging-indexes';
import { TreasuryReversalsHashChain1764000700000 } from './1764000700000-treasury-reversals-hash-chain';
import { TransferRateLimits1764001000000 } from './1764001000000-transfer-rate-limits';
import { LeanMoneyMovements1764001100000 } from './1764001100000-lean-money-movements';
import { AdminGrantsAndLockouts1764002000000 } from './1764002000000-admin-grants-and-lockouts';
import { Webhooks1764005000000 } from './1764005000000-webhooks';
import { TamperEvidentTransactions1764003500000 } from './1764003500000-tamper-evident-transactions';
import { LimitsAndFreezes1764007000000 } from './1764007000000-limits-and-freezes';
import { PaymentRequests1764008000000 } from './1764008000000-payment-requests';
import { ScheduledTransfers1764008500000 } from './1764008500000-scheduled-transfers';
import { LeanWebhookDeliveries1764011000000 } from './1764011000000-lean-webhook-deliveries';
import { MovementSkeleton1764013000000 } from './1764013000000-movement-skeleton';
import { LockoutsNoWeapon1764013600000 } from './1764013600000-lockouts-no-weapon';
import { PaymentRequestDecidesFirst1764013800000 } from './1764013800000-payment-request-decides-first';
import { OpenPaymentRequestsIndex1764015200000 } from './1764015200000-open-payment-requests-index';
import { PartitionMoneyRecords1764020000000 } from './1764020000000-partition-money-records';
import { PartitionShortLivedTables1764020100000 } from './1764020100000-partition-short-lived-tables';
import { OutboxEventsWithoutCopies1764021000000 } from './1764021000000-outbox-events-without-copies';
import { IdempotencyKeysWithoutAnswers1764021100000 } from './1764021100000-idempotency-keys-without-answers';
import { DropUnusedIndexes1764021200000 } from './1764021200000-drop-unused-indexes';
import { ArchivedMonths1764022000000 } from './1764022000000-archived-months';
import { Holds1764030000000 } from './1764030000000-holds';
import { Disputes1764031000000 } from './1764031000000-disputes';
import { BatchRecordsNameTheirTransactions1764032000000 } from './1764032000000-batch-records-name-their-transactions';
import { FewerIndexEntriesPerTransfer1764033000000 } from './1764033000000-fewer-index-entries-per-transfer';
import { LeanerTransferRecords1764034000000 } from './1764034000000-leaner-transfer-records';
import { HashesAsBytes1764035000000 } from './1764035000000-hashes-as-bytes';
import { IdempotencyKeysByDigest1764037000000 } from './1764037000000-idempotency-keys-by-digest';
import { LedgerEntriesWithoutPrimaryKey1764036000000 } from './1764036000000-ledger-entries-without-primary-key';
import { OutboxRelayPosition1764038000000 } from './1764038000000-outbox-relay-position';

/** Every migration, in order. Listed explicitly so the build, the CLI and the tests load the same set. */
export const MIGRATIONS = [
  CreateUsersAndLedger1764000000000,
  CreateTransfers1764000100000,
  TransferFunction1764000200000,
  CreateTransactionInsights1764000300000,
  PinLoginAndRevocation1764000400000,
  SqlFunctionsAsOutcomes1764000500000,
  KeysetPagingIndexes1764000600000,
  TreasuryReversalsHashChain1764000700000,
  TransferRateLimits1764001000000,
  LeanMoneyMovements1764001100000,
  AdminGrantsAndLockouts1764002000000,
  TamperEvidentTransactions1764003500000,
  Webhooks1764005000000,
  LimitsAndFreezes1764007000000,
  PaymentRequests1764008000000,
  ScheduledTransfers1764008500000,
  LeanWebhookDeliveries1764011000000,
  MovementSkeleton1764013000000,
  LockoutsNoWeapon1764013600000,
  PaymentRequestDecidesFirst1764013800000,
  OpenPaymentRequestsIndex1764015200000,
  PartitionMoneyRecords1764020000000,
  PartitionShortLivedTables1764020100000,
  OutboxEventsWithoutCopies1764021000000,
  IdempotencyKeysWithoutAnswers1764021100000,
  DropUnusedIndexes1764021200000,
  ArchivedMonths1764022000000,
  Holds1764030000000,
  Disputes1764031000000,
  BatchRecordsNameTheirTransactions1764032000000,
  FewerIndexEntriesPerTransfer1764033000000,
  LeanerTransferRecords1764034000000,
  HashesAsBytes1764035000000,
  LedgerEntriesWithoutPrimaryKey1764036000000,
  IdempotencyKeysByDigest1764037000000,
  OutboxRelayPosition1764038000000,
];
