//! The escape suite's paths and attempts, shared by the directory's suite
//! (`escape.rs`) and the database's (`database.rs`).

use std::path::Path;

use memcap::{Memory, ToolError, ToolErrorKind};

/// Paths that must be refused by every command, in every argument.
pub fn traversal_spellings(outside: &Path) -> Vec<String> {
    let mut paths: Vec<String> = [
        "/memories/../x",
        "/memories/a/../../x",
        "/memories/./../x",
        "/memories/..",
        "/memories/../outside/secret.txt",
        "/memories/../../outside/secret.txt",
        "/memories/sub/../../outside",
        "/memories/../root/hello.txt",
        "/memories/../memories/x",
        "/memories/.memcap/../../outside/secret.txt",
        "/memories/a/../../../outside/new.txt",
        "/etc/passwd",
        "/",
        "",
        "..",
        "../outside/secret.txt",
        "memories/x",
        "/memoriesX",
        "/memories_backup/x",
        "/Memories/x",
        "\\memories\\..\\x",
        "C:\\x",
        "//srv/share/x",
        "/memories/\0/../x",
        "/memories/link_out",
        "/memories/link_out/secret.txt",
        "/memories/link_out/new.txt",
        "/memories/link_abs/secret.txt",
        "/memories/link_rel/outside/secret.txt",
        "/memories/link_file",
        "/memories/chain2",
        "/memories/chain2/secret.txt",
        "/memories/tslash/",
        "/memories/tslash/secret.txt",
        "/memories/a/link1",
        "/memories/a/link1/secret.txt",
        "/memories/a/link1/new/deep.txt",
        "/memories/a/evil/secret.txt",
        "/memories/dangling_out",
        "/memories/loop",
        "/memories/loop/x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    paths.push(format!(
        "/memories/{}outside/secret.txt",
        "../".repeat(1000)
    ));
    paths.push(format!("/memories/..{}", outside.display()));
    paths
}

/// Every command with `path` in each of its path arguments.
pub fn attempts(memory: &Memory, path: &str) -> Vec<(String, Result<String, ToolError>)> {
    vec![
        ("view".into(), memory.view(path, None)),
        ("view range".into(), memory.view(path, Some((1, 2)))),
        ("create".into(), memory.create(path, "pwned")),
        (
            "str_replace".into(),
            memory.str_replace(path, "secret", "pwned"),
        ),
        ("insert".into(), memory.insert(path, 0, "pwned")),
        ("delete".into(), memory.delete(path)),
        ("rename from".into(), memory.rename(path, "/memories/moved")),
        (
            "rename to".into(),
            memory.rename("/memories/hello.txt", path),
        ),
        (
            "call".into(),
            memory
                .call(&serde_json::json!({"command": "view", "path": path}).to_string())
                .into_result(),
        ),
    ]
}

pub trait IntoResult {
    fn into_result(self) -> Result<String, ToolError>;
}

impl IntoResult for memcap::ToolResult {
    fn into_result(self) -> Result<String, ToolError> {
        if self.is_error {
            Err(ToolError {
                kind: ToolErrorKind::Escape,
                message: self.content,
            })
        } else {
            Ok(self.content)
        }
    }
}
