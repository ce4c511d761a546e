/**
 * The `session/update` lines raw-agent.ts writes, byte for byte, as functions of the agent's
 * session id: shapes a re-serializing proxy would not give back as they were (odd whitespace,
 * unicode escapes, Python's separators, sessionId after the update), and shapes the proxy must
 * change or cannot splice (no messageId, a cancelled tool call, a duplicate or escaped key).
 */
const q = (s: string) => JSON.stringify(s);

/** Forwarded as they are (only the sessionId token differs). */
export const UNCHANGED = [
  (sid: string) =>
    `{ "jsonrpc" : "2.0", "method":"session/update" ,"params":{ "sessionId" : ${q(sid)} , "update": {"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":"caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/ end"}} } }`,
  (sid: string) =>
    `{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": ${q(sid)}, "update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "\\u00e9dit \\u201cx\\u201d", "kind": "edit", "status": "pending"}}}`,
  (sid: string) =>
    `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"plan","entries":[{"content":"a}\\"{[","priority":"high","status":"pending"}]},"sessionId":${q(sid)}}}`,
  (sid: string) =>
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${q(sid)},"update":{"sessionUpdate":"agent_thought_chunk","messageId":"m-2","content":{"type":"text","text":"é — 😀"}},"_meta":{"vendor":{"n":[1,2.5e3,true,null]}}}}`,
];

/** A chunk without a messageId: Talaria gives it one (put first in the update). */
export const NO_MESSAGE_ID = (sid: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${q(sid)},"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\\u00e9 plain"}}}}`;

/** Re-serialized: a status the editor's schema lacks, a duplicate sessionId, a key written with an escape. */
export const CANCELLED = (sid: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${q(sid)},"update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"cancelled"}}}`;
export const DUPLICATE_SID = (sid: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"not-this-one","update":{"sessionUpdate":"agent_message_chunk","messageId":"m-3","content":{"type":"text","text":"dup"}},"sessionId":${q(sid)}}}`;
export const ESCAPED_KEY = (sid: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"session\\u0049d":${q(sid)},"update":{"sessionUpdate":"agent_message_chunk","messageId":"m-4","content":{"type":"text","text":"esc"}}}}`;
