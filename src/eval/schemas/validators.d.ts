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
export const StartedFrame: Validator;
export const StreamFrame: Validator;
export const DisplayFrame: Validator;
export const ErrorFrame: Validator;
export const InputRequestFrame: Validator;
export const CompleteReplyFrame: Validator;
export const IsCompleteReplyFrame: Validator;
export const VariablesReplyFrame: Validator;
export const DoneFrame: Validator;
/** The eval tool's input (schemas.json's `toolInput`, its cells inline), as data. */
export const toolInputSchema: {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
};
