/**
 * Tool actions of the fake model that really touch the workspace: shell commands (with
 * Hermes' dangerous-command approval, ids perm-check-N) and file writes (with the edit
 * approval, ids edit-approval-N, decided by the session mode; sensitive paths always ask).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import * as T from './tools.js';
import type { Turn } from './turn.js';

function sh(command: string, cwd: string): Promise<{ output: string; code: number }> {
  return new Promise((done) => {
    let output = '';
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => done({ output: e.message, code: 1 }));
    child.on('close', (code) => done({ output, code: code ?? 1 }));
  });
}

function sensitive(path: string): boolean {
  const parts = path.split(sep);
  const base = basename(path);
  return (
    parts.includes('.git') ||
    parts.includes('.ssh') ||
    base.startsWith('.env') ||
    /^(id_(rsa|ed25519|ecdsa|dsa)(\.pub)?|authorized_keys)$/.test(base)
  );
}

const inside = (dir: string, p: string): boolean => {
  const r = relative(dir, p);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

function needsApproval(mode: string, path: string, cwd: string): boolean {
  if (sensitive(path)) return true;
  if (mode === 'dont_ask') return false;
  if (mode === 'accept_edits') return !(inside(cwd, path) || inside(tmpdir(), path));
  return true;
}

export async function writeFile(t: Turn, target: string, content: string): Promise<void> {
  const path = resolve(t.cwd, target);
  const oldText = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  const ask = needsApproval(t.rt.mode, path, t.cwd);
  const autoDiff = ask ? undefined : { path, newText: content, ...(oldText !== undefined ? { oldText } : {}) };
  await t.tool(
    'write_file',
    { path, content },
    async () => {
      if (ask) {
        const n = ++t.ctx.counters.edit;
        const opt = await t.permission({
          options: [
            { kind: 'allow_once', name: 'Allow edit', optionId: 'allow_once' },
            { kind: 'reject_once', name: 'Deny', optionId: 'deny' },
          ],
          toolCall: {
            content: [T.diffBlock({ path, newText: content, ...(oldText !== undefined ? { oldText } : {}) })],
            kind: 'edit',
            rawInput: { tool: 'write_file', arguments: { path, content } },
            status: 'pending',
            title: `Approve edit: ${path}`,
            toolCallId: `edit-approval-${n}`,
          },
        });
        if (opt !== 'allow_once') return { raw: T.writeDeniedRaw(), live: false };
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return { raw: T.writeRaw(path, Buffer.byteLength(content)), live: false };
    },
    autoDiff,
  );
}

export async function terminal(t: Turn, command: string): Promise<void> {
  await t.tool('terminal', { command }, async () => {
    const desc = T.dangerOf(command);
    if (desc && !t.rt.allowSession.has(desc) && !t.ctx.allowAlways.has(desc)) {
      const n = ++t.ctx.counters.perm;
      const opt = await t.permission({
        options: [
          { kind: 'allow_once', name: 'Allow once', optionId: 'allow_once' },
          { kind: 'allow_always', name: 'Allow for session', optionId: 'allow_session' },
          { kind: 'allow_always', name: 'Allow always', optionId: 'allow_always' },
          { kind: 'reject_once', name: 'Deny', optionId: 'deny' },
          { kind: 'reject_always', name: 'Deny always', optionId: 'deny_always' },
        ],
        toolCall: {
          content: [{ content: { text: `${desc}\n$ ${command}`, type: 'text' }, type: 'content' }],
          kind: 'execute',
          rawInput: { command, description: desc },
          status: 'pending',
          title: `${desc}: ${command}`,
          toolCallId: `perm-check-${n}`,
        },
      });
      if (!opt || !opt.startsWith('allow')) return { raw: T.blockedRaw(), live: true };
      if (opt === 'allow_session') t.rt.allowSession.add(desc);
      if (opt === 'allow_always') t.ctx.allowAlways.add(desc);
    }
    const { output, code } = await sh(command, t.cwd);
    return { raw: T.terminalRaw(output, code), live: true };
  });
}
