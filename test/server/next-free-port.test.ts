import { describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { serve } from './helpers.js';

/** A port held by another listener for the test (a second `talaria serve`, say). */
async function occupied(): Promise<{ port: number; holder: Server }> {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  return { port: (holder.address() as { port: number }).port, holder };
}

describe('a port that another process holds', () => {
  it('nextFreePort (serve without --port): the server listens on a later port and says which', async () => {
    const { port, holder } = await occupied();
    try {
      const s = await serve({ port, nextFreePort: true });
      expect(s.server.port).not.toBe(port);
      expect(s.server.port).toBeGreaterThan(0);
      expect((await s.client.api.listSessions({})).sessions).toEqual([]);
    } finally {
      holder.close();
    }
  });

  it('without it (an explicit --port): the listen fails with EADDRINUSE, nothing else is tried', async () => {
    const { port, holder } = await occupied();
    try {
      await expect(serve({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      holder.close();
    }
  });
});
