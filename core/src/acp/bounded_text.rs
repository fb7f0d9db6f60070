//! What a frame may carry of a tool's name and of a card's title. The name
//! is the model's choice, with no length limit and any character in it, and
//! a card's frames repeat it (progress frames several times a second), so a
//! frame never carries more than [`NAME_CHARS`] characters of it; titles,
//! which every client renders, are printable text of bounded length. Real
//! tool names are short identifiers, so a cut only ever shortens a name no
//! tool has: Qwen Code fails such a call as an unknown tool (in ACP mode
//! `packages/cli/src/acp-integration/session/Session.ts`, `runTool`:
//! `Tool "…" not found in registry.`), and its card must not flood the
//! client meanwhile.

use super::frames::JsString;

/// At most this many characters of a tool name (or an MCP server's name)
/// in a frame: `_meta.toolName`, `_meta.tool_name`, `_meta.serverId`,
/// `name`, and the title when the card has no other.
pub const NAME_CHARS: usize = 120;

/// At most this many characters of a described title.
pub const TITLE_CHARS: usize = 256;

/// A card whose id is longer than this many characters gets no progress
/// frames: the id cannot be cut (it names the card), and a frame sent
/// several times a second must stay small. Provider ids are a few dozen
/// characters.
pub const PROGRESS_ID_CHARS: usize = 256;

/// What marks a cut.
const ELLIPSIS: char = '…';

/// The characters of a [`JsString`]'s escaped text, one item per JS
/// character (a lone surrogate's `\uXXXX` escape, a short escape such as
/// `\n`, or one Rust `char`), as the byte length of each.
fn character_lengths(escaped: &str) -> impl Iterator<Item = usize> + '_ {
    let mut rest = escaped;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        let len = match c {
            '\\' if rest.as_bytes().get(1) == Some(&b'u') => 6,
            '\\' => 2,
            c => c.len_utf8(),
        };
        rest = &rest[len.min(rest.len())..];
        Some(len)
    })
}

/// How many characters `s` has (a surrogate pair is one, a lone surrogate one).
pub fn char_count(s: &JsString) -> usize {
    character_lengths(s.escaped()).count()
}

/// Whether `s` has more than `limit` characters, read only that far.
pub fn longer_than(s: &JsString, limit: usize) -> bool {
    s.escaped().len() > limit && character_lengths(s.escaped()).nth(limit).is_some()
}

/// `name` as a frame carries it: unchanged up to [`NAME_CHARS`]
/// characters, else its first `NAME_CHARS - 1` and an ellipsis. Nothing
/// else changes: `_meta` and `name` are data, and a client reads the name
/// the model sent, up to the cut.
pub fn bounded_name(name: &JsString) -> JsString {
    let escaped = name.escaped();
    // Every character takes at least one byte of the escaped text.
    if escaped.len() <= NAME_CHARS {
        return name.clone();
    }
    let mut end = 0;
    for (i, len) in character_lengths(escaped).enumerate() {
        if i == NAME_CHARS - 1 {
            if end + len == escaped.len() {
                // Exactly NAME_CHARS characters: no cut.
                return name.clone();
            }
            let mut cut = JsString::from_escaped_unchecked(&escaped[..end]);
            let mut mark = [0u8; 4];
            cut.push_str(ELLIPSIS.encode_utf8(&mut mark));
            return cut;
        }
        end += len;
    }
    name.clone()
}

/// A character that breaks a line or moves the cursor: shown as a space.
fn is_break(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// A C0 or C1 control, or a bidirectional mark, embedding, override or
/// isolate: not shown at all, so a title cannot reorder or restyle what a
/// client shows beside it.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// The JS characters of a [`JsString`]'s escaped text, decoded: a lone
/// surrogate as `None`.
fn characters(escaped: &str) -> impl Iterator<Item = Option<char>> + '_ {
    let mut rest = escaped;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        if c != '\\' {
            rest = &rest[c.len_utf8()..];
            return Some(Some(c));
        }
        let (decoded, len) = match rest.as_bytes().get(1) {
            Some(b'u') => {
                let unit = rest
                    .get(2..6)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                (unit.and_then(char::from_u32), 6)
            }
            Some(b'b') => (Some('\u{8}'), 2),
            Some(b'f') => (Some('\u{c}'), 2),
            Some(b'n') => (Some('\n'), 2),
            Some(b'r') => (Some('\r'), 2),
            Some(b't') => (Some('\t'), 2),
            Some(&other) => (Some(char::from(other)), 2),
            None => (Some('\\'), 1),
        };
        rest = &rest[len.min(rest.len())..];
        Some(decoded)
    })
}

/// `title` as printable text of at most `limit` characters: line breaks
/// and tabs become spaces, other controls and bidirectional formatting
/// characters are dropped, a lone surrogate becomes U+FFFD, and a longer
/// text keeps its first `limit - 1` characters and an ellipsis. Reads only
/// as far as the cut (a progress frame builds its title several times a
/// second).
pub fn printable_title(title: &JsString, limit: usize) -> JsString {
    let mut out = String::new();
    let mut count = 0;
    let mut last_end = 0;
    for c in characters(title.escaped()) {
        let c = match c {
            None => '\u{fffd}',
            Some(c) if is_break(c) => ' ',
            Some(c) if is_hidden(c) => continue,
            Some(c) => c,
        };
        if count == limit {
            out.truncate(last_end);
            out.push(ELLIPSIS);
            return JsString::from(out);
        }
        last_end = out.len();
        out.push(c);
        count += 1;
    }
    JsString::from(out)
}

/// A card's title: the described one (printable, at most [`TITLE_CHARS`]
/// characters), else the tool name (printable, at most [`NAME_CHARS`]).
pub fn card_title(title: Option<&JsString>, tool_name: &JsString) -> JsString {
    match title {
        Some(title) => printable_title(title, TITLE_CHARS),
        None => printable_title(tool_name, NAME_CHARS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(units: &[u16]) -> JsString {
        JsString::from_utf16(units)
    }

    #[test]
    fn a_name_is_kept_up_to_the_limit_and_cut_with_an_ellipsis_past_it() {
        let exact = JsString::from("n".repeat(NAME_CHARS).as_str());
        assert_eq!(bounded_name(&exact), exact);
        let long = JsString::from("n".repeat(4 << 20).as_str());
        let cut = bounded_name(&long);
        assert_eq!(char_count(&cut), NAME_CHARS);
        assert_eq!(cut, format!("{}…", "n".repeat(NAME_CHARS - 1)).as_str());
        assert_eq!(bounded_name(&"write_file".into()), "write_file");
    }

    #[test]
    fn a_cut_name_counts_escapes_and_pairs_as_one_character_and_splits_neither() {
        // 😀 is a surrogate pair, \n a short escape, U+D800 alone a \uXXXX escape.
        let mut units: Vec<u16> = Vec::new();
        for _ in 0..NAME_CHARS {
            units.extend("😀".encode_utf16());
            units.push(0x0a);
            units.push(0xD800);
        }
        let cut = bounded_name(&utf16(&units));
        assert_eq!(char_count(&cut), NAME_CHARS);
        assert!(cut.escaped().starts_with(r"😀\n\ud800😀"), "{cut:?}");
        // 119 characters: 40 triples minus the last one's lone surrogate.
        assert!(cut.escaped().ends_with(r"😀\n…"), "{cut:?}");
        let controls = JsString::from("\u{1}".repeat(NAME_CHARS + 1).as_str());
        assert!(bounded_name(&controls).escaped().ends_with(r"\u0001…"));
        assert!(longer_than(&controls, NAME_CHARS));
        assert!(!longer_than(&controls, NAME_CHARS + 1));
        assert!(!longer_than(&"ab".into(), 2) && longer_than(&"abc".into(), 2));
    }

    #[test]
    fn a_title_is_printable_text() {
        let hostile = JsString::from(
            "evil\u{1b}[31m\nname\r\t\u{0}\u{7f}\u{85}\u{9b}\u{202e}rtl\u{2066}iso\u{2069}\u{200f}\u{61c}\u{2028}end",
        );
        assert_eq!(
            printable_title(&hostile, NAME_CHARS).to_string_lossy(),
            "evil[31m name   rtliso end"
        );
        assert_eq!(
            printable_title(&utf16(&[0x61, 0xD800, 0x62]), 10).escaped(),
            "a\u{fffd}b"
        );
        assert_eq!(printable_title(&"WriteFile".into(), 9), "WriteFile");
        let escapes = JsString::from("q\"b\\s\u{8}\u{c}\u{1f}x");
        assert_eq!(printable_title(&escapes, 20), "q\"b\\s x");
        assert_eq!(printable_title(&"WriteFiles".into(), 9), "WriteFil…");
        // Dropped characters do not count.
        let hidden = format!("{}ab", "\u{202e}".repeat(1000));
        assert_eq!(printable_title(&hidden.as_str().into(), 2), "ab");
    }

    #[test]
    fn a_card_title_is_the_described_one_else_the_name_each_bounded() {
        let name = JsString::from("x".repeat(1000).as_str());
        assert_eq!(char_count(&card_title(None, &name)), NAME_CHARS);
        let described = JsString::from("d".repeat(1000).as_str());
        assert_eq!(
            char_count(&card_title(Some(&described), &name)),
            TITLE_CHARS
        );
        assert_eq!(
            card_title(Some(&"WriteFile: a.txt".into()), &name),
            "WriteFile: a.txt"
        );
    }
}
