/**
 * The answers of the restart and variables tools, as the model reads them (text) and as a program
 * reads them (structured).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type KernelMode, LANGUAGE_LABEL, type Language } from './engine.js';
import type { KernelSession } from './kernelSession.js';
import { type KernelPresence, type KernelVariables, listVariables, variablesTable } from './variables.js';

/** The restart tool's answer. */
export function restartResult(
  name: string,
  mode: KernelMode,
  languages: Language[],
  alive: Language[],
): CallToolResult {
  const names = languages.map((l) => LANGUAGE_LABEL[l]).join(' and ');
  const message =
    mode === 'per-call'
      ? `Nothing to restart: the server runs in per-call mode, so every eval call already starts fresh kernels.`
      : alive.length
        ? `Restarted the ${alive.map((l) => LANGUAGE_LABEL[l]).join(' and ')} kernel${alive.length > 1 ? 's' : ''} of session "${name}": all state (variables, imports, loaded data) is lost. The next eval starts a fresh kernel.`
        : `No ${names} kernel of session "${name}" was running; the next eval starts a fresh one.`;
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { session: name, restarted: alive, stateLost: alive.length > 0, message },
  };
}

/**
 * The variables tool's answer for a session (undefined: none of that name is open): each
 * language's names, or why it has none.
 */
export async function sessionVariables(
  name: string,
  session: KernelSession | undefined,
  languages: Language[],
  mode: KernelMode,
  available: Record<Language, boolean>,
): Promise<CallToolResult> {
  const kernels: Partial<Record<Language, KernelPresence>> = {};
  const found: KernelVariables[] = [];
  for (const language of languages) {
    if (!available[language]) {
      kernels[language] = 'unavailable';
      continue;
    }
    const listed =
      mode === 'per-call' || !session
        ? { language, presence: 'not started' as const, variables: [], total: 0 }
        : await listVariables(await session.session(), language);
    kernels[language] = listed.presence;
    found.push(listed);
  }
  return variablesResult(name, mode, kernels, found);
}

function variablesResult(
  name: string,
  mode: KernelMode,
  kernels: Partial<Record<Language, KernelPresence>>,
  found: KernelVariables[],
): CallToolResult {
  const variables = found.flatMap((k) => k.variables);
  const lines = found.map((k) => {
    const label = LANGUAGE_LABEL[k.language];
    if (k.error) return `${label}: ${k.error}`;
    if (k.presence === 'not started')
      return mode === 'per-call'
        ? `${label}: no kernel persists between calls (per-call mode).`
        : `${label}: no kernel is running (it starts at the first ${k.language} cell).`;
    if (!k.variables.length) return `${label}: no names defined.`;
    const more = k.total > k.variables.length ? `\n(${k.total - k.variables.length} more not listed)` : '';
    return `${label}:\n${variablesTable(k.variables)}${more}`;
  });
  const truncated = found.some((k) => k.total > k.variables.length);
  return {
    content: [{ type: 'text', text: lines.join('\n\n') }],
    structuredContent: { session: name, kernels, variables, ...(truncated ? { truncated } : {}) },
  };
}
