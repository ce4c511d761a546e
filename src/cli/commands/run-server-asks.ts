/**
 * Permission asks of a `talaria run` on a server, answered through the API like the local run
 * answers them on its session: one question at a time on a terminal, else rejected with a note.
 */
import type { Interface } from 'node:readline';
import type { ServerClient } from '../../server/client/index.js';
import type { StreamEvent } from '../../server/contract/index.js';
import type { PermissionAnswer } from '../../permission/types.js';
import { approvalDiff, askOnTerminal, askTitle, type Ask } from '../approve.js';
import type { CliIo } from '../io.js';
import type { Entry } from '../../thread/types.js';

type Option = { optionId?: string; kind?: string };

/** The offered option for a typed intent; undefined for a rejection nobody offered (answered as a cancel). */
export function optionFor(options: readonly unknown[], answer: PermissionAnswer): string | undefined {
  const choice = (answer as { choice?: string }).choice;
  const wanted =
    choice === 'allow_always'
      ? ['allow_always', 'allow_once']
      : choice === 'allow_once'
        ? ['allow_once']
        : ['reject_once', 'reject_always'];
  for (const k of wanted) {
    const o = (options as Option[]).find((x) => x.kind === k);
    if (o?.optionId) return o.optionId;
  }
  return undefined;
}

export interface ServerAsks {
  handle(e: StreamEvent): void;
  close(): void;
}

export function answerAsksOnServer(
  client: ServerClient,
  sessionId: string,
  io: CliIo,
  entries: () => readonly Entry[],
  opts: { interactive: boolean; note: (text: string) => void; onInterrupt?: () => void; beforeAsk?: () => void },
): ServerAsks {
  const queue: Ask[] = [];
  const settled = new Set<string>();
  let current: { key: string; rl: Interface } | undefined;
  const answer = (key: string, body: { optionId: string } | { cancel: true }) =>
    // A conflict (answered elsewhere first, e.g. in the web UI) is not an error: first answer wins.
    client.api.answerPermission({ params: { id: sessionId, requestKey: key }, body }).catch(() => undefined);
  const next = (): void => {
    const ask = queue.shift();
    if (!ask) return;
    if (settled.has(ask.requestKey)) return next();
    opts.beforeAsk?.();
    for (const l of approvalDiff(entries(), ask, io)) io.stderr.write(`${l}\n`);
    current = {
      key: ask.requestKey,
      rl: askOnTerminal(
        io,
        ask,
        (a) => {
          const optionId = optionFor(ask.options, a);
          void answer(ask.requestKey, optionId ? { optionId } : { cancel: true });
        },
        opts.onInterrupt,
      ),
    };
  };
  return {
    handle(e) {
      if (e.type === 'permission.decided') {
        settled.add(e.requestKey);
        if (current && current.key === e.requestKey) {
          current.rl.close();
          current = undefined;
          next();
        }
        return;
      }
      if (e.type !== 'permission.asked') return;
      const ask = e as unknown as Ask;
      if (!opts.interactive) {
        opts.note(
          `permission asked for "${askTitle(ask)}": rejected (no terminal to ask on; pass --approve to decide ahead)`,
        );
        void answer(e.requestKey, { cancel: true });
        return;
      }
      queue.push(ask);
      if (!current) next();
    },
    close() {
      current?.rl.close();
      current = undefined;
    },
  };
}
