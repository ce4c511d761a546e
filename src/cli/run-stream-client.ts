/**
 * The reading end of `POST /api/run/stream` (server/run-stream.ts) over node:http, for `talaria
 * run` on a warm server (issue 16): one request whose answer is the run's first line and then its
 * turn, line by line. No WebSocket client is loaded for it.
 *
 * Before the prompt is sent, `GET /api/health` must answer within the liveness bound: serve.json
 * only names a server, and a server that is gone or hung then leaves the run local, safely (the
 * prompt was never sent). A refused connection is reported with its `code` (ECONNREFUSED), an
 * error answer as a ServerError: the caller runs locally then, as neither sent a prompt.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { TOKEN_HEADER } from '../server/contract/wire.js';
import { errorAnswer } from '../server/client/http.js';
import { httpsRequest, keepAliveAgent } from './node-fetch.js';

/** node:http with the kept connection, or (a server with TLS) node:https, loaded then. */
function request(url: string, o: RequestOptions, onResponse?: (res: IncomingMessage) => void) {
  return url.startsWith('https:')
    ? httpsRequest(url, o, onResponse)
    : httpRequest(url, { ...o, agent: keepAliveAgent }, onResponse);
}

export interface RunStreamAnswer {
  type: 'run';
  workspace: unknown;
  snapshot: unknown;
  turn: { id: string; queued: boolean; position: number };
}

export interface RunStream {
  readonly answer: RunStreamAnswer;
  /** Each line after the answer (an event, or `{type:'snapshot'}`), in order; lines that came before this call first. */
  listen(onLine: (msg: { type: string }) => void): void;
  /** 'end': the server ended the stream (the run's turn ended); 'broken': the connection was lost first. */
  readonly closed: Promise<'end' | 'broken'>;
  /** Stops reading (the turn goes on at the server). */
  close(): void;
}

/** Resolves when a Talaria server answers `GET /api/health` within `ms`; rejects otherwise. */
export function checkAlive(base: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/health`, { timeout: ms }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => (text += s));
      res.on('end', () => {
        try {
          if (res.statusCode === 200 && (JSON.parse(text) as { name?: unknown }).name === 'talaria') return resolve();
        } catch {
          // not JSON: not a Talaria server
        }
        reject(new Error(`no Talaria server answers at ${base} (HTTP ${res.statusCode})`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ms} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Sends the run; resolves with the stream once its first line (the run's answer) is in. */
export function postRunStream(base: string, token: string, body: object): Promise<RunStream> {
  return new Promise((resolve, reject) => {
    const headers = {
      [TOKEN_HEADER]: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/x-ndjson',
    };
    const req = request(`${base}/api/run/stream`, { method: 'POST', headers });
    let settled = false;
    let endStream!: (how: 'end' | 'broken') => void;
    const closed = new Promise<'end' | 'broken'>((r) => (endStream = r));
    const fail = (err: Error) => {
      if (!settled) {
        settled = true;
        reject(err);
      } else endStream('broken');
    };
    req.on('error', fail);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (s: string) => (text += s));
        res.on('end', () =>
          fail(errorAnswer(res.statusCode ?? 0, res.statusMessage ?? '', res.headers['content-type'] ?? '', text)),
        );
        return;
      }
      let rest = '';
      const queued: { type: string }[] = [];
      let onLine: ((msg: { type: string }) => void) | undefined;
      const line = (text: string) => {
        if (text === '') return;
        const msg = JSON.parse(text) as { type: string };
        if (!settled) {
          settled = true;
          if (msg.type !== 'run') return reject(new Error(`the server's run stream began with "${msg.type}"`));
          const stream: RunStream = {
            answer: msg as RunStreamAnswer,
            listen(fn) {
              onLine = fn;
              for (const m of queued.splice(0)) fn(m);
            },
            closed,
            close: () => req.destroy(),
          };
          resolve(stream);
        } else if (onLine) onLine(msg);
        else queued.push(msg);
      };
      res.on('data', (s: string) => {
        const parts = (rest + s).split('\n');
        rest = parts.pop()!;
        try {
          for (const p of parts) line(p);
        } catch (err) {
          req.destroy();
          fail(err as Error);
        }
      });
      res.on('end', () => {
        if (!settled) fail(new Error('the server ended the run stream before its first line'));
        else endStream(rest === '' ? 'end' : 'broken');
      });
      res.on('error', fail);
      res.on('close', () => (settled ? endStream('broken') : undefined));
    });
    req.end(JSON.stringify(body));
  });
}
