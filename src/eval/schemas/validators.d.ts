// Types of the generated validators.js (scripts/gen-validators.mjs).
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
export interface Validator {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}
export const toolInput: Validator;
export const settings: Validator;
export const bridgeCall: Validator;
export const bridgeCancel: Validator;
export const agentPayload: Validator;
export const completionPayload: Validator;
