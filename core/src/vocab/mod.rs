//! The words the commands, notes, search and graph share: note types,
//! sources, roles, filters, timeframes, write preconditions and the answer
//! bounds. A leaf: it imports nothing else of the core, so every module can
//! use it without reaching into another's command.

mod activity;
mod bounds;
mod filters;
mod note_type;
pub mod precondition;
mod role;
pub mod settings;
mod source;
pub mod timeframe;

pub use activity::ActivityType;
pub use bounds::*;
pub use filters::SearchFilters;
pub use note_type::NoteType;
pub use precondition::Precondition;
pub use role::Role;
pub use source::Source;
pub use timeframe::Timeframe;
