/** Readiness messages quote the line of an agent's error output that says what went wrong. */
import { describe, it, expect } from 'vitest';
import { meaningfulLine } from '../../src/providers/command-output.js';

const PYTHON = `Traceback (most recent call last):
  File "/home/u/.local/bin/hermes", line 5, in <module>
    from hermes_cli.main import main
  File "/home/u/.local/lib/python3.11/site-packages/hermes_cli/main.py", line 12, in <module>
    import yaml
ModuleNotFoundError: No module named 'yaml'
`;

const NODE = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/usr/lib/node_modules/@zed-industries/claude-agent-acp/dist/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

describe('meaningfulLine', () => {
  it('a Python crash: the exception, not "Traceback (most recent call last):"', () => {
    expect(meaningfulLine(PYTHON)).toBe("ModuleNotFoundError: No module named 'yaml'");
  });

  it('a Node crash: the Error line, not the loader source line', () => {
    expect(meaningfulLine(NODE)).toBe(
      "Error: Cannot find module '/usr/lib/node_modules/@zed-industries/claude-agent-acp/dist/index.js'",
    );
  });

  it('a chained Python exception: the last one raised', () => {
    const chained = `${PYTHON}\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: config.yaml is invalid\n`;
    expect(meaningfulLine(chained)).toBe('RuntimeError: config.yaml is invalid');
  });

  it('plain messages: the error line, else the first line', () => {
    expect(meaningfulLine('warning: deprecated flag\nerror: no API key configured\n')).toBe(
      'error: no API key configured',
    );
    expect(meaningfulLine('\n  command not configured\nsee --help\n')).toBe('command not configured');
    expect(meaningfulLine('')).toBe('');
  });
});
