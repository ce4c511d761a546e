/**
 * The prompts of each probe turn, in one small table. Unknown agents get generic natural
 * prompts; agents recognised by `agentInfo.name` get their known steering words as well (the
 * Hermes ones are natural text behind the emulator's keyword, so a real model reads them the
 * same way). `null`: the agent cannot be steered into that at all ("not testable").
 */
export interface Steering {
  id: 'demo' | 'hermes' | 'generic';
  /** A streamed answer of several chunks, no tools. */
  stream: string;
  /** A turn that uses tools on the seeded file (reads it; may also edit and run). */
  tool: string;
  /** A long or slow answer, to cancel after its first chunk. */
  slow: string;
  /** Run one shell command and show its output. */
  run: ((command: string) => string) | null;
  /** Call one tool of a named MCP server. */
  mcp: ((server: string, tool: string) => string) | null;
  /** Text sent along with the image. */
  image: string;
}

const GENERIC: Steering = {
  id: 'generic',
  stream: 'Without using any tools, answer in three short sentences: why is the sky blue?',
  tool: 'Use your file-reading tool to read the file notes.txt in the current folder, then tell me its first line.',
  slow: 'Without using any tools, write a long and detailed essay (at least 800 words) about the history of sailing ships.',
  run: (command) =>
    `Use your shell or terminal tool to run exactly this command in the current folder, then show me its output: ${command}`,
  mcp: (server, tool) =>
    `Call the tool "${tool}" of the MCP server "${server}" with the argument text set to "ping", then tell me exactly what it returned.`,
  image: 'What is in this image? Answer in one short sentence.',
};

export const STEERING: readonly { match: RegExp; steering: Steering }[] = [
  {
    // src/demo: the first word picks a scripted behaviour.
    match: /^talaria-demo$/,
    steering: {
      id: 'demo',
      stream: 'hello from the Talaria probe',
      tool: 'tour',
      slow: 'slow',
      run: (command) => `run ${command}`,
      mcp: null, // the demo agent has no MCP client
      image: 'what is in this image?',
    },
  },
  {
    // Hermes Agent and its emulator (test/fakes/hermes): TOOLS / SLOW / RUN / MCP lead the prompt.
    match: /^hermes(-agent)?$/i,
    steering: {
      id: 'hermes',
      stream: GENERIC.stream,
      tool: 'TOOLS: read the file notes.txt in the current folder, run `echo hello-from-terminal`, and write the text "written by fake model" to out.txt.',
      slow: `SLOW ${GENERIC.slow}`,
      run: (command) => `RUN ${command}`,
      mcp: (server, tool) =>
        `MCP ${tool} — call the MCP tool ${tool} of the server ${server} with text "ping" and report what it returns.`,
      image: GENERIC.image,
    },
  },
];

export function steeringFor(agentName: string | undefined): Steering {
  if (agentName) for (const s of STEERING) if (s.match.test(agentName)) return s.steering;
  return GENERIC;
}
