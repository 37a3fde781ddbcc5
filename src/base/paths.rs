//! Where a file a user names is looked for. GUIs and tournament managers
//! start an engine from their own working directory or from the engine's
//! folder, whichever they like (the Hub GUI, GWDGUI and the DXP managers
//! differ), and a release unpacks its files beside the executable. So a
//! relative path is read from the working directory when it is there, and
//! else from the executable's folder: `bb-path=egdb` finds the tables
//! unpacked beside `dammer.exe` however the GUI started it.

use std::path::{Path, PathBuf};

/// `path` as given when it is absolute or exists from the working
/// directory; else the same relative path in the executable's folder if
/// that exists; else `path` as given (so that an error names what the
/// user wrote).
pub fn resolve(path: &Path) -> PathBuf {
    resolve_in(path, std::env::current_exe().ok().as_deref().and_then(Path::parent))
}

/// [`resolve`] with the executable's folder given (`None`: unknown).
pub fn resolve_in(path: &Path, exe_dir: Option<&Path>) -> PathBuf {
    if path.as_os_str().is_empty() || path.is_absolute() || path.exists() {
        return path.to_path_buf();
    }
    match exe_dir.map(|dir| dir.join(path)) {
        Some(beside) if beside.exists() => beside,
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_is_read_from_the_working_directory_then_beside_the_executable() {
        let dir = std::env::temp_dir().join(format!("dammer-paths-{}", std::process::id()));
        let exe_dir = dir.join("Dammer 0.1 (x86_64)");
        std::fs::create_dir_all(exe_dir.join("egdb")).unwrap();
        std::fs::write(exe_dir.join("my book.bin"), b"x").unwrap();
        // Not in the working directory: found beside the executable.
        assert_eq!(resolve_in(Path::new("egdb"), Some(&exe_dir)), exe_dir.join("egdb"));
        assert_eq!(resolve_in(Path::new("my book.bin"), Some(&exe_dir)), exe_dir.join("my book.bin"));
        // Nowhere: as given, for the error message.
        assert_eq!(resolve_in(Path::new("nothing/here"), Some(&exe_dir)), PathBuf::from("nothing/here"));
        assert_eq!(resolve_in(Path::new("egdb"), None), PathBuf::from("egdb"));
        // Absolute, or present in the working directory: as given.
        assert_eq!(resolve_in(&exe_dir, Some(Path::new("/elsewhere"))), exe_dir);
        let here = Path::new("Cargo.toml");
        assert!(here.exists(), "tests run in the package's folder");
        assert_eq!(resolve_in(here, Some(&exe_dir)), PathBuf::from("Cargo.toml"));
        assert_eq!(resolve_in(Path::new(""), Some(&exe_dir)), PathBuf::new());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
