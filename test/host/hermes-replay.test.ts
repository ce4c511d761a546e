/**
 * Issue 36 item 17: Hermes' session/load replays every stored message as one whole chunk with no
 * messageId. Two user messages in a row (here an overflowed message and the next one, which Hermes
 * keeps as two rows) are two messages after a load, not one glued text; a streamed answer is still
 * one message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hermesHome, makeHost, shutdownHosts, texts } from './helpers.js';

afterEach(shutdownHosts);

describe('Hermes load replay', () => {
  it('keeps consecutive replayed user messages apart', async () => {
    const home = hermesHome();
    const a = makeHost({ hermesHome: home });
    const s = await a.host.newSession({ provider: 'hermes', workspace: a.workspace });
    await s.prompt('remember the word teal').result;
    expect((await s.prompt('OVERFLOW now').result).error?.code).toBe('context_overflow');
    await a.host.shutdown();

    // Another process that knows nothing of the overflow sends the next message to the same session.
    const b = makeHost({ hermesHome: home, workspace: a.workspace });
    const again = await b.host.loadSession(s.id, { provider: 'hermes', workspace: a.workspace });
    await again.prompt('hello after overflow').result;
    await b.host.shutdown();

    const c = makeHost({ hermesHome: home, workspace: a.workspace });
    const loaded = await c.host.loadSession(s.id, { provider: 'hermes', workspace: a.workspace });
    expect(texts(loaded, 'user_message')).toEqual(['remember the word teal', 'OVERFLOW now', 'hello after overflow']);
    expect(texts(loaded)[0]).toBe('Hello from the fake model! You said: remember the word teal');
  });
});
