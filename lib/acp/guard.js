'use strict';

const { unreadable } = require('../responses.js');

/**
 * One error channel: whatever a public method or constructor of `Class`
 * throws (a hostile argument's getter, a `describe()` that throws, a native
 * error) reaches the caller as a ToolCallStreamError.
 */
function guardClass(Class) {
  const proto = Class.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'constructor' || typeof d.value !== 'function') continue;
    const method = d.value;
    const what = `${Class.name}.${key}`;
    const value = {
      [key](...args) {
        try {
          return method.apply(this, args);
        } catch (err) {
          throw unreadable(err, what);
        }
      },
    }[key];
    Object.defineProperty(proto, key, { ...d, value });
  }
  return new Proxy(Class, {
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target, args, newTarget);
      } catch (err) {
        throw unreadable(err, Class.name);
      }
    },
  });
}

module.exports = { guardClass };
