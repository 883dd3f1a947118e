/**
 * Structured output of agent() and completion(): the host parses the JSON in the answer (a
 * fenced ```json block is unwrapped) and checks it against the caller's schema with ajv (the
 * whole of JSON Schema: draft-07, or 2020-12 when the schema says so; formats from ajv-formats),
 * so both kernels get the same verdict in the same words.
 *
 * The schema comes from a cell, so the check runs in a worker thread of its own, with a fresh ajv
 * and a deadline: a `pattern` that backtracks for ever, or a huge schema, costs that call its
 * answer, never the host's event loop (other cells' timeouts, interrupts, other sessions).
 */
import { createRequire } from 'node:module';

/**
 * The parsed output, or why there is none (the kernel raises it in the cell: a js kernel as a
 * SyntaxError when the output is not JSON, else a TypeError; Python as a ValueError).
 */
export type Structured = { data: unknown } | { schemaError: string; notJson?: true };

/** The longest schema checked (its JSON). */
const MAX_SCHEMA_CHARS = 256 * 1024;
/** How long one check may take ($OMP_EVAL_SCHEMA_CHECK_MS sets it: tests on a loaded machine). */
const CHECK_TIMEOUT_MS = 5_000;
const checkTimeoutMs = () => Number(process.env.OMP_EVAL_SCHEMA_CHECK_MS) || CHECK_TIMEOUT_MS;

const require = createRequire(import.meta.url);

/** The worker: parse, compile, validate, describe the errors (CommonJS, run with `eval`). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { text, schema, who, paths } = workerData;
const MAX_LISTED = 3;
function unfenced(text) {
  let body = text.trim();
  if (body.startsWith('\`\`\`')) {
    const newline = body.indexOf('\\n');
    body = newline === -1 ? '' : body.slice(newline + 1);
    const end = body.lastIndexOf('\`\`\`');
    if (end !== -1) body = body.slice(0, end);
  }
  return body;
}
function describe(error) {
  const where = error.instancePath || '';
  if (error.keyword === 'required') {
    const name = error.params.missingProperty;
    return where ? where + ': missing ' + name : 'missing ' + name;
  }
  return (where || 'the output') + ' ' + (error.message || 'is not valid');
}
function check() {
  let data;
  try {
    data = JSON.parse(unfenced(text));
  } catch (err) {
    return { schemaError: who + ' output is not JSON (' + err.message + '): ' + JSON.stringify(text.slice(0, 200)), notJson: true };
  }
  let validate;
  try {
    const draft2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
    const mod = require(draft2020 ? paths.ajv2020 : paths.ajv);
    const Ajv = mod.default || mod;
    const ajv = new Ajv({ allErrors: true, strict: false, logger: false, addUsedSchema: false });
    const formats = require(paths.formats);
    (formats.default || formats)(ajv);
    validate = ajv.compile(schema);
  } catch (err) {
    return { schemaError: 'the schema given to ' + who + '() is not a valid JSON Schema: ' + err.message };
  }
  if (validate(data)) return { data };
  const errors = validate.errors || [];
  const listed = errors.slice(0, MAX_LISTED).map(describe);
  if (errors.length > MAX_LISTED) listed.push('and ' + (errors.length - MAX_LISTED) + ' more');
  return { schemaError: who + ' output does not match the schema: ' + listed.join('; ') };
}
parentPort.postMessage(check());
`;

/** Parses `text` and checks it against `schema`; `who` names the call in messages. */
export async function structuredOutput(text: string, schema: unknown, who: string): Promise<Structured> {
  const size = JSON.stringify(schema)?.length ?? 0;
  if (size > MAX_SCHEMA_CHARS)
    return {
      schemaError: `the schema given to ${who}() is ${size} characters of JSON; at most ${MAX_SCHEMA_CHARS} are checked`,
    };
  if (typeof schema !== 'object' && typeof schema !== 'boolean')
    return { schemaError: `the schema given to ${who}() is not a valid JSON Schema: it must be an object` };
  const paths = {
    ajv: require.resolve('ajv'),
    ajv2020: require.resolve('ajv/dist/2020'),
    formats: require.resolve('ajv-formats'),
  };
  // (loaded here: worker_threads costs some 6 ms of every command's start)
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(WORKER, { eval: true, workerData: { text, schema, who, paths } });
  let timer: NodeJS.Timeout | undefined;
  const deadline = checkTimeoutMs();
  try {
    return await new Promise<Structured>((resolve, reject) => {
      timer = setTimeout(
        () =>
          resolve({
            schemaError: `checking the ${who} output against the schema took over ${deadline / 1000} s and was stopped (a "pattern" that backtracks?)`,
          }),
        deadline,
      );
      worker.once('message', (result: Structured) => resolve(result));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the schema check ended (exit code ${code})`)));
    });
  } catch (err) {
    return {
      schemaError: `the ${who} output could not be checked against the schema: ${(err as Error).message}`,
    };
  } finally {
    clearTimeout(timer);
    void worker.terminate();
  }
}
