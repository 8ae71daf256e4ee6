//! The knowledge graph through the real component: an agent's session end
//! to end (notes with observations and relations, forward references, a
//! renamed target, context at depth 1 and 2, recent activity after other
//! programs' edits, the graph's counts), permalinks across a rename, and the
//! bounds: cycles, self-links, a note 10,000 others link to and one linking
//! to all of them.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{ContextAnswer, NoteType, SearchFilters, ToolErrorKind as K};
use serde_json::json;

fn write(f: &Fixture, filename: &str, name: &str, note_type: NoteType, content: &str) {
    f.memory
        .memory_write(filename, name, "", note_type, content)
        .unwrap();
}

/// (path, depth) of each related note, nearest first.
fn related(answer: &ContextAnswer) -> Vec<(String, u32)> {
    answer
        .related
        .iter()
        .map(|r| (r.note.path.clone(), r.depth))
        .collect()
}

/// Where each relation of the (first) primary note leads.
fn resolved(answer: &ContextAnswer) -> Vec<(String, Option<String>)> {
    answer.primary[0]
        .relations
        .iter()
        .map(|r| (r.target.clone(), r.resolved.clone()))
        .collect()
}

fn context(f: &Fixture, url: &str, depth: u32) -> ContextAnswer {
    f.memory
        .build_context(url, Some(depth), None, None, None)
        .unwrap()
}

both_backends! {
fn an_agents_session_writes_links_renames_and_reads_context() {
    let f = Fixture::new();
    write(
        &f,
        "projects/alpha",
        "Alpha",
        NoteType::Project,
        "# Alpha\n\n## Observations\n- [decision] Use Postgres for storage #db (chosen for JSON)\n\
         - [risk] The migration window is tight #ops\n- #later check the backups\n\n\
         ## Relations\n- depends_on [[Auth Service]]\n- owned_by [[Bob]] (since March)\n",
    );
    // Written before their targets: kept, not resolved yet.
    let alpha = context(&f, "memory://projects/alpha", 1);
    let note = &alpha.primary[0];
    assert_eq!(note.note.title, "Alpha");
    assert_eq!(note.note.permalink, "projects/alpha");
    assert_eq!(note.note.note_type, "project");
    let observations: Vec<(&str, &str, u32)> = note
        .observations
        .iter()
        .map(|o| (o.category.as_str(), o.content.as_str(), o.line))
        .collect();
    // Lines of the file, frontmatter included: memory_get reads them.
    let file = f.read("projects/alpha.md");
    for (_, content, line) in &observations {
        let text = file.lines().nth(*line as usize - 1).unwrap();
        assert!(
            text.contains(content.split(" #").next().unwrap()),
            "{line}: {text}"
        );
    }
    assert_eq!(observations[0].0, "decision");
    assert_eq!(note.observations[0].tags, ["db"]);
    assert_eq!(
        note.observations[0].context.as_deref(),
        Some("chosen for JSON")
    );
    assert_eq!(observations[2].0, "note", "a #tag line without a category");
    assert_eq!(
        resolved(&alpha),
        [("Auth Service".into(), None), ("Bob".into(), None)]
    );
    assert!(alpha.related.is_empty());
    let stats = f.memory.memory_stats().unwrap();
    assert_eq!(
        (
            stats.entities,
            stats.observations,
            stats.relations,
            stats.unresolved
        ),
        (1, 3, 2, 2)
    );
    // The index and memory_view count the relations a note writes.
    assert!(
        f.read("MEMORY.md")
            .contains("- [Alpha](projects/alpha.md) (2 relations)\n"),
        "{}",
        f.read("MEMORY.md")
    );
    let all = f.memory.memory_view(true).unwrap();
    assert!(all.contains("  relations: 2 (build_context"), "{all}");

    // The targets appear: the same relations now reach them.
    write(
        &f,
        "services/auth",
        "Auth Service",
        NoteType::Reference,
        "- [fact] Issues JWTs #security\n- uses [[Key Vault]]\n",
    );
    write(
        &f,
        "people/bob",
        "Bob",
        NoteType::User,
        "- [role] Backend lead\n- works_on [[Alpha]]\n",
    );
    f.memory
        .create("/memories/infra/key vault.md", "- [fact] Holds the keys\n")
        .unwrap();
    let alpha = context(&f, "memory://projects/alpha", 1);
    assert_eq!(
        resolved(&alpha),
        [
            (
                "Auth Service".into(),
                Some("/memories/services/auth.md".into())
            ),
            ("Bob".into(), Some("/memories/people/bob.md".into()))
        ]
    );
    assert_eq!(
        related(&alpha),
        [
            ("/memories/services/auth.md".into(), 1),
            ("/memories/people/bob.md".into(), 1)
        ]
    );
    let bob = &alpha.related[1];
    assert_eq!(
        (
            bob.relation_type.as_str(),
            bob.from.as_str(),
            bob.to.as_str()
        ),
        (
            "owned_by",
            "/memories/projects/alpha.md",
            "/memories/people/bob.md"
        )
    );
    // Depth 2 from Bob: Alpha, then what Alpha reaches, then the key vault
    // at depth 3 only.
    assert_eq!(
        related(&context(&f, "memory://people/bob", 2)),
        [
            ("/memories/projects/alpha.md".into(), 1),
            ("/memories/services/auth.md".into(), 2)
        ]
    );
    assert_eq!(
        related(&context(&f, "Bob", 3)).last().unwrap(),
        &("/memories/infra/key vault.md".into(), 3)
    );
    assert_eq!(f.memory.memory_stats().unwrap().unresolved, 0);

    // The agent renames the target: the relation follows it by title.
    f.memory
        .rename(
            "/memories/services/auth.md",
            "/memories/services/identity/auth.md",
        )
        .unwrap();
    assert_eq!(
        resolved(&context(&f, "memory://Alpha", 1))[0].1.as_deref(),
        Some("/memories/services/identity/auth.md")
    );

    // Other programs write: a new note (seen at the next call) and an
    // in-place edit (seen once the host reports it, as `memcap mcp` does
    // when it watches the directory).
    f.plant(
        "people/carol.md",
        "---\ntitle: Carol\ntype: person\n---\n- reviews [[Alpha]] (weekly)\n",
    );
    let appended = format!("{file}- [decision] Nightly backups to S3 #ops\n");
    f.plant("projects/alpha.md", &appended);
    f.memory
        .changed(&["/memories/projects/alpha.md".to_owned()])
        .unwrap();
    let alpha = context(&f, "memory://projects/alpha", 1);
    assert!(
        alpha.primary[0]
            .observations
            .iter()
            .any(|o| o.content.starts_with("Nightly backups"))
    );
    assert!(
        related(&alpha).contains(&("/memories/people/carol.md".into(), 1)),
        "{:?}",
        related(&alpha)
    );
    // Another program's note is counted as memcap's own, and so is the
    // count in a new process (the journal carries it).
    // Read through memcap, which brings MEMORY.md up to date before it
    // shows it (a graph answer does not show it, and leaves it), and so
    // is the file then.
    let shown = f.memory.view("/memories/MEMORY.md", None).unwrap();
    assert!(shown.contains("\t- [Carol]"), "{shown}");
    let index = f.read("MEMORY.md");
    let carol = index.lines().find(|l| l.starts_with("- [Carol]")).unwrap();
    assert!(carol.ends_with(") (1 relation)"), "{index}");
    let again = f.reopen();
    let all = again.memory_view(true).unwrap();
    assert!(all.contains("  relations: 2 (build_context"), "{all}");

    // Recent activity: newest first, by the files' stamps; an old file
    // another program left is outside a week but inside a year.
    f.plant("archive/old.md", "- [fact] From last spring\n");
    f.age("archive/old.md", 40 * 86_400);
    let week = f.memory.recent_activity(None, None, None).unwrap();
    let paths: Vec<&str> = week.items.iter().map(|i| i.note.path.as_str()).collect();
    assert_eq!(week.timeframe, "7d");
    assert!(paths.contains(&"/memories/people/carol.md"), "{paths:?}");
    assert!(!paths.contains(&"/memories/archive/old.md"), "{paths:?}");
    let changed: Vec<&str> = week
        .items
        .iter()
        .map(|i| i.note.changed.as_deref().unwrap())
        .collect();
    assert!(changed.windows(2).all(|w| w[0] >= w[1]), "{changed:?}");
    let year = f.memory.recent_activity(Some("1y"), None, None).unwrap();
    assert!(
        year.items
            .iter()
            .any(|i| i.note.path == "/memories/archive/old.md")
    );
    let people = f
        .memory
        .recent_activity(None, Some("person"), None)
        .unwrap();
    assert_eq!(people.total, 1);
    assert_eq!(people.items[0].note.title, "Carol");
    let relations = f
        .memory
        .recent_activity(Some("1d"), Some("relation"), None)
        .unwrap();
    assert!(relations.items.iter().all(|i| i.item_type == "relation"));
    assert!(relations.items.iter().any(|i| {
        let r = i.relation.as_ref().unwrap();
        r.relation_type == "reviews" && r.context.as_deref() == Some("weekly")
    }));
    let observations = f
        .memory
        .recent_activity(Some("1d"), Some("observation"), None)
        .unwrap();
    assert!(
        observations
            .items
            .iter()
            .any(|i| { i.observation.as_ref().unwrap().content == "Nightly backups to S3 #ops" })
    );

    // A target deleted: its relations unresolve, and count so.
    f.memory.delete("/memories/people/bob.md").unwrap();
    assert_eq!(resolved(&context(&f, "memory://Alpha", 1))[1].1, None);
    let stats = f.memory.memory_stats().unwrap();
    assert_eq!(stats.unresolved, 1, "{stats:?}");
}
}

both_backends! {
fn a_frontmatter_permalink_keeps_links_across_a_rename() {
    let f = Fixture::new();
    f.memory
        .create(
            "/memories/decisions.md",
            "---\ntitle: Decisions\npermalink: project/decisions\n---\n- [decision] Ship weekly\n",
        )
        .unwrap();
    f.memory
        .create("/memories/a.md", "- follows [[project/decisions]]\n")
        .unwrap();
    let target = |f: &Fixture| resolved(&context(f, "memory://a", 1))[0].1.clone();
    assert_eq!(target(&f).as_deref(), Some("/memories/decisions.md"));
    f.memory
        .rename("/memories/decisions.md", "/memories/archive/2026/d-v1.md")
        .unwrap();
    assert_eq!(
        target(&f).as_deref(),
        Some("/memories/archive/2026/d-v1.md")
    );
    // The URL names it by the permalink too, wherever it lives.
    let moved = context(&f, "memory://project/decisions", 1);
    assert_eq!(moved.primary[0].note.path, "/memories/archive/2026/d-v1.md");
    assert_eq!(moved.primary[0].note.permalink, "project/decisions");
    assert_eq!(
        related(&moved),
        [("/memories/a.md".into(), 1)],
        "the backlink follows the permalink"
    );
    // The saved graph lost or damaged: rebuilt from the files, the same.
    let journal = ".memcap/notes.jsonl";
    f.remove(journal);
    assert_eq!(
        target(&f).as_deref(),
        Some("/memories/archive/2026/d-v1.md")
    );
    f.plant(journal, b"{\"memcap_notes\": 1}\n\x00\xff garbage");
    let again = f.reopen();
    let a = again
        .build_context("memory://a", Some(1), None, None, None)
        .unwrap();
    assert_eq!(
        a.primary[0].relations[0].resolved.as_deref(),
        Some("/memories/archive/2026/d-v1.md")
    );
}
}

both_backends! {
fn bad_urls_and_parameters_say_what_to_send() {
    let f = Fixture::new();
    f.memory.create("/memories/a.md", "x\n").unwrap();
    let e = f
        .memory
        .build_context("memory://nobody", None, None, None, None)
        .unwrap_err();
    assert_eq!(e.kind, K::NotFound);
    assert!(e.message.contains("memory://projects/*"), "{}", e.message);
    let e = f
        .memory
        .build_context("memory://*", None, Some("2020-01-01"), None, None)
        .map(|a| a.total)
        .unwrap();
    assert_eq!(e, 1);
    for (input, words) in [
        (json!({"command": "build_context", "url": ""}), "memory://"),
        (
            json!({"command": "build_context", "url": "a", "depth": 4}),
            "1 to 3",
        ),
        (
            json!({"command": "build_context", "url": "a", "max_related": 0}),
            "1 to 50",
        ),
        (
            json!({"command": "build_context", "url": "a", "timeframe": "soon"}),
            "2 weeks",
        ),
        (
            json!({"command": "recent_activity", "timeframe": 7}),
            "string",
        ),
        (json!({"command": "recent_activity", "page": 0}), "from 1"),
    ] {
        let result = f.memory.call(&input.to_string());
        assert!(result.is_error, "{input}");
        assert!(
            result.content.contains(words),
            "{input}: {}",
            result.content
        );
    }
    // A pattern some notes match, none of them changed in the timeframe
    // (the time set back behind memcap's back, and reported).
    f.age("a.md", 10 * 86_400);
    f.memory.changed(&["/memories/a.md".to_owned()]).unwrap();
    let e = f
        .memory
        .build_context("memory://*", None, Some("7d"), None, None)
        .unwrap_err();
    assert!(
        e.message
            .starts_with("1 note matches memory://*, but it did not change"),
        "{}",
        e.message
    );
    let empty = f.memory.call(r#"{"command": "recent_activity"}"#);
    assert!(
        empty.content.contains("Nothing changed"),
        "{}",
        empty.content
    );
}
}

both_backends! {
fn cycles_self_links_and_crowds_of_links_are_bounded() {
    let f = Fixture::new();
    // Planted on the host: 10,000 notes each linking to the hub, one
    // linking to all of them, a cycle and a self-link.
    let mut all = String::new();
    for i in 0..10_000 {
        f.plant(&format!("n/{i}.md"), "- part_of [[hub]]\n- next [[n/0]]\n");
        all.push_str(&format!("- lists [[n/{i}]]\n"));
    }
    f.plant("hub.md", "- [fact] The hub\n- is [[hub]]\n");
    f.plant("all.md", &all);
    f.plant("x.md", "- before [[y]]\n");
    f.plant("y.md", "- before [[x]]\n");
    let hub = f
        .memory
        .build_context("memory://hub", Some(3), None, Some(50), None)
        .unwrap();
    assert_eq!(hub.related.len(), 50);
    assert!(
        hub.related
            .iter()
            .all(|r| r.note.path != "/memories/hub.md")
    );
    // The hub's own relation to itself is listed once, as written.
    assert_eq!(hub.primary[0].relations.len(), 1);
    let everything = f
        .memory
        .build_context("memory://all", Some(3), None, None, None)
        .unwrap();
    assert_eq!(everything.related.len(), 10);
    assert_eq!(everything.primary[0].relations.len(), 50);
    assert_eq!(everything.primary[0].more_relations, 9_950);
    let cycle = context(&f, "memory://x", 3);
    assert_eq!(related(&cycle), [("/memories/y.md".into(), 1)]);
    let page = f
        .memory
        .build_context("memory://n/*", Some(2), None, Some(3), Some(2_000))
        .unwrap();
    assert_eq!((page.page, page.pages, page.total), (2_000, 2_000, 10_000));
    assert_eq!(page.primary.len(), 5);
    // The graph takes 1,000 of a note's relations (its answers still read
    // all of them from the file), and says it took all.md in part.
    let stats = f.memory.memory_stats().unwrap();
    assert_eq!(
        (stats.entities, stats.relations, stats.unresolved),
        (10_004, 20_000 + 1_000 + 3, 0)
    );
    assert_eq!(stats.cut, ["/memories/all.md"]);
}
}

both_backends! {
fn search_filters_by_category_tag_type_and_date_and_names_what_matched() {
    let f = Fixture::new();
    write(
        &f,
        "projects/alpha",
        "Alpha",
        NoteType::Project,
        "## Storage\n- [decision] Use Postgres for storage #db (JSON support)\n\n\
         ## Hosting\n\n- [idea] Postgres on a managed host #ops\n- depends_on [[Auth]]\n",
    );
    f.plant(
        "people/carol.md",
        "---\ntitle: Carol\ntype: person\n---\nCarol prefers Postgres for storage.\n",
    );
    let search = |extra: serde_json::Value| -> serde_json::Value {
        let mut input =
            json!({"command": "memory_search", "query": "postgres storage", "minScore": 0});
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        let result = f.memory.call(&input.to_string());
        assert!(!result.is_error, "{}", result.content);
        serde_json::from_str(&result.content).unwrap()
    };
    let paths = |answer: &serde_json::Value| -> Vec<String> {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    r["path"].as_str().unwrap(),
                    r["lines"].as_str().unwrap()
                )
            })
            .collect()
    };
    let all = search(json!({}));
    assert_eq!(all["results"].as_array().unwrap().len(), 3, "{all}");
    // A hit names the observations and relations on its lines.
    let holding = |words: &str| -> &serde_json::Value {
        all["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["text"].as_str().unwrap().contains(words))
            .unwrap()
    };
    let decision = holding("[decision]");
    assert_eq!(decision["observations"][0]["category"], "decision");
    assert_eq!(decision["observations"][0]["context"], "JSON support");
    let hosting = holding("[idea]");
    assert_eq!(hosting["relations"][0]["relationType"], "depends_on");
    assert_eq!(hosting["relations"][0]["target"], "Auth");
    // Each filter, alone and together.
    let decisions = search(json!({"categories": ["Decision"]}));
    assert_eq!(
        paths(&decisions),
        [format!(
            "/memories/projects/alpha.md {}",
            decision["lines"].as_str().unwrap()
        )]
    );
    let ops = search(json!({"tags": ["ops"]}));
    assert_eq!(
        paths(&ops),
        [format!(
            "/memories/projects/alpha.md {}",
            hosting["lines"].as_str().unwrap()
        )]
    );
    assert!(
        paths(&search(
            json!({"categories": ["decision"], "tags": ["ops"]})
        ))
        .is_empty()
    );
    let people = search(json!({"types": ["person"]}));
    assert_eq!(paths(&people), ["/memories/people/carol.md 5-5"]);
    assert_eq!(
        search(json!({"types": ["project", "person"]}))["results"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    f.age("people/carol.md", 30 * 86_400);
    f.memory
        .changed(&["/memories/people/carol.md".to_owned()])
        .unwrap();
    let recent = search(json!({"after_date": "7d"}));
    assert!(
        paths(&recent)
            .iter()
            .all(|p| p.starts_with("/memories/projects/")),
        "{recent}"
    );
    assert_eq!(paths(&search(json!({"after_date": "2000-01-01"}))).len(), 3);
    let bad = f
        .memory
        .call(&json!({"command": "memory_search", "query": "x", "after_date": "soon"}).to_string());
    assert!(
        bad.is_error && bad.content.contains("after_date"),
        "{}",
        bad.content
    );

    // The typed function takes the same filters (a tag with its `#`).
    let typed = |filters: SearchFilters| {
        f.memory
            .memory_search("postgres storage", None, Some(0.0), None, Some(&filters))
    };
    let none = SearchFilters {
        categories: vec![],
        tags: vec![],
        types: vec![],
        after_date: None,
        include_superseded: false,
        by: vec![],
        not_by: vec![],
    };
    let ops = typed(SearchFilters {
        tags: vec!["#ops".into()],
        ..none.clone()
    })
    .unwrap();
    assert_eq!(ops.results.len(), 1);
    assert_eq!(ops.results[0].observations[0].category, "idea");
    let people = typed(SearchFilters {
        types: vec!["person".into()],
        ..none.clone()
    })
    .unwrap();
    assert_eq!(people.results[0].path, "/memories/people/carol.md");
    assert_eq!(typed(none.clone()).unwrap().results.len(), 3);
    let e = typed(SearchFilters {
        after_date: Some("soon".into()),
        ..none
    })
    .unwrap_err();
    assert_eq!(e.kind, K::InvalidPath);
    assert!(e.message.contains("after_date"), "{}", e.message);
}
}

both_backends! {
fn graph_answers_stay_small_whatever_the_notes_hold() {
    let f = Fixture::new();
    let big = "x".repeat(100_000);
    // A hub of 20 observations, each 200 KB with its context, and 50 notes
    // that name it through a 100 KB relation type, each titled 100 KB.
    let mut hub = String::from("---\nname: Hub\n---\n\n");
    for i in 0..20 {
        hub.push_str(&format!("- [fact] {big} #t{i} ({big})\n"));
    }
    f.memory.create("/memories/hub.md", &hub).unwrap();
    for i in 0..50 {
        let leaf = format!("---\nname: Leaf {i} {big}\n---\n\n- {big} [[Hub]]\n");
        f.memory
            .create(&format!("/memories/leaf-{i:02}.md"), &leaf)
            .unwrap();
    }
    let answer = |input: serde_json::Value| {
        let result = f.memory.call(&input.to_string());
        assert!(!result.is_error, "{}", &result.content[..500]);
        result.content
    };
    let hub_context = answer(json!({"command": "build_context", "url": "memory://hub",
        "max_related": 50}));
    println!("build_context of the hub: {} bytes", hub_context.len());
    assert!(hub_context.len() < 64_000, "{} bytes", hub_context.len());
    assert!(hub_context.contains("bytes in all)"), "cut texts say so");
    assert!(
        hub_context.contains("more related notes are past what one answer shows"),
        "{}",
        &hub_context[hub_context.len() - 600..]
    );
    let typed = f
        .memory
        .build_context("memory://hub", None, None, Some(50), None)
        .unwrap();
    assert_eq!(typed.related.len() as u32 + typed.more_related, 50);
    assert!(typed.primary[0].more_observations > 0);
    for (input, most) in [
        (
            json!({"command": "build_context", "url": "memory://*", "max_related": 50}),
            150_000,
        ),
        (
            json!({"command": "build_context", "url": "memory://*", "page": 3}),
            150_000,
        ),
        (
            json!({"command": "recent_activity", "type": "observation"}),
            40_000,
        ),
        (
            json!({"command": "recent_activity", "type": "relation"}),
            40_000,
        ),
        (json!({"command": "recent_activity"}), 40_000),
    ] {
        let text = answer(input.clone());
        println!("{input}: {} bytes", text.len());
        assert!(text.len() < most, "{input}: {} bytes", text.len());
    }
}
}

both_backends! {
fn search_leaves_out_superseded_and_expired_notes_through_every_interface() {
    let f = Fixture::new();
    f.plant("deploy/eu.md", "# Deploy target\nThe deploy target is eu-1.\n");
    f.memory
        .create(
            "/memories/deploy/us.md",
            "# Deploy target moved\nThe deploy target is us-2 now.\n\n- supersedes [[eu]]\n",
        )
        .unwrap();
    f.plant(
        "deploy/freeze.md",
        "---\nname: Freeze\ntype: project\nvalid_until: 2000-01-01\n---\nNo deploy target changes.\n",
    );
    let typed = |include_superseded: bool| {
        let filters = SearchFilters {
            categories: vec![],
            tags: vec![],
            types: vec![],
            after_date: None,
            include_superseded,
            by: vec![],
            not_by: vec![],
        };
        f.memory
            .memory_search("deploy target", None, Some(0.0), None, Some(&filters))
            .unwrap()
    };
    let holding = typed(false);
    let paths: Vec<&str> = holding.results.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/memories/deploy/us.md"]);
    assert_eq!(holding.left_out, 2);
    let all = typed(true);
    assert_eq!(all.left_out, 0);
    assert_eq!(all.results[0].path, "/memories/deploy/us.md");
    let marks: Vec<(&str, Vec<String>, bool)> = all.results[1..]
        .iter()
        .map(|r| (r.path.as_str(), r.superseded_by.clone(), r.expired))
        .collect();
    assert!(
        marks.contains(&("/memories/deploy/eu.md", vec!["/memories/deploy/us.md".into()], false)),
        "{marks:?}"
    );
    assert!(marks.contains(&("/memories/deploy/freeze.md", vec![], true)), "{marks:?}");
    // Through `call`, the same, in the agent's words.
    let called = f.memory.call(
        &json!({"command": "memory_search", "query": "deploy target", "minScore": 0,
            "include_superseded": true})
        .to_string(),
    );
    assert!(called.content.contains("\"supersededBy\""), "{}", called.content);
    assert!(called.content.contains("\"expired\": true"), "{}", called.content);
    // The chain both ways, in build_context's typed answer.
    let old = f
        .memory
        .build_context("memory://deploy/eu", None, None, None, None)
        .unwrap();
    assert_eq!(old.primary[0].superseded_by, ["/memories/deploy/us.md"]);
    let new = f
        .memory
        .build_context("memory://deploy/us", None, None, None, None)
        .unwrap();
    assert_eq!(new.primary[0].supersedes, ["/memories/deploy/eu.md"]);
    assert!(!new.primary[0].expired);
    // MEMORY.md marks both, as the agent's `memory_view` shows it.
    f.memory.memory_view(false).unwrap();
    let index = f.read("MEMORY.md");
    let line = |path: &str| {
        let link = format!("]({path})");
        index
            .lines()
            .find(|l| l.starts_with("- [") && l.contains(&link))
            .unwrap_or_else(|| panic!("{path} in {index}"))
            .to_owned()
    };
    assert!(line("deploy/eu.md").ends_with(" (superseded by deploy/us.md)"), "{index}");
    assert!(line("deploy/freeze.md").ends_with(" (expired: past its valid_until)"), "{index}");
    assert!(!line("deploy/us.md").contains("superseded"), "{index}");
}
}
