/** terminal/create's parameters and cwd, checked before anything runs (the policy judges what they say). */
import type { CreateTerminalRequest } from '@agentclientprotocol/sdk';
import { stat } from 'node:fs/promises';
import { errCode } from '../os/real-path.js';
import { RPC } from './errors.js';
import { RequestError } from './wire-error.js';

export interface CreateParams {
  sessionId: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  cwd: string | undefined;
  outputByteLimit: number | undefined;
}

export function validateCreate(params: CreateTerminalRequest): CreateParams {
  const bad = (message: string, data?: Record<string, unknown>): RequestError =>
    new RequestError(RPC.INVALID_PARAMS, message, data);
  if (typeof params?.sessionId !== 'string') throw bad('sessionId must be a string');
  if (typeof params.command !== 'string' || params.command.length === 0)
    throw bad('command must be a non-empty string');
  const args = params.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw bad('args must be an array of strings');
  const env = params.env ?? [];
  if (!Array.isArray(env) || !env.every((e) => typeof e?.name === 'string' && typeof e.value === 'string')) {
    throw bad('env must be an array of {name, value} strings');
  }
  // Names are identifiers: anything else cannot be set by a shell either, and would make the
  // command line the policy judges (`NAME=value command`) mean something else.
  const badName = env.find((e) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name));
  if (badName) throw bad('env names must be identifiers ([A-Za-z_][A-Za-z0-9_]*)', { name: badName.name });
  if (params.cwd != null && typeof params.cwd !== 'string') throw bad('cwd must be a string');
  const limit = params.outputByteLimit;
  if (limit != null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) {
    throw bad('outputByteLimit must be a non-negative integer', { outputByteLimit: limit });
  }
  return {
    sessionId: params.sessionId,
    command: params.command,
    args,
    env: env.map((e) => ({ name: e.name, value: e.value })),
    cwd: params.cwd ?? undefined,
    outputByteLimit: limit ?? undefined,
  };
}

/** The resolved cwd must be an existing directory: each other case has its own wire error. */
export async function assertDirectory(real: string, requested: string): Promise<void> {
  try {
    if ((await stat(real)).isDirectory()) return;
  } catch (e) {
    if (errCode(e) === 'ENOENT') {
      throw new RequestError(RPC.RESOURCE_NOT_FOUND, `cwd does not exist: ${requested}`, { path: requested });
    }
    throw new RequestError(RPC.INTERNAL_ERROR, `Cannot use cwd ${requested}: ${errCode(e) ?? String(e)}`, {
      path: requested,
    });
  }
  throw new RequestError(RPC.INVALID_PARAMS, `cwd is not a directory: ${requested}`, {
    path: requested,
    reason: 'not_a_directory',
  });
}
