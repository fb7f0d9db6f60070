// Qwen Code's own side requests (not the user's turn: a prompt suggestion, a
// memory or title pass, the next-speaker check), told apart by their prompt,
// and the loopback provider's answer to them. Shared by the Qwen host tests and
// the card benchmark, whose providers answer every request they have no
// scenario for with `sideAnswer`.

/** Qwen's own side requests (not the user's turn), named by their prompt. */
export function sideRequestKind(text) {
  if (text.includes('SUGGESTION MODE')) return 'prompt-suggestion';
  if (/memor/i.test(text.slice(0, 400))) return 'memory';
  if (/title|summar/i.test(text.slice(0, 400))) return 'title-or-summary';
  if (/next.speaker/i.test(text)) return 'next-speaker';
  return 'other';
}

/** The loopback provider's answer to a side request: a short plain text, as a model would give. */
export const sideAnswer = ({ text }) => ({
  blocks: [{ type: 'text', text: sideRequestKind(text) === 'prompt-suggestion' ? 'run the tests' : 'Nothing to add.' }],
  stop: 'end_turn',
});
