/** ledger_entries.entry_type: a CREDIT adds to the account's balance, a DEBIT takes away. */
export enum EntryType {
  Debit = 'DEBIT',
  Credit = 'CREDIT',
}
