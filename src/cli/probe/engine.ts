/**
 * The probe engine: start the agent in a scratch workspace (with a marker variable in its env
 * and the probe's MCP server offered in session/new), then run each check group in order on one
 * session, every frame recorded and schema-checked. Never throws for anything the agent does:
 * failures become rows. Not ready (no start, no initialize, no session) ends the run early.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { warmWireChecker } from '../../protocol/wire-check.js';
import type { AcpClient } from '../../session/client.js';
import { capabilitiesRow, initializeRow, sessionNewRow } from './check-setup.js';
import { wireRow } from './check-wire.js';
import { codedErrorText, result, type ProbeContext } from './context.js';
import { mcpServerEntry } from './mcp-command.js';
import { answerPermissions, openSession, startAgent } from './open.js';
import { Recorder } from './recorder.js';
import { steeringFor } from './steering.js';
import { PROBE_ROWS, STEPS } from './steps.js';
import {
  DEFAULT_PROBE_TIMEOUT_MS,
  PROBE_STATUSES,
  type CheckResult,
  type ProbeOptions,
  type ProbeReport,
} from './types.js';
import { makeWorkspace } from './workspace.js';

export { PROBE_ROWS } from './steps.js';

/** Rows of the not-ready line: its first line, and the agent's stderr tail as evidence. */
const failedRow = (id: string, title: string, message: string): CheckResult =>
  result(id, title, 'broken', message.split('\n')[0]!, message.split('\n').slice(1));

async function runSteps(ctx: ProbeContext, o: ProbeOptions, report: ProbeReport): Promise<void> {
  const { client: c, recorder: rec } = ctx;
  for (const step of STEPS) {
    const skip = o.signal?.aborted
      ? 'the probe was interrupted'
      : c.connection.isClosed
        ? `the agent connection closed (${codedErrorText((await c.closed).error)})`
        : step.turn && ctx.busy
          ? `the session is still busy: ${ctx.busy}`
          : undefined;
    if (skip) {
      if (o.signal?.aborted) report.interrupted = true;
      report.checks.push(...step.rows.map((r) => result(r.id, r.title, 'skipped', skip)));
      continue;
    }
    rec.check = step.rows[0]!.id;
    o.onProgress?.(`Probing ${step.rows.map((r) => r.title).join(' and ')}…`);
    const began = rec.now();
    let rows: CheckResult[];
    try {
      const out = await step.run(ctx);
      rows = Array.isArray(out) ? out : [out];
    } catch (err) {
      rows = step.rows.map((r) => result(r.id, r.title, 'broken', `the check failed: ${codedErrorText(err)}`));
    }
    const took = Math.round(rec.now() - began);
    const bad = rec.violationsOf(step.rows[0]!.id);
    for (const r of rows) {
      r.durationMs = took;
      if (bad) r.summary += ` · ${bad} wire violation${bad === 1 ? '' : 's'}`;
    }
    report.checks.push(...rows);
  }
}

export async function runProbe(o: ProbeOptions): Promise<ProbeReport> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const t0 = Date.now();
  const { launch } = o;
  // Compile the schema now, so its one-time cost is not counted in the agent's timings.
  warmWireChecker();
  const { root, ws } = makeWorkspace(o.parentDir);
  const rec = new Recorder();
  const marker = `talaria-probe-${randomBytes(6).toString('hex')}`;
  const mcpNonce = `nonce-${randomBytes(6).toString('hex')}`;
  const checks: CheckResult[] = [];
  const report: ProbeReport = {
    v: 1,
    agent: { label: launch.label, command: launch.command, args: launch.args },
    steering: 'generic',
    cwd: ws.cwd,
    ready: false,
    startedAt: new Date(t0).toISOString(),
    durationMs: 0,
    checks,
    counts: Object.fromEntries(PROBE_STATUSES.map((s) => [s, 0])) as ProbeReport['counts'],
    wire: rec.summary(),
  };
  let client: AcpClient | undefined;
  // After a hang or a stuck turn, signal the agent at once instead of waiting for it to exit.
  let force = false;
  try {
    o.onProgress?.(`Starting ${launch.label}…`);
    const spawnStart = rec.now();
    const started = await startAgent({ launch, timeoutMs, ws, marker, rec, ...(o.logger ? { logger: o.logger } : {}) });
    if ('notReady' in started) {
      force = true;
      report.notReady = started.notReady;
      checks.push(failedRow('initialize', 'initialize', started.notReady));
      return report;
    }
    client = started.client;
    const caps = client.capabilities;
    // Behind `talaria acp` the prompts that steer the agent are those of the agent Talaria hosts.
    const inner = (caps.raw._meta as { talaria?: { agentInfo?: { name?: unknown } } } | undefined)?.talaria?.agentInfo
      ?.name;
    const steering = steeringFor(typeof inner === 'string' ? inner : caps.agentInfo?.name);
    report.steering = steering.id;
    if (caps.agentInfo) Object.assign(report.agent, caps.agentInfo);
    report.agent.quirks = started.quirks;
    checks.push(initializeRow(caps, rec.now() - spawnStart, rec), capabilitiesRow(caps));

    rec.check = 'session_new';
    o.onProgress?.('Opening a session…');
    const mcpServer = mcpServerEntry(ws.mcpLog, mcpNonce);
    const opened = await openSession(client, { ws, mcpServer, timeoutMs, rec });
    if ('notReady' in opened) {
      force = opened.fatal;
      report.notReady = opened.notReady;
      checks.push(failedRow('session_new', 'session/new', opened.notReady));
      return report;
    }
    report.ready = true;
    const { session, mcpRefused } = opened;
    const mcpNote = mcpRefused ? 'refused the MCP server, opened without it' : 'probe MCP server offered';
    checks.push(
      sessionNewRow({
        elapsedMs: rec.now() - opened.started,
        sessionId: session.id,
        catalog: session.catalog,
        rec,
        from: opened.from,
        mcpNote,
      }),
    );

    answerPermissions(client);
    const ctx: ProbeContext = {
      client,
      session,
      recorder: rec,
      steering,
      ws,
      timeoutMs,
      marker,
      mcpNonce,
      liveToolIds: new Set(),
    };
    if (mcpRefused) ctx.mcpRefused = mcpRefused;
    else ctx.mcpServer = mcpServer;
    ctx.firstPrompt = steering.stream;
    await runSteps(ctx, o, report);
    if (ctx.busy) force = true;
    return report;
  } finally {
    rec.check = 'close';
    if (client) {
      if (force) client.connection.process?.kill('SIGTERM');
      await client.close().catch(() => undefined);
    }
    if (!report.ready) {
      // Not ready: the rest of the table says so rather than going missing.
      for (const r of PROBE_ROWS)
        if (r.id !== 'wire' && !checks.some((x) => x.id === r.id))
          checks.push(result(r.id, r.title, 'skipped', 'the agent is not ready'));
    }
    checks.push(wireRow(rec));
    report.wire = rec.summary();
    for (const r of checks) report.counts[r.status]++;
    report.durationMs = Date.now() - t0;
    if (!o.keepWorkspace) rmSync(root, { recursive: true, force: true });
  }
}
