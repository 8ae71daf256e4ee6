//! The component's commands as typed methods of [`Memory`], one per WIT
//! function, and the raw `call` forms; each runs through
//! [`Memory::invoke`].

use crate::bindings::{
    ActivityAnswer, ContextAnswer, GetAnswer, NoteType, Role, SearchAnswer, SearchFilters, Source,
    StatsAnswer,
};
use crate::error::{DataResult, ToolDefinition, ToolError, ToolErrorKind, ToolResult};

use super::Memory;
use super::call::call_writes;

impl Memory {
    /// Shows a directory listing or a file with line numbers (WIT `view`).
    pub fn view(&self, path: &str, view_range: Option<(i64, i64)>) -> Result<String, ToolError> {
        let path = path.to_owned();
        self.typed("view", path.len(), move |b, s| {
            b.memcap_memory_files().call_view(s, &path, view_range)
        })
    }

    /// Creates a new file; never overwrites (WIT `create`).
    pub fn create(&self, path: &str, file_text: &str) -> Result<String, ToolError> {
        let (path, file_text) = (path.to_owned(), file_text.to_owned());
        self.typed("create", path.len() + file_text.len(), move |b, s| {
            b.memcap_memory_files().call_create(s, &path, &file_text)
        })
    }

    /// Replaces the single occurrence of `old_str` (WIT `str-replace`).
    pub fn str_replace(
        &self,
        path: &str,
        old_str: &str,
        new_str: &str,
    ) -> Result<String, ToolError> {
        let (path, old_str, new_str) = (path.to_owned(), old_str.to_owned(), new_str.to_owned());
        self.typed(
            "str_replace",
            path.len() + old_str.len() + new_str.len(),
            move |b, s| {
                b.memcap_memory_files()
                    .call_str_replace(s, &path, &old_str, &new_str)
            },
        )
    }

    /// Inserts text after line `insert_line` (WIT `insert`).
    pub fn insert(
        &self,
        path: &str,
        insert_line: i64,
        insert_text: &str,
    ) -> Result<String, ToolError> {
        let (path, insert_text) = (path.to_owned(), insert_text.to_owned());
        self.typed("insert", path.len() + insert_text.len(), move |b, s| {
            b.memcap_memory_files()
                .call_insert(s, &path, insert_line, &insert_text)
        })
    }

    /// Deletes a file or directory tree (WIT `delete`).
    pub fn delete(&self, path: &str) -> Result<String, ToolError> {
        let path = path.to_owned();
        self.typed("delete", path.len(), move |b, s| {
            b.memcap_memory_files().call_delete(s, &path)
        })
    }

    /// Renames or moves a file or directory; never overwrites (WIT `rename`).
    pub fn rename(&self, old_path: &str, new_path: &str) -> Result<String, ToolError> {
        let (old_path, new_path) = (old_path.to_owned(), new_path.to_owned());
        self.typed("rename", old_path.len() + new_path.len(), move |b, s| {
            b.memcap_memory_files().call_rename(s, &old_path, &new_path)
        })
    }

    /// The index, or with `topics` those notes in full (WIT `memory-read`),
    /// first page.
    pub fn memory_read(&self, topics: &[String]) -> Result<String, ToolError> {
        self.memory_read_page(topics, None)
    }

    /// Page `page` (from 1) of [`Memory::memory_read`]'s answer.
    pub fn memory_read_page(
        &self,
        topics: &[String],
        page: Option<u32>,
    ) -> Result<String, ToolError> {
        let bytes = topics.iter().map(String::len).sum();
        let topics = topics.to_vec();
        self.typed("memory_read", bytes, move |b, s| {
            b.memcap_memory_notes().call_memory_read(s, &topics, page)
        })
    }

    /// The index, or with `all` every note and its metadata (WIT
    /// `memory-view`), first page.
    pub fn memory_view(&self, all: bool) -> Result<String, ToolError> {
        self.memory_view_page(all, None)
    }

    /// Page `page` (from 1) of [`Memory::memory_view`]'s answer.
    pub fn memory_view_page(&self, all: bool, page: Option<u32>) -> Result<String, ToolError> {
        self.typed("memory_view", 0, move |b, s| {
            b.memcap_memory_notes().call_memory_view(s, all, page)
        })
    }

    /// Saves a typed note, creating or replacing it (WIT `memory-write`).
    pub fn memory_write(
        &self,
        filename: &str,
        name: &str,
        description: &str,
        note_type: NoteType,
        content: &str,
    ) -> Result<String, ToolError> {
        let bytes = filename.len() + name.len() + description.len() + content.len();
        let [filename, name, description, content] =
            [filename, name, description, content].map(str::to_owned);
        self.typed("memory_write", bytes, move |b, s| {
            b.memcap_memory_notes().call_memory_write(
                s,
                &filename,
                &name,
                &description,
                note_type,
                &content,
            )
        })
    }

    /// Replaces the single occurrence of `old_str` in a note (WIT `memory-update`).
    pub fn memory_update(
        &self,
        filename: &str,
        old_str: &str,
        new_str: &str,
    ) -> Result<String, ToolError> {
        let [filename, old_str, new_str] = [filename, old_str, new_str].map(str::to_owned);
        self.typed(
            "memory_update",
            filename.len() + old_str.len() + new_str.len(),
            move |b, s| {
                b.memcap_memory_notes()
                    .call_memory_update(s, &filename, &old_str, &new_str)
            },
        )
    }

    /// Deletes one note (WIT `memory-delete`).
    pub fn memory_delete(&self, filename: &str) -> Result<String, ToolError> {
        let filename = filename.to_owned();
        self.typed("memory_delete", filename.len(), move |b, s| {
            b.memcap_memory_notes().call_memory_delete(s, &filename)
        })
    }

    /// The whole protocol for keeping memory, with examples of structured
    /// notes (WIT `memory-guide`).
    pub fn memory_guide(&self) -> Result<String, ToolError> {
        self.typed("memory_guide", 0, |b, s| {
            b.memcap_memory_notes().call_memory_guide(s)
        })
    }

    /// What needs a decision, changing nothing (WIT `memory-review`):
    /// likely duplicates, notes past their `valid_until`, superseded notes
    /// still linked, and files others changed within `timeframe` (`7d`
    /// when `None`).
    pub fn memory_review(&self, timeframe: Option<&str>) -> Result<String, ToolError> {
        let timeframe = timeframe.map(str::to_owned);
        self.typed(
            "memory_review",
            timeframe.as_ref().map_or(0, String::len),
            move |b, s| {
                b.memcap_memory_notes()
                    .call_memory_review(s, timeframe.as_deref())
            },
        )
    }

    /// The passages that best answer `query` (WIT `memory-search`): at most
    /// `max_results` (1 to 20, default 6) scoring at least `min_score` (0 to
    /// 1, default 0.35), from `source` (default all), kept by `filters`
    /// (categories, tags, types, after-date; none keeps every passage).
    pub fn memory_search(
        &self,
        query: &str,
        max_results: Option<u32>,
        min_score: Option<f32>,
        source: Option<Source>,
        filters: Option<&SearchFilters>,
    ) -> Result<SearchAnswer, ToolError> {
        let (query, filters) = (query.to_owned(), filters.cloned());
        self.invoke("memory_search", query.len(), move |b, s| {
            b.memcap_memory_search().call_memory_search(
                s,
                &query,
                max_results,
                min_score,
                source,
                filters.as_ref(),
            )
        })?
        .map_err(ToolError::from)
    }

    /// Lines `first..=last` of a file (WIT `memory-get`); no `first` is the
    /// top, no `last` reads on to the 12,000-character cap.
    pub fn memory_get(
        &self,
        path: &str,
        first: Option<u32>,
        last: Option<u32>,
    ) -> Result<GetAnswer, ToolError> {
        let path = path.to_owned();
        self.invoke("memory_get", path.len(), move |b, s| {
            b.memcap_memory_search()
                .call_memory_get(s, &path, first, last)
        })?
        .map_err(ToolError::from)
    }

    /// How the search index stands (WIT `memory-stats`).
    pub fn memory_stats(&self) -> Result<StatsAnswer, ToolError> {
        self.invoke("memory_stats", 0, |b, s| {
            b.memcap_memory_search().call_memory_stats(s)
        })?
        .map_err(ToolError::from)
    }

    /// How many files and passages the search index holds (WIT
    /// `memory-counts`): without `memory_stats`'s look at every note.
    pub fn memory_counts(&self) -> Result<(u32, u32), ToolError> {
        self.invoke("memory_counts", 0, |b, s| {
            b.memcap_memory_search().call_memory_counts(s)
        })?
        .map(|c| (c.files, c.chunks))
        .map_err(ToolError::from)
    }

    /// The notes `url` names (`memory://projects/alpha`, `memory://projects/*`)
    /// with their observations and relations, and the notes those reach, up
    /// to `depth` steps (WIT `graph.build-context`).
    pub fn build_context(
        &self,
        url: &str,
        depth: Option<u32>,
        timeframe: Option<&str>,
        max_related: Option<u32>,
        page: Option<u32>,
    ) -> Result<ContextAnswer, ToolError> {
        let size = url.len() + timeframe.map_or(0, str::len);
        let (url, timeframe) = (url.to_owned(), timeframe.map(str::to_owned));
        self.invoke("build_context", size, move |b, s| {
            b.memcap_memory_graph().call_build_context(
                s,
                &url,
                depth,
                timeframe.as_deref(),
                max_related,
                page,
            )
        })?
        .map_err(ToolError::from)
    }

    /// What changed in the timeframe (default `7d`), newest first: notes,
    /// or `item_type` `observation`, `relation` or a note type (WIT
    /// `graph.recent-activity`).
    pub fn recent_activity(
        &self,
        timeframe: Option<&str>,
        item_type: Option<&str>,
        page: Option<u32>,
    ) -> Result<ActivityAnswer, ToolError> {
        let size = timeframe.map_or(0, str::len) + item_type.map_or(0, str::len);
        let [timeframe, item_type] = [timeframe, item_type].map(|t| t.map(str::to_owned));
        self.invoke("recent_activity", size, move |b, s| {
            b.memcap_memory_graph().call_recent_activity(
                s,
                timeframe.as_deref(),
                item_type.as_deref(),
                page,
            )
        })?
        .map_err(ToolError::from)
    }

    /// Appends one turn of conversation `session` to
    /// `/memories/chat/SESSION.md`, where `memory_search` finds it as the
    /// `chat` source (WIT `history.record-turn`); bounded as the WIT docs
    /// say. Returns what was recorded, in words.
    pub fn record_turn(&self, session: &str, role: Role, text: &str) -> Result<String, ToolError> {
        let (session, text) = (session.to_owned(), text.to_owned());
        self.typed("record_turn", session.len() + text.len(), move |b, s| {
            b.memcap_memory_history()
                .call_record_turn(s, &session, role, &text)
        })
    }

    /// The system-prompt text: the memory protocol and the index (WIT `prompt`).
    pub fn prompt(&self) -> Result<String, ToolError> {
        self.typed("prompt", 0, |b, s| b.memcap_memory_tool().call_prompt(s))
    }

    /// The tools the component offers (WIT `describe`): `memory` and one per
    /// note command, each with its description and input schema, for a host
    /// or an MCP server to list. Run them with [`Memory::call`].
    pub fn describe(&self) -> Result<Vec<ToolDefinition>, ToolError> {
        let tools = self.invoke("describe", 0, |b, s| {
            b.memcap_memory_tool().call_describe(s)
        })?;
        tools
            .into_iter()
            .map(|tool| {
                let input_schema = serde_json::from_str(&tool.input_schema).map_err(|_| {
                    ToolError::new(
                        ToolErrorKind::GuestFailure,
                        format!(
                            "memcap described the tool {} with a schema that is not JSON",
                            tool.name
                        ),
                    )
                })?;
                Ok(ToolDefinition {
                    name: tool.name,
                    description: tool.description,
                    input_schema,
                })
            })
            .collect()
    }

    /// Runs one `tool_use` input given as JSON (WIT `call`). Never fails:
    /// every problem, including a bad input or a stopped guest, is an error
    /// result with a message for the model.
    pub fn call(&self, input: &str) -> ToolResult {
        let owned = input.to_owned();
        self.raw(input, move |b, s| {
            b.memcap_memory_tool().call_call(s, &owned)
        })
        .unwrap_or_else(ToolError::into_result)
    }

    /// [`Memory::call`] for programs (WIT `call-json`): the same input and
    /// effects, with `content` a JSON object: `{"output": KIND, ...}` with the
    /// result's data on success, `{"error": {"kind", "message"}}` on failure
    /// (a call the host stopped included).
    pub fn call_json(&self, input: &str) -> ToolResult {
        let owned = input.to_owned();
        self.raw(input, move |b, s| {
            b.memcap_memory_tool().call_call_json(s, &owned)
        })
        .unwrap_or_else(|e| {
            ToolResult::error(memcap_core::render::json::failure(e.kind, &e.message).to_string())
        })
    }

    /// [`Memory::call`] and [`Memory::call_json`] from one run (WIT
    /// `call-with-data`): the model's text and the program's data for the
    /// same result, as an MCP server answers with `content` and
    /// `structuredContent`. A command that writes runs once.
    pub fn call_with_data(&self, input: &str) -> DataResult {
        self.call_with_data_as(input, None)
    }

    /// [`Memory::call_with_data`] for `actor` (the store's own when
    /// `None`): the version history records the change as theirs.
    pub fn call_with_data_as(&self, input: &str, actor: Option<&super::Actor>) -> DataResult {
        let owned = input.to_owned();
        self.run(actor, input.len(), call_writes(input), move |b, s| {
            b.memcap_memory_tool().call_call_with_data(s, &owned)
        })
        .map(|r| DataResult {
            content: r.content,
            data: r.data,
            is_error: r.is_error,
        })
        .unwrap_or_else(|e| DataResult {
            data: memcap_core::render::json::failure(e.kind, &e.message).to_string(),
            content: e.message,
            is_error: true,
        })
    }
}
