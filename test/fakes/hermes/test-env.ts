/**
 * Temp homes, workspaces and emulator processes for the emulator's own tests, all removed
 * (processes killed, folders deleted) by the hooks each test file registers with `useEnv()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { HermesClient, text, type Msg } from './test-client.js';

export const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

export interface Env {
  root: string;
  makeHome(cfg?: string | null): string;
  makeWs(files?: Record<string, string>): string;
  start(home: string, env?: Record<string, string>, args?: string[]): HermesClient;
  next(): number;
}

export function useEnv(prefix = 'hermes-emu-'): Env {
  const root = mkdtempSync(join(tmpdir(), prefix));
  let seq = 0;
  const live: HermesClient[] = [];
  afterEach(() => {
    for (const c of live.splice(0)) c.kill();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return {
    root,
    next: () => ++seq,
    makeHome(cfg: string | null = CONFIG) {
      const h = join(root, `home${++seq}`);
      mkdirSync(h, { recursive: true });
      if (cfg !== null) writeFileSync(join(h, 'config.yaml'), cfg);
      return h;
    },
    makeWs(files: Record<string, string> = {}) {
      const w = join(root, `ws${++seq}`);
      mkdirSync(w, { recursive: true });
      for (const [f, c] of Object.entries(files)) writeFileSync(join(w, f), c);
      return w;
    },
    start(home: string, env: Record<string, string> = {}, args?: string[]) {
      const c = HermesClient.start({ home, env, ...(args ? { args } : {}) });
      live.push(c);
      return c;
    },
  };
}

export const upd = (m: Msg) => (m.method === 'session/update' ? (m.params.update as Msg) : null);
export const kinds = (frames: Msg[]) =>
  frames.map((m) => upd(m)?.sessionUpdate ?? (m.method ? `req:${m.method}` : 'response'));
export const chunkText = (frames: Msg[], kind = 'agent_message_chunk') =>
  frames
    .filter((m) => upd(m)?.sessionUpdate === kind)
    .map((m) => upd(m)!.content.text)
    .join('');

/** Sends a prompt; resolves with the response and the frames from the request up to it. */
export async function prompt(
  c: HermesClient,
  sessionId: string,
  t: string | Msg[],
): Promise<{ res: Msg; frames: Msg[] }> {
  const mark = c.mark();
  const res = await c.request('session/prompt', { sessionId, prompt: typeof t === 'string' ? text(t) : t });
  return { res, frames: c.since(mark, c.frames.indexOf(res) + 1) };
}
