//! Who calls are made for, as the version history records them, and the
//! names a host may not give: the host names the actor, never the agent.

/// Who calls are made for, as the version history records them: a token's
/// label and id, a CLI's `--actor`, an MCP client's name. Set by the host,
/// never by the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub name: String,
    pub id: Option<String>,
}

impl Actor {
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            id: None,
        }
    }

    /// An MCP client over stdio, by the name it gives itself
    /// (`clientInfo.name`): recorded as `mcp:NAME`, so no client passes
    /// for the person at the terminal, a token or memcap itself. (The
    /// component bounds the name and keeps it on one line.)
    pub fn mcp_client(name: &str) -> Self {
        let name = name.trim();
        Self::named(format!(
            "{MCP_CLIENT}{}",
            if name.is_empty() { "client" } else { name }
        ))
    }

    /// Why `name` cannot be the CLI's `--actor`, if it cannot: versions
    /// would record it changed, or take it for memcap's own mark or a
    /// stdio client.
    pub fn refuse_name(name: &str) -> Option<String> {
        let shown: String = name.chars().take(40).collect();
        if name.trim().is_empty() {
            Some("--actor is empty: give the name your changes are recorded as".to_owned())
        } else if name
            .chars()
            .any(|c| c.is_control() || memcap_core::text::is_invisible(c))
        {
            Some(format!(
                "--actor {shown:?} holds a control or invisible character: give a plain name"
            ))
        } else if name.chars().count() > memcap_core::history::MAX_ACTOR_CHARS {
            Some(format!(
                "--actor {shown:?}… is longer than {} characters: give a shorter name",
                memcap_core::history::MAX_ACTOR_CHARS
            ))
        } else if memcap_core::history::own_marker(name.trim()) || name.starts_with(MCP_CLIENT) {
            Some(format!(
                "--actor {shown:?} is a name memcap writes for itself or for MCP clients (in parentheses, or mcp:…): give another"
            ))
        } else {
            None
        }
    }
}

/// What the names of MCP clients over stdio start with in the history.
pub const MCP_CLIENT: &str = "mcp:";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_marked_as_one_and_the_cli_takes_no_name_memcap_keeps() {
        assert_eq!(Actor::mcp_client("claude-code").name, "mcp:claude-code");
        assert_eq!(Actor::mcp_client("  ").name, "mcp:client");
        for bad in [
            "(outside memcap)",
            "mcp:claude",
            "a\nb",
            "x\u{202e}",
            " ",
            &"y".repeat(65),
        ] {
            assert!(Actor::refuse_name(bad).is_some(), "{bad:?}");
        }
        for good in ["alice", "Dana Scully", "ops-bot 2", &"z".repeat(64)] {
            assert_eq!(Actor::refuse_name(good), None, "{good:?}");
        }
    }
}
