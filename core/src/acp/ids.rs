//! GeminiChat's per-attempt tool-call id normalisation (docs/behaviour.md §4.1), so the id
//! ACP sees is unique across the session's history and a preparation and its
//! complete `functionCall` share it.
//!
//! One [`ToolCallIds`] per attempt: the used ids are seeded from history
//! (every `functionCall.id` and `functionResponse.id`); a retry or fallback
//! starts a new attempt with fresh state, so the same provider id usually
//! maps to the same final id again (docs/behaviour.md §5.5).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{invalid, Result};

const DUPLICATE_ID_SUFFIX: &str = "__qwen_dup_";
const GENERATED_ID_PREFIX: &str = "call_qwen_";

#[derive(Clone, Debug, Default)]
pub struct ToolCallIds {
    used: HashSet<String>,
    raw_ids_in_turn: HashSet<String>,
    reserved: HashMap<String, String>,
}

impl ToolCallIds {
    /// Empty history ids are ignored, as the reference's `addId` does.
    pub fn new<I, S>(history_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let used = history_ids
            .into_iter()
            .map(Into::into)
            .filter(|id: &String| !id.is_empty())
            .collect();
        ToolCallIds {
            used,
            ..ToolCallIds::default()
        }
    }

    /// The raw id if unused, else `<raw>__qwen_dup_<n>` with the smallest
    /// free `n ≥ 2`.
    fn next_available_duplicate_id(&self, raw: &str) -> String {
        if !self.used.contains(raw) {
            return raw.to_string();
        }
        (2u64..)
            .map(|n| format!("{raw}{DUPLICATE_ID_SUFFIX}{n}"))
            .find(|candidate| !self.used.contains(candidate))
            .unwrap_or_else(|| raw.to_string())
    }

    /// `call_qwen_<n>` with the smallest free `n ≥ 1`.
    fn next_generated_id(&self) -> String {
        (1u64..)
            .map(|n| format!("{GENERATED_ID_PREFIX}{n}"))
            .find(|candidate| !self.used.contains(candidate))
            .unwrap_or_else(|| GENERATED_ID_PREFIX.to_string())
    }

    /// docs/behaviour.md §4.1 step 1 (`reserveModelToolCallId`): the final id of a
    /// preparation, memoised per raw id and marked used.
    pub fn reserve(&mut self, raw: &str) -> String {
        if let Some(existing) = self.reserved.get(raw) {
            return existing.clone();
        }
        let id = self.next_available_duplicate_id(raw);
        self.reserved.insert(raw.to_string(), id.clone());
        self.used.insert(id.clone());
        id
    }

    /// docs/behaviour.md §4.1 step 2 (`normalizeModelToolCallIds`) for one `functionCall`
    /// part: `None` drops the part (a raw id already seen in this attempt);
    /// an absent or empty id gets `call_qwen_<n>`; otherwise the id reserved
    /// by its preparation, else the duplicate-suffix rule. Unlike `reserve`,
    /// this does not memoise (the reference doesn't either).
    pub fn normalize_call(&mut self, raw: Option<&str>) -> Option<String> {
        let id = match raw.filter(|r| !r.is_empty()) {
            Some(raw) => {
                if !self.raw_ids_in_turn.insert(raw.to_string()) {
                    return None;
                }
                match self.reserved.get(raw) {
                    Some(reserved) => reserved.clone(),
                    None => self.next_available_duplicate_id(raw),
                }
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
        preparation_ids: &[String],
        call_ids: &[Option<String>],
    ) -> (Vec<String>, Vec<Option<String>>) {
        let preparations = preparation_ids
            .iter()
            .map(|raw| self.reserve(raw))
            .collect();
        let calls = call_ids
            .iter()
            .map(|raw| self.normalize_call(raw.as_deref()))
            .collect();
        (preparations, calls)
    }

    /// [`ToolCallIds::apply`] over JSON text, for the binding: input
    /// `{"preparations": [raw…], "calls": [raw | null…]}`, output the same
    /// shape with final ids, where a `null` call means "drop this part" (an
    /// absent id always gets a generated one, so `null` is unambiguous).
    pub fn apply_json(&mut self, json: &str) -> Result<String> {
        let input: Value = super::parse_json(json, "apply")?;
        let list = |key: &str| -> Result<Vec<Option<String>>> {
            match input.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::Null => Ok(None),
                        Value::String(s) => Ok(Some(s.clone())),
                        _ => Err(invalid(format!("apply: {key} ids must be strings or null"))),
                    })
                    .collect(),
                Some(_) => Err(invalid(format!("apply: {key} must be an array"))),
            }
        };
        let preparations = list("preparations")?
            .into_iter()
            .map(|id| id.ok_or_else(|| invalid("apply: a preparation id is null")))
            .collect::<Result<Vec<String>>>()?;
        let calls = list("calls")?;
        let (preparations, calls) = self.apply(&preparations, &calls);
        Ok(serde_json::json!({ "preparations": preparations, "calls": calls }).to_string())
    }
}
