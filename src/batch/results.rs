//! The results file: one JSON object per line and per task, appended with a
//! single write and made durable (`fsync`) before the next task is counted
//! done. A batch killed at any moment leaves complete lines plus at most one
//! torn last line (no newline yet); `--resume` cuts that line off and skips
//! every task whose key has a complete line, so nothing is lost or repeated.
//! An exclusive `flock` keeps two batches from writing one file.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::isolate::{classify, Limits, Outcome, Status};
use super::tasks::Task;
use crate::{Error, Result};

/// Results file opened for appending.
pub struct ResultsFile {
    file: File,
    path: PathBuf,
}

/// Complete lines of a results file with their line numbers; a torn last
/// line (no newline) is left out. A complete line that is not a JSON object
/// with a `key` is an error naming file:line.
pub fn read(path: &Path) -> Result<Vec<(usize, Map<String, Value>)>> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Usage(format!(
            "{}: not a regular file: a results file of mpv batch is expected",
            path.display()
        )));
    }
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse(path, &text)
}

fn parse(path: &Path, text: &[u8]) -> Result<Vec<(usize, Map<String, Value>)>> {
    let complete = match text.iter().rposition(|&b| b == b'\n') {
        Some(i) => &text[..=i],
        None => &text[..0],
    };
    if complete.len() < text.len() {
        eprintln!(
            "mpv: warning: {}: the last line is incomplete (a batch still writing it, or killed): left out",
            path.display()
        );
    }
    let mut out = Vec::new();
    for (i, line) in complete.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let bad = |why: &str| {
            Error::Usage(format!(
                "{}:{}: not a result line of mpv batch ({why}); remove the line to go on",
                path.display(),
                i + 1
            ))
        };
        let v: Value = serde_json::from_slice(line).map_err(|e| bad(&e.to_string()))?;
        let Value::Object(m) = v else {
            return Err(bad("not a JSON object"));
        };
        if !m.get("key").is_some_and(Value::is_string) {
            return Err(bad("no `key`"));
        }
        out.push((i + 1, m));
    }
    Ok(out)
}

impl ResultsFile {
    /// Opens `path` for appending. With `resume`, a torn last line is cut off
    /// and the lines of the tasks already done are returned; without it, a
    /// file that already holds results is refused.
    pub fn open(path: &Path, resume: bool) -> Result<(Self, Vec<Map<String, Value>>)> {
        // A device or a pipe would be read without end or block.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(Error::Usage(format!(
                "{}: not a regular file: --out names the results file to write",
                path.display()
            )));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| Error::write(path, e))?;
        // SAFETY: `flock` on a file descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(Error::Usage(format!(
                "{}: another mpv batch is writing this file",
                path.display()
            )));
        }
        let mut text = Vec::new();
        file.read_to_end(&mut text)
            .map_err(|e| Error::io(path, e))?;
        if !text.is_empty() && !resume {
            return Err(Error::Usage(format!(
                "{}: holds results already: give --resume to continue that batch, \
                 or remove the file",
                path.display()
            )));
        }
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if keep < text.len() {
            // The batch died while writing this line: its task runs again.
            file.set_len(keep as u64)
                .map_err(|e| Error::write(path, e))?;
            file.sync_all().map_err(|e| Error::write(path, e))?;
            file.seek(SeekFrom::End(0))
                .map_err(|e| Error::io(path, e))?;
        }
        let done = parse(path, &text[..keep])?
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        Ok((
            ResultsFile {
                file,
                path: path.to_path_buf(),
            },
            done,
        ))
    }

    /// Appends one line with one write and waits until it is on disk.
    pub fn append(&mut self, line: &Value) -> Result<()> {
        let mut bytes = serde_json::to_vec(line).map_err(|e| Error::Other(e.to_string()))?;
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::write(&self.path, e))
    }
}

/// The result line of a task: `mpv verify`'s JSON (when it printed one) with
/// the batch's fields on top: `key`, `file` (the task path), `path` (the
/// module's file as verify read it, absolute), `set`, `rule`,
/// `prp`, `expected`, `status` (+ `status_detail`, `stderr` when not ok),
/// `wall_s`, `cpu_s`, `peak_mem_mb` (of the child, from rusage), `exit`, `limits`.
pub fn line(task: &Task, o: &Outcome, limits: &Limits, cfg: &super::runner::Config) -> Value {
    let time_limit = cfg.time_limit;
    let (mut status, mut detail) = classify(o, limits);
    let mut m = Map::new();
    if status == Status::Ok {
        match serde_json::from_slice::<Value>(&o.stdout) {
            Ok(Value::Object(v)) if v.get("properties").is_some_and(Value::is_array) => m = v,
            _ => {
                status = Status::BadOutput;
                let head = String::from_utf8_lossy(&o.stdout);
                detail = format!(
                    "output is not a verify result: {}",
                    head.chars().take(200).collect::<String>()
                );
            }
        }
    }
    if !m.contains_key("properties") {
        m.insert("properties".into(), json!([]));
    }
    m.insert("key".into(), json!(task.key));
    m.insert("file".into(), json!(task.file));
    // Where the module was read from (`file` is relative to the manifest's
    // root, which the line does not record): the HTML report shows its source.
    let path = std::fs::canonicalize(&task.path).unwrap_or_else(|_| task.path.clone());
    m.insert("path".into(), json!(path.display().to_string()));
    m.insert("set".into(), json!(task.set));
    m.insert("rule".into(), json!(task.rule));
    m.insert(
        "prp".into(),
        json!(task
            .prp
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()),
    );
    m.insert("expected".into(), json!(task.expected));
    m.insert("status".into(), json!(status));
    if status != Status::Ok {
        m.insert("status_detail".into(), json!(detail));
        let err = String::from_utf8_lossy(&o.stderr);
        let tail: String = err
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        m.insert("stderr".into(), json!(tail));
    }
    m.insert("wall_s".into(), json!(round3(o.wall.as_secs_f64())));
    m.insert("cpu_s".into(), json!(round3(o.cpu.as_secs_f64())));
    m.insert("peak_mem_mb".into(), json!(round3(o.peak_mem_mb)));
    let exit = match &o.ending {
        super::isolate::Ending::Exited(c) => json!({"code": c}),
        super::isolate::Ending::Signaled(s) => json!({"signal": s}),
        super::isolate::Ending::WallKilled => json!({"signal": libc::SIGKILL, "watchdog": true}),
        super::isolate::Ending::SpawnFailed { .. } => json!({"spawn_failed": true}),
    };
    m.insert("exit".into(), exit);
    m.insert(
        "limits".into(),
        json!({"time_s": time_limit, "cpu_s": limits.cpu_s,
               "memory_mb": limits.memory_mb, "wall_s": limits.wall.as_secs_f64()}),
    );
    m.insert("verify_args".into(), json!(cfg.verify_args_text()));
    Value::Object(m)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("mpv-results-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn resume_drops_a_torn_line() {
        let p = tmp("torn");
        std::fs::write(&p, "{\"key\":\"a\"}\n{\"key\":\"b\"}\n{\"key\":\"c\",\"fi").unwrap();
        let (mut f, done) = ResultsFile::open(&p, true).unwrap();
        let keys: Vec<&str> = done.iter().map(|m| m["key"].as_str().unwrap()).collect();
        assert_eq!(keys, ["a", "b"]);
        f.append(&json!({"key": "c"})).unwrap();
        drop(f);
        let keys: Vec<String> = read(&p)
            .unwrap()
            .into_iter()
            .map(|(_, m)| m["key"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn existing_results_need_resume() {
        let p = tmp("exists");
        std::fs::write(&p, "{\"key\":\"a\"}\n").unwrap();
        let e = ResultsFile::open(&p, false).err().unwrap().to_string();
        assert!(e.contains("--resume"), "{e}");
        let p = tmp("empty");
        assert!(ResultsFile::open(&p, false).is_ok());
    }

    #[test]
    fn a_second_writer_is_refused() {
        let p = tmp("lock");
        let (_f, _) = ResultsFile::open(&p, true).unwrap();
        let e = ResultsFile::open(&p, true).err().unwrap().to_string();
        assert!(e.contains("another mpv batch"), "{e}");
    }

    #[test]
    fn bad_lines_name_the_line() {
        let p = tmp("bad");
        std::fs::write(&p, "{\"key\":\"a\"}\nnot json\n").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains(":2:"), "{e}");
        std::fs::write(&p, "{\"nokey\":1}\n").unwrap();
        assert!(read(&p).unwrap_err().to_string().contains(":1:"));
    }
}
