/** The classifyTurn hooks moved from the matrix profiles, on the texts the real agents produced. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotClassifyTurn } from '../../../src/providers/quirks/copilot.js';
import { cursorClassifyTurn } from '../../../src/providers/quirks/cursor.js';
import { lastPiError, piAgentDir, piClassifyTurn, piHooks } from '../../../src/providers/quirks/pi.js';
import { cleanup, tempDir } from '../helpers.js';
import { recordedTurn } from './turns.js';

afterEach(cleanup);

describe('copilot classifyTurn', () => {
  it('"Error: 400 …" streamed as the answer with end_turn is an agent error', () => {
    const t = recordedTurn('copilot', 'error-400');
    expect(t).toMatchObject({ stopReason: 'end_turn', text: expect.stringMatching(/^Error: 400 /) });
    const c = copilotClassifyTurn(t);
    expect(c?.code).toBe('agent_error');
    expect(c?.message).toContain('Error: 400 Fake model: invalid request');
    expect(c?.data).toMatchObject({ source: 'text' });
  });

  it('leaves ordinary answers and cancelled turns alone', () => {
    expect(copilotClassifyTurn(recordedTurn('copilot', 'cancel'))).toBeUndefined();
    expect(copilotClassifyTurn({ ...recordedTurn('copilot', 'error-400'), cancelled: true })).toBeUndefined();
    expect(
      copilotClassifyTurn({
        turnId: 't',
        stopReason: 'end_turn',
        text: 'The error was 400 lines long.',
        cancelled: false,
      }),
    ).toBeUndefined();
  });
});

describe('cursor classifyTurn', () => {
  it('"not authenticated" answer text is auth_required naming `cursor-agent login`', () => {
    const c = cursorClassifyTurn(recordedTurn('cursor', 'text'));
    expect(c).toMatchObject({
      code: 'auth_required',
      message: expect.stringContaining('cursor-agent CLI is not authenticated'),
    });
    expect(c?.data).toEqual({
      source: 'text',
      authMethods: [
        {
          id: 'cursor-agent-login',
          name: 'cursor-agent login',
          type: 'terminal',
          _meta: { source: 'text', command: 'cursor-agent login' },
        },
      ],
    });
  });

  it('leaves ordinary answers and cancelled turns alone', () => {
    expect(
      cursorClassifyTurn({ turnId: 't', stopReason: 'end_turn', text: 'Done: 3 files changed.', cancelled: false }),
    ).toBeUndefined();
    expect(cursorClassifyTurn({ ...recordedTurn('cursor', 'text'), cancelled: true })).toBeUndefined();
  });
});

describe('pi classifyTurn', () => {
  function agentDirWith(lastAssistant: Record<string, unknown>): string {
    const dir = tempDir('pi-agent-');
    mkdirSync(join(dir, 'sessions', '--w--'), { recursive: true });
    const lines = [
      { type: 'session' },
      { type: 'message', message: { role: 'user' } },
      { type: 'message', message: { role: 'assistant', ...lastAssistant } },
    ];
    writeFileSync(join(dir, 'sessions', '--w--', 's1.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return dir;
  }

  it('the recorded swallowed 400 (empty end_turn) is an agent error with the detail from pi’s log', () => {
    const t = recordedTurn('pi', 'error-400');
    expect(t).toMatchObject({ stopReason: 'end_turn', text: '', toolCalls: 0 });
    const dir = agentDirWith({ stopReason: 'error', errorMessage: '400 Fake model: invalid request' });
    expect(lastPiError(dir)).toBe('400 Fake model: invalid request');
    expect(piClassifyTurn(t, dir)).toMatchObject({
      code: 'agent_error',
      message: expect.stringContaining('400 Fake model: invalid request'),
    });
  });

  it('without a log entry it still reports the silent turn; real answers are left alone', () => {
    const empty = recordedTurn('pi', 'error-400');
    expect(piClassifyTurn(empty, tempDir('pi-none-'))?.message).toContain('ended the turn with no answer');
    expect(piClassifyTurn(empty)?.code).toBe('agent_error');
    expect(lastPiError(agentDirWith({ stopReason: 'stop' }))).toBeUndefined();
    expect(piClassifyTurn(recordedTurn('pi', 'text'))).toBeUndefined();
    expect(piClassifyTurn(recordedTurn('pi', 'shell'))).toBeUndefined();
    expect(piClassifyTurn({ ...empty, cancelled: true })).toBeUndefined();
  });

  it('finds pi’s folder from PI_CODING_AGENT_DIR or ~/.pi/agent', () => {
    const dir = agentDirWith({ stopReason: 'error', errorMessage: 'quota exceeded' });
    expect(piAgentDir({ env: { PI_CODING_AGENT_DIR: dir }, homeDir: '/home/x' })).toBe(dir);
    expect(piAgentDir({ env: {}, homeDir: '/home/x' })).toBe('/home/x/.pi/agent');
    expect(piHooks(dir).classifyTurn?.(recordedTurn('pi', 'error-400'))?.message).toContain('quota exceeded');
  });
});
