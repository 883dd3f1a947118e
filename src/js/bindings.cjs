'use strict';
/**
 * (Main realm.) The cells' top-level bindings, as transform.cjs rewrites them: global properties
 * with the semantics of `let`, `const` and `class`, which a later cell may declare again.
 *
 * Before a cell runs, each of its lexical names gets a dead-zone accessor (reading or assigning
 * throws "Cannot access 'x' before initialization"); `__omp_bind__.const(["x"])` arms it and the
 * assignment that follows defines the binding: a data property for `let` and `class`, an
 * accessor that refuses assignment for `const`. A name still in its dead zone when the cell ends
 * goes back to what it was (or away, as in Node's REPL).
 */
module.exports = function createBindings(global) {
  const { defineProperty, getOwnPropertyDescriptor } = Object;
  const deadGetters = new WeakSet();
  const constGetters = new WeakSet();
  /** Names put in their dead zone by this cell → what they were before. */
  const entered = new Map();
  /** Names whose next assignment is their declaration → the kind. */
  const armed = new Map();

  function define(name, descriptor) {
    try {
      defineProperty(global, name, descriptor);
      return true;
    } catch {
      return false; // a non-configurable property (a function declaration): left as it is
    }
  }

  function bind(name, kind, value) {
    if (kind === 'const') {
      const get = () => value;
      constGetters.add(get);
      const set = () => {
        throw new TypeError('Assignment to constant variable.');
      };
      if (define(name, { get, set, configurable: true, enumerable: false })) return;
    } else if (
      define(name, { value, writable: true, configurable: true, enumerable: kind === 'var' || kind === 'fn' })
    ) {
      return;
    }
    global[name] = value;
  }

  function deadZone(name) {
    const fail = () => {
      throw new ReferenceError(`Cannot access '${name}' before initialization`);
    };
    const get = () => fail();
    deadGetters.add(get);
    const set = (value) => {
      const kind = armed.get(name);
      if (kind === undefined) fail();
      armed.delete(name);
      bind(name, kind, value);
    };
    return { get, set, configurable: true, enumerable: false };
  }

  const isOurs = (descriptor, set) => descriptor !== undefined && set.has(descriptor.get);

  function arm(kind, names) {
    for (const name of typeof names === 'string' ? [names] : names) {
      const current = getOwnPropertyDescriptor(global, name);
      if (!isOurs(current, deadGetters)) {
        if (!entered.has(name)) entered.set(name, current);
        if (!define(name, deadZone(name))) continue;
      }
      armed.set(name, kind);
    }
  }

  /** `__omp_bind__` in the cells' code. */
  const api = {
    let: (names) => arm('let', names),
    const: (names) => arm('const', names),
    fn: (name, value) => bind(name, 'fn', value),
  };

  return {
    api,

    /** Puts the cell's lexical names in their dead zone and declares its `var`s (hoisting). */
    enter(lexical, vars) {
      for (const name of lexical) {
        const before = getOwnPropertyDescriptor(global, name);
        if (before && !before.configurable) continue;
        if (!entered.has(name)) entered.set(name, before);
        define(name, deadZone(name));
      }
      for (const name of vars) {
        const before = getOwnPropertyDescriptor(global, name);
        if (before === undefined) bind(name, 'var', undefined);
        else if (isOurs(before, constGetters)) bind(name, 'var', before.get());
        else if (isOurs(before, deadGetters)) bind(name, 'var', undefined);
      }
    },

    /** Names the cell never declared leave their dead zone. */
    leave() {
      for (const [name, before] of entered) {
        if (!isOurs(getOwnPropertyDescriptor(global, name), deadGetters)) continue;
        if (before === undefined || isOurs(before, deadGetters)) delete global[name];
        else define(name, before);
      }
      entered.clear();
      armed.clear();
    },
  };
};
