//! `skillc push` and `skillc pull`: an artifact (and its signature, when it has one) as an OCI
//! artifact in any registry that speaks the OCI distribution API, through the ORAS project's
//! client. The artifact is one layer of its own media type; the manifest names the artifact
//! type, so registries and tools can tell it from a container image. A pull checks every
//! layer's digest, and a pull by `@sha256:` the manifest's, before anything is written.
//!
//! Credentials come from where registry tools already keep them: `SKILLC_REGISTRY_USERNAME`
//! and `SKILLC_REGISTRY_PASSWORD`, else the `auths` of docker's `config.json`
//! (`$DOCKER_CONFIG` or `~/.docker`); they are never printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::manifest::OciImageManifest;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};

/// The type of a skillc artifact in a registry (the manifest's `artifactType`).
pub const ARTIFACT_TYPE: &str = "application/vnd.skillc.artifact.v1";
/// The media type of the artifact's layer: the SQLite file.
pub const ARTIFACT_LAYER: &str = "application/vnd.skillc.artifact.v1.sqlite";
/// The media type of the signature's layer: the `.minisig` file.
pub const SIGNATURE_LAYER: &str = "application/vnd.skillc.signature.v1.minisig";
/// The media type of the (small) configuration: what the manifest says of the artifact.
pub const CONFIG_TYPE: &str = "application/vnd.skillc.config.v1+json";

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
}

/// How to reach the registry.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Plain HTTP instead of HTTPS (a registry on localhost or a private network without
    /// TLS); never the default.
    pub plain_http: bool,
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
        ..ClientConfig::default()
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Failed(format!("cannot start the network runtime: {e}")))
}

/// The credentials for `registry`: the environment's, else docker's config file's, else none.
fn credentials(registry: &str) -> RegistryAuth {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let (Some(user), Some(password)) = (
        env("SKILLC_REGISTRY_USERNAME"),
        env("SKILLC_REGISTRY_PASSWORD"),
    ) {
        return RegistryAuth::Basic(user, password);
    }
    let dir = env("DOCKER_CONFIG")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".docker")));
    let from_docker = dir
        .and_then(|d| std::fs::read_to_string(d.join("config.json")).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|config| {
            let auths = config.get("auths")?.as_object()?;
            let entry = auths.iter().find(|(host, _)| {
                let host = host
                    .trim_start_matches("https://")
                    .trim_start_matches("http://");
                host.trim_end_matches('/') == registry
            })?;
            let encoded = entry.1.get("auth")?.as_str()?;
            use base64::Engine;
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            let text = String::from_utf8(decoded).ok()?;
            let (user, password) = text.split_once(':')?;
            Some(RegistryAuth::Basic(user.to_string(), password.to_string()))
        });
    from_docker.unwrap_or(RegistryAuth::Anonymous)
}

/// An OCI error in words (the client's own messages can quote URLs, never credentials).
fn said(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Failed(format!("{what}: {e}"))
}

/// Pushes `artifact` (and `ARTIFACT.minisig` beside it, if any) to `target`.
pub fn push(artifact: &Path, target: &str, options: Options) -> Result<Moved, Error> {
    let image = reference(target)?;
    if image.digest().is_some() {
        return Err(Error::Failed(format!(
            "`{target}`: push to a tag (REPOSITORY:TAG); a digest names what is already there"
        )));
    }
    let bytes = std::fs::read(artifact)
        .map_err(|e| Error::Failed(format!("cannot read `{}`: {e}", artifact.display())))?;
    if !skillc_runtime::is_artifact_header(&bytes[..bytes.len().min(100)]) {
        return Err(Error::Failed(format!(
            "`{}` is not a skillc artifact",
            artifact.display()
        )));
    }
    let title = |name: &str| {
        Some(BTreeMap::from([(
            "org.opencontainers.image.title".to_string(),
            name.to_string(),
        )]))
    };
    let name = artifact
        .file_name()
        .map_or("artifact.db".into(), |n| n.to_string_lossy().into_owned());
    let mut layers = vec![ImageLayer::new(
        bytes.clone(),
        ARTIFACT_LAYER.to_string(),
        title(&name),
    )];
    let sig_path = skillc_runtime::signature::signature_path(artifact);
    let signed = match std::fs::read(&sig_path) {
        Ok(sig) => {
            layers.push(ImageLayer::new(
                sig,
                SIGNATURE_LAYER.to_string(),
                title(&format!("{name}.minisig")),
            ));
            true
        }
        Err(_) => false,
    };
    let about = serde_json::json!({ "file": name, "signed": signed });
    let config = Config::new(
        about.to_string().into_bytes(),
        CONFIG_TYPE.to_string(),
        None,
    );
    let mut manifest = OciImageManifest::build(&layers, &config, None);
    manifest.artifact_type = Some(ARTIFACT_TYPE.to_string());
    let auth = credentials(image.resolve_registry());
    let client = client(options);
    let digest = runtime()?.block_on(async {
        client
            .push(&image, &layers, config, &auth, Some(manifest))
            .await
            .map_err(|e| said(&format!("cannot push to {target}"), hint(e, options)))?;
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
/// travels with it), each written atomically after every digest checked.
pub fn pull(source: &str, out: &Path, options: Options) -> Result<Moved, Error> {
    let image = reference(source)?;
    if let Some(kind) = crate::discover::fsio::output::not_a_file(out) {
        return Err(Error::OutputNotAFile(out.to_path_buf(), kind));
    }
    let auth = credentials(image.resolve_registry());
    let client = client(options);
    let runtime = runtime()?;
    // The manifest first (a few hundred bytes): a file already holding what it names is not
    // downloaded again, so polling a tag costs one small request until the tag moves.
    let (manifest, digest) = runtime
        .block_on(client.pull_manifest(&image, &auth))
        .map_err(|e| said(&format!("cannot pull {source}"), hint(e, options)))?;
    if let (oci_client::manifest::OciManifest::Image(m), None) = (&manifest, image.digest()) {
        if holds(m, out) {
            return Ok(Moved {
                pinned: format!("{}/{}@{digest}", image.registry(), image.repository()),
                signed: m.layers.iter().any(|l| l.media_type == SIGNATURE_LAYER),
                bytes: 0,
            });
        }
    }
    let data = runtime.block_on(async {
        client
            .pull(&image, &auth, vec![ARTIFACT_LAYER, SIGNATURE_LAYER])
            .await
            .map_err(|e| said(&format!("cannot pull {source}"), hint(e, options)))
    })?;
    let digest = data.digest.clone().unwrap_or(digest);
    if let Some(wanted) = image.digest() {
        if digest != wanted {
            return Err(Error::Failed(format!(
                "{source}: the registry answered with manifest {digest}, not {wanted}"
            )));
        }
    }
    let manifest = data.manifest.as_ref();
    let layer = |media: &str| {
        let described = manifest.and_then(|m| m.layers.iter().find(|l| l.media_type == media));
        let pulled = data.layers.iter().find(|l| l.media_type == media);
        (described, pulled)
    };
    let (Some(described), Some(artifact)) = layer(ARTIFACT_LAYER) else {
        return Err(Error::Failed(format!(
            "{source} holds no skillc artifact (no {ARTIFACT_LAYER} layer)"
        )));
    };
    let check = |described: &oci_client::manifest::OciDescriptor, got: &ImageLayer| {
        let computed = format!("sha256:{}", crate::digest::hash(&got.data));
        (computed == described.digest).then_some(()).ok_or_else(|| {
            Error::Failed(format!(
                "{source}: a layer's content does not match its digest {}",
                described.digest
            ))
        })
    };
    check(described, artifact)?;
    let signature = match layer(SIGNATURE_LAYER) {
        (Some(d), Some(s)) => {
            check(d, s)?;
            Some(s.data.clone())
        }
        _ => None,
    };
    // The signature beside the path given (where a runtime given it looks); the artifact into
    // the file that path names (a link to a file is written through and stays).
    put_signature(out, signature.as_deref())?;
    write_atomically(out, &artifact.data)?;
    Ok(Moved {
        pinned: format!("{}/{}@{digest}", image.registry(), image.repository()),
        signed: signature.is_some(),
        bytes: artifact.data.len(),
    })
}

/// Writes the signature that came with `out`, or removes an older artifact's: an unsigned
/// artifact must not sit beside a signature that is not its own.
fn put_signature(out: &Path, signature: Option<&[u8]>) -> Result<(), Error> {
    let sig_path = skillc_runtime::signature::signature_path(out);
    match signature {
        Some(sig) => write_atomically(&sig_path, sig),
        None => match std::fs::remove_file(&sig_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Failed(format!(
                "cannot remove `{}`: {e}",
                sig_path.display()
            ))),
            _ => Ok(()),
        },
    }
}

/// Whether `out` (and its signature) already hold exactly the layers `m` names.
fn holds(m: &OciImageManifest, out: &Path) -> bool {
    let same = |path: &Path, media: &str| match m.layers.iter().find(|l| l.media_type == media) {
        Some(layer) => std::fs::read(path)
            .is_ok_and(|b| format!("sha256:{}", crate::digest::hash(&b)) == layer.digest),
        None => !path.exists(),
    };
    same(out, ARTIFACT_LAYER)
        && same(
            &skillc_runtime::signature::signature_path(out),
            SIGNATURE_LAYER,
        )
}

/// A connection error said with what usually causes it here.
fn hint(e: impl std::fmt::Display, options: Options) -> String {
    let text = e.to_string();
    if !options.plain_http && text.contains("error sending request") {
        return format!("{text} (a registry without TLS, on localhost say, needs --plain-http)");
    }
    text
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    crate::discover::fsio::output::replace(path, bytes)
        .map_err(|e| Error::Failed(format!("cannot write `{}`: {e}", path.display())))
}
