import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bridgePayloadProblem, settingsProblems, validateBridgeCall } from '../../src/eval/schemas/index.js';

describe('schemas (ajv, compiled ahead of time)', () => {
  it('the committed validators are what the schemas make', () => {
    expect(() => execFileSync(process.execPath, ['scripts/gen-validators.mjs', '--check'])).not.toThrow();
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
