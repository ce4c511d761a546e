/** Quirk sets: per agent (by the name it gives itself and its version), chosen however it was started. */
export type { QuirkSet, QuirkChoice, QuirkBasis, QuirkSummary, VersionRange } from './types.js';
export { summarize } from './types.js';
export {
  GENERIC_QUIRKS,
  QUIRK_SETS,
  quirkSet,
  inRange,
  describeRange,
  setForAgent,
  choiceForAgent,
  choiceForCommand,
  choiceBeforeInit,
  choiceAfterInit,
  type LaunchFacts,
} from './catalog.js';
export { applyQuirks, hooksForAgent, sameCaps, type AppliedQuirks } from './apply.js';
export { startWithQuirks, launchFacts, type StartedWithQuirks, type StartWithQuirksOptions } from './start.js';
export { CLAUDE_HOOKS, CLAUDE_CLIENT_META, claudeQuirks } from './claude.js';
export { copilotClassifyTurn, copilotHooks, copilotQuirks } from './copilot.js';
export { cursorClassifyTurn, cursorHooks, cursorQuirks } from './cursor.js';
export { geminiQuirks } from './gemini.js';
export { piClassifyTurn, piHooks, piAgentDir, lastPiError, piQuirks } from './pi.js';
export { qwenModeFor, QWEN_ASKING_MODE, qwenQuirks } from './qwen.js';
