import { AccountsInFlight, takeBatch } from './batch-formation';

const item = (name: string, ...accounts: string[]) => ({ name, accounts });
const names = (items: { name: string }[]) => items.map((one) => one.name);

describe('takeBatch', () => {
  it('takes the queue in arrival order, up to the cap, when nothing is in flight', () => {
    const queue = [item('a', 's1', 'r1'), item('b', 's2', 'r1'), item('c', 's3', 'r2')];
    expect(names(takeBatch(queue, new AccountsInFlight(), 2))).toEqual(['a', 'b']);
    expect(names(queue)).toEqual(['c']);
  });

  it('leaves items touching an account in flight, and takes the others past them', () => {
    const inFlight = new AccountsInFlight();
    inFlight.hold([item('x', 's1', 'hot')]);
    const queue = [item('a', 's2', 'hot'), item('b', 's3', 'r1'), item('c', 's4', 'r2')];
    expect(names(takeBatch(queue, inFlight, 10))).toEqual(['b', 'c']);
    expect(names(queue)).toEqual(['a']);
  });

  it('never lets a later item of an account overtake one left behind', () => {
    const inFlight = new AccountsInFlight();
    inFlight.hold([item('x', 's9', 'hot')]);
    // a waits for "hot"; b shares a's sender, so it must wait too, and c shares b's receiver.
    const queue = [item('a', 's1', 'hot'), item('b', 's1', 'r1'), item('c', 's2', 'r1'), item('d', 's3', 'r3')];
    expect(names(takeBatch(queue, inFlight, 10))).toEqual(['d']);
    expect(names(queue)).toEqual(['a', 'b', 'c']);
  });

  it('blocks the accounts of items the cap leaves behind', () => {
    const queue = [item('a', 's1', 'r1'), item('b', 's2', 'r2'), item('c', 's2', 'r3')];
    expect(names(takeBatch(queue, new AccountsInFlight(), 1))).toEqual(['a']);
    expect(names(queue)).toEqual(['b', 'c']);
  });

  it('frees an account only when every batch holding it has finished', () => {
    const inFlight = new AccountsInFlight();
    const first = [item('x', 's1', 'hot')];
    const second = [item('y', 's2', 'hot')];
    inFlight.hold(first);
    inFlight.hold(second);
    inFlight.release(first);
    expect(inFlight.has('hot')).toBe(true);
    expect(inFlight.has('s1')).toBe(false);
    inFlight.release(second);
    expect(inFlight.has('hot')).toBe(false);
  });
});
