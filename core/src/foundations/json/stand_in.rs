//! The alphabet of the text form ([`super::text`]): the private-use
//! character that stands for each lone UTF-16 surrogate, and the escape
//! character in front of a real character of that range. Escape decoding
//! (`super::escape`) writes it; the text form reads and writes it back.

/// The first stand-in: lone surrogate 0xD800.
pub(super) const BASE: u32 = 0xF0000;
/// The escape character: the next character is itself, not a stand-in.
pub(crate) const ESCAPE: char = '\u{F0800}';
/// The UTF-8 lead byte of every reserved character (U+C0000..=U+FFFFF).
pub(super) const LEAD: u8 = 0xF3;

/// Whether `c` is a stand-in or the escape character (a real one needs the
/// escape).
pub(crate) fn is_reserved(c: char) -> bool {
    (BASE..=BASE + 0x800).contains(&(c as u32))
}

/// The stand-in of lone surrogate `unit` (0xD800..=0xDFFF).
pub(crate) fn stand_in(unit: u32) -> char {
    char::from_u32(BASE + (unit - 0xD800)).unwrap_or('\u{FFFD}')
}
