/** The thread layer: pure reducer over ACP updates, snapshots and Markdown export. */
export type * from './types.js';
export { createThread } from './state.js';
export { reduce, reduceUpdate } from './reducer.js';
export { chunkKind, findToolCall, hasToolCall, openToolCalls, runTarget } from './queries.js';
export { snapshot, threadFromSnapshot, type ThreadSnapshot } from './snapshot.js';
export { toMarkdown, type MarkdownOptions } from './markdown.js';
export { unifiedDiff } from './diff.js';
export { FALLBACK_TITLE, keepCancelled } from './tool-calls.js';
