//! Writing a call's lifted arguments ([`crate::model::lifted`]) into a batch: the
//! full item lists where each lifted value belongs (`"x": [[part index,
//! key], …]`), and the values follow the batch text (`lib/wire.js` puts them
//! back).

use std::rc::Rc;

use crate::model::gemini::{Part, Response};

/// Writes `r` as a full item ([`Response::write_item`]) with its calls'
/// lifted arguments: each lifted call's text in place of its arguments,
/// its values moved to `strings`, and the item listing where they belong
/// (`"x": [[part index, key], …]`). The calls keep their full arguments;
/// their lifted form is used up.
pub(super) fn write_item_lifting(r: &mut Response, out: &mut String, strings: &mut Vec<String>) {
    let lifted = |p: &Part| {
        matches!(
            p,
            Part::FunctionCall {
                lifted: Some(_),
                ..
            }
        )
    };
    if !r.parts().iter().any(lifted) {
        return r.write_item(out);
    }
    let mut places = Vec::new();
    let mut full = Vec::new();
    if let Some(c) = r.candidate.as_mut() {
        for (at, part) in c.parts.iter_mut().enumerate() {
            let Part::FunctionCall { args, lifted, .. } = part else {
                continue;
            };
            let Some(l) = lifted.take() else {
                continue;
            };
            let l = Rc::try_unwrap(l).unwrap_or_else(|shared| (*shared).clone());
            full.push((at, std::mem::replace(args, Rc::new(l.text))));
            for (key, value) in l.members {
                places.push((at, key));
                strings.push(value);
            }
        }
    }
    r.write_item_open(out);
    super::key::next_key(out, super::key::LIFTED);
    out.push('[');
    for (n, (at, key)) in places.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push('[');
        out.push_str(&at.to_string());
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\"]");
    }
    out.push_str("]}");
    if let Some(c) = r.candidate.as_mut() {
        for (at, args) in full {
            if let Part::FunctionCall { args: a, .. } = &mut c.parts[at] {
                *a = args;
            }
        }
    }
}
