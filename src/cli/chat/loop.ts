/**
 * The interactive chat over node:readline. On a TTY: prompts typed while a turn runs are queued
 * by the session, Ctrl-C cancels the turn (twice quits), the screen redraws its live region.
 * Without a TTY (piped input) each line waits until the session is idle or asks a permission,
 * so `printf 'hi\n/quit\n' | talaria chat` runs the turn before quitting.
 */
import { createInterface } from 'node:readline';
import type { SessionEvent } from '../../session/events.js';
import { askTitle, parseAnswer, type Ask } from '../approve.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import type { ChatRenderer } from '../render/renderer.js';
import type { Style } from '../render/style.js';
import type { OpenedAgent } from '../runtime.js';
import { Screen } from './screen.js';
import { runSlashCommand } from './commands.js';
import type { ChatSignIn } from './sign-in.js';
import { SignInPort } from './sign-in-port.js';
import { parseInput, type BuiltinName } from './slash.js';

export interface ChatLoopOptions {
  io: CliIo;
  opened: OpenedAgent;
  renderer: ChatRenderer;
  style: Style;
  cwd: string;
  /** Real SIGINT (non-TTY input); on a TTY readline reports Ctrl-C itself. */
  onInterrupt(fn: () => void): () => void;
  /** Signs in to the agent from the chat (a registry agent on a terminal); absent: auth errors are only shown. */
  signIn?: ChatSignIn;
}

const PROMPT = '> ';

export function chatLoop(o: ChatLoopOptions): Promise<number> {
  const { io, renderer, style } = o;
  const { session, client } = o.opened;
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const rl = createInterface({
    input: io.stdin,
    output: io.stdout as NodeJS.WritableStream,
    terminal: interactive,
    prompt: PROMPT,
    historySize: 500,
  });
  const screen = new Screen(io.stdout, interactive, interactive ? rl : undefined);
  // A sign-in's question and pty (chat/sign-in-port.ts); `changed` only runs once the loop is set up.
  const port = new SignInPort({ rl, screen, renderer, stdin: io.stdin, changed: () => (setPrompt(), schedule()) });
  const asks: Ask[] = [];
  const waiters: (() => void)[] = [];
  let scheduled = false;
  let spinner: NodeJS.Timeout | undefined;
  let armed = false; // Ctrl-C pressed once while idle
  let cancelPressed = false;
  /** The last turn ended because the agent died (the host may start a new one, but this chat ends failed). */
  let lastTurnLost = false;
  let done = false;
  let signingIn = false;
  /** Each running turn's prompt, to send again after a sign-in when the agent refused it. */
  const prompts = new Map<string, unknown[]>();
  let resolveDone!: (code: number) => void;
  const finished = new Promise<number>((r) => (resolveDone = r));

  const flush = () => {
    scheduled = false;
    if (!done && !port.handedOver) screen.render(renderer.takeCommitted(), renderer.liveLines());
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const busy = () => session.state === 'running' || session.state === 'cancelling' || session.queued.length > 0;
  const checkWaiters = () => {
    if (busy() && asks.length === 0) return;
    for (const w of waiters.splice(0)) w();
  };
  /** Plain mode: resolves when the session is idle or waits for a permission answer. */
  const idleOrAsk = () => new Promise<void>((r) => (waiters.push(r), checkWaiters()));

  const setPrompt = () => {
    const ask = asks[0];
    rl.setPrompt(port.question ?? (ask ? style.yellow(`Allow ${askTitle(ask)}? [y/a/n] `) : PROMPT));
  };

  const onEvent = (e: SessionEvent) => {
    if (e.type === 'permission.asked') asks.push(e);
    if (e.type === 'permission.decided') {
      const i = asks.findIndex((a) => a.requestKey === e.requestKey);
      if (i >= 0) asks.splice(i, 1);
    }
    if (e.type === 'permission.asked' || e.type === 'permission.decided') setPrompt();
    if (e.type === 'turn.started') prompts.set(e.turnId, e.prompt);
    if (e.type === 'turn.ended') {
      const prompt = prompts.get(e.turnId);
      prompts.delete(e.turnId);
      if (e.error?.code === 'auth_required' && prompt && !signingIn) offerSignIn(prompt);
      // The turn ended after a Ctrl-C: the next Ctrl-C quits, as the cancel note promised.
      if (cancelPressed) armed = true;
      cancelPressed = false;
      lastTurnLost = e.error?.code === 'agent_crashed' || e.error?.code === 'connection_closed';
      // Hermes has written its state.db for the turn by now: the status line's cost follows it.
      renderer.setCost(o.opened.cost?.());
    }
    if (e.type === 'session.state') {
      const running = e.state === 'running' || e.state === 'cancelling';
      if (running && !spinner && interactive) {
        spinner = setInterval(() => (renderer.tick(), schedule()), 120);
        spinner.unref();
      } else if (!running && spinner) {
        clearInterval(spinner);
        spinner = undefined;
      }
    }
    schedule();
    checkWaiters();
  };
  let chain: Promise<void> = Promise.resolve();
  const offEvents = session.subscribe(onEvent);

  const quit = (code: number = EXIT.OK) => {
    if (done) return;
    done = true;
    io.stdin.off('keypress', onKey);
    offEvents();
    offInterrupt();
    if (spinner) clearInterval(spinner);
    if (session.state === 'running' || session.state === 'cancelling') void session.cancel();
    screen.close(renderer.takeCommitted());
    rl.close();
    resolveDone(code === EXIT.OK && (session.state === 'failed' || lastTurnLost) ? EXIT.AGENT_ERROR : code);
  };

  const ctrlC = () => {
    if (port.handedOver) return;
    if (port.asking) return port.answer(undefined);
    if (session.state === 'running' || session.state === 'cancelling') {
      if (cancelPressed) return quit(EXIT.CANCELLED);
      cancelPressed = true;
      void session.cancel();
      renderer.note('Cancelling the turn… (Ctrl-C again to quit)', 'warning');
    } else if (interactive && rl.line !== '') {
      rl.write(null, { ctrl: true, name: 'u' }); // clear what was typed, like a shell
    } else if (armed) return quit();
    else {
      armed = true;
      renderer.note('(Ctrl-C again or /quit to leave)');
    }
    schedule();
  };
  rl.on('SIGINT', ctrlC);
  const offInterrupt = o.onInterrupt(ctrlC);

  const builtin = (name: BuiltinName, arg?: string) => {
    if (name === 'quit') return quit();
    if (name === 'login') return login(arg);
    if (name === 'cancel') {
      if (busy()) void session.cancel();
      else renderer.note('Nothing is running.');
      return;
    }
    return runSlashCommand(name, arg, { opened: o.opened, renderer, style, cwd: o.cwd });
  };

  const answerAsk = (ask: Ask, text: string) => {
    const answer = parseAnswer(text);
    if (!answer) renderer.note('Answer y (allow once), a (always allow) or n (reject).', 'warning');
    else {
      renderer.note(`› ${text}`);
      const r = session.answerPermission(ask.requestKey, answer, 'cli');
      if (!r.ok) renderer.note(`That answer could not be used (${r.reason}).`, 'warning');
    }
    schedule();
  };

  const handleLine = async (line: string) => {
    if (!interactive) await idleOrAsk();
    if (done) return;
    const text = line.trim();
    if (text !== '') armed = false;
    const ask = asks[0];
    if (ask) return answerAsk(ask, text);
    const input = parseInput(
      text,
      renderer.commands.map((c) => c.name),
    );
    switch (input.kind) {
      case 'empty':
        break;
      case 'prompt':
        try {
          session.prompt(input.text);
        } catch (err) {
          renderer.note((err as Error).message, 'error');
        }
        break;
      case 'builtin':
        renderer.note(`› ${text}`);
        await builtin(input.name, input.arg);
        break;
      case 'unknown':
        renderer.note(`Unknown command /${input.name} — type /help`, 'warning');
        break;
    }
    schedule();
  };

  /** Runs the sign-in; then `then` (what was waiting) when the agent is ready. */
  const signIn = async (methodId: string | undefined, then?: () => void) => {
    signingIn = true;
    try {
      const ok = await o.signIn!(port, methodId);
      if (done) return;
      if (ok) then?.();
      else renderer.note(`Not signed in.${then ? ' The prompt was not sent again.' : ''} /login signs in.`, 'warning');
    } finally {
      signingIn = false;
      schedule();
    }
  };
  const login = (methodId: string | undefined) => {
    if (interactive && o.signIn) return signIn(methodId);
    const id = o.opened.signIn?.provider;
    renderer.note(
      id
        ? `Signing in needs a terminal: talaria login ${id}${methodId ? ` ${methodId}` : ''}`
        : 'This agent was started by command or URL: sign in with its own tools.',
      'warning',
    );
  };
  /** A prompt the agent refused for want of a sign-in: the choice, then the same prompt again. */
  const offerSignIn = (prompt: unknown[]) => {
    if (!interactive || !o.signIn) return;
    chain = chain
      .then(() =>
        signIn(undefined, () => {
          try {
            session.prompt(prompt as Parameters<typeof session.prompt>[0]);
          } catch (err) {
            renderer.note((err as Error).message, 'error');
          }
        }),
      )
      .catch((err: unknown) => renderer.note(`error: ${(err as Error).message}`, 'error'));
  };

  // On a terminal a permission question takes one key: y, a or n answers at once (no Enter).
  const onKey = (_s: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined) => {
    const ask = asks[0];
    const name = key?.name;
    if (!ask || done || key?.ctrl || key?.meta || (name !== 'y' && name !== 'a' && name !== 'n')) return;
    // readline has put the key into the line already: only a line that is just this key answers.
    if (rl.line.trim().toLowerCase() !== name) return;
    rl.write(null, { ctrl: true, name: 'u' });
    armed = false;
    answerAsk(ask, name);
  };
  if (interactive) io.stdin.on('keypress', onKey);

  rl.on('line', (line) => {
    screen.inputEntered(rl.getPrompt(), line);
    // The sign-in's question is answered here: the line chain may be the one waiting for it (/login).
    if (port.asking) {
      renderer.note(`› ${line.trim()}`);
      return port.answer(line);
    }
    // Lines are handled in order; on a TTY a prompt does not wait for its turn (the session queues it).
    chain = chain
      .then(() => handleLine(line))
      .catch((err: unknown) => renderer.note(`error: ${(err as Error).message}`, 'error'));
  });
  rl.on('close', () => {
    if (port.asking) port.answer(undefined);
    if (interactive) return quit();
    // End of piped input: let what was asked finish first.
    void chain.then(async () => {
      while (!done && busy()) {
        await idleOrAsk();
        // Nobody is left to answer: fail closed.
        if (asks.length > 0) await session.cancel();
      }
      quit();
    });
  });
  void client.closed.then(() => {
    if (!done) renderer.note('The agent exited.', 'error');
    schedule();
  });

  flush();
  return finished;
}
