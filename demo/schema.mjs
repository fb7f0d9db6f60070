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
