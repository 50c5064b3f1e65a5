//! Writing an output file without writing through whatever already sits at its path.
//!
//! An output folder may hold a symbolic link planted where a run writes (`wireless.pcapng`
//! pointing at some other file). Opening the path for writing would follow the link and
//! overwrite its target; instead the run writes a new file beside it (created exclusively,
//! so nothing pre-existing is opened) and renames it over the path when done. The rename
//! replaces the link itself, never its target, and a reader never sees a half-written file.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file being written under a temporary name, renamed over its target by `commit`;
/// dropped without a commit, the temporary file is removed.
#[derive(Debug)]
pub struct FreshFile {
    temp: Option<PathBuf>,
    target: PathBuf,
}

impl FreshFile {
    /// Creates a new, empty file beside `target` and returns it for writing.
    pub fn create(target: &Path) -> io::Result<(File, FreshFile)> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
            .to_string_lossy()
            .into_owned();
        let dir = target.parent().unwrap_or(Path::new(""));
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    let fresh = FreshFile {
                        temp: Some(temp),
                        target: target.to_path_buf(),
                    };
                    return Ok((file, fresh));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Renames the written file over the target (a link there is replaced, not followed).
    pub fn commit(mut self) -> io::Result<()> {
        match self.temp.take() {
            Some(temp) => std::fs::rename(temp, &self.target),
            None => Ok(()),
        }
    }
}

impl Drop for FreshFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_planted_link_is_replaced_and_its_target_left_alone() {
        let dir = std::env::temp_dir().join(format!("lastmile-fresh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let out = dir.join("out.pcapng");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        let (mut file, fresh) = FreshFile::create(&out).unwrap();
        file.write_all(b"capture").unwrap();
        drop(file);
        fresh.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "capture");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        // Not committed: nothing is left behind.
        let (_, fresh) = FreshFile::create(&dir.join("other")).unwrap();
        drop(fresh);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 2, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
