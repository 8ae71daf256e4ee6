//! Every command's success and error paths, through the real component in the
//! real host, with the SDK's exact strings (`shared/reference/memory-tool.md`).

#[macro_use]
mod common;

use common::Fixture;
use memcap::ToolErrorKind as K;

fn err(result: Result<String, memcap::ToolError>) -> (K, String) {
    let e = result.expect_err("expected an error");
    (e.kind, e.message)
}

const LISTING: &str = "Here're the files and directories up to 2 levels deep in";

both_backends! {
fn view_lists_two_levels_sorted_with_sizes_and_hides_dot_names() {
    let f = Fixture::new();
    f.plant("B.txt", "0123456789");
    f.plant("a/b/c/deep.md", "deep");
    f.plant(".hidden", "x");
    f.plant("node_modules/x.js", "1");
    f.plant("empty.txt", "");
    f.plant("notes.txt", "Line 1\nSecond\nLine 3\n");
    let shown = f.memory.view("/memories", None).unwrap();
    let [root, a, b, c, nm] = ["", "a", "a/b", "a/b/c", "node_modules"].map(|d| f.dir_size(d));
    assert_eq!(
        shown,
        format!(
            "{LISTING} /memories, excluding hidden items:\n{root}\t/memories\n10B\t/memories/B.txt\n{a}\t/memories/a/\n\
             {b}\t/memories/a/b/\n0B\t/memories/empty.txt\n{nm}\t/memories/node_modules/\n\
             1B\t/memories/node_modules/x.js\n21B\t/memories/notes.txt"
        )
    );
    // The path is echoed as sent, so a trailing slash doubles.
    let slash = f.memory.view("/memories/", None).unwrap();
    assert!(slash.contains("\n10B\t/memories//B.txt\n"), "{slash}");
    assert_eq!(
        f.memory.view("/memories/a", None).unwrap(),
        format!(
            "{LISTING} /memories/a, excluding hidden items:\n{a}\t/memories/a\n{b}\t/memories/a/b/\n{c}\t/memories/a/b/c/"
        )
    );
}
}

both_backends! {
fn view_of_an_empty_root_shows_only_the_root() {
    let f = Fixture::new();
    assert_eq!(
        f.memory.view("/memories", None).unwrap(),
        format!(
            "{LISTING} /memories, excluding hidden items:\n{}\t/memories",
            f.dir_size("")
        )
    );
}
}

both_backends! {
fn view_sorts_names_by_code_point() {
    let f = Fixture::new();
    for name in [
        "~t.txt",
        "Ａ.txt",
        "é.txt",
        "alpha.txt",
        "9.txt",
        "-dash.txt",
        "😀.txt",
        "_u.txt",
        "Zeta.txt",
        "10.txt",
    ] {
        f.plant(name, "");
    }
    let shown = f.memory.view("/memories", None).unwrap();
    let names: Vec<&str> = shown
        .lines()
        .skip(2)
        .map(|l| l.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "-dash.txt",
            "10.txt",
            "9.txt",
            "Zeta.txt",
            "_u.txt",
            "alpha.txt",
            "~t.txt",
            "é.txt",
            "Ａ.txt",
            "😀.txt"
        ]
    );
}
}

both_backends! {
fn view_numbers_lines_and_keeps_cr_and_bom() {
    let f = Fixture::new();
    let cases: [(&str, &str); 6] = [
        (
            "Line 1\nLine 2\nLine 3\n",
            "     1\tLine 1\n     2\tLine 2\n     3\tLine 3\n     4\t",
        ),
        ("", "     1\t"),
        ("\n", "     1\t\n     2\t"),
        ("a\r\nb\r\nc", "     1\ta\r\n     2\tb\r\n     3\tc"),
        ("a\rb\rc", "     1\ta\rb\rc"),
        ("\u{feff}hi\n", "     1\t\u{feff}hi\n     2\t"),
    ];
    for (i, (content, lines)) in cases.iter().enumerate() {
        let name = format!("f{i}.txt");
        f.plant(&name, content);
        let path = format!("/memories/{name}");
        assert_eq!(
            f.memory.view(&path, None).unwrap(),
            format!("Here's the content of {path} with line numbers:\n{lines}")
        );
    }
}
}

both_backends! {
fn view_range_follows_the_sdk_slice_rules() {
    let f = Fixture::new();
    f.plant("n.txt", "Line 1\nLine 2\nLine 3\n");
    let header = "Here's the content of /memories/n.txt with line numbers:\n";
    let show = |range| f.memory.view("/memories/n.txt", Some(range)).unwrap();
    assert_eq!(
        show((2, 3)),
        format!("{header}     2\tLine 2\n     3\tLine 3")
    );
    assert_eq!(show((0, 1)), format!("{header}     1\tLine 1"));
    assert_eq!(
        show((-5, 2)),
        format!("{header}     1\tLine 1\n     2\tLine 2")
    );
    assert_eq!(
        show((1, -2)),
        format!("{header}     1\tLine 1\n     2\tLine 2")
    );
    assert_eq!(
        show((2, -1)),
        format!("{header}     2\tLine 2\n     3\tLine 3\n     4\t")
    );
    assert_eq!(show((4, 4)), format!("{header}     4\t"));
    assert_eq!(show((1, i64::MAX)), show((1, 100)));
    for empty in [(3, 2), (1, 0), (10, 20), (5, -1), (i64::MAX, -1)] {
        assert_eq!(show(empty), header, "{empty:?}");
    }
}
}

both_backends! {
fn view_errors() {
    let f = Fixture::new();
    f.plant("f.txt", "x");
    assert_eq!(
        err(f.memory.view("/memories/nope", None)),
        (
            K::NotFound,
            "The path /memories/nope does not exist. Please provide a valid path.".into()
        )
    );
    assert_eq!(err(f.memory.view("/memories/f.txt/x", None)).0, K::NotFound);
    f.plant("bin.dat", [0xff, 0xfe, 0x00, b'a']);
    assert_eq!(err(f.memory.view("/memories/bin.dat", None)).0, K::NotText);
    f.plant("nul.txt", "a\0b");
    assert_eq!(err(f.memory.view("/memories/nul.txt", None)).0, K::NotText);
}
}

/// Only a directory can hold a FIFO.
#[test]
fn view_refuses_a_fifo() {
    // One backend: a FIFO exists only in a directory.
    let f = Fixture::directory();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        f.root().join("fifo"),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    assert_eq!(
        err(f.memory.view("/memories/fifo", None)),
        (
            K::NotAFile,
            "Unsupported file type for /memories/fifo".into()
        )
    );
}

both_backends! {
fn view_refuses_more_than_999999_lines() {
    let f = Fixture::new();
    f.plant("big.txt", "\n".repeat(999_999));
    assert_eq!(
        err(f.memory.view("/memories/big.txt", None)),
        (
            K::TooLarge,
            "File /memories/big.txt exceeds maximum line limit of 999,999 lines.".into()
        )
    );
}
}

both_backends! {
fn create_writes_exact_text_and_makes_parents() {
    let f = Fixture::new();
    assert_eq!(
        f.memory
            .create("/memories/a/b/c/deep.md", "x\r\ny")
            .unwrap(),
        "File created successfully at: /memories/a/b/c/deep.md"
    );
    assert_eq!(f.read("a/b/c/deep.md"), "x\r\ny");
    for dir in ["a", "a/b", "a/b/c"] {
        assert_eq!(
            f.snapshot(false).get(dir),
            Some(&common::Node::Dir),
            "{dir}"
        );
    }
    // A trailing slash names a file, as in the SDK.
    f.memory.create("/memories/newdir/", "").unwrap();
    assert_eq!(
        f.snapshot(false).get("newdir"),
        Some(&common::Node::File(Vec::new()))
    );
}
}

/// Modes are a directory's: files 0600, directories 0700.
#[test]
fn created_files_and_directories_are_private() {
    // One backend: file modes are a directory's.
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::directory();
    f.memory.create("/memories/a/b/c/deep.md", "x").unwrap();
    let mode = |rel: &str| {
        std::fs::metadata(f.root().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("a/b/c/deep.md"), 0o600);
    for dir in ["a", "a/b", "a/b/c", ""] {
        assert_eq!(mode(dir), 0o700, "{dir:?}");
    }
}

both_backends! {
fn create_never_overwrites() {
    let f = Fixture::new();
    f.memory.create("/memories/n.txt", "first").unwrap();
    assert_eq!(
        err(f.memory.create("/memories/n.txt", "second")),
        (
            K::AlreadyExists,
            "File /memories/n.txt already exists".into()
        )
    );
    assert_eq!(f.read("n.txt"), "first");
    assert_eq!(
        err(f.memory.create("/memories", "x")).1,
        "File /memories already exists"
    );
    assert_eq!(
        err(f.memory.create("/memories/", "x")).1,
        "File /memories/ already exists"
    );
    f.mkdir("dir");
    assert_eq!(
        err(f.memory.create("/memories/dir", "x")).0,
        K::AlreadyExists
    );
}
}

both_backends! {
fn create_below_a_file_is_refused_and_leaves_nothing() {
    let f = Fixture::new();
    f.plant("f.txt", "x");
    let before = f.snapshot(true);
    assert_eq!(
        err(f.memory.create("/memories/f.txt/child", "y")),
        (
            K::NotADirectory,
            "Cannot create /memories/f.txt/child: /memories/f.txt is a file, not a directory"
                .into()
        )
    );
    assert_eq!(
        err(f.memory.create("/memories/f.txt/deeper/child", "y")).0,
        K::NotADirectory
    );
    assert_eq!(f.snapshot(true), before);
}
}

both_backends! {
fn create_refuses_nul_in_text() {
    let f = Fixture::new();
    assert_eq!(
        err(f.memory.create("/memories/n.txt", "a\0b")).0,
        K::NotText
    );
    assert!(!f.exists("n.txt"));
}
}

both_backends! {
fn str_replace_edits_and_shows_a_snippet() {
    let f = Fixture::new();
    f.plant("n.txt", "Line 1\nLine 2\nLine 3\n");
    assert_eq!(
        f.memory
            .str_replace("/memories/n.txt", "Line 2", "Second")
            .unwrap(),
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tLine 1\n     2\tSecond\n     3\tLine 3\n     4\t"
    );
    assert_eq!(f.read("n.txt"), "Line 1\nSecond\nLine 3\n");

    let ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10";
    let snippet = |content: &str, old: &str, new: &str| {
        f.plant("t.txt", content);
        let out = f.memory.str_replace("/memories/t.txt", old, new).unwrap();
        out.split_once(":\n").unwrap().1.to_owned()
    };
    assert_eq!(
        snippet(ten, "5\n6", "five\nsix\nextra"),
        "     3\t3\n     4\t4\n     5\tfive\n     6\tsix\n     7\textra"
    );
    assert_eq!(f.read("t.txt"), "1\n2\n3\n4\nfive\nsix\nextra\n7\n8\n9\n10");
    assert_eq!(
        snippet(ten, "1\n2\n", ""),
        "     1\t3\n     2\t4\n     3\t5"
    );
    assert_eq!(
        snippet(ten, "8\n9\n10", "X"),
        "     6\t6\n     7\t7\n     8\tX"
    );
    assert_eq!(
        snippet("a\r\nb\r\nc", "b", "B"),
        "     1\ta\r\n     2\tB\r\n     3\tc"
    );
    assert_eq!(snippet("aaa", "aa", "X"), "     1\tXa");
    assert_eq!(snippet("", "", "X"), "     1\tX");
    // new_str is literal: no `$&` or backslash expansion.
    snippet("cost", "cost", "$& \\1");
    assert_eq!(f.read("t.txt"), "$& \\1");
}
}

both_backends! {
fn str_replace_errors_list_every_occurrence() {
    let f = Fixture::new();
    f.plant("n.txt", "Line 1\nLine 2\nLine 3\n");
    assert_eq!(
        err(f.memory.str_replace("/memories/n.txt", "Line", "x")),
        (K::MultipleMatches, "No replacement was performed. Multiple occurrences of old_str `Line` in lines: 1, 2, 3. Please ensure it is unique".into())
    );
    assert_eq!(
        err(f.memory.str_replace("/memories/n.txt", "zzz", "x")),
        (K::NoMatch, "No replacement was performed, old_str `zzz` did not appear verbatim in /memories/n.txt.".into())
    );
    f.plant("o.txt", "aaaa");
    assert_eq!(
        err(f.memory.str_replace("/memories/o.txt", "aa", "x")).1,
        "No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1, 1, 1. Please ensure it is unique"
    );
    assert_eq!(f.read("o.txt"), "aaaa");
    assert_eq!(
        err(f.memory.str_replace("/memories/none.txt", "a", "b")).1,
        "The path /memories/none.txt does not exist. Please provide a valid path."
    );
    f.mkdir("d");
    assert_eq!(
        err(f.memory.str_replace("/memories/d", "a", "b")),
        (K::NotAFile, "The path /memories/d is not a file.".into())
    );
    assert_eq!(
        err(f.memory.str_replace("/memories", "a", "b")).0,
        K::NotAFile
    );
}
}

both_backends! {
fn insert_follows_the_sdk_line_model() {
    let f = Fixture::new();
    let cases: [(&str, i64, &str, &str); 16] = [
        (
            "Line 1\nLine 2",
            1,
            "Inserted Line",
            "Line 1\nInserted Line\nLine 2\n",
        ),
        (
            "Line 1\nLine 2",
            0,
            "First Line",
            "First Line\nLine 1\nLine 2\n",
        ),
        (
            "Line 1\nLine 2",
            2,
            "Last Line",
            "Line 1\nLine 2\nLast Line\n",
        ),
        ("Line 1\nLine 2\n", 2, "X", "Line 1\nLine 2\nX\n"),
        ("a\n\n", 2, "X", "a\n\nX\n"),
        ("a\n\n\n", 3, "X", "a\n\n\nX\n"),
        ("", 0, "X", "X\n"),
        ("", 0, "", "\n"),
        ("", 0, "\n\n", "\n"),
        ("a", 0, "HEAD\n\n", "HEAD\na\n"),
        ("a", 1, "x\r\n", "a\nx\r\n"),
        ("a\r\nb\r\n", 1, "X", "a\r\nX\nb\r\n"),
        ("a\r\nb\r\n", 2, "X", "a\r\nb\r\nX\n"),
        ("a\rb\rc", 1, "X", "a\rb\rc\nX\n"),
        ("a\nb", 1, "m1\nm2", "a\nm1\nm2\nb\n"),
        ("a\nb", 1, "\nlead", "a\n\nlead\nb\n"),
    ];
    for (before, line, text, after) in cases {
        f.plant("i.txt", before);
        assert_eq!(
            f.memory.insert("/memories/i.txt", line, text).unwrap(),
            "The file /memories/i.txt has been edited."
        );
        assert_eq!(f.read("i.txt"), after, "{before:?} {line} {text:?}");
    }
}
}

both_backends! {
fn insert_errors() {
    let f = Fixture::new();
    for (before, line, range) in [
        ("Line 1\nLine 2", 3, 2),
        ("Line 1\nLine 2", -1, 2),
        ("Line 1\nLine 2\n", 3, 2),
        ("a\n\n", 3, 2),
        ("", 1, 0),
    ] {
        f.plant("i.txt", before);
        assert_eq!(
            err(f.memory.insert("/memories/i.txt", line, "X")),
            (
                K::InvalidLine,
                format!(
                    "Invalid `insert_line` parameter: {line}. It should be within the range [0, {range}]."
                )
            )
        );
        assert_eq!(f.read("i.txt"), before);
    }
    assert_eq!(
        err(f.memory.insert("/memories/none", 0, "x")).0,
        K::NotFound
    );
    assert_eq!(
        err(f.memory.insert("/memories", 0, "x")),
        (K::NotAFile, "The path /memories is not a file.".into())
    );
}
}

both_backends! {
fn delete_removes_files_and_trees() {
    let f = Fixture::new();
    f.plant("a/b/c.txt", "x");
    f.plant("a/d.txt", "y");
    f.plant("keep.txt", "z");
    assert_eq!(
        f.memory.delete("/memories/a").unwrap(),
        "Successfully deleted /memories/a"
    );
    assert!(!f.exists("a"));
    assert_eq!(
        f.memory.delete("/memories/keep.txt").unwrap(),
        "Successfully deleted /memories/keep.txt"
    );
    assert!(!f.exists("keep.txt"));
    assert_eq!(
        err(f.memory.delete("/memories/keep.txt")),
        (
            K::NotFound,
            "The path /memories/keep.txt does not exist".into()
        )
    );
}
}

both_backends! {
fn delete_refuses_the_root_in_every_spelling() {
    let f = Fixture::new();
    f.plant("x.txt", "x");
    for path in [
        "/memories",
        "/memories/",
        "/memories//",
        "/memories/.",
        "/memories/dir/..",
        "/memories/x.txt/..",
    ] {
        assert_eq!(
            err(f.memory.delete(path)),
            (
                K::Protected,
                "Cannot delete the /memories directory itself".into()
            ),
            "{path}"
        );
    }
    assert!(f.exists("x.txt"));
}
}

both_backends! {
fn rename_moves_and_makes_parents_but_never_overwrites() {
    let f = Fixture::new();
    f.plant("a.txt", "A");
    f.plant("b.txt", "B");
    assert_eq!(
        f.memory
            .rename("/memories/a.txt", "/memories/new/deep/a.txt")
            .unwrap(),
        "Successfully renamed /memories/a.txt to /memories/new/deep/a.txt"
    );
    assert_eq!(f.read("new/deep/a.txt"), "A");
    assert_eq!(
        err(f
            .memory
            .rename("/memories/b.txt", "/memories/new/deep/a.txt")),
        (
            K::AlreadyExists,
            "The destination /memories/new/deep/a.txt already exists".into()
        )
    );
    // The destination is checked before the source, as in the SDK.
    assert_eq!(
        err(f.memory.rename("/memories/missing", "/memories/b.txt")).0,
        K::AlreadyExists
    );
    assert_eq!(
        err(f.memory.rename("/memories/b.txt", "/memories/b.txt")).0,
        K::AlreadyExists
    );
    assert_eq!(f.read("b.txt"), "B");
}
}

both_backends! {
fn rename_errors_leave_the_tree_unchanged() {
    let f = Fixture::new();
    f.plant("d/x.txt", "x");
    f.plant("f.txt", "f");
    let before = f.snapshot(false);
    assert_eq!(
        err(f
            .memory
            .rename("/memories/missing", "/memories/new/deep/c.txt")),
        (
            K::NotFound,
            "The path /memories/missing does not exist".into()
        )
    );
    assert_eq!(
        err(f.memory.rename("/memories/d", "/memories/d/sub/d")).0,
        K::NotADirectory
    );
    assert_eq!(
        err(f.memory.rename("/memories/d/x.txt", "/memories/f.txt/x")).0,
        K::NotADirectory
    );
    for root in ["/memories", "/memories/", "/memories/d/.."] {
        assert_eq!(
            err(f.memory.rename(root, "/memories/z")),
            (
                K::Protected,
                "Cannot rename the /memories directory itself".into()
            )
        );
    }
    // The first invalid path wins.
    assert_eq!(
        err(f.memory.rename("/etc/x", "/etc/y")).1,
        "Path must start with /memories, got: /etc/x"
    );
    assert_eq!(
        err(f.memory.rename("/memories/f.txt", "/etc/y")).1,
        "Path must start with /memories, got: /etc/y"
    );
    assert_eq!(f.snapshot(false), before);
}
}

both_backends! {
fn reserved_directory_is_hidden_and_refused() {
    let f = Fixture::new();
    f.memory.create("/memories/first.md", "x").unwrap();
    assert_eq!(f.snapshot(true).get(".memcap"), Some(&common::Node::Dir));
    assert!(
        !f.memory
            .view("/memories", None)
            .unwrap()
            .contains(".memcap")
    );
    for path in [
        "/memories/.memcap",
        "/memories/.memcap/lock",
        "/memories/a/../.memcap/tmp",
    ] {
        assert_eq!(err(f.memory.view(path, None)).0, K::InvalidPath, "{path}");
        assert_eq!(err(f.memory.delete(path)).0, K::InvalidPath, "{path}");
        assert_eq!(err(f.memory.create(path, "x")).0, K::InvalidPath, "{path}");
    }
    f.plant("n.txt", "x");
    assert_eq!(
        err(f
            .memory
            .rename("/memories/n.txt", "/memories/.memcap/n.txt"))
        .0,
        K::InvalidPath
    );
    assert!(f.exists("n.txt") && !f.exists(".memcap/n.txt"));
}
}

both_backends! {
fn sdk_deviations_are_refused_clearly() {
    let f = Fixture::new();
    assert_eq!(
        err(f.memory.create("/memoriesX.md", "x")),
        (
            K::InvalidPath,
            "Path must be /memories or start with /memories/, got: /memoriesX.md".into()
        )
    );
    assert_eq!(
        err(f.memory.create("/memories_backup/s.txt", "x")).0,
        K::InvalidPath
    );
    assert_eq!(err(f.memory.view("/memories/a\0b", None)).0, K::InvalidPath);
    let long = format!("/memories/{}", "n".repeat(300));
    assert_eq!(err(f.memory.create(&long, "x")).0, K::InvalidPath);
    assert!(f.snapshot(false).is_empty());
}
}

#[test]
fn names_that_are_not_utf8_are_left_out_of_listings() {
    // One backend: only a directory can hold a name that is not UTF-8.
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::directory();
    f.plant("good.txt", "g");
    let bad = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    std::fs::write(f.root().join(bad), "b").unwrap();
    assert_eq!(
        f.memory.view("/memories", None).unwrap(),
        format!(
            "{LISTING} /memories, excluding hidden items:\n{}\t/memories\n1B\t/memories/good.txt",
            f.dir_size("")
        )
    );
}

#[test]
fn links_inside_the_root_are_read_through_but_changed_as_names() {
    // One backend: symbolic links exist only in a directory.
    use std::os::unix::fs::symlink;
    let f = Fixture::directory();
    f.plant("real.txt", "one\n");
    symlink("real.txt", f.root().join("link")).unwrap();
    symlink("real.txt", f.root().join("link2")).unwrap();
    assert_eq!(
        f.memory.view("/memories/link", None).unwrap(),
        "Here's the content of /memories/link with line numbers:\n     1\tone\n     2\t"
    );
    // An edit replaces the link with the edited file; the target is untouched.
    f.memory
        .str_replace("/memories/link", "one", "two")
        .unwrap();
    assert!(!f.root().join("link").is_symlink());
    assert_eq!(
        (f.read("link"), f.read("real.txt")),
        ("two\n".into(), "one\n".into())
    );
    // delete and rename act on the link itself.
    f.memory
        .rename("/memories/link2", "/memories/moved")
        .unwrap();
    assert!(f.root().join("moved").is_symlink());
    f.memory.delete("/memories/moved").unwrap();
    assert_eq!(f.read("real.txt"), "one\n");
    assert!(!f.exists("moved"));
}
