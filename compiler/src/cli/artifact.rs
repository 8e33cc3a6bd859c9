//! The commands over a built artifact, answered through the runtime: `catalog`, `prompt`,
//! `explain`, `mcp`, `diff` and `export`.

use std::path::Path;

use super::args::{BundleArgs, CatalogFormat, CheckFormat, HistoryArgs, RegistryArgs};
use super::{Done, Failure};

pub fn export(
    artifact: &Path,
    bundle: &BundleArgs,
    output: &Path,
    target: Option<skillc::interop::targets::Target>,
    include_untrusted: bool,
) -> Done {
    use skillc::interop::{export, targets};
    let (b, untrusted) = (bundle.as_ref(), include_untrusted);
    let written = match target {
        None => export::export_with(artifact, &b, output, untrusted).map(|e| (e, None)),
        Some(t) => {
            targets::export_with(artifact, &b, output, t, untrusted).map(|(e, r)| (e, Some(r)))
        }
    };
    let (exported, report) = match written {
        Ok(written) => written,
        Err(export::Error::Runtime(e)) => return Err(e.into()),
        Err(e) => return Err(Failure::usage(e)),
    };
    let folder = match target {
        Some(t) => output.join(t.folder()),
        None => output.to_path_buf(),
    };
    for problem in export::portability_problems_for(&folder, target) {
        eprintln!("warning: {problem}");
    }
    outln!(
        "exported {} skills into {}",
        exported.dirs.len(),
        folder.display()
    );
    for l in &exported.left_out {
        outln!(
            "  untrusted `{}`: left out {} (--include-untrusted writes them)",
            l.skill,
            l.items.join(", ")
        );
    }
    for n in &exported.not_carried {
        outln!("  `{}`: {}", n.skill, n.items.join("; "));
    }
    if let Some(report) = report {
        out!("{}", report.text());
    }
    Ok(())
}

pub fn catalog(
    artifact: &Path,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    context: &[String],
    format: CatalogFormat,
) -> Done {
    runtime_answer(artifact, context, |a, ctx| {
        let f = match format {
            CatalogFormat::Xml => skillc_runtime::Format::Xml,
            CatalogFormat::Markdown => skillc_runtime::Format::Markdown,
            CatalogFormat::List => skillc_runtime::Format::List,
            CatalogFormat::Json => skillc_runtime::Format::Json,
        };
        Ok(match format {
            CatalogFormat::Json => {
                let c = a.catalog(&bundle.as_ref(), consumer, ctx, f)?;
                serde_json::to_string_pretty(&a.catalog_json(&c)).unwrap_or_default() + "\n"
            }
            // One catalog and the process ends: only what the text shows is read.
            _ => {
                let mut t = a.catalog_text(&bundle.as_ref(), consumer, ctx, f)?;
                if !t.ends_with('\n') {
                    t.push('\n');
                }
                t
            }
        })
    })
}

pub fn prompt(
    artifact: &Path,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    select: &[String],
    context: &[String],
    format: CheckFormat,
) -> Done {
    runtime_answer(artifact, context, |a, ctx| {
        let picked: Vec<&str> = select
            .iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
            .collect();
        let p = a.prompt(&bundle.as_ref(), consumer, ctx, &picked)?;
        Ok(match format {
            CheckFormat::Json => serde_json::to_string_pretty(&p).unwrap_or_default() + "\n",
            CheckFormat::Text => {
                // The text is the prompt alone; what was left out goes to stderr, so a
                // misspelt name is never silent.
                for r in &p.removed {
                    eprintln!("note: `{}` left out: {}", r.name, r.words());
                }
                p.text.clone()
            }
        })
    })
}

/// `skillc route`: the candidates for a message, best first (none is an answer too, exit 0).
pub fn route(
    artifact: &Path,
    message: &str,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    context: &[String],
    (top, query_vector, history): (Option<usize>, Option<&Path>, &HistoryArgs),
    format: CheckFormat,
) -> Done {
    let time = (history.time.as_deref())
        .map(super::history::time_of)
        .transpose()
        .map_err(|why| Failure::usage(format!("--time: {why}")))?;
    runtime_answer(artifact, context, |a, ctx| {
        let vector = match query_vector {
            Some(file) => Some(query_vector_of(a, file)?),
            None => None,
        };
        let read = (history.history.as_deref().map(super::history::read)).transpose();
        let read = read.map_err(skillc_runtime::Error::Request)?;
        let read = read.unwrap_or_default();
        let turns: Vec<skillc_runtime::route::Turn<'_>> = (read.iter())
            .map(|(text, time)| skillc_runtime::route::Turn { text, time: *time })
            .collect();
        let query = skillc_runtime::route::Query {
            message,
            top,
            vector: vector.as_deref(),
            leave_out: None,
            history: &turns,
            time,
        };
        let r = a.route_query(&bundle.as_ref(), consumer, ctx, &query)?;
        Ok(match format {
            CheckFormat::Json => serde_json::to_string_pretty(&r).unwrap_or_default() + "\n",
            CheckFormat::Text => r.text(),
        })
    })
}

/// The message's vector in `file` (`-`: stdin), checked against the artifact's model.
fn query_vector_of(
    a: &skillc_runtime::Artifact,
    file: &Path,
) -> Result<Vec<f32>, skillc_runtime::Error> {
    let request = |why: String| {
        skillc_runtime::Error::Request(format!("--query-vector `{}`: {why}", file.display()))
    };
    let Some((model, dims)) = a.embedding_model() else {
        // Vectors come with `routing.embedding_model` and an embedder at build time; an
        // artifact without them cannot use one, and says so rather than ignore it.
        return Err(request(
            "this artifact carries no embedding vectors (its workspace sets no \
             `routing.embedding_model`), so it routes by words only; leave out --query-vector"
                .to_string(),
        ));
    };
    let text = super::read_file_or_stdin(file).map_err(|e| request(e.to_string()))?;
    skillc_runtime::route::parse_query_vector(&text, model, dims).map_err(request)
}

pub fn explain(
    artifact: &Path,
    name: &str,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    format: CheckFormat,
) -> Done {
    runtime_answer(artifact, &[], |a, _| {
        let e = a.explain(&bundle.as_ref(), consumer, name)?;
        Ok(match format {
            CheckFormat::Json => serde_json::to_string_pretty(&e).unwrap_or_default() + "\n",
            CheckFormat::Text => {
                let mut t = format!("{}\n", e.name);
                for line in &e.why {
                    t.push_str(&format!("  {line}\n"));
                }
                t
            }
        })
    })
}

pub fn mcp(
    artifact: &Path,
    bundle: BundleArgs,
    consumer: Option<String>,
    public_key: Option<&Path>,
) -> Done {
    let bundle = skillc::mcp::Bundle {
        client: bundle.client,
        locale: bundle.locale,
        tier: bundle.tier,
        consumer,
    };
    let key = public_key.map(public_key_from).transpose()?;
    let server = skillc::mcp::Server::open(artifact, bundle, key)?;
    skillc::mcp::serve_stdio(server).map_err(Failure::usage)
}

fn public_key_from(path: &Path) -> Result<skillc_runtime::signature::PublicKey, Failure> {
    skillc_runtime::signature::PublicKey::from_file(path).map_err(Failure::Usage)
}

/// `skillc keygen`: a key pair; prints where the public key is and the key itself (never the
/// secret key).
pub fn keygen(output: &Path) -> Done {
    let (public, line) = skillc::sign::keygen(output).map_err(Failure::usage)?;
    outln!(
        "secret key: {} (mode 0600; keep it out of the repository)
public key: {}
{line}",
        output.display(),
        public.display()
    );
    Ok(())
}

fn oci_options(registry: &RegistryArgs) -> skillc::interop::oci::Options {
    skillc::interop::oci::Options {
        plain_http: registry.plain_http,
        plain_http_credentials: registry.plain_http_credentials,
        timeout: std::time::Duration::from_secs(registry.timeout),
    }
}

/// `skillc push`: prints the pushed manifest by digest (what a runtime can pin).
pub fn push(artifact: &Path, target: &str, registry: &RegistryArgs) -> Done {
    use skillc::interop::oci;
    let moved = oci::push(artifact, target, oci_options(registry))
        .map_err(|e| Failure::Errors(e.to_string()))?;
    let signed = if moved.signed {
        ", with its signature"
    } else {
        ""
    };
    outln!(
        "pushed {} ({} bytes{signed})
{}",
        target,
        moved.bytes,
        moved.pinned
    );
    Ok(())
}

/// `skillc pull`: writes the artifact (and its signature) and prints the digest it came from.
pub fn pull(source: &str, output: &Path, registry: &RegistryArgs) -> Done {
    use skillc::interop::oci;
    let moved = oci::pull(source, output, oci_options(registry)).map_err(|e| match e {
        oci::Error::OutputNotAFile(..) | oci::Error::OutputUnusable(_) => Failure::usage(e),
        oci::Error::Failed(_) => Failure::Errors(e.to_string()),
    })?;
    let signed = if moved.signed {
        ", with its signature"
    } else {
        ""
    };
    match moved.bytes {
        0 => outln!(
            "{} already holds {}{signed}",
            output.display(),
            moved.pinned
        ),
        n => outln!(
            "pulled {} into {} ({n} bytes{signed})",
            moved.pinned,
            output.display()
        ),
    }
    Ok(())
}

/// `skillc verify`: exit 0 when the artifact's signature verifies, 1 when it does not.
pub fn verify(artifact: &Path, public_key: &Path) -> Done {
    let key = public_key_from(public_key)?;
    match skillc_runtime::Artifact::open_verified(artifact, &key) {
        Ok(_) => {
            outln!(
                "{}: the signature {} verifies with {}",
                artifact.display(),
                skillc_runtime::signature::signature_path(artifact).display(),
                public_key.display()
            );
            Ok(())
        }
        Err(e @ skillc_runtime::Error::Signature { .. }) => Err(Failure::Errors(e.to_string())),
        Err(e) => Err(Failure::usage(e)),
    }
}

pub fn diff(old: &Path, new: &Path, format: CheckFormat) -> Done {
    let open = |p: &Path| skillc_runtime::Artifact::open(p).map_err(Failure::usage);
    let (a, b) = (open(old)?, open(new)?);
    let d = skillc::interop::diff::diff(&a, &b).map_err(Failure::usage)?;
    match format {
        CheckFormat::Text => out!("{}", skillc::interop::diff::render_text(&d)),
        CheckFormat::Json => outln!("{}", serde_json::to_string_pretty(&d).unwrap_or_default()),
    }
    Ok(())
}

/// Opens an artifact, reads the context and prints what `answer` returns.
fn runtime_answer(
    artifact: &Path,
    context: &[String],
    answer: impl FnOnce(
        &skillc_runtime::Artifact,
        &skillc_runtime::Context,
    ) -> Result<String, skillc_runtime::Error>,
) -> Done {
    let mut pairs = Vec::new();
    for kv in context {
        let pair = kv
            .split_once('=')
            .ok_or_else(|| Failure::usage(format!("--context takes KEY=VALUE, not `{kv}`")))?;
        pairs.push(pair);
    }
    let ctx = skillc_runtime::Context::from_pairs(pairs).map_err(Failure::usage)?;
    let a = skillc_runtime::Artifact::open(artifact).map_err(Failure::usage)?;
    let answered = answer(&a, &ctx);
    // The process ends here: freeing the loaded bundle and closing a read-only connection
    // would only cost time (about a millisecond on the reference workload).
    std::mem::forget(a);
    out!("{}", answered?);
    Ok(())
}
