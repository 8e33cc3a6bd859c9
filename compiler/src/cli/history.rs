//! `skillc route --history FILE --time T`: the visitor's recent messages, read for routing's
//! stage 0 (docs/routing.md, "Fragments").

use std::path::Path;

use serde_json::Value;

/// Recent messages as read from a file: each text and its time in seconds.
pub(crate) type History = Vec<(String, f64)>;

/// A time as `--history` and `--time` take it: seconds (a number) or an RFC 3339 date and time
/// with its offset (`2026-05-01T10:00:05Z`).
pub(crate) fn seconds(value: &Value) -> Result<f64, String> {
    match value {
        Value::Number(n) => n
            .as_f64()
            .filter(|s| s.is_finite())
            .ok_or_else(|| format!("`{n}` is not a time in seconds")),
        Value::String(s) => rfc3339(s),
        other => Err(format!(
            "a time is seconds or an RFC 3339 date and time, not `{other}`"
        )),
    }
}

/// An RFC 3339 date and time, as seconds since 1970.
fn rfc3339(s: &str) -> Result<f64, String> {
    let t = chrono::DateTime::parse_from_rfc3339(s)
        .map_err(|e| format!("`{s}` is not an RFC 3339 date and time ({e})"))?;
    Ok(t.timestamp() as f64 + f64::from(t.timestamp_subsec_nanos()) / 1e9)
}

/// `--time`'s value: seconds or RFC 3339.
pub(crate) fn time_of(arg: &str) -> Result<f64, String> {
    let number = arg.parse::<f64>().ok().filter(|s| s.is_finite());
    number.map_or_else(|| rfc3339(arg), Ok)
}

/// The messages of a `--history` file (`-`: stdin): a JSON array of `{"text", "time"}`
/// objects, or one such object a line (JSON lines; blank lines skipped), oldest first.
pub(crate) fn read(file: &Path) -> Result<History, String> {
    let named = |why: String| format!("--history `{}`: {why}", file.display());
    let text = super::read_file_or_stdin(file).map_err(|e| named(e.to_string()))?;
    let items: Vec<(String, Value)> = if text.trim_start().starts_with('[') {
        let all: Vec<Value> = serde_json::from_str(&text).map_err(|e| named(e.to_string()))?;
        let place = |n: usize| format!("item {}", n + 1);
        all.into_iter()
            .enumerate()
            .map(|(n, v)| (place(n), v))
            .collect()
    } else {
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        lines
            .map(|(n, l)| {
                let v = serde_json::from_str(l).map_err(|e| format!("line {}: {e}", n + 1));
                v.map(|v| (format!("line {}", n + 1), v))
            })
            .collect::<Result<_, _>>()
            .map_err(named)?
    };
    items
        .into_iter()
        .map(|(place, v)| message(&v).map_err(|why| named(format!("{place}: {why}"))))
        .collect()
}

/// One `{"text": "…", "time": …}` object.
fn message(v: &Value) -> Result<(String, f64), String> {
    let Some(text) = v.get("text").and_then(Value::as_str) else {
        return Err("each message is an object with a string `text` and a `time`".into());
    };
    let time = v.get("time").ok_or("the message has no `time`")?;
    Ok((text.to_string(), seconds(time)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_seconds_or_rfc_3339() {
        assert_eq!(time_of("1010").unwrap(), 1010.0);
        assert_eq!(time_of("1970-01-01T00:16:50Z").unwrap(), 1010.0);
        assert_eq!(time_of("1970-01-01T01:16:50.5+01:00").unwrap(), 1010.5);
        assert!(time_of("yesterday").unwrap_err().contains("RFC 3339"));
        assert!(time_of("NaN").is_err());
    }

    #[test]
    fn a_history_is_json_lines_or_an_array_and_a_bad_one_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let lines = dir.path().join("h.jsonl");
        std::fs::write(
            &lines,
            "{\"text\": \"a\", \"time\": 1}\n\n{\"text\": \"b\", \"time\": \"1970-01-01T00:00:02Z\"}\n",
        )
        .unwrap();
        let want = vec![("a".to_string(), 1.0), ("b".to_string(), 2.0)];
        assert_eq!(read(&lines).unwrap(), want);
        let array = dir.path().join("h.json");
        std::fs::write(
            &array,
            " [{\"text\": \"a\", \"time\": 1}, {\"text\": \"b\", \"time\": 2}]",
        )
        .unwrap();
        assert_eq!(read(&array).unwrap(), want);
        std::fs::write(
            &lines,
            "{\"text\": \"a\", \"time\": 1}\n{\"text\": \"b\"}\n",
        )
        .unwrap();
        let e = read(&lines).unwrap_err();
        assert!(
            e.contains("h.jsonl") && e.contains("line 2") && e.contains("`time`"),
            "{e}"
        );
        std::fs::write(&array, "[{\"time\": 1}]").unwrap();
        assert!(read(&array).unwrap_err().contains("item 1"));
        assert!(read(&dir.path().join("missing"))
            .unwrap_err()
            .contains("missing"));
    }
}
