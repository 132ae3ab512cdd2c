import { readyWalSegments, recycleWalSegments } from '../scripts/bench/wal-segments';
import { testUrl, withClient } from './support/db';

describe("the benchmark's WAL warm-up", () => {
  it('leaves as many recycled WAL segments ahead of the current one as it wrote', async () => {
    await withClient(testUrl(), async (db) => {
      const currentSegment = async () =>
        parseInt((await db.query(`SELECT pg_walfile_name(pg_current_wal_lsn()) AS name`)).rows[0].name.slice(8), 16);
      // More than the cluster holds already, so only a recycling checkpoint can leave this many.
      const segments = (await readyWalSegments(db)) + 4;
      const before = await currentSegment();

      const warmUp = await recycleWalSegments(db, segments);

      expect(warmUp.seconds).toBeGreaterThan(0);
      expect((await currentSegment()) - before).toBeGreaterThanOrEqual(segments);
      expect(warmUp.ready).toBeGreaterThanOrEqual(segments);
      expect(await readyWalSegments(db)).toBe(warmUp.ready);
    });
  });
});
