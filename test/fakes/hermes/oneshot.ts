/**
 * `hermes chat -Q -q PROMPT [--resume ID]`: Hermes' one-shot CLI, the
 * non-ACP entry that writes a `source = 'cli'` session (cli.py:6812), as real 0.18.2 writes it
 * (test/fixtures/hermes-0.18.2-real/cli-sessions.json): id `YYYYMMDD_HHMMSS_<6 hex>`, `cwd` filled
 * (ACP rows leave it NULL), model_config `{"max_iterations": 90, …}` without the route keys, title
 * NULL (the aux title call never runs before the process exits), a user and an assistant message
 * per run, tokens and api_call_count per model call. The answer is the emulator's plain text turn.
 * stdout: the answer (after "↻ Resumed session …" when resuming); stderr: "\nsession_id: ID".
 */
import { randomBytes } from 'node:crypto';
import { readConfig, readSettings } from './config.js';
import { TOKENS_PER_CALL } from './runtime.js';
import { openStateDb } from './state-db.js';

const pad = (n: number) => String(n).padStart(2, '0');
function cliId(d: Date): string {
  const day = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  return `${day}_${time}_${randomBytes(3).toString('hex')}`;
}

/** Returns the exit code; `home` is the profile's HERMES_HOME. */
export function oneShot(home: string, args: string[], env: NodeJS.ProcessEnv): number {
  const qi = args.findIndex((a) => a === '-q' || a === '--query');
  const text = qi >= 0 ? args[qi + 1] : undefined;
  if (!text) {
    process.stderr.write('hermes chat: error: argument -q/--query: expected one argument\n');
    return 2;
  }
  const ri = args.findIndex((a) => a === '-r' || a === '--resume');
  const resume = ri >= 0 ? args[ri + 1] : undefined;
  const cfg = readConfig(home);
  const price = readSettings(env).price;
  const db = openStateDb(home);
  try {
    const now = Date.now() / 1000;
    let id: string;
    if (resume) {
      const row = db.prepare('SELECT id FROM sessions WHERE id = ?').get(resume);
      if (!row) {
        process.stderr.write(`Session not found: ${resume}\n`);
        return 1;
      }
      id = resume;
      const counts = db
        .prepare(
          "SELECT SUM(role = 'user') AS users, COUNT(*) AS total FROM messages WHERE session_id = ? AND active = 1",
        )
        .get(id) as { users: number; total: number };
      process.stdout.write(
        `↻ Resumed session ${id} (${counts.users} user message${counts.users === 1 ? '' : 's'}, ${counts.total} total messages)\n`,
      );
    } else {
      id = cliId(new Date());
      db.prepare(
        `INSERT INTO sessions (id, source, model, model_config, system_prompt, cwd, started_at)
         VALUES (?, 'cli', ?, ?, ?, ?, ?)`,
      ).run(
        id,
        cfg.model,
        // Python's json.dumps, as Hermes writes it.
        '{"max_iterations": 90, "reasoning_config": null, "max_tokens": null}',
        'You are Hermes Agent.',
        process.cwd(),
        now,
      );
    }
    const answer = `Hello from the fake model! You said: ${text.trim()}`;
    const cost = price ? (TOKENS_PER_CALL.input * price.input + TOKENS_PER_CALL.output * price.output) / 1e6 : 0;
    db.transaction(() => {
      const add = db.prepare(
        'INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES (?, ?, ?, ?, ?)',
      );
      add.run(id, 'user', text, now, null);
      add.run(id, 'assistant', answer, now + 0.5, 'stop');
      db.prepare(
        `UPDATE sessions SET message_count = message_count + 2, input_tokens = input_tokens + ?,
           output_tokens = output_tokens + ?, api_call_count = COALESCE(api_call_count, 0) + 1,
           billing_provider = COALESCE(billing_provider, ?), billing_base_url = COALESCE(billing_base_url, ?),
           estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + ?, cost_status = ?, cost_source = ?
         WHERE id = ?`,
      ).run(
        TOKENS_PER_CALL.input,
        TOKENS_PER_CALL.output,
        cfg.provider,
        cfg.baseUrl || null,
        cost,
        price ? 'estimated' : 'unknown',
        price ? 'provider_models_api' : 'none',
        id,
      );
    })();
    process.stdout.write(`${answer}\n`);
    process.stderr.write(`\nsession_id: ${id}\n`);
    return 0;
  } finally {
    db.close();
  }
}
