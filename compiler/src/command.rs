//! Running a command the person at the keyboard gave (a selector, an embedder): never one a
//! workspace brings. `sh -c COMMAND` in a process group of its own, fed on stdin, read on
//! stdout, bounded in time and output. `git`, reading a workspace's history, runs the same way.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the output of a command that has exited may take to arrive past the deadline: it
/// is already in the pipes, so this only keeps an answer given at the last moment.
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// Runs `sh -c COMMAND` with `input` on stdin: its stdout (at most `max_output` bytes), or why
/// there is none (it could not start, exited with an error, or ran past `timeout`). Whatever
/// it started in its process group is killed when it ends or is stopped, and its output is
/// never waited for past `timeout`, even when a process it started elsewhere holds it open.
pub fn run(
    command: &str,
    input: String,
    timeout: Duration,
    max_output: u64,
) -> Result<String, String> {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(command);
    let name = format!("sh -c {command}");
    let out = run_program(sh, &name, input.into_bytes(), timeout, max_output)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// [`run`] for a program the caller sets up (arguments, folder, environment), as bytes:
/// `git` reading history gets the same bounds in time and output as a person's command.
/// `name` names it in an error.
pub(crate) fn run_program(
    mut program: Command,
    name: &str,
    input: Vec<u8>,
    timeout: Duration,
    max_output: u64,
) -> Result<Vec<u8>, String> {
    use std::os::unix::process::CommandExt;
    let deadline = Instant::now() + timeout;
    let mut child = program
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so stopping it stops what the shell started too.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("could not start `{name}`: {e}"))?;
    let stdin = child.stdin.take();
    std::thread::spawn(move || {
        // A command that does not read its input gets a broken pipe here, not an error.
        let _ = stdin.map(|mut s| s.write_all(&input));
    });
    let (sent, outputs) = mpsc::channel();
    read_into(child.stdout.take(), max_output, 0, sent.clone());
    read_into(child.stderr.take(), max_output, 1, sent);
    let status = wait_until(&mut child, deadline);
    // Done or stopped, nothing it started may outlive it: a child left in the background
    // would hold its output pipes open (and the reads with them) for as long as it runs.
    // Its group keeps the shell's id while any member lives, so no other process is hit.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let status = match status {
        Some(status) => status.map_err(|e| format!("could not wait for it: {e}"))?,
        None => {
            let _ = child.wait();
            return Err(format!("timed out after {} s", timeout.as_secs_f64()));
        }
    };
    let mut got: [Option<Vec<u8>>; 2] = [None, None];
    let until = deadline.max(Instant::now()) + DRAIN_GRACE;
    while got.iter().any(Option::is_none) {
        // A process that left its group (setsid) may hold the pipes: its reader is left
        // behind, blocked, rather than this call.
        match outputs.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok((which, bytes)) => got[which] = Some(bytes),
            Err(_) => {
                return Err(format!(
                    "timed out after {} s: a process it started still holds its output",
                    timeout.as_secs_f64()
                ))
            }
        }
    }
    let [out, err] = got.map(Option::unwrap_or_default);
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("exited with {status}: {}", clip(last)));
    }
    Ok(out)
}

/// Reads at most `max` bytes of `pipe` to its end on a thread of its own, and sends them
/// tagged `which`.
fn read_into(
    pipe: Option<impl Read + Send + 'static>,
    max: u64,
    which: usize,
    sent: mpsc::Sender<(usize, Vec<u8>)>,
) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(p) = pipe {
            let _ = p.take(max).read_to_end(&mut bytes);
        }
        let _ = sent.send((which, bytes));
    });
}

/// The child's exit status, or `None` when it still runs at `deadline`.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::io::Result<ExitStatus>> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(Ok(status)),
            Ok(None) if Instant::now() >= deadline => return None,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Some(Err(e)),
        }
    }
}

/// At most 120 characters of a text, for a message.
pub(crate) fn clip(s: &str) -> String {
    match s.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_left_holding_the_output_is_neither_waited_for_nor_left_running() {
        let t = Instant::now();
        let out = run(
            "sleep 1000 & echo x",
            String::new(),
            Duration::from_secs(5),
            64,
        );
        assert_eq!(out.unwrap(), "x\n");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        // The shell echoes only once the detached child has left its group (it writes a mark
        // after `setsid`): killed while still in the group, it would not hold the output.
        let mark = std::env::temp_dir().join(format!("skillc-setsid-{}", std::process::id()));
        let _ = std::fs::remove_file(&mark);
        let t = Instant::now();
        let e = run(
            &format!(
                "setsid sh -c 'touch {m}; sleep 30' & while [ ! -e {m} ]; do sleep 0.01; done; echo x",
                m = mark.display()
            ),
            String::new(),
            Duration::from_secs(2),
            64,
        );
        let _ = std::fs::remove_file(&mark);
        assert!(e.unwrap_err().contains("still holds its output"));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }
}
