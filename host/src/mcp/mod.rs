//! `memcap mcp`: the memory as an MCP server. A thin shell over one
//! [`Memory`]: the tools and their descriptions are the component's
//! `describe`, every tool call is one component call (`call-with-data`: the
//! model's text as `content`, the JSON renderer's data as
//! `structuredContent`), and nothing about any tool is written here, so
//! tools the component gains appear with no change to the server.
//!
//! Besides tools: the `prompt` text as the MCP prompt `memory`, and
//! MEMORY.md as the resource `memory://MEMORY.md`. The store's
//! [`ChangeFeed`] hands the guest what changed behind its back (another
//! program's edit, another host's commit) before each call.

mod lines;
mod stdio;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::feed::{ChangeFeed, FeedError};
use crate::{Actor, Memory, ToolDefinition};

/// The prompt that carries the memory protocol and the index.
pub const PROMPT_NAME: &str = "memory";
/// The resource that is MEMORY.md.
pub const INDEX_URI: &str = "memory://MEMORY.md";
/// The tool that takes a `command` of its own (Claude's memory tool).
pub const MEMORY_TOOL: &str = memcap_core::tools::MEMORY_TOOL;

/// One served store, shared by every session of the server.
#[derive(Clone)]
pub struct MemoryServer {
    memory: Arc<Memory>,
    tools: Arc<Vec<Tool>>,
    /// What changed behind the store's back, handed in before each call.
    feed: Option<Arc<ChangeFeed>>,
}

impl MemoryServer {
    /// Serves `memory`; with `watch`, a file watcher reports other
    /// programs' changes to the guest before each call (on a directory),
    /// or a follower catches up with other hosts' commits (on a database).
    pub fn new(memory: Memory, watch: bool) -> Result<Self, ServeError> {
        let tools = memory
            .describe()
            .map_err(|e| ServeError::Describe(e.message))?
            .into_iter()
            .map(mcp_tool)
            .collect::<Result<Vec<_>, _>>()?;
        let memory = Arc::new(memory);
        let feed = if watch {
            Some(Arc::new(ChangeFeed::start(&memory)?))
        } else {
            None
        };
        Ok(Self {
            memory,
            tools: Arc::new(tools),
            feed,
        })
    }

    /// The store served.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The tools, as MCP lists them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// What the server says of itself at `initialize`.
    pub fn info() -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("memcap", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Persistent memory in a sandboxed directory seen as /memories. \
             Check it before starting a task (the `memory` tool's view command, \
             or memory_read), and record what you learn as you work.",
        )
    }

    /// Runs one component call off the async threads (calls block), with
    /// the watcher's news handed in first.
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Memory) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let memory = Arc::clone(&self.memory);
        let feed = self.feed.clone();
        tokio::task::spawn_blocking(move || match &feed {
            Some(feed) => feed.around(&memory, f),
            None => f(&memory),
        })
        .await
        .map_err(|_| ErrorData::internal_error("the memory call did not finish", None))
    }
}

impl MemoryServer {
    /// Serves MCP on stdin and stdout until stdin closes; a line that is
    /// not a JSON-RPC message gets JSON-RPC's error reply.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        stdio::serve(self).await
    }
}

impl MemoryServer {
    /// A text the component gives (the prompt, the index), with a failure
    /// as an internal error: prompts and resources have no error results.
    async fn text(
        &self,
        f: impl FnOnce(&Memory) -> Result<String, crate::ToolError> + Send + 'static,
    ) -> Result<String, ErrorData> {
        self.run(f)
            .await?
            .map_err(|e| ErrorData::internal_error(e.message, None))
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the component could not list its tools: {0}")]
    Describe(String),
    #[error("the component described the tool {0} with an input schema that is not an object")]
    Schema(String),
    #[error(transparent)]
    Feed(#[from] FeedError),
}

fn mcp_tool(tool: ToolDefinition) -> Result<Tool, ServeError> {
    let Value::Object(schema) = tool.input_schema else {
        return Err(ServeError::Schema(tool.name));
    };
    Ok(Tool::new(tool.name, tool.description, Arc::new(schema)))
}

/// The `call` input for a call of `tool` with `arguments`: the memory tool's
/// arguments as they are (they name their command), another tool's with
/// `command` set to the tool's name.
fn call_input(tool: &str, arguments: Option<JsonObject>) -> String {
    let mut input = arguments.unwrap_or_default();
    if tool != MEMORY_TOOL {
        input.insert("command".to_owned(), Value::String(tool.to_owned()));
    }
    Value::Object(input).to_string()
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        Self::info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Who the version history names: what the host put in the request
        // (the team server: the token), else the client's own name.
        let actor = context.extensions.get::<Actor>().cloned().or_else(|| {
            context
                .peer
                .peer_info()
                .map(|info| Actor::mcp_client(&info.client_info.name))
        });
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name}; the tools are {}", known.join(", ")),
                None,
            ));
        }
        let input = call_input(&name, request.arguments);
        let result = self
            .run(move |memory| memory.call_with_data_as(&input, actor.as_ref()))
            .await?;
        let content = vec![ContentBlock::text(result.content)];
        let mut answer = if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        answer.structured_content = serde_json::from_str(&result.data).ok();
        Ok(answer.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            PROMPT_NAME,
            Some(
                "The memory protocol (check memory first, save what you learn, update \
                 rather than duplicate) and the current index of notes, for the system prompt.",
            ),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt {}; the prompt is {PROMPT_NAME}",
                    request.name
                ),
                None,
            ));
        }
        let text = self.text(|memory| memory.prompt()).await?;
        Ok(GetPromptResponse::Complete(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("How to use memory, and what it holds now"),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let index = Resource::new(INDEX_URI, "MEMORY.md")
            .with_description("The index of every note in memory, kept up to date by memcap")
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![index]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != INDEX_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}; the resource is {INDEX_URI}", request.uri),
                None,
            ));
        }
        let text = self.text(|memory| memory.memory_view(false)).await?;
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![ResourceContents::text(text, INDEX_URI).with_mime_type("text/markdown")],
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_tool_call_names_its_command_and_the_memory_tool_keeps_its_own() {
        let args = |v: Value| v.as_object().cloned();
        let note = call_input("memory_view", args(serde_json::json!({"all": true})));
        assert_eq!(
            serde_json::from_str::<Value>(&note).unwrap(),
            serde_json::json!({"all": true, "command": "memory_view"})
        );
        let own = call_input(
            "memory",
            args(serde_json::json!({"command": "view", "path": "/memories"})),
        );
        assert_eq!(
            serde_json::from_str::<Value>(&own).unwrap(),
            serde_json::json!({"command": "view", "path": "/memories"})
        );
        // A note tool's caller cannot pick another command.
        let forced = call_input(
            "memory_view",
            args(serde_json::json!({"command": "delete"})),
        );
        assert!(forced.contains(r#""command":"memory_view""#), "{forced}");
    }
}
