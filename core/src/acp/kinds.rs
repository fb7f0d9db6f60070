//! What a tool's name and kind put on its card (docs/behaviour.md §6.2): the
//! ACP kind of a Qwen `Kind`, and the provenance of a tool name.

/// `_meta.provenance` and `_meta.serverId` of a tool frame (docs/behaviour.md §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance<'a> {
    /// `mcp` or `builtin`.
    pub provenance: &'static str,
    /// The MCP server's name, for `mcp` tools.
    pub server_id: Option<&'a str>,
}

/// docs/behaviour.md §6.2 provenance rule: `mcp__<server>__<tool>` with at least three
/// `__`-separated parts and a non-empty server is `mcp`; anything else,
/// including `mcp__just_one` and `mcp____read`, is `builtin`. (Subagent
/// provenance needs subagent metadata, which this ledger does not model.)
///
/// `tool_name` may be plain text or a [`JsString`]'s escaped text: no escape
/// holds `_`, so the server of escaped text is the escaped server.
pub fn tool_provenance(tool_name: &str) -> Provenance<'_> {
    if tool_name.starts_with("mcp__") {
        let mut parts = tool_name.split("__").skip(1);
        if let (Some(server), Some(_)) = (parts.next(), parts.next()) {
            if !server.is_empty() {
                return Provenance {
                    provenance: "mcp",
                    server_id: Some(server),
                };
            }
        }
    }
    Provenance {
        provenance: "builtin",
        server_id: None,
    }
}

/// docs/behaviour.md §6.2 kind mapping. `kind` is a Qwen core `Kind` value (`read`,
/// `edit`, …, `agent`, `other`) or an ACP kind; `agent` and anything unknown
/// become `other`, and the plan-mode tools are always `switch_mode`. Plain
/// text or a [`JsString`]'s escaped text alike: every name compared is
/// its own escaped text.
pub fn map_tool_kind(tool_name: &str, kind: Option<&str>) -> &'static str {
    if tool_name == "enter_plan_mode" || tool_name == "exit_plan_mode" {
        return "switch_mode";
    }
    match kind {
        Some("read") => "read",
        Some("edit") => "edit",
        Some("delete") => "delete",
        Some("move") => "move",
        Some("search") => "search",
        Some("execute") => "execute",
        Some("think") => "think",
        Some("fetch") => "fetch",
        Some("switch_mode") => "switch_mode",
        _ => "other",
    }
}
