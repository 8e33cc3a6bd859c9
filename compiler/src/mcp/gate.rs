//! What reaches the MCP SDK: each line from the client is looked at first, so that every
//! request gets an answer. The SDK drops a line that is not JSON, answers a request of the
//! wrong shape without its id, and takes a known method with params it cannot read for an
//! unknown method. Here a parse error is a JSON-RPC parse error, a request of the wrong shape
//! is an invalid request, a known method with bad params is invalid params, each with the id
//! when one can be read, and nesting is bounded before anything is parsed.

use serde_json::{json, Value};

/// Deepest nesting of arrays and objects in one message.
pub(super) const MAX_DEPTH: usize = 64;

/// What to do with one line from the client.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Gate {
    /// Pass it to the SDK, which answers it when it is a request (`true`: it has an id) and
    /// not when it is a notification or a response.
    Forward(bool),
    /// Answer it with this line instead.
    Answer(String),
    /// Nothing to do (a blank line, or a notification of the wrong shape: it has no id to
    /// answer to).
    Ignore,
}

/// JSON-RPC's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Methods of MCP whose params the SDK reads into a type of its own, and what they take.
const KNOWN: &[(&str, &str)] = &[
    (
        "initialize",
        "`protocolVersion` (a string), `capabilities` and `clientInfo` (objects)",
    ),
    ("ping", "nothing"),
    ("tools/list", "an optional `cursor` (a string)"),
    (
        "tools/call",
        "`name` (a string) and optional `arguments` (an object)",
    ),
    ("resources/list", "an optional `cursor` (a string)"),
    (
        "resources/templates/list",
        "an optional `cursor` (a string)",
    ),
    ("resources/read", "`uri` (a string)"),
    ("resources/subscribe", "`uri` (a string)"),
    ("resources/unsubscribe", "`uri` (a string)"),
    ("prompts/list", "an optional `cursor` (a string)"),
    ("prompts/get", "`name` (a string)"),
    ("completion/complete", "`ref` and `argument` (objects)"),
    ("logging/setLevel", "`level` (a string)"),
];

fn answer(id: Option<Value>, code: i64, message: String) -> Gate {
    let line = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    });
    Gate::Answer(line.to_string())
}

/// Looks at one line from the client.
pub(super) fn gate(line: &str) -> Gate {
    let line = line.trim();
    if line.is_empty() {
        return Gate::Ignore;
    }
    if depth(line) > MAX_DEPTH {
        return answer(
            top_level_id(line),
            INVALID_REQUEST,
            format!("Invalid request: nested deeper than {MAX_DEPTH} levels"),
        );
    }
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return answer(top_level_id(line), PARSE_ERROR, format!("Parse error: {e}")),
    };
    let Some(message) = value.as_object() else {
        return answer(
            None,
            INVALID_REQUEST,
            "Invalid request: a message is a JSON object".into(),
        );
    };
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned();
    let method = message.get("method").and_then(Value::as_str);
    match serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value.clone()) {
        Err(_) if id.is_none() && method.is_some() && message.contains_key("id") => answer(
            None,
            INVALID_REQUEST,
            "Invalid request: an `id` is a string or an integer (of 64 bits at most)".into(),
        ),
        Err(e) if id.is_some() || method.is_none() => {
            answer(id, INVALID_REQUEST, format!("Invalid request: {e}"))
        }
        Err(_) => Gate::Ignore,
        Ok(rmcp::model::JsonRpcMessage::Request(request)) => {
            let custom = matches!(
                request.request,
                rmcp::model::ClientRequest::CustomRequest(_)
            );
            match KNOWN.iter().find(|(m, _)| Some(*m) == method) {
                Some((m, takes)) if custom => answer(
                    id,
                    INVALID_PARAMS,
                    format!("Invalid params: `{m}` takes {takes}"),
                ),
                _ => Gate::Forward(true),
            }
        }
        Ok(_) => Gate::Forward(false),
    }
}

/// How deeply arrays and objects nest in `text`, strings skipped (without parsing it, so
/// that a message nested a million levels costs one pass and no stack).
fn depth(text: &str) -> usize {
    let (mut now, mut most, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                now += 1;
                most = most.max(now);
            }
            b']' | b'}' => now = now.saturating_sub(1),
            _ => {}
        }
    }
    most
}

/// The `id` of a message's top-level object, read without parsing the rest (which may be
/// truncated or too deep): a string or an integer, else nothing.
fn top_level_id(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    let (mut level, mut i) = (0usize, 0usize);
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i)?;
                let token = &text[i..=end];
                i = end + 1;
                if level == 1 && expect_key {
                    expect_key = false;
                    let key: String = serde_json::from_str(token).ok()?;
                    let rest = text[i..].trim_start().strip_prefix(':')?;
                    if key == "id" {
                        return scalar(rest.trim_start());
                    }
                }
                continue;
            }
            b'{' | b'[' => {
                level += 1;
                expect_key = level == 1 && bytes[i] == b'{';
            }
            b'}' | b']' => level = level.saturating_sub(1),
            b',' if level == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether a message from the server answers a request (its top level has `result` or `error`
/// before any `method`), read from its first keys only: answers are long (a catalog), and
/// this is asked of every one.
pub(super) fn is_answer(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (mut level, mut i, mut expect_key) = (0usize, 0usize, false);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let Some(end) = string_end(bytes, i) else {
                    return false;
                };
                if level == 1 && expect_key {
                    expect_key = false;
                    match serde_json::from_str::<String>(&text[i..=end]).as_deref() {
                        Ok("result" | "error") => return true,
                        Ok("method") => return false,
                        _ => {}
                    }
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => {
                level += 1;
                expect_key = level == 1 && bytes[i] == b'{';
            }
            b'}' | b']' => level = level.saturating_sub(1),
            b',' if level == 1 => expect_key = true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The index of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut escaped = false;
    for (j, &b) in bytes.iter().enumerate().skip(start + 1) {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return Some(j),
            _ => {}
        }
    }
    None
}

/// A string or integer at the start of `text`.
fn scalar(text: &str) -> Option<Value> {
    if text.starts_with('"') {
        let end = string_end(text.as_bytes(), 0)?;
        return serde_json::from_str(&text[..=end]).ok();
    }
    // The whole number (a fraction or an exponent included, so that `1.5` is not read as 1).
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
        .unwrap_or(text.len());
    serde_json::from_str::<Value>(&text[..end])
        .ok()
        .filter(|v| v.is_i64() || v.is_u64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(line: &str) -> (Value, i64) {
        match gate(line) {
            Gate::Answer(a) => {
                let v: Value = serde_json::from_str(&a).unwrap();
                (v["id"].clone(), v["error"]["code"].as_i64().unwrap())
            }
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn every_bad_request_with_an_id_is_answered_with_it() {
        assert_eq!(error_of("this is not json"), (Value::Null, PARSE_ERROR));
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list""#),
            (json!(2), PARSE_ERROR)
        );
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":5}"#),
            (json!(3), INVALID_REQUEST)
        );
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":"r4","method":"resources/read","params":{}}"#),
            (json!("r4"), INVALID_PARAMS)
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(error_of(&deep), (json!(8), INVALID_REQUEST));
        assert_eq!(error_of("[]"), (Value::Null, INVALID_REQUEST));
        // An id that is no id: answered with `null`, never dropped.
        for id in [
            "1.5",
            "100000000000000000000000",
            "true",
            "{}",
            "null",
            "[1]",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            assert_eq!(error_of(&line), (Value::Null, INVALID_REQUEST), "{line}");
        }
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list""#),
            (Value::Null, PARSE_ERROR)
        );
        // An `id` inside params is not the message's.
        assert_eq!(
            error_of(r#"{"params":{"id":7},"jsonrpc":"2.0","id":"x\"y","method":"#),
            (json!("x\"y"), PARSE_ERROR)
        );
    }

    #[test]
    fn answers_are_told_from_requests_and_notifications() {
        assert!(is_answer(
            r#"{"jsonrpc":"2.0","id":1,"result":{"method":"x"}}"#
        ));
        assert!(is_answer(
            r#"{"error":{"code":1},"id":null,"jsonrpc":"2.0"}"#
        ));
        assert!(!is_answer(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#));
        assert!(!is_answer(
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":{}}"#
        ));
        assert!(!is_answer(
            r#"{"jsonrpc":"2.0","params":{"result":1},"method":"x"}"#
        ));
    }

    #[test]
    fn good_requests_and_notifications_pass() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://a/b"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"nope/nope"}"#,
        ] {
            let request = line.contains(r#""id""#);
            assert_eq!(gate(line), Gate::Forward(request), "{line}");
        }
        assert_eq!(gate("   "), Gate::Ignore);
    }
}
