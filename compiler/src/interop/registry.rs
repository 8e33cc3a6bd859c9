//! The requests `skillc pull` makes of a registry (the OCI distribution API: `/v2/`, a token,
//! the manifest, the blobs), each bounded so that a hostile or broken registry cannot hold
//! the pull forever or fill its memory:
//!
//! - every request has `timeout` to connect and send its answer's head, and to send each next
//!   part of its body; and a body must come at [`FLOOR_BYTES_PER_SECOND`] or faster over each
//!   `timeout` it takes (a registry that stops sending fails the pull, and so does one that
//!   drips a byte at a time to keep it waiting for days; a slow link does not);
//! - no body is read past what it may hold: a manifest [`MANIFEST_CAP`] (the limit the
//!   distribution registry itself puts on manifests), a token [`TOKEN_CAP`], an error answer
//!   [`ERROR_CAP`], a blob the size its manifest declares, checked against its digest as it
//!   streams (into a file, never whole into memory).
//!
//! Credentials are sent only when the registry asks for them, and over plain HTTP only when
//! the caller allows it. Every failure names the registry and the step.

use std::io::Write;
use std::time::Duration;

use sha2::{Digest as _, Sha256};

/// The largest manifest read (4 MiB, the distribution registry's own limit on a manifest).
pub(super) const MANIFEST_CAP: u64 = 4 << 20;
/// The largest token answer read.
pub(super) const TOKEN_CAP: u64 = 1 << 20;
/// The most of an error answer read (what is shown of it).
pub(super) const ERROR_CAP: u64 = 16 << 10;

/// The slowest a body may come, on average over each `timeout` (curl's `--speed-limit`): a
/// link of a few KB/s passes, a registry that drips bytes to hold the pull does not.
pub(super) const FLOOR_BYTES_PER_SECOND: u64 = 1024;

/// The media types a manifest is asked for in.
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, \
    application/vnd.oci.image.index.v1+json, \
    application/vnd.docker.distribution.manifest.v2+json";

/// A user name and password for one registry.
#[derive(Clone)]
pub(super) struct Credentials {
    /// The user name.
    pub(crate) user: String,
    /// The password or token.
    pub(crate) password: String,
}

/// How to reach a registry.
pub(super) struct Reach {
    /// Plain HTTP instead of HTTPS.
    pub plain_http: bool,
    /// Whether credentials may go over plain HTTP.
    pub plain_http_credentials: bool,
    /// How long the registry may keep a request waiting for its next bytes.
    pub timeout: Duration,
    /// The credentials for this registry, if any.
    pub(crate) credentials: Option<Credentials>,
}

/// One registry and repository, its `/v2/` checked and its authorization obtained.
pub(super) struct Session {
    http: reqwest::Client,
    base: String,
    registry: String,
    repository: String,
    authorization: Option<String>,
    reach: Reach,
}

/// A failure, said with the registry and the step.
fn fail(registry: &str, step: &str, what: impl std::fmt::Display) -> String {
    format!("registry {registry}, {step}: {what}")
}

impl Session {
    /// Asks `registry`'s `/v2/` whether it wants authorization, and obtains it (a bearer token
    /// from the realm it names, or basic credentials).
    pub(super) async fn open(
        registry: &str,
        repository: &str,
        reach: Reach,
    ) -> Result<Session, String> {
        let (mut session, challenge) = Session::connect(registry, repository, reach).await?;
        if let Some(challenge) = challenge {
            session.authorization = Some(session.authorize(&challenge).await?);
        }
        Ok(session)
    }

    /// Whether the credentials would travel in clear text to answer `registry`'s challenge
    /// (a plain-HTTP registry asking for basic credentials, or a bearer realm given as
    /// `http://`): a push, which leaves authorization to the ORAS client, asks this first.
    pub(super) async fn credentials_go_plain(registry: &str, reach: Reach) -> Result<bool, String> {
        let (session, challenge) = Session::connect(registry, "", reach).await?;
        let Some(challenge) = challenge else {
            return Ok(false);
        };
        let realm = session.bearer(&challenge)?.map(|(realm, _)| realm);
        Ok(!realm.unwrap_or(session.base).starts_with("https://"))
    }

    /// A session without authorization yet, and the challenge of `/v2/` if it asks for some.
    async fn connect(
        registry: &str,
        repository: &str,
        reach: Reach,
    ) -> Result<(Session, Option<String>), String> {
        let http = reqwest::Client::builder()
            .connect_timeout(reach.timeout)
            .read_timeout(reach.timeout)
            .build()
            .map_err(|e| fail(registry, "starting the HTTP client", e))?;
        let scheme = if reach.plain_http { "http" } else { "https" };
        let session = Session {
            http,
            base: format!("{scheme}://{registry}"),
            registry: registry.to_string(),
            repository: repository.to_string(),
            authorization: None,
            reach,
        };
        let url = format!("{}/v2/", session.base);
        let answer = session
            .send(session.http.get(&url), "API check (/v2/)")
            .await?;
        if answer.status() != reqwest::StatusCode::UNAUTHORIZED {
            return Ok((session, None));
        }
        let challenge = answer
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        Ok((session, Some(challenge)))
    }

    /// The realm and service of a bearer challenge, `None` for another scheme.
    fn bearer(&self, challenge: &str) -> Result<Option<(String, Option<String>)>, String> {
        let step = "authorization";
        let challenges = http_auth::parse_challenges(challenge)
            .map_err(|e| fail(&self.registry, step, format!("unreadable challenge: {e}")))?;
        let param = |c: &http_auth::ChallengeRef<'_>, key: &str| {
            c.params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.to_unescaped())
        };
        let Some(bearer) = challenges
            .iter()
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
        else {
            return Ok(None);
        };
        let realm = param(bearer, "realm")
            .ok_or_else(|| fail(&self.registry, step, "a bearer challenge without realm"))?;
        Ok(Some((realm, param(bearer, "service"))))
    }

    /// The `Authorization` header answering `challenge` (a `WWW-Authenticate` value).
    async fn authorize(&self, challenge: &str) -> Result<String, String> {
        let step = "authorization";
        if let Some((realm, service)) = self.bearer(challenge)? {
            return self.token(&realm, service.as_deref()).await;
        }
        let credentials = self.credentials_for(&self.base, step)?.ok_or_else(|| {
            fail(
                &self.registry,
                step,
                "it asks for credentials and none are set for it (SKILLC_REGISTRY with \
                 SKILLC_REGISTRY_USERNAME/PASSWORD, or docker's config.json)",
            )
        })?;
        use base64::Engine;
        let pair = format!("{}:{}", credentials.user, credentials.password);
        Ok(format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        ))
    }

    /// The credentials to send to `url`, refused over plain HTTP unless allowed.
    fn credentials_for(&self, url: &str, step: &str) -> Result<Option<&Credentials>, String> {
        let Some(credentials) = &self.reach.credentials else {
            return Ok(None);
        };
        if url.starts_with("https://") || self.reach.plain_http_credentials {
            return Ok(Some(credentials));
        }
        Err(fail(
            &self.registry,
            step,
            format!(
                "it asks for credentials over plain HTTP ({url}); they are not sent in clear \
                 text unless --plain-http-credentials is given"
            ),
        ))
    }

    /// A bearer token from `realm` for pulling the repository.
    async fn token(&self, realm: &str, service: Option<&str>) -> Result<String, String> {
        let step = "token";
        let mut query = vec![("scope", format!("repository:{}:pull", self.repository))];
        if let Some(service) = service {
            query.push(("service", service.to_string()));
        }
        let mut request = self.http.get(realm).query(&query);
        if let Some(c) = self.credentials_for(realm, step)? {
            request = request.basic_auth(&c.user, Some(&c.password));
        }
        let answer = self.send(request, step).await?;
        let body = self.ok_body(answer, step, TOKEN_CAP).await?;
        let value: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| fail(&self.registry, step, format!("unreadable answer: {e}")))?;
        let token = value
            .get("token")
            .or_else(|| value.get("access_token"))
            .and_then(|t| t.as_str())
            .ok_or_else(|| fail(&self.registry, step, "the answer holds no token"))?;
        Ok(format!("Bearer {token}"))
    }

    /// The manifest `reference` (a tag or a digest) names: its bytes as the registry sent them.
    pub(super) async fn manifest(&self, reference: &str) -> Result<Vec<u8>, String> {
        let url = format!("{}/v2/{}/manifests/{reference}", self.base, self.repository);
        let request = self
            .authorized(self.http.get(&url))
            .header(reqwest::header::ACCEPT, MANIFEST_TYPES);
        let answer = self.send(request, "manifest").await?;
        self.ok_body(answer, "manifest", MANIFEST_CAP).await
    }

    /// Streams the blob `digest` (`size` bytes, as its manifest declares) into `sink`,
    /// checking its length and digest as it goes; `step` names it in errors.
    pub(super) async fn blob(
        &self,
        digest: &str,
        size: u64,
        step: &str,
        sink: &mut dyn Write,
    ) -> Result<(), String> {
        let url = format!("{}/v2/{}/blobs/{digest}", self.base, self.repository);
        let mut answer = self
            .send(self.authorized(self.http.get(&url)), step)
            .await?;
        if !answer.status().is_success() {
            return Err(self.refusal(answer, step).await);
        }
        let too_long = || {
            let declared = format!("sends more than the {size} bytes its manifest declares");
            fail(&self.registry, step, declared)
        };
        if answer.content_length().is_some_and(|n| n > size) {
            return Err(too_long());
        }
        let (mut hasher, mut got, mut pace) = (Sha256::new(), 0u64, Pace::new());
        while let Some(chunk) = answer.chunk().await.map_err(|e| self.said(step, e))? {
            self.keep_pace(&mut pace, chunk.len(), step)?;
            got += chunk.len() as u64;
            if got > size {
                return Err(too_long());
            }
            hasher.update(&chunk);
            sink.write_all(&chunk)
                .map_err(|e| fail(&self.registry, step, format!("cannot store it: {e}")))?;
        }
        if got != size {
            let short = format!("ends after {got} of the {size} bytes its manifest declares");
            return Err(fail(&self.registry, step, short));
        }
        let computed = format!("sha256:{:x}", hasher.finalize());
        if computed != digest {
            let wrong = format!("its content does not match its digest {digest}");
            return Err(fail(&self.registry, step, wrong));
        }
        Ok(())
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.authorization {
            Some(a) => request.header(reqwest::header::AUTHORIZATION, a),
            None => request,
        }
    }

    /// The answer's head, within `timeout` of asking (a head sent a byte at a time would
    /// otherwise keep each read within it for hours).
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        step: &str,
    ) -> Result<reqwest::Response, String> {
        match tokio::time::timeout(self.reach.timeout, request.send()).await {
            Ok(answer) => answer.map_err(|e| self.said(step, e)),
            Err(_) => Err(self.no_answer(step)),
        }
    }

    /// Counts `got` more bytes of a body into `pace`: an error when the body has come slower
    /// than [`FLOOR_BYTES_PER_SECOND`] over the last `timeout`.
    fn keep_pace(&self, pace: &mut Pace, got: usize, step: &str) -> Result<(), String> {
        if pace.keeps_up(got as u64, self.reach.timeout) {
            return Ok(());
        }
        let secs = self.reach.timeout.as_secs_f64();
        let why = format!(
            "it sends under {FLOOR_BYTES_PER_SECOND} bytes a second for {secs} s (--timeout)"
        );
        Err(fail(&self.registry, step, why))
    }

    /// A body of a successful answer, at most `cap` bytes; an error answer said.
    async fn ok_body(
        &self,
        answer: reqwest::Response,
        step: &str,
        cap: u64,
    ) -> Result<Vec<u8>, String> {
        if !answer.status().is_success() {
            return Err(self.refusal(answer, step).await);
        }
        self.capped(answer, step, cap).await
    }

    /// At most `cap` bytes of `answer`'s body; more is an error.
    async fn capped(
        &self,
        mut answer: reqwest::Response,
        step: &str,
        cap: u64,
    ) -> Result<Vec<u8>, String> {
        let too_big = || {
            fail(
                &self.registry,
                step,
                format!("the answer exceeds {cap} bytes"),
            )
        };
        if answer.content_length().is_some_and(|n| n > cap) {
            return Err(too_big());
        }
        let (mut body, mut pace) = (Vec::new(), Pace::new());
        while let Some(chunk) = answer.chunk().await.map_err(|e| self.said(step, e))? {
            self.keep_pace(&mut pace, chunk.len(), step)?;
            if body.len() as u64 + chunk.len() as u64 > cap {
                return Err(too_big());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// An error answer in words: its status and the messages of its OCI error body (read up
    /// to [`ERROR_CAP`]).
    async fn refusal(&self, answer: reqwest::Response, step: &str) -> String {
        let status = answer.status();
        let body = self
            .capped(answer, step, ERROR_CAP)
            .await
            .unwrap_or_default();
        let messages: Vec<String> = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("errors")?.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.get("message")?.as_str().map(str::to_string))
            .collect();
        match messages.is_empty() {
            true => fail(&self.registry, step, format!("HTTP {status}")),
            false => fail(
                &self.registry,
                step,
                format!("HTTP {status}: {}", messages.join("; ")),
            ),
        }
    }

    /// The registry kept `step` waiting past `timeout`.
    fn no_answer(&self, step: &str) -> String {
        let secs = self.reach.timeout.as_secs_f64();
        fail(
            &self.registry,
            step,
            format!("no answer for {secs} s (--timeout)"),
        )
    }

    /// A transport error in words: a timeout says so, a connection refused over HTTPS hints
    /// at `--plain-http`.
    fn said(&self, step: &str, e: reqwest::Error) -> String {
        if e.is_timeout() {
            return self.no_answer(step);
        }
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            text = format!("{text}: {s}");
            source = s.source();
        }
        if !self.reach.plain_http && e.is_connect() {
            text.push_str(" (a registry without TLS, on localhost say, needs --plain-http)");
        }
        fail(&self.registry, step, text)
    }
}

/// How fast a body has come since the start of its current stretch of `timeout`.
struct Pace {
    since: std::time::Instant,
    bytes: u64,
}

impl Pace {
    fn new() -> Pace {
        Pace {
            since: std::time::Instant::now(),
            bytes: 0,
        }
    }

    /// Counts `got` more bytes; false when a whole stretch of `timeout` has passed with
    /// fewer than [`FLOOR_BYTES_PER_SECOND`] a second in it. A body that ends sooner is
    /// never judged: a small answer is quick however its bytes come.
    fn keeps_up(&mut self, got: u64, timeout: Duration) -> bool {
        self.bytes += got;
        let elapsed = self.since.elapsed();
        if elapsed < timeout {
            return true;
        }
        let floor = (FLOOR_BYTES_PER_SECOND as f64 * elapsed.as_secs_f64()) as u64;
        let kept_up = self.bytes >= floor;
        *self = Pace::new();
        kept_up
    }
}
