//! The commands whose answer is text, once for both worlds: each row names
//! the function in world `memcap` (its interface's), the function in world
//! `memcap-tools`, its WIT parameters and the core command it runs. A world
//! exports a group with [`export_text`], and the compiler holds each world
//! to its WIT: a row missing, or one the WIT lacks, does not build.

/// Calls `$emit!` with the rows of `$group` (`files`, `notes`, `versions`
/// or `tool`): `memcap_name tools_name (parameters) => command;`.
macro_rules! text_commands {
    (files, $emit:ident, $world:ident) => {
        $crate::commands::$emit! { $world
            view file_view (path: String, view_range: Option<(i64, i64)>)
                => Command::View { path, view_range };
            create file_create (path: String, file_text: String)
                => Command::Create { path, file_text };
            str_replace file_str_replace (path: String, old_str: String, new_str: String)
                => Command::StrReplace { path, old_str, new_str };
            insert file_insert (path: String, insert_line: i64, insert_text: String)
                => Command::Insert { path, insert_line, insert_text };
            delete file_delete (path: String) => Command::Delete { path };
            rename file_rename (old_path: String, new_path: String)
                => Command::Rename { old_path, new_path };
        }
    };
    (notes, $emit:ident, $world:ident) => {
        $crate::commands::$emit! { $world
            memory_read memory_read (topics: Vec<String>, page: Option<u32>)
                => Command::MemoryRead { topics, page };
            memory_view memory_view (all: bool, page: Option<u32>)
                => Command::MemoryView { all, page };
            memory_write memory_write (
                filename: String,
                name: String,
                description: String,
                type_: WitNoteType,
                content: String
            ) => Command::MemoryWrite {
                filename,
                name,
                description,
                kind: $crate::note_type!(WitNoteType, type_),
                content,
            };
            memory_update memory_update (filename: String, old_str: String, new_str: String)
                => Command::MemoryUpdate { filename, old_str, new_str };
            memory_delete memory_delete (filename: String) => Command::MemoryDelete { filename };
            memory_guide memory_guide () => Command::MemoryGuide;
            memory_review memory_review (timeframe: Option<String>)
                => Command::MemoryReview { timeframe };
        }
    };
    (versions, $emit:ident, $world:ident) => {
        $crate::commands::$emit! { $world
            memory_history memory_history (path: String, version: Option<u64>, page: Option<u32>)
                => Command::MemoryHistory { path, version, page };
        }
    };
    (tool, $emit:ident, $world:ident) => {
        $crate::commands::$emit! { $world
            prompt prompt () => Command::Prompt;
        }
    };
}
pub(crate) use text_commands;

/// The rows given, as functions of world `$world` (`memcap` or `tools`)
/// that run their command with the world's `exec`.
macro_rules! export_text {
    (memcap $($name:ident $tools:ident ($($arg:ident : $ty:ty),* $(,)?) => $command:expr;)*) => {
        $(
            fn $name($($arg: $ty),*) -> Result<String, WitError> {
                use memcap_core::command::Command;
                exec($command)
            }
        )*
    };
    (tools $($name:ident $tools:ident ($($arg:ident : $ty:ty),* $(,)?) => $command:expr;)*) => {
        $(
            fn $tools($($arg: $ty),*) -> Result<String, WitError> {
                use memcap_core::command::Command;
                exec($command)
            }
        )*
    };
}
pub(crate) use export_text;
