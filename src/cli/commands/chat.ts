/** `talaria chat` (and `talaria` with no command): open the agent with progress, then the loop. */
import { parse, str, flag, UsageError } from '../args.js';
import { chatLoop } from '../chat/loop.js';
import { EXIT } from '../exit-codes.js';
import { CHAT_HELP } from '../help.js';
import { colorEnabled, createProgress, stderrLogger, type CliIo, type Progress } from '../io.js';
import { chatSignIn, type ChatSignInUi } from '../chat/sign-in.js';
import { signInOf, type AgentRuntime, type OpenedAgent } from '../runtime-types.js';
import { askLine } from './login-flow.js';
import { ChatRenderer } from '../render/renderer.js';
import type { SessionEvent } from '../../session/events.js';
import { createStyle } from '../render/style.js';
import { AGENT_OPTIONS, agentArgs, setupFailure, type CliContext, openBase } from './common.js';
import { storeProblemLine } from '../store-problem.js';

const OPTIONS = { ...AGENT_OPTIONS, session: { type: 'string' } } as const;

export async function chatCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('chat', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${CHAT_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0)
    throw new UsageError(`chat: unexpected argument '${p.positionals[0]}' (for one turn use: talaria run PROMPT)`);
  const a = agentArgs('chat', p);
  const sessionArg = str(p, 'session');
  const style = createStyle(colorEnabled(io.stdout, io.env));
  const errStyle = createStyle(colorEnabled(io.stderr, io.env));
  const live = io.stdin.isTTY === true && io.stdout.isTTY === true;
  // Markdown rendering loads while the agent starts (it is only needed once answers stream).
  const markdown = live
    ? import('../render/markdown.js').then((m) => m.createMarkdown({ color: style.enabled }))
    : undefined;
  markdown?.catch(() => undefined);
  const renderer = new ChatRenderer({ style, live, columns: () => io.stdout.columns ?? 80 });
  // Events wait (in order) until the Markdown renderer is there, so the first answer is rendered too.
  let held: SessionEvent[] | undefined = markdown ? [] : undefined;
  const ready = markdown
    ?.then((md) => renderer.useMarkdown(md))
    .catch(() => undefined)
    .finally(() => {
      const events = held ?? [];
      held = undefined;
      for (const e of events) renderer.handle(e);
    });
  const signInOpts = { cwd: a.cwd, timeoutMs: a.setupTimeoutMs };
  let runtime: AgentRuntime;
  let opened: OpenedAgent;
  let progress: Progress;
  for (;;) {
    // A chat lives long enough for a spare session to pay off (/new).
    runtime = ctx.runtime({ warm: true });
    const abort = new AbortController();
    const offSetup = ctx.onInterrupt(() => abort.abort());
    progress = createProgress(io.stderr, { tty: io.stderr.isTTY === true });
    try {
      opened = await runtime.open({
        ...openBase(a, sessionArg, abort.signal, progress),
        // Setup events (catalog, commands, a loaded session's history), then live ones.
        onEvent: (e) => (held ? void held.push(e) : renderer.handle(e)),
        client: {
          setupTimeoutMs: a.setupTimeoutMs,
          logger: stderrLogger(io.stderr, a.verbose),
          clientInfo: { name: 'talaria', version: ctx.version, title: 'Talaria CLI' },
        },
      });
      offSetup();
      break;
    } catch (err) {
      offSetup();
      const f = setupFailure(err);
      progress.done();
      await runtime.close({ force: true });
      // The agent wants a sign-in and a person is here: the choice instead of the exit, then the session opens again.
      const auth = live ? signInOf(err) : undefined;
      io.stderr.write(`talaria chat: ${auth ? auth.reason : f.message}\n`);
      if (!auth || !(await chatSignIn(ctx, auth.target, signInOpts)(terminalUi(io)))) return f.exitCode;
    }
  }
  const how = opened.historyFrom === 'store' ? " (history from Talaria's store)" : sessionArg ? ' (loaded)' : '';
  progress.done(errStyle.dim(`Connected to ${opened.label} · session ${opened.talariaId}${how} · /help for commands`));
  if (opened.banner) io.stderr.write(`${errStyle.yellow(opened.banner)}\n`);
  await ready;
  renderer.historyShown();
  try {
    const signIn = opened.signIn ? chatSignIn(ctx, opened.signIn, signInOpts) : undefined;
    const chatCode = await chatLoop({
      io,
      opened,
      renderer,
      style,
      cwd: a.cwd,
      onInterrupt: ctx.onInterrupt,
      ...(signIn ? { signIn } : {}),
    });
    // Turns the store could not keep: the conversation happened, but the exit says it is not on disk.
    const lost = opened.recordingFailure?.();
    if (lost) io.stderr.write(`talaria chat: ${storeProblemLine(lost)}\n`);
    const code = lost ? EXIT.NOT_READY : chatCode;
    // A session with a conversation is kept: say how to come back to it.
    if (opened.session.thread.entries.some((e) => e.kind === 'user_message')) {
      io.stderr.write(`${errStyle.dim(`Resume this session with: talaria chat --session ${opened.talariaId}`)}\n`);
    }
    return code;
  } finally {
    await runtime.close({ force: opened.session.state === 'failed' });
  }
}

/** Before the chat's own input exists: lines go straight to the terminal, questions through a readline of their own. */
function terminalUi(io: CliIo): ChatSignInUi {
  return {
    note: (text, level) => void (level === 'error' ? io.stderr : io.stdout).write(`${text}\n`),
    ask: (q) => askLine(io, q),
  };
}
