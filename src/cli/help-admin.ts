/** Help texts of the commands that look at agents and stored sessions (doctor, agents, sessions). */

export const DOCTOR_HELP = `Usage: talaria doctor [--agent ID] [--profile NAME] [--cwd DIR] [--json] [--timeout SECS]

Checks every agent Talaria knows: found or not, version, what blocks it (each with its fix),
Hermes profiles, config traps (Talaria's config.json, each Hermes profile's config.yaml), and
which agent this workspace gets.

The chosen agent, first match wins:
  1. --agent ID
  2. the workspace's binding in $TALARIA_HOME/config.json ("workspaces": {"/path": {"provider": …}})
  3. config.json's "defaultProvider"
  4. the best READY agent: hermes, claude-code, codex, gemini, opencode, kimi, then config.json agents
  5. the demo agent (offline, scripted)

Options:
  --agent ID            check this agent as the chosen one
  --profile NAME        the profile to check (Hermes -p NAME)
  --cwd DIR             the workspace (default: the current directory)
  --json                everything as one JSON object
  --timeout SECS        limit of each check (default 10)

Exit codes: 0 the chosen agent is ready, 6 it is not, 2 bad usage.`;

export const AGENTS_HELP = `Usage: talaria agents [--profile NAME] [--json] [--timeout SECS]
       talaria agents search [QUERY] [--json] [--offline]
       talaria agents add ID[@VERSION] [--preview]
       talaria agents remove ID
       talaria agents update [ID …]
       talaria agents --installed [--json]

Every agent Talaria knows (built-ins, config.json, the ACP Registry installs, Zed and JetBrains
settings, the demo), whether it is installed and ready, its version and where it was found.

search/add/update read the ACP Registry (TALARIA_REGISTRY_URL, default
https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json), cached in
$TALARIA_HOME/registry (offline: the cache, with its age). add installs the agent pinned into
$TALARIA_HOME/agents/ID@VERSION (npm package, or this platform's archive checked against its
sha256; uvx agents need uv); --preview (or @VERSION of the preview) takes the preview release.
An installed agent runs like a built-in: talaria run --agent ID "…". A built-in agent that
is one npm package (claude-code, codex, gemini, opencode, qwen, copilot, kilo) and has no
registry entry of its id installs from npm: at @VERSION, else the version the registry pins
for that package, else npm's latest; it stays the built-in, found in its folder before PATH.

Exit codes: 0 done, 2 bad usage or unknown agent, 6 registry unreachable or install failed.`;

export const SESSIONS_HELP = `Usage: talaria sessions COMMAND [options]

Sessions are stored in $TALARIA_HOME/talaria.db as they happen (wire log, thread, turns,
permission decisions). ID is Talaria's id, the agent's id, or a unique prefix (4+ characters) of either.

Commands:
  list [--archived | --archived-only] [--all-workspaces] [--store-only] [--json]
       [--agent ID | --agent-cmd "CMD …"] [--profile NAME] [--cwd DIR]
        this workspace's sessions, newest first: Talaria's store merged with the agent's own list
        (session/list of --agent / --agent-cmd, else the workspace's agent; --store-only skips
        asking the agent). Archived sessions are hidden unless asked; a session whose last turn
        failed says "failed: " and why (JSON: "failure").
  list --fleet [--archived | --archived-only] [--json]
        every session in the store with the host that runs it and its live status (idle,
        running, asking, closed; "host offline" when that host stopped or its lease ran out):
        a fleet of talaria serve hosts sharing one PostgreSQL store ($TALARIA_STORE)
  show ID [--json]            the stored thread as Markdown (or the full JSON export), then its
                              tokens and cost (JSON: "usage"; "no price" when none is known)
  archive ID                  hide it from listings (Talaria-side: nothing is deleted)
  unarchive ID                show it again
  export ID [--format md|json|fixture] [--out FILE]
        Markdown (default), the full JSON, or the wire log as a replayable fixture (NDJSON)
  import FILE [--agent ID] [--cwd DIR] [--title TEXT]
        a wire fixture (one {"t_ms","dir","msg"} per line) as a new stored session; prints its id
  fork ID [--json]            a new session with ID's history (at the agent when it can fork)
  branches ID [--json]        the branch tree ID belongs to (rewinds, other agents); * marks ID
  rewind ID [--back N] [--json]
        a branch of ID before its Nth message from the end (default 1); prints its id: send the
        edited message with run/chat --session (the agent gets the earlier conversation with it)
  continue ID --agent AGENT [--json]
        the conversation continued with another agent, as a branch; prints its id

Continue a session with: talaria run --session ID PROMPT, or talaria chat --session ID.

Exit codes: 0 done, 2 bad usage or unknown session, 6 the agent (list --agent, fork) is not ready.`;

export const USAGE_HELP = `Usage: talaria usage [--by agent|workspace|day] [--json | --csv]

Tokens and cost of every stored session (archived ones too), totalled by agent (default),
workspace or day (the UTC day a session started).

Hermes sessions: tokens and cost as Hermes records them in its own state.db ($HERMES_HOME, per
profile), read-only and matched by the agent's session id, with the rows Hermes keeps apart for
the same conversation added in (compression continuations, subagents). Other agents: tokens from the turns
Talaria stored, cost only where the agent sent one (ACP usage_update).
A cost Hermes marks as estimated is shown as ~$; where no price is known it says "no price",
never $0 (a custom endpoint has no price). A state.db of a shape Talaria does not know is
reported on stderr and its sessions fall back to Talaria's own figures.

Options:
  --by agent|workspace|day   what to total by (default agent)
  --json                     {v, by, groups, total, sessions, problems}: cost as {usd?, status}
                             (status known | estimated | unknown; no usd when unknown)
  --csv                      one row per group; cost_usd is empty when no price is known

Exit codes: 0 done, 2 bad usage.`;

export const HERMES_HELP = `Usage: talaria hermes <topic> [options]

What Hermes keeps outside ACP, read from its own files.

Topics:
  profiles [list] [--json] [--workspace DIR]
                        Hermes' profiles (\`hermes profile list\` and its profiles folder);
                        marks the one new sessions of the workspace use
  profiles create NAME [--clone]
                        Create one with Hermes (\`hermes profile create NAME --no-alias\`);
                        --clone copies config.yaml, .env, SOUL.md and skills from the active one
  profiles use (NAME | --own | --none) [--workspace DIR]
                        The profile new Hermes sessions of the workspace (default: here) use;
                        --own: its own profile talaria-<folder>-<hash>, created by
                        \`hermes profile create … --clone\` on its first Hermes session
  skills install DIR|FILE [--profile NAME] [--name NAME] [--force] [--workspace DIR]
                        A skill (a folder with SKILL.md, or a SKILL.md) into the profile's
                        home, <profile home>/skills/<name>/ (default: the workspace's profile)
  sessions [list] [--profile P] [--source S] [--json]
                        Hermes sessions from other channels (cli, telegram, discord, …),
                        which ACP's session/list never shows; read-only from state.db
  sessions show ID [--profile P] [--json]
                        one of them with its messages
  sessions continue ID [--profile P] [--agent ID] [--workspace DIR] [--json]
                        a new Talaria session seeded from its transcript (default agent:
                        Hermes); prints its id: talaria run --session ID "…" continues it`;
