//! Who spoke in a turn `record_turn` keeps.

use serde::Serialize;

/// Who spoke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

impl Role {
    pub const NAMES: [&'static str; 4] = ["user", "assistant", "system", "tool"];
    const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::System, Role::Tool];

    pub fn parse(name: &str) -> Option<Role> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self::ALL[i])
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}
