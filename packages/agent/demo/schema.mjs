// Validation of session/update params against the ACP JSON schema v1 shipped
// with @agentclientprotocol/sdk (draft 2020-12, hence ajv's 2020 build;
// non-strict because the schema carries x-* annotation keywords).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default;
const schema = require('@agentclientprotocol/sdk/schema/v1/schema.json');

const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema's numeric formats (Rust integer widths), checked as ranges.
const range = (min, max) => ({ type: 'number', validate: (n) => Number.isInteger(n) && n >= min && n <= max });
ajv.addFormat('uint16', range(0, 0xffff));
ajv.addFormat('uint32', range(0, 0xffffffff));
ajv.addFormat('uint64', range(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat('int32', range(-0x80000000, 0x7fffffff));
ajv.addFormat('int64', range(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat('double', { type: 'number', validate: Number.isFinite });
ajv.addFormat('uri', { type: 'string', validate: (s) => URL.canParse(s) });
ajv.addSchema(schema, 'acp-v1');
const validate = ajv.getSchema('acp-v1#/$defs/SessionNotification');

// For a readable message: the variant a failing update meant to be.
const VARIANT = {
  tool_call: 'ToolCall',
  tool_call_update: 'ToolCallUpdate',
  plan: 'Plan',
  agent_message_chunk: 'ContentChunk',
  agent_thought_chunk: 'ContentChunk',
  user_message_chunk: 'ContentChunk',
};

/** @returns {null | string} null when `params` is a valid SessionNotification, else what is wrong. */
export function sessionNotificationErrors(params) {
  if (validate(params)) return null;
  const def = VARIANT[params?.update?.sessionUpdate];
  const specific = def && ajv.getSchema(`acp-v1#/$defs/${def}`);
  if (specific && !specific(params.update)) return `${def}: ${ajv.errorsText(specific.errors, { dataVar: 'update' })}`;
  return ajv.errorsText(validate.errors, { dataVar: 'params' });
}

// Every agent→client message by its method, from the schema's own
// annotations: `x-side` says who handles a method, `x-method` which one.
// Requests the client handles (session/request_permission, fs/*) and the
// responses to requests the agent handles (initialize, session/new, …).
const byMethod = { agentRequest: new Map(), agentResponse: new Map(), notification: new Map() };
for (const [name, def] of Object.entries(schema.$defs)) {
  const method = def['x-method'];
  if (!method) continue;
  if (def['x-side'] === 'client' && name.endsWith('Request')) byMethod.agentRequest.set(method, name);
  else if (def['x-side'] === 'agent' && name.endsWith('Response')) byMethod.agentResponse.set(method, name);
  else if (def['x-side'] === 'client' && name.endsWith('Notification')) byMethod.notification.set(method, name);
}
const validateError = ajv.getSchema('acp-v1#/$defs/Error');

function check(defName, value, what) {
  const v = ajv.getSchema(`acp-v1#/$defs/${defName}`);
  if (!v) return `${what}: no schema definition ${defName}`;
  return v(value) ? null : `${defName}: ${ajv.errorsText(v.errors, { dataVar: what })}`;
}

/**
 * One JSON-RPC message the agent wrote, checked against the schema for what
 * it is: a notification or request by its method, a response by the method of
 * the client request it answers (`requestMethod`), an error response as a
 * JSON-RPC Error. @returns {null | string} null when valid, else what is wrong.
 */
export function agentMessageErrors(msg, requestMethod) {
  if (msg?.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
  if (typeof msg.method === 'string') {
    if (msg.id === undefined) {
      if (msg.method === 'session/update') return sessionNotificationErrors(msg.params);
      const def = byMethod.notification.get(msg.method);
      return def ? check(def, msg.params, 'params') : `unknown notification ${msg.method}`;
    }
    const def = byMethod.agentRequest.get(msg.method);
    return def ? check(def, msg.params, 'params') : `unknown request ${msg.method}`;
  }
  if (msg.id === undefined) return 'a response without an id';
  if ('error' in msg) {
    if ('result' in msg) return 'a response with both result and error';
    return validateError(msg.error) ? null : `Error: ${ajv.errorsText(validateError.errors, { dataVar: 'error' })}`;
  }
  const def = byMethod.agentResponse.get(requestMethod);
  if (!def) return `a response to an unknown request (${requestMethod})`;
  return check(def, msg.result, 'result');
}
