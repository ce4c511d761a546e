/**
 * Starting an agent with the quirks that follow it. Client capabilities are offered in
 * `initialize`, before the agent has said what it is: they come from the launch's guess
 * (built-in id, command line, an earlier process). When the agent then names itself as one
 * whose set needs other capabilities (gemini-cli started by a wrapper script: no
 * fs.readTextFile), this first process is closed before any session is opened and the agent is
 * started once more with the right ones. Restarting (rather than sending `initialize` again)
 * works with every agent: ACP does not promise that a second `initialize` replaces the first.
 */
import type { AcpClient } from '../../session/client.js';
import type { ClientCapFields } from '../launch.js';
import type { HookOptions, Provider } from '../types.js';
import { applyQuirks, sameCaps, type AppliedQuirks } from './apply.js';
import { choiceAfterInit, choiceBeforeInit, type LaunchFacts } from './catalog.js';

export interface StartedWithQuirks {
  client: AcpClient;
  quirks: AppliedQuirks;
  /** Set when the first process was started with the wrong capabilities and replaced: what was guessed. */
  restartedFrom?: AppliedQuirks;
}

export interface StartWithQuirksOptions extends LaunchFacts {
  provider?: Provider;
  /** Starts one process offering `caps` and initializes it. */
  spawn(caps: ClientCapFields): Promise<AcpClient>;
  /** Ends a process that got the wrong capabilities (default: close it). */
  discard?(client: AcpClient): Promise<void>;
  /** When given, the client's sessions get the set's hooks (bare clients; the host sets them per session). */
  hookOptions?: HookOptions;
}

export function launchFacts(provider: Provider | undefined, facts: LaunchFacts): LaunchFacts {
  return {
    ...facts,
    ...(provider?.agentName ? { agentName: provider.agentName, providerId: provider.id } : {}),
  };
}

/** The same capabilities without the set's `_meta` extras (terminal-auth). */
function withoutMeta(caps: ClientCapFields): ClientCapFields {
  const { clientCapabilityOverrides: _dropped, ...plain } = caps;
  return plain;
}

export async function startWithQuirks(o: StartWithQuirksOptions): Promise<StartedWithQuirks> {
  const guessed = applyQuirks(o.provider, choiceBeforeInit(launchFacts(o.provider, o)));
  let client: AcpClient;
  let metaRefused = false;
  try {
    client = await o.spawn(guessed.caps);
  } catch (err) {
    // An extra `_meta` capability can break an agent's initialize (a Claude adapter fork whose
    // bundled SDK lacks the terminal-auth login script): once more without it, else the first error.
    if (!guessed.caps.clientCapabilityOverrides) throw err;
    client = await o.spawn(withoutMeta(guessed.caps)).catch(() => Promise.reject(err));
    metaRefused = true;
  }
  let quirks = applyQuirks(
    o.provider,
    choiceAfterInit(guessed.choice, client.capabilities.agentInfo, client.capabilities.authMethods),
  );
  if (metaRefused) quirks = { ...quirks, caps: withoutMeta(quirks.caps) };
  let restartedFrom: AppliedQuirks | undefined;
  if (!sameCaps(quirks.caps, metaRefused ? withoutMeta(guessed.caps) : guessed.caps)) {
    await (o.discard ?? ((c) => c.close()))(client);
    restartedFrom = guessed;
    const offered = quirks.caps;
    client = await o.spawn(offered);
    // Whatever this one says is final (never a restart loop); its caps are the ones it was offered.
    quirks = {
      ...applyQuirks(
        o.provider,
        choiceAfterInit(quirks.choice, client.capabilities.agentInfo, client.capabilities.authMethods),
      ),
      caps: offered,
    };
  }
  if (o.hookOptions) client.useHooks(quirks.hooks(o.hookOptions));
  return { client, quirks, ...(restartedFrom ? { restartedFrom } : {}) };
}
