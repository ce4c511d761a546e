/** Help texts (`talaria --help`, `talaria COMMAND --help`). */
import { EXIT_CODES_HELP } from './exit-codes.js';

const AGENT_OPTIONS = `Agent options:
  --agent ID            an agent id: hermes, claude-code, codex, gemini, opencode, kimi, demo, or
                        one from config.json (see \`talaria agents\`). Default: the workspace's
                        binding, config.json's defaultProvider, else the best ready agent, else demo
  --agent-cmd "CMD …"   any command that speaks ACP on stdio (split like a shell: quotes work)
  --agent-url URL       an ACP agent over WebSocket, e.g. another \`talaria serve\`'s /acp
                        (ws:// on loopback only, else wss://; token: #token=… or TALARIA_TOKEN)
  --profile NAME        the agent's profile (Hermes: -p NAME)
  --cwd DIR             the workspace the agent works in (default: the current directory)
  --setup-timeout SECS  give up when the agent has not started or opened the session by then (default 60)
  --verbose             library logs on stderr`;

export const MAIN_HELP = `talaria — drive ACP coding agents from a terminal

Usage: talaria [COMMAND] [OPTIONS]

Commands:
  chat       interactive session (the default command)
  run        one turn for scripts: human text, --json or --ndjson
  replay     feed a recorded wire log through the reducer: Markdown or NDJSON
  models     list the agent's models, or --set one
  mode       list the agent's modes, or --set one
  doctor     is an agent ready? every agent, versions, what to fix, Hermes profiles, config traps
  agents     the agents Talaria knows and their readiness (--json)
  login      sign in to an agent with one of its methods (authenticate, or its command in this terminal)
  sessions   list, show, archive, unarchive, export, import, fork stored sessions
  hermes     Hermes' profiles and its sessions from other channels (talaria hermes --help)
  usage      tokens and cost of the stored sessions by agent, workspace or day (--json, --csv)
  probe      capability and conformance probe of any ACP agent (supported / works / broken)
  serve      the web UI and HTTP/WebSocket API on one local port (what \`npm start\` runs)
  acp        Talaria as an ACP agent on stdio, for editors (Zed, JetBrains): --print-config zed|jetbrains
  fleet      a fleet of hosts on one PostgreSQL: join tokens, hosts, revoke (talaria fleet --help)
  caps       capability references (CapTP): mint, list, revoke — what \`serve --caps\` serves at /captp

Run \`talaria COMMAND --help\` for a command's options.
Sessions are stored in $TALARIA_HOME (default ~/.talaria) and survive restarts.
With no agent ready, Talaria uses its demo agent (offline, scripted).
Start the web UI with \`talaria serve\` (\`npm start\` in a checkout); \`talaria doctor\` says which agent you get.

Options: --help, --version`;

export const RUN_HELP = `Usage: talaria run [agent options] [--session ID] [--json | --ndjson] [--approve MODE] PROMPT

Runs one turn and exits. PROMPT is the remaining arguments joined by spaces; \`-\` reads it from stdin.

Options:
  --session ID          continue a stored session (Talaria's id, the agent's, or a unique prefix of either):
                        its history comes from the agent (session/load) when it still has it,
                        else from Talaria's store
  --json                print the final result as one JSON object on stdout:
                        {v, sessionId, agentSessionId, turnId, stopReason, exitCode, usage, error?,
                        durationMs, text, toolCalls}; sessionId is Talaria's id (what --session takes)
  --ndjson              print every event as one JSON line (versioned schema, see docs/ndjson.md):
                        {"v":1,"type","sessionId","seq","at",…}; first run.started, last run.ended
  --approve MODE        what the agent may do without asking:
                          ask    ask on the terminal; with no terminal, reject (fail closed) [default]
                          edits  allow file edits inside the workspace, ask for the rest
                          all    allow everything (sensitive paths and dangerous commands still ask)
                          none   reject every permission request
  --wire-log FILE       also write every ACP frame of the run to FILE (one {"t_ms","dir","msg"} per line;
                        \`talaria replay FILE\` reads it back); runs locally
  --no-server           run here even when \`talaria serve\` runs on this Talaria home (env TALARIA_NO_SERVER=1);
                        otherwise that server's warm agent answers and the session shows in its web UI
${AGENT_OPTIONS}

Without --json/--ndjson the agent's text streams to stdout; tool calls and errors go to stderr.
Ctrl-C (SIGINT) cancels the turn (exit 130); a second Ctrl-C quits at once. SIGTERM and SIGHUP
cancel the turn too and print its result (--json, --ndjson included), exit 130; an agent that
does not answer the cancel within 5 s is stopped.

${EXIT_CODES_HELP}`;

export const REPLAY_HELP = `Usage: talaria replay FILE [--ndjson] [--session ID] [--approve MODE]

Feeds a recorded wire log (one {"t_ms","dir","msg"} per line: test fixtures, \`run --wire-log\`,
exported sessions) through the session core and prints the thread as Markdown, or with --ndjson
the same events \`talaria run --ndjson\` printed live (\`at\` is then the recorded t_ms).

Options:
  --ndjson              NDJSON events instead of Markdown
  --session ID          only this session (default: every session in the log)
  --approve MODE        the policy the live run used (ask|edits|all|none; default ask: every
                        permission takes the recorded answer)

Exit codes: 0 printed, ${2} bad usage (missing or unreadable FILE).`;

export const CHAT_HELP = `Usage: talaria chat [agent options] [--session ID]

An interactive session: streamed text, thinking (dimmed), tool calls as live cards with diffs,
the plan, a usage/context meter and the prompt queue. Type while a turn runs to queue prompts.

Options:
  --session ID          continue an existing session
${AGENT_OPTIONS}

In the chat:
  /model [ID]           list models, or switch
  /mode [ID]            list modes, or switch
  /sessions             this workspace's sessions (stored and at the agent)
  /export [FILE]        save the thread as Markdown
  /login [METHOD]       sign in to the agent (offered by itself when the agent asks, on a terminal)
  /cancel               cancel the running turn
  /help                 this list and the agent's own commands
  /quit                 leave (also Ctrl-D)
  Ctrl-C cancels the running turn; twice quits.
  Permission questions take one key: y = allow once, a = always allow, n = reject.
  Answers are shown as Markdown, long lines wrap at word boundaries.
Colours follow NO_COLOR and the terminal; without a TTY the output is plain and line based.`;

export function catalogHelp(kind: 'models' | 'mode'): string {
  const what = kind === 'models' ? 'model' : 'mode';
  return `Usage: talaria ${kind} [agent options] [--session ID] [--set ID] [--json]

Lists the agent's ${what}s (the current one marked *) on a fresh session, or on --session ID.

Options:
  --set ID              with --session: switch that session to this ${what} (kept when it is
                        reopened); without: make it the default ${what} of this agent's new
                        sessions in this workspace (--cwd)
  --json                print the ${what} selector as JSON
  --session ID          use an existing session
${AGENT_OPTIONS}

Exit codes: 0 ok, 2 bad usage or unknown ${what}, 6 agent not ready.`;
}

export const ACP_HELP = `Usage: talaria acp [agent options] [--approve MODE]
       talaria acp --attach URL [--token TOKEN] [--agent ID]
       talaria acp --print-config zed|jetbrains [agent options] [--approve MODE]

Talaria as an ACP agent on stdio: an editor (Zed, JetBrains, any ACP client) starts this command
and speaks ACP to it; Talaria hosts the agent, applies its fixes and its permission policy, and
records the session (\`talaria sessions list\` shows it as it runs). stdout carries ACP frames
only; logs go to stderr (--verbose for more).

Options:
  --approve MODE        what the agent may do without asking the editor (ask|edits|all|none;
                        default ask); sensitive paths and dangerous commands always ask
  --print-config EDITOR print a ready snippet: zed (settings.json agent_servers entry) or
                        jetbrains (~/.jetbrains/acp.json), with absolute paths and PATH
  --attach URL          go through to a running \`talaria serve\` (its link, or ws://HOST:PORT/acp):
                        the editor and the browser drive one live session. The token comes from
                        the link's #token=…, --token or TALARIA_TOKEN; off loopback wss:// is required
  --token TOKEN         the server's access token (controller) for --attach
${AGENT_OPTIONS}`;
