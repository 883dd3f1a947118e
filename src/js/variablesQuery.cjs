'use strict';
/**
 * (Runner realm.) The `variables` request: the cells' names listed in one script, then each
 * described in a script of its own with a deadline (an inspect hook or a Proxy trap may never
 * return): past it the name is listed as skipped and the next is described; names left when the
 * whole listing's deadline passes are listed as skipped without running their code. A SIGINT
 * stops the listing: the names described so far are sent.
 */
/** The whole listing's deadline when the request gives none. */
const VARIABLES_TIMEOUT_MS = 5_000;
/** One name's, when the request gives none. */
const NAME_TIMEOUT_MS = 1_000;

const seconds = (ms) => `${Math.round(ms) / 1000} s`;

/** The request's numbers, or the sentence a malformed one gets. */
function variablesOptions(request) {
  const options = {
    limit: request.limit === undefined ? 500 : request.limit,
    nameTimeoutMs: request.nameTimeoutMs === undefined ? NAME_TIMEOUT_MS : request.nameTimeoutMs,
    timeoutMs: request.timeoutMs === undefined ? VARIABLES_TIMEOUT_MS : request.timeoutMs,
  };
  if (!Object.values(options).every(Number.isSafeInteger))
    return { problem: 'variables needs id (a string), limit, nameTimeoutMs and timeoutMs (integers)' };
  return { options };
}

function createVariablesQuery({ vm, sigint }, hooks) {
  const run = (script, timeout) =>
    sigint.run(() =>
      vm.runInThisContext(script, {
        breakOnSigint: true,
        timeout: Math.max(1, timeout),
        displayErrors: false,
      }),
    );
  const timedOut = (err) =>
    err !== null && typeof err === 'object' && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';

  function skipped(name, why) {
    try {
      return JSON.parse(run(`__omp_variable__(${JSON.stringify(name)}, ${JSON.stringify(why)})`, 1_000));
    } catch {
      return { name, type: 'unknown', summary: `<skipped: ${why}>`, skipped: true };
    }
  }

  /** { variables, total } for the request's options. */
  return function listVariables({ limit, nameTimeoutMs, timeoutMs }) {
    const began = Date.now();
    let listed;
    try {
      hooks.prepare();
      listed = JSON.parse(run(`__omp_variables__(${Math.max(0, limit)})`, timeoutMs));
    } catch {
      return { variables: [], total: 0 }; // interrupted or timed out: nothing to list
    }
    const variables = [];
    for (const name of listed.names) {
      const left = timeoutMs - (Date.now() - began);
      if (left <= 0) {
        variables.push(skipped(name, `the listing ran out of time (${seconds(timeoutMs)})`));
        continue;
      }
      const deadline = Math.min(nameTimeoutMs, left);
      try {
        variables.push(JSON.parse(run(`__omp_variable__(${JSON.stringify(name)})`, deadline)));
      } catch (err) {
        if (!timedOut(err)) break; // interrupted: what is described so far
        variables.push(skipped(name, `its summary took longer than ${seconds(deadline)}`));
      }
    }
    return { variables, total: listed.total };
  };
}

module.exports = { createVariablesQuery, variablesOptions };
