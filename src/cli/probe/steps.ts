/** The check groups after session/new, in order, and every row a report has. */
import { checkCancel } from './check-cancel.js';
import { checkCatalog } from './check-catalog.js';
import { checkEnv } from './check-env.js';
import { checkImage } from './check-image.js';
import { checkList } from './check-list.js';
import { checkMcp } from './check-mcp.js';
import { checkLoad, checkResume } from './check-reload.js';
import { checkStream } from './check-stream.js';
import { checkTools } from './check-tools.js';
import type { ProbeContext } from './context.js';
import type { CheckResult } from './types.js';

export interface Step {
  rows: { id: string; title: string }[];
  /** Needs a prompt turn (skipped while a turn is stuck). */
  turn: boolean;
  run: (ctx: ProbeContext) => Promise<CheckResult | CheckResult[]>;
}

/** Turns first (load then has history to replay), catalog changes restored, reloads last. */
export const STEPS: Step[] = [
  { rows: [{ id: 'stream', title: 'streamed turn' }], turn: true, run: checkStream },
  {
    rows: [
      { id: 'tools', title: 'tool calls' },
      { id: 'permissions', title: 'permissions' },
    ],
    turn: true,
    run: checkTools,
  },
  { rows: [{ id: 'env', title: 'env reaches the shell' }], turn: true, run: checkEnv },
  // Before any model switch: Hermes ≤0.20 drops a session's MCP servers on set_model.
  { rows: [{ id: 'mcp', title: 'MCP server tool' }], turn: true, run: checkMcp },
  { rows: [{ id: 'image', title: 'image prompt' }], turn: true, run: checkImage },
  { rows: [{ id: 'cancel', title: 'cancel' }], turn: true, run: checkCancel },
  {
    rows: [
      { id: 'modes', title: 'modes' },
      { id: 'model', title: 'model switch' },
    ],
    turn: false,
    run: checkCatalog,
  },
  { rows: [{ id: 'list', title: 'list by cwd' }], turn: false, run: checkList },
  { rows: [{ id: 'load', title: 'load (replay)' }], turn: false, run: checkLoad },
  { rows: [{ id: 'resume', title: 'resume' }], turn: false, run: checkResume },
];

/** Every row of a report, in order (the wire row comes last). */
export const PROBE_ROWS: readonly { id: string; title: string }[] = [
  { id: 'initialize', title: 'initialize' },
  { id: 'capabilities', title: 'capabilities' },
  { id: 'session_new', title: 'session/new' },
  ...STEPS.flatMap((s) => s.rows),
  { id: 'wire', title: 'wire schema' },
];
