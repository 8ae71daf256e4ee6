//! The MCP handler of a server that serves many namespaces: each request
//! carries its [`Principal`] (set by the gate from its token), and is
//! answered by the warm store of that principal's access, as
//! [`MemoryServer`] answers it. One log line is written per call.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::auth::Principal;
use super::busy::{Busy, Working};
use super::log;
use super::pool::{Leased, Pool};
use crate::mcp::MemoryServer;

/// Serves every principal from the pool.
#[derive(Clone)]
pub struct TeamServer {
    pool: Arc<Pool>,
    /// The tools, once a store has described them (the same for every store).
    tools: Arc<OnceLock<Vec<Tool>>>,
    /// Calls running now, so a shutdown can wait for them.
    busy: Busy,
}

impl TeamServer {
    /// Serves from `pool`, counting each call in `busy`.
    pub fn new(pool: Arc<Pool>, busy: Busy) -> Self {
        Self {
            pool,
            tools: Arc::new(OnceLock::new()),
            busy,
        }
    }

    /// The principal and the warm store of a request.
    async fn store(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Principal, Leased, Working), ErrorData> {
        let principal = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the request was not authenticated", None))?;
        let running = self.busy.start();
        let store = self.pool.get(&principal.access).await.map_err(|e| {
            eprintln!(
                "memcap: could not open the store of namespace {}: {e}",
                principal.access.namespace
            );
            ErrorData::internal_error(
                "the memory store could not be opened; the server's log says why",
                None,
            )
        })?;
        let _ = self.tools.set(store.tools().to_vec());
        Ok((principal, store, running))
    }

    /// Logs one call and applies the pool's bounds after it.
    fn done(
        &self,
        principal: &Principal,
        what: &str,
        command: Option<&str>,
        started: Instant,
        outcome: &str,
    ) {
        log::call(principal, what, command, started.elapsed(), outcome);
        self.pool.sweep();
    }
}

/// What the log says of an answer that is not a tool result.
fn outcome<T>(answer: &Result<T, ErrorData>) -> &'static str {
    if answer.is_ok() { "ok" } else { "error" }
}

impl ServerHandler for TeamServer {
    fn get_info(&self) -> ServerConfig {
        MemoryServer::info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (_, store, _running) = self.store(&context).await?;
        store.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get()?.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let (principal, store, _running) = self.store(&context).await?;
        let tool = request.name.to_string();
        let command = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("command"))
            .and_then(|c| c.as_str())
            .map(str::to_owned);
        let mut context = context;
        context.extensions.insert(crate::Actor {
            name: principal.label.clone(),
            id: Some(principal.id.clone()),
        });
        let answer = store.call_tool(request, context).await;
        let kind = match &answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => result
                .structured_content
                .as_ref()
                .and_then(|data| data.pointer("/error/kind"))
                .and_then(|kind| kind.as_str())
                .map_or_else(|| "error".to_owned(), |kind| format!("error:{kind}")),
            Ok(_) => "ok".to_owned(),
            Err(_) => "protocol-error".to_owned(),
        };
        let command = command.filter(|_| tool == crate::mcp::MEMORY_TOOL);
        self.done(&principal, &tool, command.as_deref(), started, &kind);
        answer
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let (_, store, _running) = self.store(&context).await?;
        store.list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let started = Instant::now();
        let (principal, store, _running) = self.store(&context).await?;
        let answer = store.get_prompt(request, context).await;
        self.done(&principal, "prompts/get", None, started, outcome(&answer));
        answer
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let (_, store, _running) = self.store(&context).await?;
        store.list_resources(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let started = Instant::now();
        let (principal, store, _running) = self.store(&context).await?;
        let answer = store.read_resource(request, context).await;
        self.done(
            &principal,
            "resources/read",
            None,
            started,
            outcome(&answer),
        );
        answer
    }
}
