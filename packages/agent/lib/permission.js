'use strict';
// Asking before a tool changes the workspace: the session's approval mode,
// the permission options, and the `session/request_permission` round trip.
//
// Follows Qwen Code's ACP session (packages/cli/src/acp-integration/session/
// Session.ts, runTool; permissionUtils.ts, toPermissionOptions for an `edit`
// confirmation; setMode): in the `default` mode a tool whose kind edits asks,
// `auto-edit` and `yolo` do not, reads never ask. "Allow All Edits" switches
// the session to `auto-edit` and says so with a `current_mode_update`, as
// Qwen does. Qwen has no "reject always"; here it refuses every later edit of
// the session without asking, until the client picks a mode that allows
// edits.

/** ACP session modes (Qwen's APPROVAL_MODES without `plan`, which this agent has no tools for). */
const MODES = [
  { id: 'default', name: 'Default', description: 'Ask before every edit; reads never ask.' },
  { id: 'auto-edit', name: 'Auto Edit', description: 'Edit files without asking.' },
  { id: 'yolo', name: 'YOLO', description: 'Run every tool without asking.' },
];
const MODE_IDS = new Set(MODES.map((m) => m.id));

/** ACP tool kinds that change the workspace: a tool of these kinds asks first. */
const CHANGING_KINDS = new Set(['edit', 'delete', 'move', 'execute']);

/** Qwen's options for an `edit` confirmation, plus reject always. */
const OPTIONS = [
  { optionId: 'proceed_always', name: 'Allow All Edits', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Reject All Edits', kind: 'reject_always' },
];

/** The approval state of a new session: `approve` is the --approve flag (`ask` or `always`). */
function initialApproval(approve) {
  return { mode: approve === 'always' ? 'yolo' : 'default', rejectEdits: false };
}

/** `session/new`'s `modes` (SessionModeState). */
function modeState(approval) {
  return { currentModeId: approval.mode, availableModes: MODES.map((m) => ({ ...m })) };
}

/**
 * `session/set_mode`: a known mode id becomes current (false for an unknown
 * one). A mode that allows edits lifts an earlier "Reject All Edits".
 */
function setMode(approval, modeId) {
  if (!MODE_IDS.has(modeId)) return false;
  approval.mode = modeId;
  if (modeId !== 'default') approval.rejectEdits = false;
  return true;
}

/**
 * What to do before running a tool of this ACP kind: `run` (no question),
 * `ask`, or `refuse` (the user rejected every edit for this ACP session).
 */
function decide(approval, kind) {
  if (!CHANGING_KINDS.has(kind)) return 'run';
  if (approval.mode === 'yolo' || approval.mode === 'auto-edit') return 'run';
  return approval.rejectEdits ? 'refuse' : 'ask';
}

/**
 * Sends the request and waits for the answer, or for the prompt's cancel
 * (then `cancelled`, as Qwen's requestPermissionWithAbort rejects). Returns
 * `allow` or `reject`, or `cancelled`; applies an "always" answer to the
 * session (`modeChanged` says to tell the client).
 */
async function ask({ approval, request, toolCall, sessionId, signal }) {
  if (signal.aborted) return { outcome: 'cancelled' };
  let onAbort;
  const aborted = new Promise((resolve) => {
    onAbort = () => resolve({ outcome: { outcome: 'cancelled' } });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  let response;
  try {
    response = await Promise.race([request({ sessionId, options: OPTIONS, toolCall }), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted || response?.outcome?.outcome !== 'selected') return { outcome: 'cancelled' };
  const option = OPTIONS.find((o) => o.optionId === response.outcome.optionId);
  // Qwen's resolvePermissionOutcome: an option that was not offered is an error.
  if (!option) throw new Error(`Permission response selected unoffered option: ${response.outcome.optionId}`);
  if (option.kind === 'allow_always') {
    approval.mode = 'auto-edit';
    return { outcome: 'allow', modeChanged: true };
  }
  if (option.kind === 'reject_always') approval.rejectEdits = true;
  return { outcome: option.kind.startsWith('allow') ? 'allow' : 'reject' };
}

module.exports = { MODES, OPTIONS, initialApproval, modeState, setMode, decide, ask };
