//! The tree's unit tests: paths inside the base, renames, dirty pages, rows round-tripped.

use super::*;

#[test]
fn paths_resolve_inside_the_base_only() {
    let mut tree = Tree::empty();
    let a = tree.create_dir(ROOT_INO, "a").unwrap();
    let f = tree.create_file(a, "f.md").unwrap();
    assert_eq!(tree.resolve(ROOT_INO, "a/f.md"), Ok(f));
    assert_eq!(tree.resolve(ROOT_INO, "a/../a/./f.md"), Ok(f));
    assert_eq!(tree.resolve(a, ".."), Err(Code::NotPermitted));
    assert_eq!(tree.resolve(ROOT_INO, "/a"), Err(Code::NotPermitted));
    assert_eq!(tree.resolve(ROOT_INO, "a/f.md/x"), Err(Code::NotDirectory));
    assert_eq!(tree.resolve(ROOT_INO, "b"), Err(Code::NoEntry));
}

#[test]
fn rename_replaces_files_and_keeps_directories_out_of_themselves() {
    let mut tree = Tree::empty();
    let a = tree.create_dir(ROOT_INO, "a").unwrap();
    let b = tree.create_dir(a, "b").unwrap();
    tree.create_file(ROOT_INO, "x").unwrap();
    let y = tree.create_file(ROOT_INO, "y").unwrap();
    tree.write(y, 0, b"new", u64::MAX).unwrap();
    tree.rename(ROOT_INO, "y", ROOT_INO, "x").unwrap();
    assert_eq!(
        tree.data(tree.resolve(ROOT_INO, "x").unwrap()),
        Ok(&b"new"[..])
    );
    assert_eq!(tree.resolve(ROOT_INO, "y"), Err(Code::NoEntry));
    assert_eq!(tree.rename(ROOT_INO, "a", b, "c"), Err(Code::Invalid));
    assert_eq!(
        tree.rename(ROOT_INO, "x", ROOT_INO, "a"),
        Err(Code::IsDirectory)
    );
}

#[test]
fn writes_mark_the_pages_they_touch() {
    let mut tree = Tree::empty();
    let f = tree.create_file(ROOT_INO, "j").unwrap();
    tree.write(f, 0, &vec![1; (PAGE * 3) as usize], u64::MAX)
        .unwrap();
    tree.take_dirty();
    tree.write(f, PAGE * 3 - 1, b"ab", u64::MAX).unwrap();
    let dirty = tree.take_dirty();
    assert_eq!(
        dirty.pages[&f].iter().copied().collect::<Vec<_>>(),
        vec![2, 3]
    );
    assert!(dirty.shrunk.is_empty());
    tree.set_size(f, 10, u64::MAX).unwrap();
    let dirty = tree.take_dirty();
    assert!(dirty.pages.get(&f).is_none_or(|p| p.is_empty()) && dirty.shrunk.contains(&f));
    tree.unlink_file(ROOT_INO, "j").unwrap();
    assert!(tree.take_dirty().gone.contains(&f));
}

#[test]
fn rows_round_trip_with_hard_links_and_dirty_paths() {
    let mut tree = Tree::empty();
    let a = tree.create_dir(ROOT_INO, "a").unwrap();
    let f = tree.create_file(a, "tmp").unwrap();
    tree.write(f, 0, b"hello", u64::MAX).unwrap();
    tree.link(f, ROOT_INO, "f.md").unwrap();
    tree.take_dirty();
    tree.unlink_file(a, "tmp").unwrap();
    let dirty = tree.take_dirty();
    assert!(
        dirty.paths.contains("a/tmp") && dirty.paths.contains("a"),
        "{dirty:?}"
    );
    let data = tree
        .rows()
        .iter()
        .filter_map(|row| Some((row.ino, tree.data(row.ino).ok()?.to_vec())))
        .collect();
    let back = Tree::from_rows(tree.rows(), data, tree.next_ino(), false);
    let g = back.resolve(ROOT_INO, "f.md").unwrap();
    assert_eq!((g, back.data(g)), (f, Ok(&b"hello"[..])));
    assert_eq!(back.resolve(ROOT_INO, "a/tmp"), Err(Code::NoEntry));
    assert!(!back.is_dirty());
}
