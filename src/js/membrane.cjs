'use strict';
/**
 * The runner lives in a vm context of its own; cells run in the main one. Anything of the
 * runner's realm that a cell could reach (a function on `process.stdout.write`, a listener in
 * `process.listeners('SIGINT')`, a thrown error) would hand the cell the runner's `Function`,
 * and with it the runner's global scope. So every function the runner installs in the main
 * realm is a main-realm function closing over the runner's, and errors cross as main-realm
 * errors.
 */
const FACTORY = `(function makeExposer() {
  'use strict';
  return function expose(name, impl) {
    return { [name](a, b, c, d) { return impl(this, a, b, c, d); } }[name];
  };
})`;

function createMembrane({ vm, main, filename }) {
  const exposeInMain = vm.runInThisContext(FACTORY, { filename })();
  const RunnerError = Error;

  /** A main-realm error for one of the runner's own (same name, message, code and stack). */
  function toMain(err) {
    if (!(err instanceof RunnerError)) return err;
    const Ctor = Object.hasOwn(main, err.name) && /Error$/.test(err.name) ? main[err.name] : main.Error;
    const copy = new Ctor(String(err.message));
    if (copy.name !== err.name) copy.name = String(err.name);
    if (err.code !== undefined) copy.code = err.code;
    if (typeof err.stack === 'string') copy.stack = err.stack;
    return copy;
  }

  /** A main-realm function `name` that calls `impl(this, ...args)` (up to 4 arguments). */
  function expose(name, impl) {
    return exposeInMain(name, (self, a, b, c, d) => {
      try {
        return impl(self, a, b, c, d);
      } catch (err) {
        throw toMain(err);
      }
    });
  }

  /** A main-realm object of exposed functions. */
  function exposeAll(impls) {
    const out = new main.Object();
    for (const name of Object.keys(impls)) out[name] = expose(name, impls[name]);
    return out;
  }

  return { expose, exposeAll, toMain };
}

module.exports = { createMembrane };
