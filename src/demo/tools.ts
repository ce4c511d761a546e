/**
 * The demo's three tools — read, edit/write, run — each reported as an ACP tool call
 * (pending → in_progress → completed | failed). Edit and run ask permission first.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { readIfExists, readTextCapped, resolveInside, runShellCommand, writeTextAtomic } from './fs-ops.js';
import { check, snippet, textContent, TurnCancelled, type TurnIo } from './turn-io.js';

type Update = Omit<acp.ToolCallUpdate, 'toolCallId'>;

function updater(io: TurnIo, toolCallId: string) {
  return (u: Update): Promise<void> => io.send({ sessionUpdate: 'tool_call_update', toolCallId, ...u });
}

function fail(io: TurnIo, id: string, message: string, extra: acp.ToolCallContent[] = []): Promise<void> {
  return updater(io, id)({ status: 'failed', content: [...extra, textContent(message)] });
}

function errText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'not found';
  if (code === 'EISDIR') return 'is a folder, not a file';
  return e instanceof Error ? e.message : String(e);
}

/** Returns the text read, or null when the read failed (already reported). */
export async function readStep(io: TurnIo, file: string): Promise<string | null> {
  check(io);
  const id = io.toolCallId();
  const r = resolveInside(io.cwd, file);
  await io.send({
    sessionUpdate: 'tool_call',
    toolCallId: id,
    title: `Read ${file}`,
    kind: 'read',
    status: 'pending',
    locations: r.ok ? [{ path: r.abs }] : [],
    rawInput: { path: file },
  });
  const update = updater(io, id);
  if (!r.ok) {
    await fail(io, id, r.reason);
    return null;
  }
  await update({ status: 'in_progress' });
  let got: { text: string; truncated: boolean };
  try {
    got = readTextCapped(r.abs, io.timing.maxReadBytes);
  } catch (e) {
    await fail(io, id, `Could not read ${file}: ${errText(e)}`);
    return null;
  }
  check(io);
  await update({
    status: 'completed',
    content: [textContent(got.truncated ? `${got.text}\n… (truncated by the demo agent)` : got.text)],
    rawOutput: { bytes: Buffer.byteLength(got.text), truncated: got.truncated },
  });
  return got.text;
}

export const DEMO_EDIT_LINE = 'Edited by the Talaria demo agent.\n';
export const DEMO_WRITE_TEXT = 'Hello from the Talaria demo agent (offline, scripted).\n';

/** `edit` appends a line; `write` replaces the content. True when the file was written. */
export async function editStep(io: TurnIo, file: string, how: 'edit' | 'write', text?: string): Promise<boolean> {
  check(io);
  const id = io.toolCallId();
  const title = `${how === 'edit' ? 'Edit' : 'Write'} ${file}`;
  const r = resolveInside(io.cwd, file);
  const call: acp.ToolCall = { toolCallId: id, title, kind: 'edit', status: 'pending', rawInput: { path: file } };
  if (!r.ok) {
    await io.send({ sessionUpdate: 'tool_call', ...call, locations: [] });
    await fail(io, id, r.reason);
    return false;
  }
  call.locations = [{ path: r.abs }];
  let oldText: string | null;
  try {
    oldText = readIfExists(r.abs);
  } catch (e) {
    await io.send({ sessionUpdate: 'tool_call', ...call });
    await fail(io, id, `Could not read ${file}: ${errText(e)}`);
    return false;
  }
  const newText =
    how === 'write'
      ? (text ?? DEMO_WRITE_TEXT)
      : `${oldText ?? ''}${oldText && !oldText.endsWith('\n') ? '\n' : ''}${DEMO_EDIT_LINE}`;
  const diff: acp.ToolCallContent = { type: 'diff', path: r.abs, oldText, newText };
  call.content = [diff];
  await io.send({ sessionUpdate: 'tool_call', ...call });
  const decision = await io.permit(call);
  if (decision === 'cancelled') throw new TurnCancelled();
  if (decision === 'reject') {
    await fail(io, id, `Permission denied: ${file} was left untouched.`, [diff]);
    return false;
  }
  check(io);
  await updater(io, id)({ status: 'in_progress' });
  try {
    writeTextAtomic(r.abs, newText);
  } catch (e) {
    await fail(io, id, `Could not write ${file}: ${errText(e)}`, [diff]);
    return false;
  }
  await updater(io, id)({ status: 'completed', content: [diff] });
  return true;
}

/** Runs `command` with /bin/sh in the session cwd, streaming its output into the call. */
export async function runStep(io: TurnIo, command: string): Promise<boolean> {
  check(io);
  const id = io.toolCallId();
  const call: acp.ToolCall = {
    toolCallId: id,
    title: `Run ${snippet(command, 80)}`,
    kind: 'execute',
    status: 'pending',
    rawInput: { command },
  };
  await io.send({ sessionUpdate: 'tool_call', ...call });
  if (command.trim() === '') {
    await fail(io, id, 'No command given: try "run echo hi".');
    return false;
  }
  const decision = await io.permit(call);
  if (decision === 'cancelled') throw new TurnCancelled();
  if (decision === 'reject') {
    await fail(io, id, 'Permission denied: the command was not run.');
    return false;
  }
  check(io);
  const update = updater(io, id);
  await update({ status: 'in_progress' });

  // Coalesce output: at most one update in flight, always carrying the latest output.
  // (An object, so TypeScript does not narrow the fields the callbacks reassign.)
  const out: { latest: string | null; pumping: Promise<void> | null } = { latest: null, pumping: null };
  const pump = async (): Promise<void> => {
    while (out.latest !== null) {
      const text = out.latest;
      out.latest = null;
      // Transient: the final update carries the whole output, so history stays linear in size.
      await io
        .send({ sessionUpdate: 'tool_call_update', toolCallId: id, content: [textContent(text)] }, { transient: true })
        .catch(() => undefined);
    }
  };
  const result = await runShellCommand(command, {
    cwd: io.cwd,
    timeoutMs: io.timing.runTimeoutMs,
    maxOutputBytes: io.timing.maxOutputBytes,
    signal: io.signal,
    onOutput: (text) => {
      out.latest = text;
      out.pumping ??= pump().finally(() => {
        out.pumping = null;
      });
    },
  });
  while (out.pumping) await out.pumping;
  if (result.aborted) throw new TurnCancelled();
  const output = result.output + (result.truncated ? '\n… (output truncated by the demo agent)' : '');
  const rawOutput = {
    exitCode: result.exitCode,
    signal: result.signal,
    truncated: result.truncated,
    timedOut: result.timedOut,
  };
  if (result.exitCode === 0) {
    await update({ status: 'completed', content: [textContent(output === '' ? '(no output)' : output)], rawOutput });
    return true;
  }
  const why = result.error
    ? `could not start: ${result.error}`
    : result.timedOut
      ? `timed out after ${io.timing.runTimeoutMs} ms`
      : result.exitCode === null
        ? `killed by ${result.signal ?? 'a signal'}`
        : `exit code ${result.exitCode}`;
  await update({
    status: 'failed',
    content: [textContent(`${output}${output && !output.endsWith('\n') ? '\n' : ''}(${why})`)],
    rawOutput,
  });
  return false;
}
