//! `skillc push` and `skillc pull`: an artifact (and its signature, when it has one) as an OCI
//! artifact in any registry that speaks the OCI distribution API, through the ORAS project's
//! client. The artifact is one layer of its own media type; the manifest names the artifact
//! type, so registries and tools can tell it from a container image. A pull checks every
//! layer's digest, and a pull by `@sha256:` the manifest's, before anything is written.
//!
//! Credentials come from where registry tools already keep them, always for one registry host:
//! `SKILLC_REGISTRY_USERNAME` and `SKILLC_REGISTRY_PASSWORD` for the host `SKILLC_REGISTRY`
//! names, else the entry of docker's `config.json` (`$DOCKER_CONFIG` or `~/.docker`) keyed by
//! the host. They are never printed, never sent to another registry, and never sent over plain
//! HTTP unless `--plain-http-credentials` says so.
//!
//! A pull speaks to the registry itself (`super::registry`): every answer bounded in size and
//! every request in time. A push goes through the ORAS client, its requests bounded in time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::manifest::OciImageManifest;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};

use super::registry::{Credentials, Reach, Session};
use crate::discover::fsio::{self, output};

/// The type of a skillc artifact in a registry (the manifest's `artifactType`).
pub(crate) const ARTIFACT_TYPE: &str = "application/vnd.skillc.artifact.v1";
/// The media type of the artifact's layer: the SQLite file.
pub(crate) const ARTIFACT_LAYER: &str = "application/vnd.skillc.artifact.v1.sqlite";
/// The media type of the signature's layer: the `.minisig` file.
pub(crate) const SIGNATURE_LAYER: &str = "application/vnd.skillc.signature.v1.minisig";
/// The media type of the (small) configuration: what the manifest says of the artifact.
pub(crate) const CONFIG_TYPE: &str = "application/vnd.skillc.config.v1+json";

/// Why a push or a pull failed (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The reference, the registry or what it answered.
    #[error("{0}")]
    Failed(String),
    /// The pull's output path holds a device, a pipe, a socket or a folder: nothing was asked
    /// of the registry.
    #[error("`{0}` is {1}: the artifact is written to a file (a new one, or a previous artifact)")]
    OutputNotAFile(PathBuf, &'static str),
    /// The pull's output path cannot become a file (it ends in `/`, its folder is missing, it
    /// is a link to nothing): nothing was asked of the registry.
    #[error("{0}: the artifact is written to a file (a new one, or a previous artifact)")]
    OutputUnusable(String),
}

/// How long a registry may keep a request waiting for its next bytes, unless `--timeout` says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach the registry.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Plain HTTP instead of HTTPS (a registry on localhost or a private network without
    /// TLS); never the default.
    pub plain_http: bool,
    /// Whether credentials may be sent over plain HTTP (in clear text); never the default.
    pub plain_http_credentials: bool,
    /// How long the registry may keep any request waiting: to connect, to answer, and for
    /// each next part of an answer.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            plain_http: false,
            plain_http_credentials: false,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// What a push or a pull did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// `registry/repository@sha256:…`: the manifest, by digest.
    pub pinned: String,
    /// Whether a signature travelled with the artifact.
    pub signed: bool,
    /// Bytes of the artifact.
    pub bytes: usize,
}

fn reference(text: &str) -> Result<Reference, Error> {
    text.parse::<Reference>().map_err(|e| {
        Error::Failed(format!(
            "`{text}` is not a registry reference (REGISTRY/REPOSITORY:TAG or @sha256:…): {e}"
        ))
    })
}

fn client(options: Options) -> Client {
    Client::new(ClientConfig {
        protocol: match options.plain_http {
            true => ClientProtocol::Http,
            false => ClientProtocol::Https,
        },
        read_timeout: Some(options.timeout),
        connect_timeout: Some(options.timeout),
        ..ClientConfig::default()
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Failed(format!("cannot start the network runtime: {e}")))
}

/// The credentials for `registry`: the environment's when `SKILLC_REGISTRY` names it, else
/// docker's config file's entry for it, else none.
fn credentials(registry: &str) -> Option<Credentials> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let bare = |host: &str| {
        let host = host
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        host.trim_end_matches('/').to_string()
    };
    if let (Some(host), Some(user), Some(password)) = (
        env("SKILLC_REGISTRY"),
        env("SKILLC_REGISTRY_USERNAME"),
        env("SKILLC_REGISTRY_PASSWORD"),
    ) {
        if bare(&host) == registry {
            return Some(Credentials { user, password });
        }
    }
    let dir = env("DOCKER_CONFIG")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".docker")));
    dir.and_then(|d| std::fs::read_to_string(d.join("config.json")).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|config| {
            let auths = config.get("auths")?.as_object()?;
            let entry = auths.iter().find(|(host, _)| bare(host) == registry)?;
            let encoded = entry.1.get("auth")?.as_str()?;
            use base64::Engine;
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            let text = String::from_utf8(decoded).ok()?;
            let (user, password) = text.split_once(':')?;
            Some(Credentials {
                user: user.to_string(),
                password: password.to_string(),
            })
        })
}

/// What the ORAS client may send to `registry` for a push: its credentials, unless they would
/// travel in clear text (to a plain-HTTP registry, or to a bearer realm given as `http://`)
/// without `--plain-http-credentials`; then nothing, and `true` to say so.
async fn push_auth(registry: &str, options: Options) -> Result<(RegistryAuth, bool), Error> {
    let Some(c) = credentials(registry) else {
        return Ok((RegistryAuth::Anonymous, false));
    };
    let reach = Reach {
        plain_http: options.plain_http,
        plain_http_credentials: options.plain_http_credentials,
        timeout: options.timeout,
        credentials: None,
    };
    let plain = !options.plain_http_credentials
        && Session::credentials_go_plain(registry, reach)
            .await
            .map_err(Error::Failed)?;
    Ok(match plain {
        true => (RegistryAuth::Anonymous, true),
        false => (RegistryAuth::Basic(c.user, c.password), false),
    })
}

/// An OCI error in words (the client's own messages can quote URLs, never credentials).
fn said(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Failed(format!("{what}: {e}"))
}

/// A layer's annotations: its file name as its title.
fn titled(name: &str) -> Option<BTreeMap<String, String>> {
    Some(BTreeMap::from([(
        "org.opencontainers.image.title".to_string(),
        name.to_string(),
    )]))
}

/// The layer of the signature beside `artifact` (file `name`), none when it has none. One that
/// cannot be read (a pipe, a device, too large) stops the push rather than send the artifact
/// as if unsigned.
fn signature_layer(artifact: &Path, name: &str) -> Result<Option<ImageLayer>, Error> {
    let sig_path = skillc_runtime::signature::signature_path(artifact);
    match skillc_runtime::signature::read_small_file(&sig_path) {
        Ok(sig) => Ok(Some(ImageLayer::new(
            sig.into_bytes(),
            SIGNATURE_LAYER.to_string(),
            titled(&format!("{name}.minisig")),
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Failed(format!(
            "cannot read the signature `{}`: {e}",
            sig_path.display()
        ))),
    }
}

/// Pushes `artifact` (and `ARTIFACT.minisig` beside it, if any) to `target`.
pub fn push(artifact: &Path, target: &str, options: Options) -> Result<Moved, Error> {
    let image = reference(target)?;
    if image.digest().is_some() {
        return Err(Error::Failed(format!(
            "`{target}`: push to a tag (REPOSITORY:TAG); a digest names what is already there"
        )));
    }
    // A regular file only: a pipe or a device named as the artifact would be read forever.
    let bytes = fsio::read_regular(artifact, None)
        .map_err(|e| Error::Failed(format!("cannot read `{}`: {e}", artifact.display())))?;
    if !skillc_runtime::is_artifact_header(&bytes[..bytes.len().min(100)]) {
        return Err(Error::Failed(format!(
            "`{}` is not a skillc artifact",
            artifact.display()
        )));
    }
    let name = artifact
        .file_name()
        .map_or("artifact.db".into(), |n| n.to_string_lossy().into_owned());
    let mut layers = vec![ImageLayer::new(
        bytes.clone(),
        ARTIFACT_LAYER.to_string(),
        titled(&name),
    )];
    let signature = signature_layer(artifact, &name)?;
    let signed = signature.is_some();
    layers.extend(signature);
    let about = serde_json::json!({ "file": name, "signed": signed });
    let config = Config::new(
        about.to_string().into_bytes(),
        CONFIG_TYPE.to_string(),
        None,
    );
    let mut manifest = OciImageManifest::build(&layers, &config, None);
    manifest.artifact_type = Some(ARTIFACT_TYPE.to_string());
    let client = client(options);
    let digest = runtime()?.block_on(async {
        let (auth, withheld) = push_auth(image.resolve_registry(), options).await?;
        client
            .push(&image, &layers, config, &auth, Some(manifest))
            .await
            .map_err(|e| {
                let mut text = hint(e, options);
                if withheld {
                    text.push_str(&format!(
                        " (credentials for {} are set but not sent over plain HTTP without \
                         --plain-http-credentials)",
                        image.resolve_registry()
                    ));
                }
                said(&format!("cannot push to {target}"), text)
            })?;
        client
            .fetch_manifest_digest(&image, &auth)
            .await
            .map_err(|e| said(&format!("pushed, but cannot read back {target}"), e))
    })?;
    Ok(Moved {
        pinned: format!("{}/{}@{digest}", image.registry(), image.repository()),
        signed,
        bytes: bytes.len(),
    })
}

/// Pulls `source` (a tag or `@sha256:` digest) into `out` (and `OUT.minisig` when a signature
/// travels with it): every digest checked, then both written together (see `put_pair`).
pub fn pull(source: &str, out: &Path, options: Options) -> Result<Moved, Error> {
    let image = reference(source)?;
    if let Some(kind) = output::not_a_file(out) {
        return Err(Error::OutputNotAFile(out.to_path_buf(), kind));
    }
    if let Some(why) = output::cannot_be_created(out) {
        return Err(Error::OutputUnusable(why));
    }
    let registry = image.resolve_registry();
    let reach = Reach {
        plain_http: options.plain_http,
        plain_http_credentials: options.plain_http_credentials,
        timeout: options.timeout,
        credentials: credentials(registry),
    };
    let pinned = |digest: &str| format!("{}/{}@{digest}", image.registry(), image.repository());
    runtime()?
        .block_on(async {
            let session = Session::open(registry, image.repository(), reach).await?;
            // The manifest first (a few hundred bytes): a file already holding what it names is
            // not downloaded again, so polling a tag costs one small request until the tag moves.
            let wanted = image.digest().or(image.tag()).unwrap_or("latest");
            let (manifest, digest) =
                read_manifest(&session.manifest(wanted).await?, source, &image)?;
            let signature_layer = manifest
                .layers
                .iter()
                .find(|l| l.media_type == SIGNATURE_LAYER);
            if image.digest().is_none() && holds(&manifest, out) {
                return Ok(Moved {
                    pinned: pinned(&digest),
                    signed: signature_layer.is_some(),
                    bytes: 0,
                });
            }
            let Some(layer) = manifest
                .layers
                .iter()
                .find(|l| l.media_type == ARTIFACT_LAYER)
            else {
                return Err(format!(
                    "{source} holds no skillc artifact (no {ARTIFACT_LAYER} layer)"
                ));
            };
            let signature = match signature_layer {
                Some(s) => Some(fetch_signature(&session, s).await?),
                None => None,
            };
            let size =
                u64::try_from(layer.size).map_err(|_| format!("{source}: a negative size"))?;
            let mut staged = output::stage(out).map_err(|e| cannot_write(out, e))?;
            let head = {
                let mut sink = Head {
                    inner: std::io::BufWriter::new(&mut staged.file),
                    head: Vec::new(),
                };
                session
                    .blob(&layer.digest, size, "artifact layer", &mut sink)
                    .await?;
                let Head { inner, head } = sink;
                inner
                    .into_inner()
                    .map_err(|e| cannot_write(out, e.into_error()))?;
                head
            };
            if !skillc_runtime::is_artifact_header(&head) {
                return Err(format!(
                    "{source}: its artifact layer is not a skillc artifact; nothing was written"
                ));
            }
            injected("artifact").map_err(|e| cannot_write(out, e))?;
            put_pair(out, staged, signature.as_deref())?;
            Ok(Moved {
                pinned: pinned(&digest),
                signed: signature.is_some(),
                bytes: usize::try_from(size).unwrap_or(usize::MAX),
            })
        })
        .map_err(Error::Failed)
}

/// A writer that keeps the first bytes written through it (the artifact's header, checked
/// before the file is put in place).
struct Head<W> {
    inner: W,
    head: Vec<u8>,
}

impl<W: std::io::Write> std::io::Write for Head<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        let wanted = 100usize.saturating_sub(self.head.len()).min(n);
        self.head.extend_from_slice(&buf[..wanted]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The largest signature layer taken (a minisign signature is a few hundred bytes).
const SIGNATURE_CAP: u64 = 64 << 10;

async fn fetch_signature(
    session: &Session,
    layer: &oci_client::manifest::OciDescriptor,
) -> Result<Vec<u8>, String> {
    let size = u64::try_from(layer.size).unwrap_or(u64::MAX);
    if size > SIGNATURE_CAP {
        return Err(format!(
            "the signature layer declares {} bytes; a signature is at most {SIGNATURE_CAP}",
            layer.size
        ));
    }
    let mut bytes = Vec::new();
    session
        .blob(&layer.digest, size, "signature layer", &mut bytes)
        .await?;
    Ok(bytes)
}

/// The image manifest in `body` and its digest (checked against the one `image` pins).
fn read_manifest(
    body: &[u8],
    source: &str,
    image: &Reference,
) -> Result<(OciImageManifest, String), String> {
    let digest = format!("sha256:{}", crate::digest::hash(body));
    if let Some(wanted) = image.digest() {
        if digest != wanted {
            return Err(format!(
                "{source}: the registry answered with manifest {digest}, not {wanted}"
            ));
        }
    }
    match serde_json::from_slice::<oci_client::manifest::OciManifest>(body) {
        Ok(oci_client::manifest::OciManifest::Image(m)) => Ok((m, digest)),
        Ok(_) => Err(format!(
            "{source} is an index of images, not a skillc artifact"
        )),
        Err(e) => Err(format!("{source}: the manifest is unreadable: {e}")),
    }
}

fn cannot_write(path: &Path, e: std::io::Error) -> String {
    format!("cannot write `{}`: {e}", path.display())
}

/// A failure planted by the tests at `step` (`SKILLC_TEST_FAIL_AT=<step>`), as a full disk
/// would fail it there: `artifact` (the artifact's new file, before anything is in place) or
/// `rename` (the artifact's rename, after the signature's).
fn injected(step: &str) -> std::io::Result<()> {
    match std::env::var("SKILLC_TEST_FAIL_AT") {
        Ok(at) if at == step => Err(std::io::Error::other(format!(
            "failed at `{step}` (SKILLC_TEST_FAIL_AT)"
        ))),
        _ => Ok(()),
    }
}

/// Puts the staged artifact and its signature (or no signature) in place together, so that the
/// pair on disk is the previous one or the new one, never a mix a verifier would refuse:
/// both are written in full first; then the signature is renamed, then the artifact (a runtime
/// reloads when the artifact changes, and then finds its signature already there). When the
/// artifact's rename fails, the previous signature, kept under a second name, goes back.
fn put_pair(out: &Path, artifact: output::Staged, signature: Option<&[u8]>) -> Result<(), String> {
    let sig_path = skillc_runtime::signature::signature_path(out);
    let new_signature = match signature {
        Some(bytes) => {
            let mut staged = output::stage(&sig_path).map_err(|e| cannot_write(&sig_path, e))?;
            std::io::Write::write_all(&mut staged.file, bytes)
                .map_err(|e| cannot_write(&sig_path, e))?;
            Some(staged)
        }
        None => None,
    };
    let kept = output::keep(&sig_path).map_err(|e| cannot_write(&sig_path, e))?;
    match new_signature {
        Some(staged) => staged.commit().map_err(|e| cannot_write(&sig_path, e))?,
        None if kept.is_some() => std::fs::remove_file(output::output_file(&sig_path))
            .map_err(|e| format!("cannot remove `{}`: {e}", sig_path.display()))?,
        None => {}
    }
    let placed = injected("rename").and_then(|()| artifact.commit());
    if let Err(e) = placed {
        let restored = match kept {
            Some(k) => k.restore(),
            None => {
                std::fs::remove_file(output::output_file(&sig_path)).or_else(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => Ok(()),
                    _ => Err(e),
                })
            }
        };
        let also = match restored {
            Ok(()) => "; the previous artifact and signature are unchanged".to_string(),
            Err(r) => format!("; and the previous signature could not be put back: {r}"),
        };
        return Err(format!("{}{also}", cannot_write(out, e)));
    }
    Ok(())
}

/// Whether `out` (and its signature) already hold exactly the layers `m` names.
fn holds(m: &OciImageManifest, out: &Path) -> bool {
    let same = |path: &Path, media: &str| match m.layers.iter().find(|l| l.media_type == media) {
        Some(layer) => file_digest(path).is_some_and(|d| d == layer.digest),
        None => !path.exists(),
    };
    same(out, ARTIFACT_LAYER)
        && same(
            &skillc_runtime::signature::signature_path(out),
            SIGNATURE_LAYER,
        )
}

/// The `sha256:` digest of a regular file, read in pieces (an artifact can be large).
fn file_digest(path: &Path) -> Option<String> {
    use sha2::Digest as _;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut std::fs::File::open(path).ok()?, &mut hasher).ok()?;
    Some(format!("sha256:{:x}", hasher.finalize()))
}

/// A connection error said with what usually causes it here.
fn hint(e: impl std::fmt::Display, options: Options) -> String {
    let text = e.to_string();
    if !options.plain_http && text.contains("error sending request") {
        return format!("{text} (a registry without TLS, on localhost say, needs --plain-http)");
    }
    text
}
