//! `memory_read`: the index and the list of memory files, or the notes on
//! the topics asked for, in full.

use wasip2::filesystem::types::{Descriptor, DescriptorType};

use crate::error::Result;
use crate::fs;
use crate::notes::{maintain, topics};
use crate::vpath::MemPath;

/// Notes returned in full by one call; more are named, to ask for next.
const MAX_NOTES: usize = 50;

pub fn memory_read(root: &Descriptor, topics: &[String]) -> Result<String> {
    maintain::fresh(root, |catalog, index| {
        if topics.is_empty() {
            let mut out = if index.is_empty() {
                "No notes yet: the memory is empty. Save what you learn with memory_write.\n"
                    .to_owned()
            } else {
                format!("{index}\n")
            };
            let mut paths: Vec<&str> = catalog.entries().map(|e| e.path.as_str()).collect();
            paths.sort_unstable();
            out.push_str(&format!(
                "Memory files ({}):\n",
                paths.len() + usize::from(!index.is_empty())
            ));
            if !index.is_empty() {
                out.push_str("/memories/MEMORY.md\n");
            }
            for path in paths {
                out.push_str("/memories/");
                out.push_str(path);
                out.push('\n');
            }
            return Ok(out);
        }
        let (found, unknown) = topics::resolve(catalog, topics);
        let mut out = String::new();
        for entry in found.iter().take(MAX_NOTES) {
            let shown = format!("/memories/{}", entry.path);
            out.push_str(&format!(
                "=== {shown} ({}: {}) ===\n",
                entry.meta.kind.as_str(),
                entry.meta.name
            ));
            let text = MemPath::parse(&shown).and_then(|path| match fs::lstat(root, &path) {
                Ok(st) if st.type_ == DescriptorType::RegularFile => {
                    fs::read_text(root, &path, &shown)
                }
                _ => Err(crate::error::ToolError::missing(&shown)),
            });
            match text {
                Ok(text) => {
                    out.push_str(&text);
                    if !text.ends_with('\n') {
                        out.push('\n');
                    }
                }
                Err(e) => {
                    out.push_str(&format!("(not shown: {})\n", e.message));
                }
            }
            out.push('\n');
        }
        if found.len() > MAX_NOTES {
            let rest: Vec<&str> = found[MAX_NOTES..].iter().map(|e| e.path.as_str()).collect();
            out.push_str(&format!(
                "{} more notes match; read them by path next: {}\n",
                rest.len(),
                rest.join(", ")
            ));
        }
        if !unknown.is_empty() {
            let quoted: Vec<String> = unknown.iter().map(|t| format!("{t:?}")).collect();
            out.push_str(&format!(
                "No note matches {}. A topic is a note's name, file name, path, tag or directory, \
                 or a type (user, feedback, project, reference, other); memory_read without topics \
                 lists them all.\n",
                quoted.join(", ")
            ));
        }
        Ok(out)
    })
}
