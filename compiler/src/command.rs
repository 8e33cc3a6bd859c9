//! Running a command the person at the keyboard gave (a selector, an embedder): never one a
//! workspace brings. `sh -c COMMAND` in a process group of its own, fed on stdin, read on
//! stdout, bounded in time and output.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `sh -c COMMAND` with `input` on stdin: its stdout (at most `max_output` bytes), or why
/// there is none (it could not start, exited with an error, or ran past `timeout`, when it and
/// everything it started are killed).
pub fn run(
    command: &str,
    input: String,
    timeout: Duration,
    max_output: u64,
) -> Result<String, String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout stops what the shell started too.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("could not start `sh -c {command}`: {e}"))?;
    let stdin = child.stdin.take();
    std::thread::spawn(move || {
        // A command that does not read its input gets a broken pipe here, not an error.
        let _ = stdin.map(|mut s| s.write_all(input.as_bytes()));
    });
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(max_output).read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("could not wait for it: {e}")),
        }
    };
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    if !status.success() {
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("exited with {status}: {}", clip(last)));
    }
    Ok(out)
}

/// At most 120 characters of a text, for a message.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}
