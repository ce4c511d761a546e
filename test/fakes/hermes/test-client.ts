/**
 * Minimal raw NDJSON client for driving the Hermes emulator (or anything that speaks like
 * it) through real pipes in tests: request/notify, auto-answers for agent requests, and
 * condition waits over the ordered frame log. No SDK on purpose: tests see exact frames.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../../prebuilt.js';

export type Msg = Record<string, any>;

export const EMULATOR = fileURLToPath(new URL('./emulator.ts', import.meta.url));
export const HERMES_BIN = fileURLToPath(new URL('./bin', import.meta.url));
/** Absolute tsx loader, so spawns work from any cwd. */
export const TSX = createRequire(import.meta.url).resolve('tsx');

export interface StartOptions {
  home: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

type Waiter = {
  pred: (m: Msg, i: number) => boolean;
  from: number;
  resolve: (m: Msg) => void;
  reject: (e: Error) => void;
  label: string;
};
type AutoAnswer = (params: Msg, id: number) => Msg | undefined;

export class HermesClient {
  /** JSON frames from the agent, in arrival order. */
  readonly frames: Msg[] = [];
  /** Non-JSON stdout lines, with the frame index they arrived before. */
  readonly noise: Array<{ line: string; at: number }> = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private nextId = 1;
  private buf = '';
  private waiters: Waiter[] = [];
  private answers = new Map<string, AutoAnswer>();
  private dead = false;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => this.onData(d));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (this.stderr += d));
    child.stdin.on('error', () => {}); // writes after exit
    this.exited = new Promise((resolve) =>
      child.on('close', (code) => {
        this.dead = true;
        for (const w of this.waiters.splice(0))
          w.reject(new Error(`emulator exited (${code}) while waiting for ${w.label}\n${this.stderr}`));
        resolve(code);
      }),
    );
  }

  static start(o: StartOptions): HermesClient {
    const child = spawn(process.execPath, [...nodeArgs(EMULATOR), ...(o.args ?? ['acp'])], {
      cwd: o.cwd ?? process.cwd(),
      env: { ...process.env, HERMES_HOME: o.home, ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new HermesClient(child);
  }

  private onData(d: string): void {
    this.buf += d;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      let msg: Msg;
      try {
        msg = JSON.parse(line) as Msg;
      } catch {
        this.noise.push({ line, at: this.frames.length });
        continue;
      }
      this.frames.push(msg);
      const index = this.frames.length - 1;
      if (typeof msg.method === 'string' && 'id' in msg) this.autoAnswer(msg);
      this.waiters = this.waiters.filter((w) => {
        if (index < w.from || !w.pred(msg, index)) return true;
        w.resolve(msg);
        return false;
      });
    }
  }

  private autoAnswer(msg: Msg): void {
    const fn = this.answers.get(msg.method);
    const result = fn?.(msg.params ?? {}, msg.id);
    if (result !== undefined) this.send({ jsonrpc: '2.0', id: msg.id, result });
  }

  /** Answer agent→client requests of `method` automatically (return undefined to leave one pending). */
  answer(method: string, fn: AutoAnswer): void {
    this.answers.set(method, fn);
  }

  send(msg: Msg): void {
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  /** Sends a request and resolves with its response frame (result or error). */
  request(method: string, params: Msg = {}): Promise<Msg> {
    const id = this.nextId++;
    // From the current mark: a replayed fixture may have used the same ids before.
    const p = this.waitFor((m) => m.id === id && !('method' in m), `response ${id} (${method})`, this.mark());
    this.send({ jsonrpc: '2.0', id, method, params });
    return p;
  }

  /** Like request() but throws on an error response and returns the result. */
  async call(method: string, params: Msg = {}): Promise<any> {
    const r = await this.request(method, params);
    if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  notify(method: string, params: Msg = {}): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** Index the next frame will get; pass to waitFor/since to look only at later frames. */
  mark(): number {
    return this.frames.length;
  }

  since(mark: number, end = this.frames.length): Msg[] {
    return this.frames.slice(mark, end);
  }

  waitFor(pred: (m: Msg, i: number) => boolean, label = 'frame', from = 0): Promise<Msg> {
    for (let i = from; i < this.frames.length; i++)
      if (pred(this.frames[i]!, i)) return Promise.resolve(this.frames[i]!);
    if (this.dead) return Promise.reject(new Error(`emulator already exited; no ${label}\n${this.stderr}`));
    return new Promise((resolve, reject) => this.waiters.push({ pred, from, resolve, reject, label }));
  }

  waitForStderr(needle: string): Promise<void> {
    if (this.stderr.includes(needle)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // Registered after the constructor's listener, so this.stderr is already appended.
      const onData = () => {
        if (!this.stderr.includes(needle)) return;
        this.child.stderr.off('data', onData);
        resolve();
      };
      this.child.stderr.on('data', onData);
      void this.exited.then(() => {
        if (!this.stderr.includes(needle)) reject(new Error(`no "${needle}" on stderr:\n${this.stderr}`));
      });
    });
  }

  /** session/update payloads among frames[from..]. */
  updates(from = 0, end = this.frames.length): Msg[] {
    return this.since(from, end)
      .filter((m) => m.method === 'session/update')
      .map((m) => m.params.update as Msg);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    if (!this.dead) this.child.kill('SIGKILL');
  }
}

/** initialize + session/new in one go; returns the new session's id and the new result. */
export async function openSession(
  c: HermesClient,
  cwd: string,
  mcpServers: Msg[] = [],
): Promise<{ id: string; result: Msg }> {
  await c.call('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const mark = c.mark();
  const result = await c.call('session/new', { cwd, mcpServers });
  const id = result.sessionId as string;
  // Let the scheduled updates land, so later marks only see the caller's own frames.
  await c.waitFor(
    (m) =>
      m.method === 'session/update' && m.params.sessionId === id && m.params.update.sessionUpdate === 'usage_update',
    'usage_update after session/new',
    mark,
  );
  return { id, result };
}

export const text = (t: string): Msg[] => [{ type: 'text', text: t }];
