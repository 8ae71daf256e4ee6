//! Where `memory_search` looks: the sources a passage can come from.

use serde::{Deserialize, Serialize};

/// Where `memory_search` looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Every source.
    All,
    /// The notes and files under `/memories`.
    Memory,
    /// Conversation history the host recorded.
    Chat,
    /// Extra directories the host granted read-only.
    Custom,
}

impl Source {
    pub const NAMES: [&'static str; 4] = ["all", "memory", "chat", "custom"];

    pub fn parse(name: &str) -> Option<Source> {
        match name {
            "all" => Some(Source::All),
            "memory" => Some(Source::Memory),
            "chat" => Some(Source::Chat),
            "custom" => Some(Source::Custom),
            _ => None,
        }
    }
}
