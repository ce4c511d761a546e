/**
 * The ACP Agent Registry's formats (agent.schema.json, draft-07, and FORMAT.md): the index
 * `{ version, agents: [...] }` and each agent.json entry. The index is read tolerantly: a bad
 * entry is skipped and reported by id, never fatal for the others.
 */
import { z } from 'zod';

export const PLATFORMS = [
  'darwin-aarch64',
  'darwin-x86_64',
  'linux-aarch64',
  'linux-x86_64',
  'windows-aarch64',
  'windows-x86_64',
] as const;
export type RegistryPlatform = (typeof PLATFORMS)[number];

const env = z.record(z.string(), z.string());
const pkg = z.object({
  package: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: env.optional(),
  cmd: z.string().min(1).optional(),
});
const binaryTarget = z.object({
  archive: z.url({ protocol: /^https?$/ }),
  cmd: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: env.optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'not a sha256 hex digest')
    .optional(),
});

export const distributionSchema = z
  .object({
    npx: pkg.optional(),
    uvx: pkg.optional(),
    binary: z.partialRecord(z.enum(PLATFORMS), binaryTarget).optional(),
  })
  .refine(
    (d) => d.npx !== undefined || d.uvx !== undefined || (d.binary !== undefined && Object.keys(d.binary).length > 0),
    'needs at least one distribution',
  );

// Semver as the schema's pattern allows (prereleases such as 0.85.2-preview.22 included).
const semver = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'not a semver version');

export const agentEntrySchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'id must be lowercase letters, digits and dashes'),
  name: z.string().min(1),
  version: semver,
  description: z.string(),
  distribution: distributionSchema,
  repository: z.string().optional(),
  website: z.string().optional(),
  authors: z.array(z.string()).optional(),
  license: z.string().optional(),
  icon: z.string().optional(),
  preview: z.object({ version: semver, distribution: distributionSchema }).optional(),
});

export type AgentEntry = z.infer<typeof agentEntrySchema>;
export type Distribution = z.infer<typeof distributionSchema>;
export type BinaryTarget = z.infer<typeof binaryTarget>;
export type PackageDistribution = z.infer<typeof pkg>;

export interface RegistryIndex {
  version: string;
  agents: AgentEntry[];
  /** Entries left out, one human sentence each (naming the id when it has one). */
  problems: string[];
}

/** Parses registry.json text; throws only when the whole document is unusable. */
export function parseIndex(text: string): RegistryIndex {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`registry index is not JSON: ${(e as Error).message}`);
  }
  const top = z.object({ version: z.string(), agents: z.array(z.unknown()) }).safeParse(doc);
  if (!top.success)
    throw new Error(
      `registry index has no "version" and "agents" list: ${z.prettifyError(top.error).replace(/\n/g, ' ')}`,
    );
  const agents: AgentEntry[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  top.data.agents.forEach((raw, i) => {
    const r = agentEntrySchema.safeParse(raw);
    const rawId =
      typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string'
        ? (raw as { id: string }).id
        : `#${i}`;
    if (!r.success) problems.push(`registry entry "${rawId}" skipped: ${z.prettifyError(r.error).replace(/\n/g, ' ')}`);
    else if (seen.has(r.data.id)) problems.push(`registry entry "${rawId}" skipped: duplicate id`);
    else {
      seen.add(r.data.id);
      agents.push(r.data);
    }
  });
  return { version: top.data.version, agents, problems };
}

/** This machine's key in `distribution.binary`. */
export function platformKey(platform: NodeJS.Platform, arch: string): RegistryPlatform | undefined {
  const os =
    platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : undefined;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  return os && cpu ? (`${os}-${cpu}` as RegistryPlatform) : undefined;
}
