/** Something the batcher can place in a batch: the accounts (lower-cased UPI IDs) it locks. */
export interface Placeable {
  readonly accounts: readonly string[];
}

/**
 * Accounts locked by the batch calls in flight, counted, so that the next batch can be formed of
 * items that touch none of them: batches in flight then never wait on each other's rows, and one
 * batch's commit (its WAL flush) overlaps the next one's work instead of holding it up.
 */
export class AccountsInFlight {
  private readonly holders = new Map<string, number>();

  hold(items: readonly Placeable[]): void {
    for (const account of accountsOf(items)) this.holders.set(account, (this.holders.get(account) ?? 0) + 1);
  }

  release(items: readonly Placeable[]): void {
    for (const account of accountsOf(items)) {
      const left = (this.holders.get(account) ?? 1) - 1;
      if (left === 0) this.holders.delete(account);
      else this.holders.set(account, left);
    }
  }

  has(account: string): boolean {
    return this.holders.has(account);
  }
}

/**
 * Takes the next batch out of the queue, in arrival order, up to `max` items: every item that
 * touches no account in flight. An item left behind blocks its accounts for the rest of the scan,
 * so no later item of the same account overtakes it: each account's movements keep their order
 * (and with it each sender's event order and each chain's order).
 */
export function takeBatch<Item extends Placeable>(queue: Item[], inFlight: AccountsInFlight, max: number): Item[] {
  const batch: Item[] = [];
  const left: Item[] = [];
  const blocked = new Set<string>();
  for (const item of queue) {
    const free = item.accounts.every((account) => !inFlight.has(account) && !blocked.has(account));
    if (free && batch.length < max) {
      batch.push(item);
    } else {
      left.push(item);
      for (const account of item.accounts) blocked.add(account);
    }
  }
  queue.splice(0, queue.length, ...left);
  return batch;
}

function accountsOf(items: readonly Placeable[]): Set<string> {
  return new Set(items.flatMap((item) => item.accounts));
}
