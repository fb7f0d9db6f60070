// Quoting the commands `--check` prints to paste (check.mjs) for the shell
// they are shown for, so that a path with a space, a quote or a `$` reaches
// the program as one word, unexpanded.

/**
 * `word` for a POSIX shell: as it is when it holds only characters no shell
 * treats specially, else in single quotes, inside which nothing is special
 * but the closing quote (a `'` is written `'\''`).
 */
export function posixWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * `word` for PowerShell: in single quotes, inside which nothing is special
 * but a single quote, written twice; PowerShell takes the typographic single
 * quotes (U+2018 to U+201B) for one too (about_Quoting_Rules).
 */
export function powerShellWord(word) {
  return `'${word.replace(/['\u2018-\u201b]/g, '$&$&')}'`;
}

/** `words` as one command line for the shell `--check` shows commands for on `platform`. */
export function commandLine(words, platform = process.platform) {
  const quote = platform === 'win32' ? powerShellWord : posixWord;
  // PowerShell runs a quoted program name only after `&`.
  return words.map((w, i) => (i === 0 && /^[\w.-]+$/.test(w) ? w : quote(w))).join(' ');
}
