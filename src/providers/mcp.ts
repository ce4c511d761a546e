/**
 * MCP servers an agent may receive: stdio always (ACP requires it); `http` / `sse` only when the
 * agent advertises `mcpCapabilities.http` / `.sse`. The rest is withheld with a visible reason.
 */
export interface McpFilterResult {
  servers: unknown[];
  withheld: { name: string; type: string; reason: string }[];
}

export function mcpServerType(s: unknown): string {
  const t = (s as { type?: unknown } | null)?.type;
  return typeof t === 'string' ? t : 'stdio';
}

export function filterMcpServers(
  servers: readonly unknown[],
  caps: { mcpHttp: boolean; mcpSse: boolean },
  agentLabel = 'the agent',
): McpFilterResult {
  const out: McpFilterResult = { servers: [], withheld: [] };
  for (const s of servers) {
    const type = mcpServerType(s);
    const name = String((s as { name?: unknown } | null)?.name ?? '(unnamed)');
    const ok = type === 'stdio' || (type === 'http' && caps.mcpHttp) || (type === 'sse' && caps.mcpSse);
    if (ok) out.servers.push(s);
    else
      out.withheld.push({
        name,
        type,
        reason: `${agentLabel} does not accept ${type} MCP servers (only ${['stdio', caps.mcpHttp ? 'http' : '', caps.mcpSse ? 'sse' : ''].filter(Boolean).join(', ')})`,
      });
  }
  return out;
}
