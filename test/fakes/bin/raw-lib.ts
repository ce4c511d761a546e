/**
 * Tiny raw NDJSON helpers for the fault executables (no SDK: they must be able to misbehave).
 * Agent frames go to stdout, logs to stderr.
 */
export type Msg = {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: any;
  result?: unknown;
  error?: unknown;
};

export function writeLine(line: string): void {
  process.stdout.write(line + '\n');
}

export function send(msg: Msg): void {
  writeLine(JSON.stringify({ jsonrpc: '2.0', ...msg }));
}

export function respond(id: Msg['id'], result: unknown): void {
  send({ id, result });
}

export function respondError(id: Msg['id'], code: number, message: string, data?: unknown): void {
  send({ id, error: data === undefined ? { code, message } : { code, message, data } });
}

export function update(sessionId: string, update: Record<string, unknown>): void {
  send({ method: 'session/update', params: { sessionId, update } });
}

export function textChunk(sessionId: string, text: string): void {
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}

export const INIT_RESULT = {
  protocolVersion: 1,
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true },
    sessionCapabilities: { list: {}, fork: {} },
  },
  agentInfo: { name: 'raw-fake', version: '0.0.1' },
  authMethods: [],
};

/** Calls `onMessage` for every JSON line on stdin (non-JSON lines are ignored, like Hermes). */
export function readMessages(onMessage: (msg: Msg) => void, onEnd?: () => void): void {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      let msg: Msg;
      try {
        msg = JSON.parse(line) as Msg;
      } catch {
        continue;
      }
      onMessage(msg);
    }
  });
  process.stdin.on('end', () => (onEnd ?? (() => process.exit(0)))());
}
