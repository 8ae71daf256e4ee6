//! Reads a frontmatter block as flat `key: value` fields, in time and memory
//! bounded by a small multiple of its size: YAML events are pulled one at a
//! time and nothing is ever expanded, so aliases (the "billion laughs"
//! shape), deep nesting and huge key counts are that note's problem, never
//! the store's.

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// Events read from one block before it is called too complex.
const MAX_EVENTS: usize = 4096;
/// Top-level keys in one block.
pub const MAX_KEYS: usize = 128;
/// Nesting below the top-level mapping (a list of tags is depth 1).
const MAX_DEPTH: usize = 8;

/// A top-level value, as far as memcap reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar; `None` for YAML null (`~`, `null` or nothing).
    Text(Option<String>),
    /// A list of scalars (nested items that are not scalars are left out).
    List(Vec<String>),
    /// A nested mapping, or anything else memcap does not use.
    Other,
}

/// The top-level fields in the order written.
pub type Fields = Vec<(String, Value)>;

/// Parses `yaml` (the text between the `---` fences). `Err` is the problem,
/// in words for the agent.
pub fn parse(yaml: &str) -> Result<Fields, String> {
    let mut reader = Reader {
        parser: Parser::new_from_str(yaml),
        events: 0,
    };
    // Stream start, then a document start unless the block is empty.
    loop {
        match reader.next()? {
            Event::StreamStart | Event::DocumentStart => continue,
            Event::StreamEnd | Event::DocumentEnd => return Ok(Vec::new()),
            Event::MappingStart(..) => break,
            Event::Alias(_) => return Err(alias_problem()),
            Event::Scalar(value, style, ..) if is_null(&value, style) => return Ok(Vec::new()),
            _ => {
                return Err("the frontmatter is not a list of `key: value` lines; \
                     write it as name, description, type and updated keys"
                    .to_owned());
            }
        }
    }
    let mut fields: Fields = Vec::new();
    loop {
        let key = match reader.next()? {
            Event::MappingEnd => return Ok(fields),
            Event::Scalar(key, ..) => key,
            Event::Alias(_) => return Err(alias_problem()),
            _ => {
                return Err(
                    "a frontmatter key is not a plain word; write each key as `key: value`"
                        .to_owned(),
                );
            }
        };
        let value = reader.value(1)?;
        if fields.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "the key `{}` appears twice in the frontmatter; keep one",
                crate::text::one_line(&key, 60)
            ));
        }
        if fields.len() == MAX_KEYS {
            return Err(format!(
                "the frontmatter has more than {MAX_KEYS} keys; keep it to the few that describe the note"
            ));
        }
        fields.push((key, value));
    }
}

struct Reader<'a> {
    parser: Parser<std::str::Chars<'a>>,
    events: usize,
}

impl Reader<'_> {
    fn next(&mut self) -> Result<Event, String> {
        self.events += 1;
        if self.events > MAX_EVENTS {
            return Err(format!(
                "the frontmatter holds more than {MAX_EVENTS} values; keep it to a few `key: value` lines"
            ));
        }
        match self.parser.next_token() {
            Ok((event, _)) => Ok(event),
            Err(e) => Err(format!(
                "the frontmatter is not valid YAML (line {} of it: {}); fix it with str_replace",
                e.marker().line(),
                e.info()
            )),
        }
    }

    /// The value after a key, whose first event is read here.
    fn value(&mut self, depth: usize) -> Result<Value, String> {
        match self.next()? {
            Event::Scalar(value, style, ..) => Ok(Value::Text(
                (!is_null(&value, style)).then(|| value.trim().to_owned()),
            )),
            Event::SequenceStart(..) => {
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        Event::SequenceEnd => return Ok(Value::List(items)),
                        Event::Scalar(value, style, ..) => {
                            if !is_null(&value, style) {
                                items.push(value.trim().to_owned());
                            }
                        }
                        Event::SequenceStart(..) | Event::MappingStart(..) => {
                            self.skip(depth + 1)?;
                        }
                        Event::Alias(_) => return Err(alias_problem()),
                        _ => return Err(unexpected()),
                    }
                }
            }
            Event::MappingStart(..) => {
                self.skip(depth + 1)?;
                Ok(Value::Other)
            }
            Event::Alias(_) => Err(alias_problem()),
            _ => Err(unexpected()),
        }
    }

    /// Skips the rest of a nested list or mapping whose start was just read.
    fn skip(&mut self, depth: usize) -> Result<(), String> {
        let mut open = 1usize;
        let mut deepest = depth;
        while open > 0 {
            match self.next()? {
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    open += 1;
                    deepest = deepest.max(depth + open - 1);
                    if deepest > MAX_DEPTH {
                        return Err(format!(
                            "the frontmatter nests values more than {MAX_DEPTH} levels deep; \
                             use plain `key: value` lines"
                        ));
                    }
                }
                Event::SequenceEnd | Event::MappingEnd => open -= 1,
                Event::Alias(_) => return Err(alias_problem()),
                Event::Scalar(..) => {}
                _ => return Err(unexpected()),
            }
        }
        Ok(())
    }
}

fn is_null(value: &str, style: TScalarStyle) -> bool {
    style == TScalarStyle::Plain && matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

fn alias_problem() -> String {
    "the frontmatter uses a YAML alias (`*name`), which memcap does not expand; \
     write the value out in full"
        .to_owned()
}

fn unexpected() -> String {
    "the frontmatter ends in the middle of a value; fix it with str_replace".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &str) -> Value {
        Value::Text(Some(v.to_owned()))
    }

    #[test]
    fn flat_fields_in_order() {
        let fields =
            parse("name: Tea\ndescription: \"a: b\"\ntags: [x, y]\nempty:\nmeta: {a: 1}\n")
                .unwrap();
        assert_eq!(
            fields,
            vec![
                ("name".to_owned(), text("Tea")),
                ("description".to_owned(), text("a: b")),
                (
                    "tags".to_owned(),
                    Value::List(vec!["x".to_owned(), "y".to_owned()])
                ),
                ("empty".to_owned(), Value::Text(None)),
                ("meta".to_owned(), Value::Other),
            ]
        );
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(parse("# only a comment\n").unwrap(), vec![]);
    }

    #[test]
    fn aliases_are_refused_not_expanded() {
        let mut laughs = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (i, prev) in ('b'..='j').zip('a'..) {
            laughs.push_str(&format!(
                "{i}: &{i} [*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        assert!(parse(&laughs).unwrap_err().contains("alias"));
        assert!(
            parse("name: &n x\nother: *n\n")
                .unwrap_err()
                .contains("alias")
        );
    }

    #[test]
    fn bounds_are_problems() {
        let deep = format!("a: {}{}\n", "[".repeat(50), "]".repeat(50));
        assert!(parse(&deep).unwrap_err().contains("levels deep"));
        let keys: String = (0..200).map(|i| format!("k{i}: v\n")).collect();
        assert!(parse(&keys).unwrap_err().contains("keys"));
        let many = format!("a: [{}]\n", "x,".repeat(5000));
        assert!(parse(&many).unwrap_err().contains("values"));
        assert!(parse("a: 1\na: 2\n").unwrap_err().contains("twice"));
        assert!(parse("- a\n").unwrap_err().contains("key: value"));
        assert!(parse("? [a]\n: b\n").unwrap_err().contains("plain word"));
        assert!(
            parse("name: [oops\n")
                .unwrap_err()
                .contains("not valid YAML")
        );
    }
}
