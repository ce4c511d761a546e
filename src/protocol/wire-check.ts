/**
 * Wire checker: validates recorded JSON-RPC frames against the official ACP JSON schema that ships
 * in the SDK package. The root schema accepts almost anything, so each frame is validated per
 * method: params against the `*Request` / `*Notification` definition tagged with that `x-method`
 * and the receiving `x-side`, results against the `*Response` definition of the request it answers
 * (request ids are tracked per direction), errors against the JSON-RPC `Error` shape. Extension
 * (`_…`) and legacy methods that the schema does not know are listed, not failed.
 * Used by `talaria probe` and by end-to-end tests; never on the hot path.
 */
import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Direction, Frame, RawMessage } from './types.js';
import { isRecord } from '../os/record.js';

export type WireKind = 'request' | 'response' | 'notification' | 'error';

export interface Violation {
  /** Position of the frame among all frames this checker has seen (0-based). */
  index?: number;
  dir: Direction;
  /** The frame's method; for responses, the method of the request answered ('' if unknown). */
  method: string;
  kind: WireKind;
  /** JSON pointer into the frame (`/params/update/content/type`); '' for the frame itself. */
  path: string;
  message: string;
  msg?: RawMessage;
}

/** A method the schema does not define: listed for the report, not a violation. */
export interface UnknownMethod {
  index: number;
  dir: Direction;
  method: string;
  kind: 'request' | 'notification';
  reason: 'extension' | 'not_in_schema';
}

export interface WireCheckStats {
  frames: number;
  requests: number;
  notifications: number;
  responses: number;
  errors: number;
  violations: number;
  unknownMethods: number;
  /** Requests seen but not (yet) answered. */
  unanswered: number;
  /** One-time cost of compiling the schema flavor this checker uses (shared by all checkers). */
  compileMs: number;
}

export interface WireCheckOptions {
  /** Validate against schema.unstable.json (default true): unstable methods, kinds and fields pass. */
  unstable?: boolean;
  /** `_`-prefixed methods are listed in `unknownMethods` (default true); false makes them violations. */
  allowExtensions?: boolean;
}

export interface WireChecker {
  check(frame: Pick<Frame, 'dir' | 'msg'>): Violation[];
  checkAll(frames: Iterable<Pick<Frame, 'dir' | 'msg'>>): Violation[];
  readonly unknownMethods: readonly UnknownMethod[];
  readonly stats: WireCheckStats;
}

type Side = 'agent' | 'client';
type DefKind = 'request' | 'response' | 'notification';
interface SchemaDef {
  'x-method'?: string;
  'x-side'?: string;
}
interface AcpSchema {
  $defs: Record<string, SchemaDef>;
}

interface Compiled {
  /** `${method}|${kind}|${side}` → validator. */
  validators: Map<string, ValidateFunction>;
  /** Every (kind, side) a method is defined for, for "sent the wrong way" messages. */
  methods: Map<string, string[]>;
  error: ValidateFunction;
  compileMs: number;
}

const SCHEMA_ID = 'acp';
const require = createRequire(import.meta.url);
const cache = new Map<'stable' | 'unstable', Compiled>();

function loadSchema(unstable: boolean): AcpSchema {
  return require(`@agentclientprotocol/sdk/schema/v1/schema${unstable ? '.unstable' : ''}.json`) as AcpSchema;
}

function defKind(name: string): DefKind | undefined {
  if (name.endsWith('Notification')) return 'notification';
  if (name.endsWith('Response')) return 'response';
  if (name.endsWith('Request')) return 'request';
  return undefined;
}

const intFormat = (min: number, max: number) => ({
  type: 'number' as const,
  validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
});

/** Compiles every x-method definition of one flavor once per process (≈1–2 s, so cached). */
function compiled(unstable: boolean): Compiled {
  const key = unstable ? 'unstable' : 'stable';
  const hit = cache.get(key);
  if (hit) return hit;
  const t0 = performance.now();
  const schema = loadSchema(unstable);
  // discriminator: true makes tagged unions (sessionUpdate, content `type`) report the branch
  // that matches the tag instead of every branch's errors.
  const ajv = new Ajv2020.default({ strict: false, logger: false, discriminator: true });
  // Rust-style numeric formats; safe-integer bounds stand in for the 64-bit ones.
  ajv.addFormat('int32', intFormat(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat('int64', intFormat(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('uint16', intFormat(0, 2 ** 16 - 1));
  ajv.addFormat('uint32', intFormat(0, 2 ** 32 - 1));
  ajv.addFormat('uint64', intFormat(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:/i);
  // Definitions are compiled through `acp#/$defs/X` refs so their internal `#/$defs/…` refs resolve.
  ajv.addSchema(schema, SCHEMA_ID);
  const validators = new Map<string, ValidateFunction>();
  const methods = new Map<string, string[]>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    const kind = defKind(name);
    if (!method || !kind) continue;
    const side = def['x-side'] ?? 'protocol';
    const v = ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
    if (!v) throw new Error(`ACP schema: cannot compile ${name}`);
    validators.set(`${method}|${kind}|${side}`, v);
    methods.set(method, [...(methods.get(method) ?? []), `${kind} to the ${side}`]);
  }
  const error = ajv.getSchema(`${SCHEMA_ID}#/$defs/Error`);
  if (!error) throw new Error('ACP schema: no Error definition');
  const c: Compiled = { validators, methods, error, compileMs: Math.round(performance.now() - t0) };
  cache.set(key, c);
  return c;
}

/** Compiles the schema flavor now (e.g. before a timed probe). Returns the compile time in ms. */
export function warmWireChecker(unstable = true): number {
  return compiled(unstable).compileMs;
}

const other = (d: Direction): Direction => (d === 'client->agent' ? 'agent->client' : 'client->agent');
const receiver = (d: Direction): Side => (d === 'client->agent' ? 'agent' : 'client');
const validId = (id: unknown): boolean => typeof id === 'string' || Number.isInteger(id) || id === null;
const idKey = (id: unknown): string => `${typeof id}:${String(id)}`;

function detail(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'enum') return `must be one of ${JSON.stringify(p.allowedValues)}`;
  if (e.keyword === 'additionalProperties') return `${e.message}: "${String(p.additionalProperty)}"`;
  if (e.keyword === 'discriminator') return `${e.message} (got ${JSON.stringify(p.tagValue)})`;
  return e.message ?? e.keyword;
}

function valueAt(root: unknown, pointer: string): unknown {
  let v = root;
  for (const seg of pointer.split('/').slice(1)) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** Ajv lists an error per union branch; the deepest ones say what is actually wrong. */
function summarize(
  errors: ErrorObject[] | null | undefined,
  data: unknown,
  prefix: string,
): { path: string; message: string } {
  const all = errors ?? [];
  const depth = (e: ErrorObject) => (e.instancePath === '' ? 0 : e.instancePath.split('/').length);
  const max = Math.max(0, ...all.map(depth));
  const deepest = all.filter((e) => depth(e) === max);
  const specific = deepest.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const pick = specific.length > 0 ? specific : deepest;
  const at = pick[0]?.instancePath ?? '';
  const consts = pick
    .filter((e) => e.keyword === 'const')
    .map((e) => (e.params as { allowedValue: unknown }).allowedValue);
  const others = pick.filter((e) => e.keyword !== 'const').map(detail);
  // A string enum is written as a union of consts: say "one of [...]" once.
  const parts = [...new Set([...(consts.length > 0 ? [`must be one of ${JSON.stringify(consts)}`] : []), ...others])];
  const shown = pick.some((e) => ['type', 'const', 'enum', 'format', 'minimum', 'maximum'].includes(e.keyword));
  const got = valueAt(data, at);
  const suffix = shown ? ` (got ${got === undefined ? 'nothing' : JSON.stringify(got).slice(0, 80)})` : '';
  return { path: prefix + at, message: (parts.slice(0, 4).join('; or ') || 'invalid') + suffix };
}

export function createWireChecker(options: WireCheckOptions = {}): WireChecker {
  const unstable = options.unstable ?? true;
  const allowExtensions = options.allowExtensions ?? true;
  let schema: Compiled | undefined; // compiled on first check, not at creation
  let unstableMethods: Set<string> | undefined;
  /** Requests sent in a direction, by id, waiting for their response in the other direction. */
  const pending: Record<Direction, Map<string, { method: string; side: string | undefined }>> = {
    'client->agent': new Map(),
    'agent->client': new Map(),
  };
  const unknownMethods: UnknownMethod[] = [];
  const counts = { frames: 0, requests: 0, notifications: 0, responses: 0, errors: 0, violations: 0 };

  function lookup(method: string, kind: DefKind, side: string): { v: ValidateFunction; side: string } | undefined {
    const s = schema!;
    for (const sd of [side, 'protocol', 'proxy']) {
      const v = s.validators.get(`${method}|${kind}|${sd}`);
      if (v) return { v, side: sd };
    }
    return undefined;
  }

  function isUnstableOnly(method: string): boolean {
    unstableMethods ??= new Set(
      Object.values(loadSchema(true).$defs).flatMap((d) => (d['x-method'] ? [d['x-method']] : [])),
    );
    return unstableMethods.has(method);
  }

  function check(frame: Pick<Frame, 'dir' | 'msg'>): Violation[] {
    schema ??= compiled(unstable);
    const index = counts.frames++;
    const { dir } = frame;
    const msg = frame.msg as unknown;
    const out: Violation[] = [];
    const fail = (method: string, kind: WireKind, path: string, message: string): void => {
      out.push({ index, dir, method, kind, path, message, msg: frame.msg });
    };
    const validate = (v: ValidateFunction, value: unknown, method: string, kind: WireKind, prefix: string): void => {
      if (!v(value)) {
        const { path, message } = summarize(v.errors, value, prefix);
        fail(method, kind, path, message);
      }
    };

    if (!isRecord(msg)) {
      fail('', 'notification', '', 'frame is not a JSON object (batches are not allowed)');
      counts.violations += out.length;
      return out;
    }
    const hasMethod = 'method' in msg;
    const hasId = 'id' in msg && msg.id !== undefined;
    const method = typeof msg.method === 'string' ? msg.method : '';
    const kind: WireKind = hasMethod ? (hasId ? 'request' : 'notification') : 'error' in msg ? 'error' : 'response';
    if (msg.jsonrpc !== '2.0') fail(method, kind, '/jsonrpc', `must be "2.0" (got ${JSON.stringify(msg.jsonrpc)})`);
    if (hasId && !validId(msg.id))
      fail(method, kind, '/id', `must be a string, an integer or null (got ${JSON.stringify(msg.id)})`);

    if (hasMethod) {
      const k = kind as 'request' | 'notification';
      if (k === 'request') counts.requests++;
      else counts.notifications++;
      if (typeof msg.method !== 'string') {
        fail('', k, '/method', 'must be a string');
      } else {
        if ('result' in msg || 'error' in msg) fail(method, k, '', `a ${k} must not carry "result" or "error"`);
        const found = lookup(method, k, receiver(dir));
        if (found) validate(found.v, msg.params, method, k, '/params');
        else if (schema.methods.has(method)) {
          fail(
            method,
            k,
            '/method',
            `"${method}" is defined only as ${schema.methods.get(method)!.join(', ')}; not a ${k} to the ${receiver(dir)}`,
          );
        } else if (!unstable && isUnstableOnly(method)) {
          fail(method, k, '/method', `"${method}" is unstable (not in the stable schema)`);
        } else if (method.startsWith('_') && !allowExtensions) {
          fail(method, k, '/method', `extension method "${method}" not allowed`);
        } else {
          unknownMethods.push({
            index,
            dir,
            method,
            kind: k,
            reason: method.startsWith('_') ? 'extension' : 'not_in_schema',
          });
        }
        if (k === 'request') {
          const key = idKey(msg.id);
          if (pending[dir].has(key))
            fail(method, k, '/id', `id ${JSON.stringify(msg.id)} reused while that request is still pending`);
          pending[dir].set(key, { method, side: found?.side });
        }
      }
    } else {
      counts.responses++;
      const req = hasId ? pending[other(dir)].get(idKey(msg.id)) : undefined;
      const m = req?.method ?? '';
      if (!hasId) fail(m, kind, '', 'a response must carry an "id" (or a "method" if it is a notification)');
      else if (req) pending[other(dir)].delete(idKey(msg.id));
      // A null id answers a request the peer could not read (parse error): no request to match.
      else if (!(msg.id === null && kind === 'error'))
        fail(m, kind, '/id', `answers no pending request sent ${other(dir)} (id ${JSON.stringify(msg.id)})`);
      const both = 'result' in msg && 'error' in msg;
      if (both) fail(m, kind, '', 'a response must carry exactly one of "result" and "error"');
      else if (kind === 'error') {
        counts.errors++;
        validate(schema.error, msg.error, m, 'error', '/error');
      } else if (!('result' in msg)) fail(m, kind, '', 'a response must carry "result" or "error"');
      else if (req?.side) {
        const v = schema.validators.get(`${m}|response|${req.side}`);
        if (v) validate(v, msg.result, m, 'response', '/result');
      }
    }
    counts.violations += out.length;
    return out;
  }

  return {
    check,
    checkAll(frames) {
      const out: Violation[] = [];
      for (const f of frames) out.push(...check(f));
      return out;
    },
    unknownMethods,
    get stats(): WireCheckStats {
      return {
        ...counts,
        unknownMethods: unknownMethods.length,
        unanswered: pending['client->agent'].size + pending['agent->client'].size,
        compileMs: schema?.compileMs ?? cache.get(unstable ? 'unstable' : 'stable')?.compileMs ?? 0,
      };
    },
  };
}

/** One line per violation, for test failures and reports. */
export function formatViolation(v: Violation): string {
  const where = `${v.index === undefined ? '' : `#${v.index} `}${v.dir} ${v.method || '?'} ${v.kind}`;
  const frame = v.msg ? ` in ${JSON.stringify(v.msg).slice(0, 240)}` : '';
  return `${where} ${v.path || '(frame)'}: ${v.message}${frame}`;
}
