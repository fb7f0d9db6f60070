//! GeminiChat's per-attempt tool-call id normalisation (docs/behaviour.md §4.1), so the id
//! ACP sees is unique across the session's history and a preparation and its
//! complete `functionCall` share it.
//!
//! One [`ToolCallIds`] per attempt: the used ids are seeded from history
//! (every `functionCall.id` and `functionResponse.id`); a retry or fallback
//! starts a new attempt with fresh state, so the same provider id usually
//! maps to the same final id again (docs/behaviour.md §5.5).

use std::collections::{HashMap, HashSet};

use super::frames::{invalid, parse_json, JsString, OwnedValue, Result};

const DUPLICATE_ID_SUFFIX: &str = "__qwen_dup_";
const GENERATED_ID_PREFIX: &str = "call_qwen_";

/// One attempt's id state: the ids in use (history and this attempt), the
/// raw ids already seen in this attempt, and each preparation's reserved id.
/// Ids are [`JsString`]s, so two ids that differ only in a lone surrogate
/// stay two ids.
#[derive(Clone, Debug, Default)]
pub struct ToolCallIds {
    used: HashSet<JsString>,
    raw_ids_in_turn: HashSet<JsString>,
    reserved: HashMap<JsString, JsString>,
}

impl ToolCallIds {
    /// Empty history ids are ignored, as the reference's `addId` does.
    pub fn new<I, S>(history_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<JsString>,
    {
        let used = history_ids
            .into_iter()
            .map(Into::into)
            .filter(|id: &JsString| !id.is_empty())
            .collect();
        ToolCallIds {
            used,
            ..ToolCallIds::default()
        }
    }

    /// The raw id if unused, else `<raw>__qwen_dup_<n>` with the smallest
    /// free `n ≥ 2`.
    fn next_available_duplicate_id(&self, raw: &JsString) -> JsString {
        if !self.used.contains(raw) {
            return raw.clone();
        }
        (2u64..)
            .map(|n| {
                let mut candidate = raw.clone();
                candidate.push_str(&format!("{DUPLICATE_ID_SUFFIX}{n}"));
                candidate
            })
            .find(|candidate| !self.used.contains(candidate))
            .unwrap_or_else(|| raw.clone())
    }

    /// `call_qwen_<n>` with the smallest free `n ≥ 1`.
    fn next_generated_id(&self) -> JsString {
        (1u64..)
            .map(|n| JsString::from(format!("{GENERATED_ID_PREFIX}{n}")))
            .find(|candidate| !self.used.contains(candidate))
            .unwrap_or_else(|| GENERATED_ID_PREFIX.into())
    }

    /// docs/behaviour.md §4.1 step 1 (`reserveModelToolCallId`): the final id of a
    /// preparation, memoised per raw id and marked used.
    pub fn reserve(&mut self, raw: impl Into<JsString>) -> JsString {
        let raw = raw.into();
        if let Some(existing) = self.reserved.get(&raw) {
            return existing.clone();
        }
        let id = self.next_available_duplicate_id(&raw);
        self.reserved.insert(raw, id.clone());
        self.used.insert(id.clone());
        id
    }

    /// docs/behaviour.md §4.1 step 2 (`normalizeModelToolCallIds`) for one `functionCall`
    /// part: `None` drops the part (a raw id already seen in this attempt);
    /// an absent or empty id gets `call_qwen_<n>`; otherwise the id reserved
    /// by its preparation, else the duplicate-suffix rule. Unlike `reserve`,
    /// this does not memoise (the reference doesn't either).
    pub fn normalize_call<S: Into<JsString>>(&mut self, raw: Option<S>) -> Option<JsString> {
        let id = match raw.map(Into::into).filter(|r| !r.is_empty()) {
            Some(raw) => {
                if self.raw_ids_in_turn.contains(&raw) {
                    return None;
                }
                let id = match self.reserved.get(&raw) {
                    Some(reserved) => reserved.clone(),
                    None => self.next_available_duplicate_id(&raw),
                };
                self.raw_ids_in_turn.insert(raw);
                id
            }
            None => self.next_generated_id(),
        };
        self.used.insert(id.clone());
        Some(id)
    }

    /// One chunk, in the reference's order: all preparations first, then the
    /// `functionCall` parts (so a call finds its preparation's reservation).
    pub fn apply(
        &mut self,
        preparation_ids: &[JsString],
        call_ids: &[Option<JsString>],
    ) -> (Vec<JsString>, Vec<Option<JsString>>) {
        let preparations = preparation_ids
            .iter()
            .map(|raw| self.reserve(raw))
            .collect();
        let calls = call_ids
            .iter()
            .map(|raw| self.normalize_call(raw.as_ref()))
            .collect();
        (preparations, calls)
    }

    /// [`ToolCallIds::apply`] over JSON text, for the binding: input
    /// `{"preparations": [raw…], "calls": [raw | null…]}`, output the same
    /// shape with final ids, where a `null` call means "drop this part" (an
    /// absent id always gets a generated one, so `null` is unambiguous).
    pub fn apply_json(&mut self, json: &str) -> Result<String> {
        let input = parse_json(json, "apply")?;
        let list = |key: &str| -> Result<Vec<Option<JsString>>> {
            match input.get(key) {
                None | Some(OwnedValue::Null) => Ok(Vec::new()),
                Some(OwnedValue::Arr(items)) => items
                    .iter()
                    .map(|v| match v {
                        OwnedValue::Null => Ok(None),
                        OwnedValue::Str(s) => Ok(Some(s.clone())),
                        _ => Err(invalid(format!("apply: {key} ids must be strings or null"))),
                    })
                    .collect(),
                Some(_) => Err(invalid(format!("apply: {key} must be an array"))),
            }
        };
        let preparations = list("preparations")?
            .into_iter()
            .map(|id| id.ok_or_else(|| invalid("apply: a preparation id is null")))
            .collect::<Result<Vec<JsString>>>()?;
        let calls = list("calls")?;
        let (preparations, calls) = self.apply(&preparations, &calls);
        let ids = |ids: Vec<Option<JsString>>| {
            OwnedValue::Arr(
                ids.into_iter()
                    .map(|id| id.map_or(OwnedValue::Null, OwnedValue::Str))
                    .collect(),
            )
        };
        Ok(OwnedValue::object([
            (
                "preparations",
                ids(preparations.into_iter().map(Some).collect()),
            ),
            ("calls", ids(calls)),
        ])
        .to_json())
    }
}
