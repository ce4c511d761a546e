/** `talaria acp`'s core (the CLI's stdio face and the server's `/acp` share it). */
export { AcpProxy, type AcpProxyOptions, type SharedSessions } from './proxy.js';
export { EditorPeer, type RpcMessage, type JsonRpcId } from './peer.js';
export { lineWriter } from './line-out.js';
