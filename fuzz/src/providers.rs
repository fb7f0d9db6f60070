//! The rows of `PROVIDERS` as the fuzz target `provider_bytes` picks them:
//! each row with what its fixture folder
//! (`__test__/fixtures/providers/<name>/corpus.json`) lists: its releases'
//! profiles, the settings the oracle ran with and the boolean settings to
//! switch. The rows are taken in the order of their names, which
//! `fuzz/seed-corpus.mjs` reads from the folders alone (every row has one
//! folder, and every folder is a row: `core/tests/providers.rs`).

use std::sync::OnceLock;

use serde_json::Value;
use toolcall_stream_core::convert::provider::{ConverterOptions, Provider, PROVIDERS};
use toolcall_stream_core::Profile;

/// A row and what its folder lists.
pub struct Row {
    pub provider: &'static Provider,
    pub profiles: Vec<Profile>,
    /// The settings the oracle ran with (a JSON object).
    pub settings: Value,
    /// Dotted paths of the provider's boolean settings.
    pub flags: Vec<String>,
}

/// Every row, by name; panics naming a row's missing folder.
pub fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut rows: Vec<Row> = PROVIDERS.iter().map(row).collect();
        rows.sort_by_key(|r| r.provider.name);
        rows
    })
}

fn row(provider: &'static Provider) -> Row {
    let path = format!(
        "{}/../__test__/fixtures/providers/{}/corpus.json",
        env!("CARGO_MANIFEST_DIR"),
        provider.name
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the provider {:?} has no fixture folder ({path}: {e})",
            provider.name
        )
    });
    let manifest: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    let profiles = manifest["releases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let name = r["profile"].as_str().unwrap_or_default();
            Profile::parse(name).unwrap_or_else(|e| panic!("{path}: {}", e.message))
        })
        .collect();
    Row {
        provider,
        profiles,
        settings: manifest["settings"].clone(),
        flags: strings(&manifest["flags"]),
    }
}

impl Row {
    /// The options `choice` picks: a release's profile (`choice %
    /// releases`), then one bit per flag from what is left.
    pub fn options(&self, choice: u8) -> ConverterOptions {
        let n = self.profiles.len().max(1);
        let profile = self
            .profiles
            .get(usize::from(choice) % n)
            .copied()
            .unwrap_or_default();
        let mut bits = usize::from(choice) / n;
        let mut settings = self.settings.clone();
        for flag in &self.flags {
            let mut at = &mut settings;
            for key in flag.split('.') {
                if !at.is_object() {
                    *at = Value::Object(Default::default());
                }
                at = at
                    .as_object_mut()
                    .expect("made an object above")
                    .entry(key)
                    .or_insert(Value::Null);
            }
            *at = Value::Bool(bits & 1 == 1);
            bits >>= 1;
        }
        ConverterOptions {
            profile,
            settings: Some(settings.to_string()),
            ..ConverterOptions::default()
        }
    }
}
