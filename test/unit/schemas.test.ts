import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  completeRequest,
  executeRequest,
  exitRequest,
  FRAME_TYPES,
  initRequest,
  inputReply,
  isCompleteRequest,
  type Request,
  variablesRequest,
} from '../../src/eval/protocol/index.js';
import {
  bridgePayloadProblem,
  settingsProblems,
  toolInputProblems,
  toolInputSchema,
  validateBridgeCall,
} from '../../src/eval/schemas/index.js';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { toolsFor } from '../../src/modes/mcp/tools.js';

describe('schemas (ajv, compiled ahead of time)', () => {
  it('the committed validators are what the schemas make', () => {
    expect(() => execFileSync(process.execPath, ['scripts/gen-validators.mjs', '--check'])).not.toThrow();
  });

  it("one schema for the eval tool's input: the MCP eval tool's is omp-eval tool's, with its session", () => {
    const mcp = toolsFor(DEFAULT_SETTINGS).find((t) => t.name === 'eval')
      ?.inputSchema as typeof toolInputSchema;
    const { session, ...cells } = mcp.properties;
    expect({ ...mcp, properties: cells }).toEqual(toolInputSchema);
    expect(session).toMatchObject({ type: 'string' });
    // ...and it is the schema toolInputProblems checks: what it takes and what it refuses agree.
    const ajv = new Ajv({ strict: false });
    const mcpCheck: ValidateFunction = ajv.compile({ ...mcp, properties: cells });
    const inputs = [
      { cells: [{ language: 'py', code: '1', timeout: 0, title: 't', reset: true }] },
      { cells: [] },
      { cells: [{ language: 'rb', code: '1' }] },
      { cells: [{ language: 'py' }] },
      { cells: [{ language: 'js', code: '1', extra: 1 }] },
      { cells: [{ language: 'py', code: '1', timeout: -1 }] },
      { cells: [{ language: 'py', code: '1' }], other: 1 },
    ];
    for (const input of inputs) expect(mcpCheck(input)).toBe(toolInputProblems(input).length === 0);
  });

  it('checks bridge calls and their payloads', () => {
    expect(validateBridgeCall({ id: 1, kind: 'agent', cell: 'k1-c1', payload: {} })).toBeUndefined();
    expect(validateBridgeCall({ id: 1, kind: 'agent', cell: null, payload: {} })).toBeUndefined();
    expect(validateBridgeCall({ id: 'x', kind: 'agent', cell: null, payload: {} })).toMatch(
      /^invalid bridge call: id must be integer/,
    );
    expect(validateBridgeCall({ id: 1, kind: ' ', cell: null })).toMatch(
      /required property 'payload'; kind must match pattern/,
    );
    expect(
      bridgePayloadProblem('agent', { prompt: 'p', agent: 'task', model: null, label: null, schema: null }),
    ).toBeUndefined();
    expect(bridgePayloadProblem('agent', { prompt: 3 })).toBe(
      'agent() was called with prompt must be string',
    );
    expect(bridgePayloadProblem('completion', { prompt: 'p', system: 5 })).toMatch(
      /system must be string,null/,
    );
    expect(bridgePayloadProblem('other', { anything: true })).toBeUndefined();
  });

  it('names every setting that does not fit, and the unknown ones', () => {
    expect(settingsProblems({ 'eval.py': 'yes', 'eval.timeout': '2.5', 'env.pass': 'HOME' })).toEqual([]);
    expect(settingsProblems({ 'eval.py': 'maybe', 'eval.timeout': '0', nope: 1 })).toEqual([
      { key: 'nope', known: false },
      { key: 'eval.py', known: true },
      { key: 'eval.timeout', known: true },
    ]);
  });
});

describe('protocol.json: the one description of frames and requests', () => {
  const protocol = JSON.parse(readFileSync('src/eval/schemas/protocol.json', 'utf8'));
  const ajv = new Ajv({ allowUnionTypes: true }).addSchema(protocol, 'protocol');
  const requestValid = ajv.getSchema('protocol#/$defs/Request') as ValidateFunction;
  const defOf = (ref: string) => protocol.$defs[ref.replace('#/$defs/', '')];

  it('FRAME_TYPES are the frame types it lists, in its order', () => {
    const types = protocol.$defs.Frame.oneOf.flatMap((s: { $ref: string }) => {
      const type = defOf(s.$ref).properties.type;
      return type.const ? [type.const] : type.enum;
    });
    expect(FRAME_TYPES).toEqual(types);
  });

  it('every request the host makes fits it', () => {
    const requests: Request[] = [
      executeRequest('a', '1', { allowStdin: true, stdinEnds: true, cellNumber: 3, scriptLine: 2 }),
      initRequest('i', 'prelude', '/tmp', { A: 'x', B: null }, 'k'.repeat(32), {
        path: '/s.py',
        argv: ['s'],
      }),
      exitRequest(),
      inputReply('a', 'text'),
      inputReply('a', null),
      completeRequest('c', 'pri', 3),
      isCompleteRequest('q', 'if x:'),
      variablesRequest('v', 10),
    ];
    for (const request of requests)
      expect(requestValid(request), JSON.stringify(requestValid.errors)).toBe(true);
    expect(requestValid({ type: 'execute', id: '', code: '' })).toBe(false);
  });
});
