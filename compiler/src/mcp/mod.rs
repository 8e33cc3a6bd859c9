//! `skillc mcp`: one bundle of an artifact served read-only over the Model Context Protocol
//! (stdio), with the official Rust SDK (`rmcp`).
//!
//! Tools: `skills_catalog` (the catalog as markdown, and its JSON as `skillc catalog --format
//! json` prints it) and `load_skills` (the assembled prompt, and the JSON of `skillc prompt
//! --format json`). Resources: each skill's files, `skill://<name>/<path>`. Every call answers
//! from the artifact now at the path ([`LiveArtifact`]), so a build swapped in by rename is
//! served from the next call on. Bad requests are MCP errors worded as the CLI words them.

mod gate;
mod skills;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetSkillRequestParams, GetSkillResult, Implementation, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{json, Value};
use skillc_runtime::route::{Query, Turn};
use skillc_runtime::{Artifact, BundleRef, Context, Error, Format, LiveArtifact};

/// The bundle a server answers for: `None` fields mean the global bundle and the defaults.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// Client id.
    pub client: Option<String>,
    /// Locale (`None`: the workspace's default).
    pub locale: Option<String>,
    /// Tier (`None`: the workspace's first).
    pub tier: Option<String>,
    /// Consumer whose filters apply.
    pub consumer: Option<String>,
}

impl Bundle {
    fn as_ref(&self) -> BundleRef<'_> {
        BundleRef {
            client: self.client.as_deref(),
            locale: self.locale.as_deref(),
            tier: self.tier.as_deref(),
        }
    }
}

/// `query_vector` of a `route_skills` call, if given: the message's embedding.
fn query_vector_of(args: &serde_json::Map<String, Value>) -> Result<Option<Vec<f32>>, ErrorData> {
    let Some(v) = args.get("query_vector") else {
        return Ok(None);
    };
    let numbers = v.as_array().and_then(|a| {
        a.iter()
            .map(|n| n.as_f64().map(|x| x as f32).filter(|x| x.is_finite()))
            .collect::<Option<Vec<f32>>>()
    });
    match numbers {
        Some(vector) => Ok(Some(vector)),
        None => Err(ErrorData::invalid_params(
            "`query_vector` must be an array of numbers: the message's embedding",
            None,
        )),
    }
}

/// `history` and `time` of a `route_skills` call (seed 001's stage 0): the visitor's recent
/// messages, oldest first, each `{"text", "time"}` in seconds, and the message's own time.
fn history_of(
    args: &serde_json::Map<String, Value>,
) -> Result<(Vec<Turn<'_>>, Option<f64>), ErrorData> {
    let bad = |what: &str| ErrorData::invalid_params(what.to_string(), None);
    let time = match args.get("time") {
        None => None,
        Some(t) => Some(t.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
            bad("`time` must be a number: when the message was sent, in seconds")
        })?),
    };
    let Some(list) = args.get("history") else {
        return Ok((Vec::new(), time));
    };
    let turns = list
        .as_array()
        .and_then(|a| a.iter().map(turn_of).collect());
    let turns = turns.ok_or_else(|| {
        bad("`history` must be an array of {\"text\": string, \"time\": seconds}, oldest first")
    })?;
    Ok((turns, time))
}

/// One `{"text", "time"}` of a `history`.
fn turn_of(v: &Value) -> Option<Turn<'_>> {
    let text = v.get("text")?.as_str()?;
    let time = v.get("time")?.as_f64().filter(|x| x.is_finite())?;
    Some(Turn { text, time })
}

/// Resources listed per page.
const PAGE: usize = 500;

/// The server: a bundle of the artifact at a path.
pub struct Server {
    live: LiveArtifact,
    bundle: Bundle,
}

impl Server {
    /// Opens the artifact and checks that the bundle and the consumer exist, so a wrong
    /// request fails at start, with the CLI's words, rather than at the first call. With a
    /// public key, only artifacts whose signature it verifies are served.
    pub fn open(
        artifact: &Path,
        bundle: Bundle,
        key: Option<skillc_runtime::signature::PublicKey>,
    ) -> Result<Server, Error> {
        let live = match key {
            Some(k) => LiveArtifact::open_verified(artifact, k)?,
            None => LiveArtifact::open(artifact)?,
        };
        let a = live.current();
        a.bundle(&bundle.as_ref())?;
        a.hidden_for(bundle.consumer.as_deref())?;
        Ok(Server { live, bundle })
    }

    /// The artifact to answer from, noting on stderr a new file that could not be opened.
    fn artifact(&self) -> Arc<Artifact> {
        let a = self.live.current();
        if let Some(why) = self.live.refused() {
            eprintln!("skillc mcp: still serving the previous artifact: {why}");
        }
        a
    }

    /// The catalog result: markdown text, and the JSON of `skillc catalog --format json`.
    pub fn catalog(&self, ctx: &Context) -> Result<(String, Value), Error> {
        let a = self.artifact();
        let r = self.bundle.as_ref();
        let consumer = self.bundle.consumer.as_deref();
        let markdown = a.catalog(&r, consumer, ctx, Format::Markdown)?;
        let json = a.catalog(&r, consumer, ctx, Format::Json)?;
        Ok((with_newline(&markdown.text), a.catalog_json(&json)))
    }

    /// The prompt result: its text, notes on what was left out, and the JSON of `skillc prompt
    /// --format json`.
    pub fn prompt(&self, ctx: &Context, names: &[&str]) -> Result<(String, String, Value), Error> {
        let a = self.artifact();
        let p = a.prompt(
            &self.bundle.as_ref(),
            self.bundle.consumer.as_deref(),
            ctx,
            names,
        )?;
        let notes: String = p
            .removed
            .iter()
            .map(|r| format!("note: `{}` left out: {}\n", r.name, r.words()))
            .collect();
        let json = serde_json::to_value(&p).unwrap_or(Value::Null);
        Ok((p.text.clone(), notes, json))
    }

    /// The route of a message (by words and vectors with the message's vector): its
    /// candidates as text lines, and the JSON of `skillc route --format json`.
    pub fn route(
        &self,
        ctx: &Context,
        query: &skillc_runtime::route::Query<'_>,
    ) -> Result<(String, Value), Error> {
        let a = self.artifact();
        let r = a.route_query(
            &self.bundle.as_ref(),
            self.bundle.consumer.as_deref(),
            ctx,
            query,
        )?;
        let text = if r.candidates.is_empty() {
            "No skill matches this message.\n".to_string()
        } else {
            r.text()
        };
        Ok((text, serde_json::to_value(&r).unwrap_or(Value::Null)))
    }

    /// The skills the catalogs of this bundle may show, in catalog order: each one's name in
    /// `skill://` uris (its name made portable, as `skillc export` names its folder: the MCP
    /// Skills extension requires the agentskills.io naming rules) and its name.
    fn served(&self) -> Result<Vec<(String, String)>, Error> {
        let a = self.artifact();
        let bundle = a.bundle(&self.bundle.as_ref())?;
        let hidden = a.hidden_for(self.bundle.consumer.as_deref())?;
        let mut used = std::collections::BTreeSet::new();
        Ok((bundle.skills.iter())
            .filter(|s| s.catalog_visible && !hidden.is_some_and(|h| h.contains(&s.qualified_name)))
            .map(|s| {
                (
                    crate::skill_md::portable_name(&s.name, &mut used),
                    s.name.clone(),
                )
            })
            .collect())
    }

    /// Whether a file of a skill is kept from the client: the code (scripts, executables) of a
    /// skill the workspace does not trust, which `skillc export` leaves out too.
    fn withheld(&self, name: &str, path: &str) -> Result<bool, Error> {
        let a = self.artifact();
        let r = self.bundle.as_ref();
        let untrusted = a.bundle(&r)?.find(name).is_some_and(|s| s.untrusted);
        if !untrusted || path == "SKILL.md" {
            return Ok(false);
        }
        let bytes = a.asset(&r, name, path)?;
        Ok(crate::skill_md::is_code(path, &bytes))
    }

    /// Every file of the served skills, as (uri, uri name, skill, path): each one's SKILL.md
    /// (as `skillc export` writes it for this bundle), then its other files.
    fn resources(&self) -> Result<Vec<(String, String, String, String)>, Error> {
        let a = self.artifact();
        let r = self.bundle.as_ref();
        let mut out = Vec::new();
        for (portable, name) in self.served()? {
            let skill_md = std::iter::once("SKILL.md".to_string());
            for path in skill_md.chain(a.asset_paths(&r, &name)?) {
                if self.withheld(&name, &path)? {
                    continue;
                }
                let uri = format!("skill://{portable}/{path}");
                out.push((uri, portable.clone(), name.clone(), path));
            }
        }
        Ok(out)
    }

    /// One file of a skill by its `skill://<name>/<path>` uri (the name as listed, or the
    /// skill's own): text when it is UTF-8.
    pub fn read(&self, uri: &str) -> Result<ResourceContents, Error> {
        let (skill, path) = uri
            .strip_prefix("skill://")
            .and_then(|rest| rest.split_once('/'))
            .ok_or_else(|| {
                Error::Request(format!(
                    "`{uri}` is not a skill file: write skill://<name>/<path>"
                ))
            })?;
        let served = self.served()?;
        let (portable, name) = (served.iter())
            .find(|(p, n)| p == skill || n == skill)
            .ok_or_else(|| Error::Request(format!("unknown skill `{skill}` in this bundle")))?;
        if self.withheld(name, path)? {
            return Err(Error::Request(format!(
                "`{uri}` is code of a skill the workspace does not trust: not served (`trust: true` on its `external:` entry serves it)"
            )));
        }
        let bytes = match path {
            "SKILL.md" => self.skill_md(portable, name)?.1.into_bytes(),
            _ => self.artifact().asset(&self.bundle.as_ref(), name, path)?,
        };
        let mime = mime_type(path);
        Ok(match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
            Err(e) => ResourceContents::blob(
                base64::engine::general_purpose::STANDARD.encode(e.into_bytes()),
                uri,
            )
            .with_mime_type(mime),
        })
    }
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// The media type of a skill file, by its extension.
fn mime_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "md" | "markdown" => "text/markdown",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "ts" => "text/javascript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => "text/plain",
    }
}

/// A request's error as an MCP error: the request's fault is `invalid_params`, the file's
/// `internal_error`; the message is the CLI's.
fn mcp_error(e: &Error) -> ErrorData {
    if e.is_request_error() {
        ErrorData::invalid_params(e.to_string(), None)
    } else {
        ErrorData::internal_error(e.to_string(), None)
    }
}

/// The `context` argument: an object of strings, numbers or booleans.
fn context_of(args: &serde_json::Map<String, Value>) -> Result<Context, ErrorData> {
    let mut pairs: BTreeMap<String, String> = BTreeMap::new();
    match args.get("context") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                let v = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => {
                        return Err(ErrorData::invalid_params(
                            format!("context `{k}` must be a string or a number"),
                            None,
                        ))
                    }
                };
                pairs.insert(k.clone(), v);
            }
        }
        Some(_) => {
            return Err(ErrorData::invalid_params(
                "`context` must be an object of KEY: VALUE",
                None,
            ))
        }
    }
    Context::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| ErrorData::invalid_params(e, None))
}

/// The `names` argument of `load_skills`.
fn names_of(args: &serde_json::Map<String, Value>) -> Result<Vec<String>, ErrorData> {
    let bad = || ErrorData::invalid_params("`names` must be a list of skill names or SK ids", None);
    let list = args
        .get("names")
        .and_then(Value::as_array)
        .ok_or_else(bad)?;
    list.iter()
        .map(|v| v.as_str().map(str::to_string).ok_or_else(bad))
        .collect()
}

fn refuse_unknown_arguments(
    args: &serde_json::Map<String, Value>,
    known: &[&str],
) -> Result<(), ErrorData> {
    match args.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(ErrorData::invalid_params(
            format!("unknown argument `{k}`; arguments: {}", known.join(", ")),
            None,
        )),
        None => Ok(()),
    }
}

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

fn tools() -> Vec<Tool> {
    let context = json!({
        "type": "object",
        "description": "Run-time context: page_url, turn, <skill>_availability, any key for context_has",
        "additionalProperties": {"type": ["string", "number", "boolean"]}
    });
    vec![
        Tool::new(
            "skills_catalog",
            "The catalog of skills to choose from (markdown table with SK ids; the JSON as structured content).",
            schema(json!({
                "type": "object",
                "properties": {"context": context},
                "additionalProperties": false
            })),
        ),
        Tool::new(
            "route_skills",
            "The skills of the catalog ranked for a visitor's message (score, SK id, name and the words that matched); none when no skill's words are in it. With query_vector (the message's embedding from the artifact's embedding model), ranked by words and vectors. With history (the visitor's recent messages, {text, time in seconds}, oldest first) and time (the message's), a fragment such as \"and for the pro plan?\" is routed joined to the message it continues (routed_text).",
            schema(json!({
                "type": "object",
                "properties": {
                    "message": {"type": "string"},
                    "top": {"type": "integer", "minimum": 1},
                    "query_vector": {"type": "array", "items": {"type": "number"}},
                    "history": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"text": {"type": "string"}, "time": {"type": "number"}},
                        "required": ["text", "time"]
                    }},
                    "time": {"type": "number"},
                    "context": context
                },
                "required": ["message"],
                "additionalProperties": false
            })),
        ),
        Tool::new(
            "load_skills",
            "The assembled prompt for the chosen skills (names or SK ids from the catalog), with the reason for every skill in or out and the cited sources.",
            schema(json!({
                "type": "object",
                "properties": {
                    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "context": context
                },
                "required": ["names"],
                "additionalProperties": false
            })),
        ),
    ]
}

impl Server {
    /// A `route_skills` call: its arguments checked, the route as text and JSON.
    fn route_skills(
        &self,
        args: &serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, ErrorData> {
        refuse_unknown_arguments(
            args,
            &[
                "message",
                "top",
                "query_vector",
                "history",
                "time",
                "context",
            ],
        )?;
        let ctx = context_of(args)?;
        let message = match args.get("message") {
            Some(Value::String(m)) => m.clone(),
            _ => {
                return Err(ErrorData::invalid_params(
                    "`message` must be a string: the visitor's message",
                    None,
                ))
            }
        };
        let top = match args.get("top") {
            None => None,
            Some(v) => match v.as_u64().filter(|&n| n >= 1) {
                Some(n) => Some(n as usize),
                None => {
                    return Err(ErrorData::invalid_params(
                        "`top` must be a whole number of at least 1",
                        None,
                    ))
                }
            },
        };
        let vector = query_vector_of(args)?;
        let (history, time) = history_of(args)?;
        let query = Query {
            message: &message,
            top,
            vector: vector.as_deref(),
            history: &history,
            time,
            ..Query::default()
        };
        let (text, json) = self.route(&ctx, &query).map_err(|e| mcp_error(&e))?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(json);
        Ok(result)
    }

    fn call(
        &self,
        name: &str,
        args: &serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, ErrorData> {
        match name {
            "skills_catalog" => {
                refuse_unknown_arguments(args, &["context"])?;
                let ctx = context_of(args)?;
                let (text, json) = self.catalog(&ctx).map_err(|e| mcp_error(&e))?;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(json);
                Ok(result)
            }
            "load_skills" => {
                refuse_unknown_arguments(args, &["names", "context"])?;
                let ctx = context_of(args)?;
                let names = names_of(args)?;
                let names: Vec<&str> = names
                    .iter()
                    .map(String::as_str)
                    .filter(|n| !n.is_empty())
                    .collect();
                let (text, notes, json) = self.prompt(&ctx, &names).map_err(|e| mcp_error(&e))?;
                let mut content = vec![ContentBlock::text(text)];
                if !notes.is_empty() {
                    content.push(ContentBlock::text(notes));
                }
                let mut result = CallToolResult::success(content);
                result.structured_content = Some(json);
                Ok(result)
            }
            "route_skills" => self.route_skills(args),
            other => Err(ErrorData::invalid_params(
                format!("unknown tool `{other}`; tools: skills_catalog, route_skills, load_skills"),
                None,
            )),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_skills()
            .build();
        let a = self.live.current();
        let release = a
            .release()
            .map(|r| format!(" (release {r})"))
            .unwrap_or_default();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillc", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Compiled agent skills{release}. Call skills_catalog to see the skills (or route_skills with the visitor's message to rank them), then load_skills with the names or SK ids you choose; a skill's files are resources skill://<name>/<path>."
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        if !tools().iter().any(|t| t.name == request.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; tools: skills_catalog, route_skills, load_skills",
                    request.name
                ),
                None,
            ));
        }
        // Bad input to a known tool is a result the model reads and can correct (SEP-1303), in
        // the CLI's words; a failing artifact stays a protocol error.
        match self.call(&request.name, &args) {
            Err(e) if e.code == rmcp::model::ErrorCode::INVALID_PARAMS => {
                Ok(CallToolResult::error(vec![ContentBlock::text(e.message.to_string())]).into())
            }
            other => other.map(Into::into),
        }
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.list_skills(context.protocol_version().as_ref())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.get_skill(&request.uri, context.protocol_version().as_ref())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let all = self.resources().map_err(|e| mcp_error(&e))?;
        let start: usize = request
            .and_then(|r| r.cursor)
            .map(|c| {
                c.parse()
                    .map_err(|_| ErrorData::invalid_params("bad cursor", None))
            })
            .transpose()?
            .unwrap_or(0);
        let page: Vec<Resource> = all
            .iter()
            .skip(start)
            .take(PAGE)
            .map(|(uri, portable, name, path)| self.listed_resource(uri, portable, name, path))
            .collect();
        let mut result = ListResourcesResult::with_all_items(page);
        if start + PAGE < all.len() {
            result.next_cursor = Some((start + PAGE).to_string());
        }
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = self.read(&request.uri).map_err(|e| mcp_error(&e))?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Longest line read from the client (a longer one is answered as a parse error and skipped).
const MAX_LINE: usize = 16 << 20;

/// Requests read from the client and not yet answered on stdout: one. The next line is read
/// only once the previous request's answer is out, so answers go out in the order of the
/// requests (the SDK would answer concurrent ones in any order), and a client piping thousands
/// of requests without reading the answers leaves at most one answer in the server: the rest
/// waits in the client's pipe (backpressure) instead of in memory.
const IN_FLIGHT: u32 = 1;

/// A line for stdout, and whether it answers a request (which frees a place in the window).
type Out = (String, bool);

/// Reads the client's lines: each passes through `gate`, then goes to the SDK whole, or is
/// answered on `answers` (a line past [`MAX_LINE`] is skipped with a parse error). A line that
/// will be answered first takes a place in `window` (see [`IN_FLIGHT`]).
async fn read_client(
    mut to_sdk: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    answers: tokio::sync::mpsc::UnboundedSender<Out>,
    window: std::sync::Arc<tokio::sync::Semaphore>,
) {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    let take_place = || async {
        // Closed when the SDK has stopped: nothing more will be answered.
        window.acquire().await.map(|p| p.forget()).is_ok()
    };
    loop {
        line.clear();
        let read = (&mut stdin)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) if n > MAX_LINE && line.last() != Some(&b'\n') => {
                // Skip the rest of the line, then say why.
                let mut rest = Vec::new();
                let _ = stdin.read_until(b'\n', &mut rest).await;
                let why = format!("Parse error: a message is at most {MAX_LINE} bytes");
                if !take_place().await {
                    break;
                }
                let _ = answers.send((
                    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": why}})
                        .to_string(),
                    true,
                ));
                continue;
            }
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        match gate::gate(&text) {
            gate::Gate::Forward(answered) => {
                if answered && !take_place().await {
                    break;
                }
                let mut whole = text.trim_end().to_string();
                whole.push('\n');
                if to_sdk.write_all(whole.as_bytes()).await.is_err() {
                    break;
                }
            }
            gate::Gate::Answer(a) => {
                if !take_place().await {
                    break;
                }
                let _ = answers.send((a, true));
            }
            gate::Gate::Ignore => {}
        }
    }
    // The client is gone: every request read is answered, then the SDK sees the end of its
    // input and stops.
    let _ = window.acquire_many(IN_FLIGHT).await;
    let _ = to_sdk.shutdown().await;
}

/// Serves the bundle on stdin/stdout until the client closes the connection. Lines from the
/// client pass through `gate` before the SDK sees them; its answers and the SDK's go out
/// one whole line at a time, in the order of the requests (see `IN_FLIGHT`).
pub fn serve_stdio(server: Server) -> Result<(), String> {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server: {e}"))?;
    runtime.block_on(async move {
        let (ours, sdk_side) = tokio::io::duplex(1 << 16);
        let (from_sdk, to_sdk) = tokio::io::split(ours);
        let (out, mut lines_out) = tokio::sync::mpsc::unbounded_channel::<Out>();
        let window = std::sync::Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT as usize));
        let sdk = async move {
            let running = server
                .serve(sdk_side)
                .await
                .map_err(|e| format!("the MCP session did not start: {e}"))?;
            running
                .waiting()
                .await
                .map_err(|e| format!("the MCP server stopped: {e}"))?;
            Ok::<(), String>(())
        };
        let input = read_client(to_sdk, out.clone(), window.clone());
        let sdk_window = window.clone();
        let relay = async move {
            let mut from_sdk = tokio::io::BufReader::new(from_sdk);
            let mut line = String::new();
            while matches!(from_sdk.read_line(&mut line).await, Ok(n) if n > 0) {
                let text = std::mem::take(&mut line).trim_end().to_string();
                let answered = gate::is_answer(&text);
                let _ = out.send((text, answered));
            }
            // The SDK has stopped: no request waits for it any more.
            sdk_window.close();
        };
        let output = async move {
            let mut stdout = tokio::io::stdout();
            while let Some((mut line, answered)) = lines_out.recv().await {
                line.push('\n');
                if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err()
                {
                    window.close();
                    break;
                }
                if answered {
                    window.add_permits(1);
                }
            }
        };
        let (served, (), (), ()) = tokio::join!(sdk, input, relay, output);
        served
    })
}
