/**
 * An editor that stops reading `talaria acp`'s stdout mid-turn: the proxy stops reading its agent
 * (the agent blocks on its own full pipe) instead of holding the flood in memory, and once the
 * editor reads again every chunk arrives, in order, and the turn ends.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../cli/helpers.js';
import { editorEnv } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

const AGENT = fileURLToPath(new URL('./flood-agent.ts', import.meta.url));
const FRAMES = 20_000; // ~20 MB of chunks

async function until<T>(probe: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not seen within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('talaria acp: an editor that stops reading', { timeout: 180_000 }, () => {
  it('holds the agent back (bounded, not read into memory), then delivers every chunk in order', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-bp');
    const progress = join(cwd, 'progress');
    const agent = `${nodeCommand(AGENT)} ${FRAMES} "${progress}"`;
    const child = spawn(process.execPath, [BIN, 'acp', '--agent-cmd', agent], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const msgs: Record<string, any>[] = [];
    let buf = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        msgs.push(JSON.parse(buf.slice(0, nl)) as Record<string, any>);
        buf = buf.slice(nl + 1);
      }
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...(m as object) })}\n`);
    const answer = (id: number) => until(() => msgs.find((m) => m.id === id), `the answer to ${id}`);

    send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await answer(1);
    send({ id: 2, method: 'session/new', params: { cwd, mcpServers: [] } });
    const sessionId = (await answer(2)).result.sessionId as string;

    // The editor stops reading, then asks for the flood.
    child.stdout.pause();
    send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'flood' }] } });
    const read = () => (existsSync(progress) ? readFileSync(progress, 'utf8') : '');
    await until(() => (read().endsWith('waiting') ? true : undefined), 'the agent waiting on its stdout');
    // Held for good: the count stays where it is while nobody reads (a proxy that read on would
    // let the agent finish its 20 MB in well under this window).
    let last = read();
    let stableSince = Date.now();
    await until(() => {
      const now = read();
      if (now !== last) [last, stableSince] = [now, Date.now()];
      return Date.now() - stableSince > 1500 ? true : undefined;
    }, 'the agent held back');
    const held = Number.parseInt(last, 10);
    expect(last).toMatch(/waiting$/);
    // What the pipes and one burst hold (~64 KB each), never the flood.
    expect(held).toBeLessThan(FRAMES / 20);

    child.stdout.resume();
    const end = await until(() => msgs.find((m) => m.id === 3), 'the end of the turn', 120_000);
    expect(end.result.stopReason).toBe('end_turn');
    const texts = msgs
      .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params.update.content.text as string);
    expect(texts.length).toBe(FRAMES);
    expect(texts.every((t, i) => t.startsWith(`<${i}>`))).toBe(true);
    expect(read()).toBe(`${FRAMES} done`);
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
  });
});
