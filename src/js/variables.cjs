'use strict';
/**
 * (Main realm.) The `variables` request: the names cells defined, as %whos lists them in Python
 * (name, type, a short form of the value). The kernel's own globals are the ones there when it
 * became ready (Node's, the helpers, the built-in modules); a cell's name is any other, or one of
 * those that a cell assigned a new value. The runner lists the names, then describes each in a
 * script of its own with a deadline: a summary that never returns skips that name only.
 */
const MAX_SUMMARY = 50;

module.exports = function createVariables({ global, inspect }) {
  const { getOwnPropertyNames, getOwnPropertyDescriptor } = Object;
  const { isArray } = Array;
  let baseline = new Map();

  /** Takes the kernel's own globals (at the end of start-up). */
  function snapshot() {
    baseline = new Map(
      getOwnPropertyNames(global).map((name) => [name, getOwnPropertyDescriptor(global, name)]),
    );
  }

  function isUsers(name) {
    if (name.startsWith('_')) return false;
    const before = baseline.get(name);
    if (!before) return true;
    const now = getOwnPropertyDescriptor(global, name);
    if (!now || !('value' in now)) return false;
    return !('value' in before) || !Object.is(before.value, now.value);
  }

  function typeOf(value) {
    if (value === null) return 'null';
    if (isArray(value)) return 'Array';
    if (typeof value !== 'object' && typeof value !== 'function') return typeof value;
    const ctor = value.constructor;
    return (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name) || typeof value;
  }

  function summaryOf(value) {
    let text;
    if (isArray(value)) text = `n=${value.length}`;
    else if (value instanceof Map || value instanceof Set) text = `n=${value.size}`;
    else text = inspect(value, { depth: 0, breakLength: Infinity });
    text = String(text).replace(/\n/g, '\\n');
    return text.length >= MAX_SUMMARY ? `${text.slice(0, 25)}<...>${text.slice(-25)}` : text;
  }

  function describe(name) {
    let type = 'unknown';
    let summary;
    try {
      const value = global[name];
      type = typeOf(value);
      summary = summaryOf(value);
    } catch {
      summary = '<inspect failed>';
    }
    return { name, type: String(type), summary };
  }

  /** The first `limit` of the cells' names, sorted, and how many there are. As JSON. */
  function names(limit) {
    const all = getOwnPropertyNames(global).filter(isUsers).sort();
    return JSON.stringify({ names: all.slice(0, limit), total: all.length });
  }

  /**
   * One name described (user code runs: an inspect hook, a Proxy's traps), or with `skipped` (why)
   * listed without running any: its plain type and why. As JSON.
   */
  function describeOne(name, skipped) {
    if (typeof skipped !== 'string') return JSON.stringify(describe(name));
    let type = 'unknown';
    try {
      // (a cell's const or let is an accessor of the runner's; the runner times this script out)
      const own = getOwnPropertyDescriptor(global, name);
      const value = own && 'value' in own ? own.value : global[name];
      type = value === null ? 'null' : isArray(value) ? 'Array' : typeof value;
    } catch {
      type = 'unknown';
    }
    return JSON.stringify({ name, type, summary: `<skipped: ${skipped}>`, skipped: true });
  }

  return { snapshot, names, describeOne };
};
