/** The turn summary a recorded fixture's prompt produced, as the session core hands it to classifyTurn. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseWireLog } from '../../../src/protocol/wire-log.js';
import type { TurnSummary } from '../../../src/session/hooks.js';

export function recordedTurn(agent: string, name: string): TurnSummary {
  const lines = parseWireLog(
    readFileSync(fileURLToPath(new URL(`../../fixtures/agents/${agent}/${name}.ndjson`, import.meta.url)), 'utf8'),
  );
  const prompt = lines.find((l) => l.dir === 'client->agent' && l.msg.method === 'session/prompt');
  if (!prompt) throw new Error(`${agent}/${name}: no session/prompt recorded`);
  let text = '';
  let toolCalls = 0;
  let stopReason: string | undefined;
  for (const l of lines.slice(lines.indexOf(prompt) + 1)) {
    const m = l.msg;
    const u =
      m.method === 'session/update'
        ? (m.params as { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } }).update
        : undefined;
    if (u?.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text') text += u.content.text ?? '';
    if (u?.sessionUpdate === 'tool_call') toolCalls++;
    if (l.dir === 'agent->client' && m.id === prompt.msg.id && m.result !== undefined) {
      stopReason = (m.result as { stopReason?: string }).stopReason;
      break;
    }
  }
  if (!stopReason) throw new Error(`${agent}/${name}: the prompt has no recorded answer`);
  return { turnId: 't1', stopReason, text, cancelled: false, toolCalls };
}
