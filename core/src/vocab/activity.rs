//! What `recent_activity` lists.

/// What `recent_activity` lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActivityType {
    /// Notes (basic-memory's entities): the default.
    Entity,
    Observation,
    Relation,
    /// Notes of this type (`project`, or another vault's `person`).
    NoteType(String),
}

impl ActivityType {
    pub fn parse(name: &str) -> Option<ActivityType> {
        let name = name.trim().to_lowercase();
        Some(match name.as_str() {
            "" => return None,
            "entity" | "entities" | "note" | "notes" => ActivityType::Entity,
            "observation" | "observations" => ActivityType::Observation,
            "relation" | "relations" => ActivityType::Relation,
            _ => ActivityType::NoteType(name),
        })
    }

    pub fn name(&self) -> &str {
        match self {
            ActivityType::Entity => "entity",
            ActivityType::Observation => "observation",
            ActivityType::Relation => "relation",
            ActivityType::NoteType(name) => name,
        }
    }
}
