//! Character classes and output edits of jsonrepair 3.13.1
//! (`src/utils/stringUtils.ts` of <https://github.com/josdejong/jsonrepair>,
//! copyright (c) 2020-2025 Jos de Jong, ISC licence: the notice is in
//! `jsonrepair.rs`).
//!
//! jsonrepair reads `text[i]`, which is `undefined` past the end, and
//! `text.charAt(i)`, which is `""` there. The two differ in one place:
//! `",:[]/{}()\n+".includes("")` is true, `includes(undefined)` is false.
//! Here `text[i]` is `Option<u8>` (a byte, `None` past the end) and the
//! `charAt` reading is [`is_delimiter_at`]. Every class below except the
//! quotes and the special whitespace is ASCII, so a byte compares as the
//! UTF-16 unit does; the non-ASCII ones decode the character.

/// `isDelimiter(char)`.
pub fn is_delimiter(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b',' | b':' | b'[' | b']' | b'/' | b'{' | b'}' | b'(' | b')' | b'\n' | b'+')
    )
}

/// `isDelimiter(text.charAt(i))`: the empty string past the end counts.
pub fn is_delimiter_at(text: &[u8], i: usize) -> bool {
    i >= text.len() || is_delimiter(text.get(i).copied())
}

/// `isUnquotedStringDelimiter(char)`.
pub fn is_unquoted_string_delimiter(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b',' | b'[' | b']' | b'/' | b'{' | b'}' | b'\n' | b'+')
    )
}

/// `isDigit(char)`.
pub fn is_digit(b: Option<u8>) -> bool {
    matches!(b, Some(b'0'..=b'9'))
}

/// `isHex(char)`.
pub fn is_hex(b: Option<u8>) -> bool {
    matches!(b, Some(b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
}

/// `isFunctionNameCharStart(char)`.
pub fn is_function_name_char_start(b: Option<u8>) -> bool {
    matches!(b, Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$'))
}

/// `isFunctionNameChar(char)`.
pub fn is_function_name_char(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'0'..=b'9')
    )
}

/// `isWhitespace(text, index)`: space, newline, tab, carriage return.
pub fn is_whitespace(b: Option<u8>) -> bool {
    matches!(b, Some(b' ' | b'\n' | b'\t' | b'\r'))
}

/// `isWhitespaceExceptNewline(text, index)`.
pub fn is_whitespace_except_newline(b: Option<u8>) -> bool {
    matches!(b, Some(b' ' | b'\t' | b'\r'))
}

/// `isSpecialWhitespace(text, index)`: no-break space, en quad to hair
/// space, narrow no-break space, medium mathematical space, ideographic space.
pub fn is_special_whitespace(c: Option<char>) -> bool {
    matches!(
        c,
        Some('\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
    )
}

/// `isDoubleQuoteLike(char)`.
pub fn is_double_quote_like(c: Option<char>) -> bool {
    matches!(c, Some('"' | '\u{201c}' | '\u{201d}'))
}

/// `isSingleQuoteLike(char)`.
pub fn is_single_quote_like(c: Option<char>) -> bool {
    matches!(c, Some('\'' | '\u{2018}' | '\u{2019}' | '`' | '\u{b4}'))
}

/// `isQuote(char)`.
pub fn is_quote(c: Option<char>) -> bool {
    is_double_quote_like(c) || is_single_quote_like(c)
}

/// `isStartOfValue(char)`: a quote or `/^[[{\w-]$/` (ASCII `\w`).
pub fn is_start_of_value(c: Option<char>) -> bool {
    is_quote(c)
        || matches!(
            c,
            Some('[' | '{' | '-' | '_' | 'a'..='z' | 'A'..='Z' | '0'..='9')
        )
}

/// `isControlCharacter(char)` and its escape (`controlCharacters` in
/// `src/regular/jsonrepair.ts`).
pub fn control_character_escape(c: char) -> Option<&'static str> {
    Some(match c {
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        _ => return None,
    })
}

/// The keys of `escapeCharacters` in `src/regular/jsonrepair.ts` (`\u` is
/// handled apart).
pub fn is_escape_character(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
    )
}

/// `regexUrlStart.test(s)`: `/^(http|https|ftp|mailto|file|data|irc):\/\/$/`.
pub fn is_url_start(s: &[u8]) -> bool {
    matches!(
        s,
        b"http://" | b"https://" | b"ftp://" | b"mailto://" | b"file://" | b"data://" | b"irc://"
    )
}

/// `regexUrlChar.test(char)`: `/^[A-Za-z0-9-._~:/?#@!$&'()*+;=]$/`.
pub fn is_url_char(b: Option<u8>) -> bool {
    matches!(b, Some(c) if c.is_ascii_alphanumeric() || b"-._~:/?#@!$&'()*+;=".contains(&c))
}

/// `insertBeforeLastWhitespace(text, textToInsert)`.
pub fn insert_before_last_whitespace(text: &mut String, insert: &str) {
    let b = text.as_bytes();
    let mut index = b.len();
    while index > 0 && is_whitespace(b.get(index - 1).copied()) {
        index -= 1;
    }
    // `index` follows ASCII whitespace or is an end: a character boundary.
    text.insert_str(index, insert);
}

/// `stripLastOccurrence(text, textToStrip, stripRemainingText)` for a
/// one-character ASCII `textToStrip`.
pub fn strip_last_occurrence(text: &mut String, strip: u8, strip_remaining: bool) {
    if let Some(index) = text.bytes().rposition(|b| b == strip) {
        if strip_remaining {
            text.truncate(index);
        } else {
            text.remove(index);
        }
    }
}

/// `endsWithCommaOrNewline(text)`: `/[,\n][ \t\r]*$/`.
pub fn ends_with_comma_or_newline(text: &str) -> bool {
    let trimmed = text.trim_end_matches([' ', '\t', '\r']);
    trimmed.ends_with([',', '\n'])
}
