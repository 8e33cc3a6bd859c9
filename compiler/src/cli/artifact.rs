//! The commands over a built artifact, answered through the runtime: `catalog`, `prompt`,
//! `explain`, `mcp`, `diff` and `export`.

use std::path::Path;

use super::args::{
    CatalogArgs, CatalogFormat, DiffArgs, ExplainArgs, ExportArgs, KeygenArgs, McpArgs,
    OutputFormat, PromptArgs, PullArgs, PushArgs, RegistryArgs, RouteArgs, VerifyArgs,
};
use super::{Done, Failure};

/// `skillc export`: the bundle's skills as folders, with what was left out or not carried.
pub(crate) fn export(args: &ExportArgs) -> Done {
    use skillc::interop::{export, targets};
    let (artifact, output, target) = (&args.artifact, args.output.as_path(), args.target);
    let (b, untrusted) = (args.bundle.as_ref(), args.include_untrusted);
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

/// `skillc catalog`: the bundle's catalog in the format asked for.
pub(crate) fn catalog(args: &CatalogArgs) -> Done {
    let (bundle, consumer, format) = (&args.bundle, args.consumer.as_deref(), args.format);
    runtime_answer(&args.artifact, &args.context, |a, ctx| {
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

/// `skillc prompt`: the answer prompt for the selected skills.
pub(crate) fn prompt(args: &PromptArgs) -> Done {
    let (bundle, consumer) = (&args.bundle, args.consumer.as_deref());
    runtime_answer(&args.artifact, &args.context, |a, ctx| {
        let picked: Vec<&str> = (args.select)
            .iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
            .collect();
        let p = a.prompt(&bundle.as_ref(), consumer, ctx, &picked)?;
        Ok(match args.format {
            OutputFormat::Json => serde_json::to_string_pretty(&p).unwrap_or_default() + "\n",
            OutputFormat::Text => {
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
pub(crate) fn route(args: &RouteArgs) -> Done {
    let history = &args.history;
    let time = (history.time.as_deref())
        .map(super::history::time_of)
        .transpose()
        .map_err(|why| Failure::usage(format!("--time: {why}")))?;
    runtime_answer(&args.artifact, &args.context, |a, ctx| {
        let vector = match args.query_vector.as_deref() {
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
            message: &args.message,
            top: args.top,
            vector: vector.as_deref(),
            leave_out: None,
            history: &turns,
            time,
        };
        let (bundle, consumer) = (args.bundle.as_ref(), args.consumer.as_deref());
        let r = a.route_once(&bundle, consumer, ctx, &query)?;
        Ok(match args.format {
            OutputFormat::Json => serde_json::to_string_pretty(&r).unwrap_or_default() + "\n",
            OutputFormat::Text => r.text(),
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

/// `skillc explain`: why a skill is, or is not, in the bundle.
pub(crate) fn explain(args: &ExplainArgs) -> Done {
    let (bundle, consumer) = (args.bundle.as_ref(), args.consumer.as_deref());
    runtime_answer(&args.artifact, &[], |a, _| {
        let e = a.explain(&bundle, consumer, &args.name)?;
        Ok(match args.format {
            OutputFormat::Json => serde_json::to_string_pretty(&e).unwrap_or_default() + "\n",
            OutputFormat::Text => {
                let mut t = format!("{}\n", e.name);
                for line in &e.why {
                    t.push_str(&format!("  {line}\n"));
                }
                t
            }
        })
    })
}

/// `skillc mcp`: serves the bundle on stdio until the client leaves.
pub(crate) fn mcp(args: McpArgs) -> Done {
    let bundle = skillc::mcp::Bundle {
        client: args.bundle.client,
        locale: args.bundle.locale,
        tier: args.bundle.tier,
        consumer: args.consumer,
    };
    let key = args
        .public_key
        .as_deref()
        .map(public_key_from)
        .transpose()?;
    let server = skillc::mcp::Server::open(&args.artifact, bundle, key)?;
    skillc::mcp::serve_stdio(server).map_err(Failure::usage)
}

fn public_key_from(path: &Path) -> Result<skillc_runtime::signature::PublicKey, Failure> {
    skillc_runtime::signature::PublicKey::from_file(path).map_err(Failure::Usage)
}

/// `skillc keygen`: a key pair; prints where the public key is and the key itself (never the
/// secret key).
pub(crate) fn keygen(args: &KeygenArgs) -> Done {
    let output = &args.output;
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
pub(crate) fn push(args: &PushArgs) -> Done {
    use skillc::interop::oci;
    let (artifact, target) = (&args.artifact, args.target.as_str());
    let moved = oci::push(artifact, target, oci_options(&args.registry))
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
pub(crate) fn pull(args: &PullArgs) -> Done {
    use skillc::interop::oci;
    let output = &args.output;
    let moved =
        oci::pull(&args.source, output, oci_options(&args.registry)).map_err(|e| match e {
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
pub(crate) fn verify(args: &VerifyArgs) -> Done {
    let (artifact, public_key) = (&args.artifact, &args.public_key);
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

/// `skillc diff`: what changed from the older artifact to the newer.
pub(crate) fn diff(args: &DiffArgs) -> Done {
    let open = |p: &Path| skillc_runtime::Artifact::open(p).map_err(Failure::usage);
    let (a, b) = (open(&args.old)?, open(&args.new)?);
    let d = skillc::interop::diff::diff(&a, &b).map_err(Failure::usage)?;
    match args.format {
        OutputFormat::Text => out!("{}", skillc::interop::diff::render_text(&d)),
        OutputFormat::Json => outln!("{}", serde_json::to_string_pretty(&d).unwrap_or_default()),
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
