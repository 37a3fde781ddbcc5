//! The house rules of the source tree, checked from the code's own text:
//! each floor imports only the floors below it (`base` <- `rules` <-
//! `engine` <- front ends `hub`, `dxp`, `cli` <- `tools`), the front ends import
//! nothing of each other, and no comment or doc points outside the
//! repository.

use std::path::{Path, PathBuf};

/// The floor of a top-level module of the library; front ends share one.
fn floor(module: &str) -> Option<u8> {
    match module {
        "base" => Some(0),
        "rules" => Some(1),
        "engine" => Some(2),
        "hub" | "dxp" | "cli" => Some(3),
        "tools" => Some(4),
        _ => None,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::NAME` in `text`, with its line number.
fn crate_references(text: &str) -> Vec<(usize, String)> {
    let mut refs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // `pub(crate)` and the like are no path.
            let before = rest[..i].chars().last();
            if !name.is_empty() && before != Some('(') {
                refs.push((n + 1, name));
            }
            rest = after;
        }
        // `use crate::{a, b}` names several floors at once.
        if let Some(i) = line.find("crate::{") {
            for name in line[i + "crate::{".len()..].split([',', '}']) {
                let name: String =
                    name.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    refs.push((n + 1, name));
                }
            }
        }
    }
    refs
}

#[test]
fn imports_run_only_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
        let top = top.trim_end_matches(".rs").to_string();
        // lib.rs declares the floors and main.rs sits above them all.
        let Some(own) = floor(&top) else { continue };
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("dammer::"), "{}: the library names itself `crate`", rel.display());
        for (line, name) in crate_references(&text) {
            checked += 1;
            let Some(theirs) = floor(&name) else {
                wrong.push(format!("{}:{line}: crate::{name} is no floor of the house", rel.display()));
                continue;
            };
            if name != top && theirs >= own {
                wrong.push(format!(
                    "{}:{line}: {top} (floor {own}) uses {name} (floor {theirs})",
                    rel.display()
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} references found: is the scan broken?");
    assert!(wrong.is_empty(), "imports that do not run downwards:\n{}", wrong.join("\n"));
}

#[test]
fn the_scan_sees_upward_and_sideways_imports() {
    let refs =
        crate_references("use crate::engine::Engine;\npub(crate) fn f() {}\nuse crate::{hub, cli::x};");
    let names: Vec<&str> = refs.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["engine", "hub", "cli"]);
}

#[test]
fn nothing_points_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    for dir in ["docs", "bench"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.push(root.join("README.md"));
    let outside = ["../", "shared/"].concat();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains(&outside),
                "{}:{}: points outside the repository: {line}",
                path.display(),
                n + 1
            );
        }
    }
}
