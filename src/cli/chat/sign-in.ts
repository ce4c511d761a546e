/**
 * Sign-in from the chat (issue 13): when the agent answers auth_required (the session cannot
 * start, or a prompt failed) or on `/login [METHOD]`, the chat offers the agent's methods as a
 * numbered choice and runs the chosen one exactly as `talaria login` does (commands/login-flow.ts).
 * A failed sign-in shows its reason and the choice again, until signed in or the person stops.
 */
import { EXIT } from '../exit-codes.js';
import type { SignInTarget } from '../runtime-types.js';
import type { CliContext } from '../commands/common.js';
import { numberedMethods, pickMethod, runSignIn } from '../commands/login-flow.js';

export interface ChatSignInUi {
  note(text: string, level?: 'info' | 'warning' | 'error'): void;
  /** One answer typed in the chat; undefined when the person stops (Ctrl-C, Ctrl-D). */
  ask(question: string): Promise<string | undefined>;
  /** Lets go of the terminal for a pty; the function returned takes it back. */
  handOver?(): () => void;
}

/** Runs sign-ins until one leaves the agent ready (true) or the person stops (false). */
export type ChatSignIn = (ui: ChatSignInUi, methodId?: string) => Promise<boolean>;

export function chatSignIn(ctx: CliContext, target: SignInTarget, o: { cwd: string; timeoutMs: number }): ChatSignIn {
  return async (ui, methodId) => {
    const h = ctx.harness();
    try {
      const provider = h.registry.get(target.provider);
      if (!provider) {
        ui.note(`Unknown agent '${target.provider}': it cannot be signed in to from here.`, 'error');
        return false;
      }
      const t = {
        provider,
        env: h.env,
        home: h.home,
        cwd: o.cwd,
        timeoutMs: o.timeoutMs,
        ...(target.profile ? { profile: target.profile } : {}),
      };
      let asked = methodId;
      for (;;) {
        let stopped = false;
        let listed = true;
        let code: number;
        try {
          code = await runSignIn(ctx, t, {
            say: (line) => ui.note(line),
            fail: (line) => ui.note(line, 'error'),
            ...(ui.handOver ? { handOver: () => ui.handOver!() } : {}),
            pick: async (methods) => {
              if (asked !== undefined) {
                const named = asked;
                asked = undefined;
                const m = methods.find((x) => x.id === named);
                if (m) return m;
                ui.note(`${provider.label} has no sign-in method '${named}'.`, 'warning');
              }
              if (methods.length === 0) return ((listed = false), undefined);
              ui.note(`${provider.label} offers these sign-in methods:\n${numberedMethods(methods)}`);
              const m = await pickMethod(
                methods,
                () => ui.ask('Sign in with (number or id, empty to stop)? '),
                (line) => ui.note(line, 'warning'),
              );
              if (!m) stopped = true;
              return m ?? EXIT.USAGE;
            },
          });
        } catch (e) {
          // A method that cannot be run here (an env_var one): its reason, then the choice again.
          ui.note(e instanceof Error ? e.message : String(e), 'error');
          code = EXIT.USAGE;
        }
        if (code === EXIT.OK) return true;
        // Stopped, or nothing to choose from (asking again would not change anything).
        if (stopped || !listed) return false;
        ui.note(`${provider.label} is not signed in; choose again (empty to stop).`, 'warning');
      }
    } finally {
      await h.close();
    }
  };
}
