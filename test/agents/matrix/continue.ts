/**
 * The continue cell (issue 14): a Hermes session (the emulator, real 0.18.2 behaviour, started by
 * command like any custom agent) continued in this row's agent. The new agent session is seeded
 * from Talaria's stored transcript; checked against what this agent's model (the fake model)
 * received for the next prompt: the Hermes exchange, then the new message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentProcess } from './agent-process.js';
import { runTurn, type Check, type ScenarioCtx } from './scenarios.js';

const EMULATOR = fileURLToPath(new URL('../../fakes/hermes/emulator.ts', import.meta.url));
const TSX_LOADER = fileURLToPath(import.meta.resolve('tsx'));
const MARKER = 'teal-42';

export async function continueScenario(ctx: ScenarioCtx, proc: AgentProcess): Promise<Check> {
  const hermesHome = mkdtempSync(join(tmpdir(), 'talaria-matrix-hermes-'));
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  const hermes = proc.h.commandAgent('/usr/bin/env', [
    `HERMES_HOME=${hermesHome}`,
    process.execPath,
    '--import',
    TSX_LOADER,
    EMULATOR,
    'acp',
  ]);
  const w = proc.h.workspaces.open(ctx.ws.cwd);
  const src = await w.newSession({ provider: hermes.id });
  try {
    const first = await src.session.prompt(`Please remember the matrix continue marker ${MARKER}.`).result;
    if (first.error)
      return { ok: false, detail: `the Hermes turn failed: ${first.error.code} ${first.error.message.slice(0, 160)}` };
    src.flush();
    const cont = await w.branchSession(src.id, { provider: proc.provider });
    proc.watch(cont);
    try {
      const from = ctx.model.requests.length;
      const r = await runTurn({ ...ctx, session: cont.session }, 'Please reply to this matrix continue probe.');
      if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
      if (r.result.error)
        return { ok: false, detail: `turn error ${r.result.error.code}: ${r.result.error.message.slice(0, 200)}` };
      const asked = ctx.model.requests
        .slice(from)
        .map((q) => JSON.stringify(q.body ?? ''))
        .find((b) => b.includes('matrix continue probe'));
      if (!asked) return { ok: false, detail: 'the model never got the new prompt' };
      const seeded = asked.includes(`matrix continue marker ${MARKER}`);
      const notice = cont.session.thread.entries.some(
        (e) => e.kind === 'notice' && (e as { code?: string }).code === 'branched',
      );
      const ok = seeded && notice && r.text.includes('matrix continue probe');
      return {
        ok,
        detail: ok
          ? `Hermes session continued in ${proc.provider} (${asked.length} bytes to the model, the Hermes exchange in it)`
          : `seeded: ${seeded}, branched notice: ${notice}, answer ${JSON.stringify(r.text.slice(0, 120))}`,
      };
    } finally {
      await cont.close().catch(() => undefined);
    }
  } finally {
    await src.close().catch(() => undefined);
    rmSync(hermesHome, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
