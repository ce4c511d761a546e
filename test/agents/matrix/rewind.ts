/**
 * The rewind cell (issue 14): go back to an earlier user message of the keyed session and carry on
 * in a new agent session seeded from Talaria's stored transcript. Checked against what the fake
 * model received for the next prompt: the turns before the rewind point are in it, the ones after
 * are not. The cut is placed before the shell turn so the seed holds only plain text: the fake
 * model acts on `[[…]]` tokens in the last user text, and a seeded old tool request would run again.
 */
import type { HarnessSession } from '../../../src/harness/index.js';
import type { Entry, MessageEntry } from '../../../src/thread/types.js';
import type { AgentProcess } from './agent-process.js';
import { runTurn, type Check, type ScenarioCtx } from './scenarios.js';

const isUser = (e: Entry): e is MessageEntry => e.kind === 'user_message';

export async function rewindScenario(ctx: ScenarioCtx, source: HarnessSession, proc: AgentProcess): Promise<Check> {
  const entries = source.session.thread.entries;
  const cut = entries.find((e) => isUser(e) && e.text.includes('[[bash: echo matrix-ok]]'));
  if (!cut) return { ok: false, detail: 'no shell prompt in the thread to rewind to' };
  const branch = await proc.h.workspaces.open(ctx.ws.cwd).branchSession(source.id, { at: cut.id });
  proc.watch(branch);
  try {
    const from = ctx.model.requests.length;
    const r = await runTurn({ ...ctx, session: branch.session }, 'Please reply to this matrix rewind probe.');
    if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
    if (r.result.error)
      return { ok: false, detail: `turn error ${r.result.error.code}: ${r.result.error.message.slice(0, 200)}` };
    const sent = ctx.model.requests.slice(from).map((q) => JSON.stringify(q.body ?? ''));
    const asked = sent.find((b) => b.includes('matrix rewind probe'));
    if (!asked) return { ok: false, detail: `the model never got the new prompt (${sent.length} requests)` };
    const seeded = asked.includes('matrix text probe');
    const leaked = asked.includes('matrix-ok');
    const ok = seeded && !leaked && r.text.includes('matrix rewind probe');
    return {
      ok,
      detail: ok
        ? `seeded new agent session ${branch.session.id.slice(0, 12)}… (${asked.length} bytes to the model)`
        : `seeded: ${seeded}, later turn leaked: ${leaked}, answer ${JSON.stringify(r.text.slice(0, 120))}`,
    };
  } finally {
    await branch.close().catch(() => undefined);
  }
}
