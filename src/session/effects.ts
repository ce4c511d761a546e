/**
 * Authorises the effects Talaria performs for the agent — fs/read_text_file, fs/write_text_file,
 * terminal/create — through the same policy and broker as the agent's own permission requests
 * (broker.authorize): a write follows the mode like an edit, a terminal like an execute call
 * (dangerous commands always ask), a read inside the roots is allowed unless the file is
 * sensitive or a rule says otherwise, and every decision is audited. When Talaria must ask, the
 * session emits `permission.asked` with Talaria's own options; a refusal (a person, a rule, the
 * timeout, a cancel) reaches the agent as a JSON-RPC error and nothing happens.
 * tests: test/session/effects.test.ts (real agent process, real pipes)
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { PermissionBroker } from '../permission/broker.js';
import { commandFromArray } from '../permission/subject.js';
import { quoteArg } from '../os/shell.js';
import type { PermissionSubject } from '../permission/types.js';
import type { AuthorizeEffect, ClientEffect } from '../protocol/effect.js';
import { RPC } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';

/** JSON-RPC code of a refused effect (server-error range; ACP defines none for this). */
export const PERMISSION_DENIED = -32001;

/** What the authorizer needs of a session (a Session fits). */
export interface EffectSession {
  readonly roots: string[];
  readonly running: { readonly id: string } | null;
  openToolCalls(): readonly { toolCallId: string }[];
}

export interface EffectAuthorizerOptions {
  broker: PermissionBroker;
  lookup: (sessionId: string) => EffectSession | undefined;
}

/** Env names whose values stay out of asks and the audit log. */
const SECRET_NAME = /key|token|secret|passw|auth|cred|cookie|session|private/i;

export function createEffectAuthorizer(o: EffectAuthorizerOptions): AuthorizeEffect {
  return async (effect) => {
    const session = o.lookup(effect.sessionId);
    if (!session) {
      throw new RequestError(RPC.RESOURCE_NOT_FOUND, `Unknown session: ${effect.sessionId}`, {
        sessionId: effect.sessionId,
      });
    }
    const subject = subjectOf(effect, session.roots);
    const turnId = session.running?.id;
    const verdict = await o.broker.authorize({
      requestKey: `${effect.sessionId}:${effect.kind}:${randomUUID()}`,
      sessionId: effect.sessionId,
      subject,
      ...(turnId !== undefined ? { turnId } : {}),
      toolCallOpen: (id) => session.openToolCalls().some((c) => c.toolCallId === id),
    });
    if (verdict.allowed) return;
    const cancelled = verdict.decidedBy === 'cancel' || verdict.decidedBy === 'closed';
    throw new RequestError(
      cancelled ? RPC.REQUEST_CANCELLED : PERMISSION_DENIED,
      `Permission denied: ${subject.title} (${verdict.reason})`,
      {
        reason: 'permission_denied',
        decidedBy: verdict.decidedBy,
        effect: effect.kind,
      },
    );
  };
}

/** The command line the policy judges: what runs, with the agent's extra env in front. */
export function terminalCommandLine(effect: Extract<ClientEffect, { kind: 'terminal.create' }>): string {
  // No args: a shell line (`sh -c`); args: an argv, `bash -lc "…"` reduced to its script.
  const line =
    effect.args.length === 0
      ? effect.command.trim()
      : (commandFromArray([effect.command, ...effect.args]) ?? effect.command);
  // Names are identifiers (client-terminal.ts checks): each is a plain assignment word.
  const env = effect.env.map((e) => `${e.name}=${SECRET_NAME.test(e.name) ? "'[redacted]'" : quoteArg(e.value)}`);
  return env.length > 0 ? `${env.join(' ')} ${line}` : line;
}

function subjectOf(effect: ClientEffect, roots: string[]): PermissionSubject {
  const base = {
    sessionId: effect.sessionId,
    toolCallId: `talaria:${effect.kind}:${randomUUID().slice(0, 8)}`,
    roots,
    effect: effect.kind,
  };
  if (effect.kind === 'terminal.create') {
    const command = terminalCommandLine(effect);
    return {
      ...base,
      toolKind: 'execute',
      title: `Run \`${command}\` in ${effect.cwd}`,
      command,
      paths: [resolve(effect.cwd)],
      realPaths: [effect.realCwd],
    };
  }
  const verb = effect.kind === 'fs.read' ? 'Read' : 'Write';
  return {
    ...base,
    toolKind: effect.kind === 'fs.read' ? 'read' : 'edit',
    title: `${verb} ${effect.path}`,
    paths: [resolve(effect.path)],
    realPaths: [effect.realPath],
  };
}
