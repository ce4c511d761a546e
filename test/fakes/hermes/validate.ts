/**
 * Request validation in the shape Hermes' Python SDK answers with: a pydantic
 * ValidationError becomes -32602 "Invalid params" with data {errors: exc.errors()}.
 */
import { RpcError } from './rpc.js';

type Kind = 'string' | 'int' | 'array';
type Rule = [field: string, kind: Kind, required: boolean];

const RULES: Record<string, Rule[]> = {
  initialize: [['protocolVersion', 'int', true]],
  authenticate: [['methodId', 'string', true]],
  'session/new': [
    ['cwd', 'string', true],
    ['mcpServers', 'array', true],
  ],
  'session/load': [
    ['mcpServers', 'array', true],
    ['cwd', 'string', true],
    ['sessionId', 'string', true],
  ],
  'session/resume': [
    ['sessionId', 'string', true],
    ['cwd', 'string', true],
    ['mcpServers', 'array', false],
  ],
  'session/fork': [
    ['sessionId', 'string', true],
    ['cwd', 'string', true],
    ['mcpServers', 'array', false],
  ],
  'session/list': [
    ['cwd', 'string', false],
    ['cursor', 'string', false],
  ],
  'session/prompt': [
    ['sessionId', 'string', true],
    ['prompt', 'array', true],
  ],
  'session/cancel': [['sessionId', 'string', true]],
  'session/set_mode': [
    ['sessionId', 'string', true],
    ['modeId', 'string', true],
  ],
  'session/set_model': [
    ['sessionId', 'string', true],
    ['modelId', 'string', true],
  ],
  'session/set_config_option': [
    ['sessionId', 'string', true],
    ['configId', 'string', true],
  ],
  'session/close': [['sessionId', 'string', true]],
};

const URL = 'https://errors.pydantic.dev/2.13/v/';
const err = (type: string, loc: Array<string | number>, msg: string, input: unknown) => ({
  type,
  loc,
  msg,
  input,
  url: URL + type,
});

function check(kind: Kind, v: unknown, loc: Array<string | number>): object | null {
  if (kind === 'string')
    return typeof v === 'string' ? null : err('string_type', loc, 'Input should be a valid string', v);
  if (kind === 'array') return Array.isArray(v) ? null : err('list_type', loc, 'Input should be a valid list', v);
  if (typeof v === 'number' && Number.isInteger(v)) return null;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return null; // pydantic lax mode
  return typeof v === 'string'
    ? err('int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', v)
    : err('int_type', loc, 'Input should be a valid integer', v);
}

/** Throws -32602 for bad params of a known method; returns the params as a record. */
export function validate(method: string, params: unknown): Record<string, unknown> {
  const rules = RULES[method];
  const p = params ?? {};
  if (!rules) return (p && typeof p === 'object' ? p : {}) as Record<string, unknown>;
  if (typeof p !== 'object' || Array.isArray(p)) {
    throw new RpcError(-32602, 'Invalid params', {
      errors: [err('model_type', [], 'Input should be a valid dictionary or object to extract fields from', p)],
    });
  }
  const rec = p as Record<string, unknown>;
  const errors: object[] = [];
  for (const [field, kind, required] of rules) {
    if (!(field in rec) || rec[field] === undefined || (rec[field] === null && required)) {
      if (required) errors.push(err('missing', [field], 'Field required', rec));
      continue;
    }
    if (rec[field] === null) continue;
    const e = check(kind, rec[field], [field]);
    if (e) errors.push(e);
  }
  const servers = rec.mcpServers;
  if (Array.isArray(servers)) {
    servers.forEach((s, i) => {
      if (!s || typeof s !== 'object' || typeof (s as Record<string, unknown>).name !== 'string') {
        errors.push(err('missing', ['mcpServers', i, 'name'], 'Field required', s));
      }
    });
  }
  if (errors.length) throw new RpcError(-32602, 'Invalid params', { errors });
  return rec;
}
