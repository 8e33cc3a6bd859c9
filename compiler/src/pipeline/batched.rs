//! A one-shot build of a workspace of many clients, a batch of clients at a time, so that its
//! memory does not grow with the number of clients (the benchmark's scale points: 500 to 50,000 clients).
//!
//! A first pass loads each batch to take the census of the whole workspace (the facts some
//! results read across clients, see [`crate::parse::census`]) and its input hash. The second
//! loads each batch again with the census, checks it, runs the phases over it and stages its
//! rows, numbered as a build of the whole workspace numbers them: every table is numbered in
//! the order its rows first appear over the bundles, global bundles first and then each
//! client's, and batches follow the clients' order. The artifact is then copied from the
//! staged rows; it is byte for byte the one a build of the whole workspace writes.

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};
use skillc_runtime::schema::BundleSlot;

use super::artifact::{vector_ids, BundleTables, Data, MeaningRows, Stage};
use super::inputs::fold_inputs;
use super::{fit, lay_out, progress, BuildOptions, BuildReport, BuildStats, Error};
use crate::check::{CheckOptions, Recall};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::census::Census;
use crate::model::Mode;
use crate::parse::batches::Batches;
use crate::parse::load::{BatchLoads, Loaded};
use crate::resolve::EntryKey;
use crate::Workspace;

/// Clients per batch when the build options do not say. At 5,000 clients of the reference
/// shape, batches of 500 peaked at 186 MB in 13.6 s, of 1,000 at 217 MB in 12.6 s: the
/// smaller batch keeps memory within 1.5 times that of a 500-client build (133 MB).
pub(super) const CLIENTS_PER_BATCH: usize = 500;

/// Builds the workspace split into `batches` into `out`, with the release label `release`.
pub(super) fn build(
    root: &Path,
    batches: &Batches<'_>,
    out: &Path,
    options: &BuildOptions<'_>,
    release: &Option<String>,
) -> Result<BuildReport, Error> {
    // Every batch loads the global skills: parsed once, while their files stay as they are.
    let mut shared = BatchLoads::default();
    let survey = survey(batches, &mut shared, options)?;
    let census = Arc::new(survey.census);
    let mut diagnostics = Vec::new();
    // The phases' own warnings count only if every batch gets through (as in a whole build,
    // whose phases do not run when the check finds errors).
    let mut warned = Vec::new();
    let run = Run {
        root,
        batches,
        digests: &survey.batch_digests,
        input_hash: &survey.input_hash,
        census: &census,
        options,
        release,
    };
    let staged = run.each_batch(&mut shared, out, &mut diagnostics, &mut warned)?;
    progress(options, "building batches", batches.len(), batches.len());
    drop(shared);
    // Taken back on a thread of the pool that ran the batches, so their memory, freed, is
    // reused: on the calling thread the 26,000 warnings of 5,000 clients grew the peak by
    // 11 MB (197 MB against 186).
    let bare = options.warning_details.is_some();
    let (staged, kept) = on_the_pool(move || {
        let kept = staged.as_ref().map(|(m, _)| m.stage.take_diagnostics(bare));
        (staged, kept)
    });
    let kept = kept.transpose()?.unwrap_or_default();
    let Some((m, Some(small))) = staged else {
        diagnostics.extend(kept.into_iter().map(|(d, _)| d));
        crate::diagnostic::sort(&mut diagnostics);
        return Ok(super::failed(diagnostics));
    };
    let diagnostics = in_order(diagnostics, warned, kept, options.warning_details, &m.stage)?;
    progress(options, "writing", 0, 1);
    let (written, mut stats) = m.write(out, small, &diagnostics)?;
    progress(options, "writing", 1, 1);
    stats.skills = census.counts.skills;
    stats.source_bytes = survey.source_bytes;
    stats.bytes = written;
    Ok(BuildReport {
        diagnostics,
        stats: Some(stats),
        unchanged: false,
    })
}

/// What every batch of a build reads.
struct Run<'a> {
    root: &'a Path,
    batches: &'a Batches<'a>,
    /// Each batch's digest as the first pass read it, and the input hash.
    digests: &'a [u128],
    input_hash: &'a str,
    census: &'a Arc<Census>,
    options: &'a BuildOptions<'a>,
    release: &'a Option<String>,
}

impl Run<'_> {
    /// Checks each batch, and while none has errors, lays out its tables and stages them into
    /// a stage at `out`: the stage with its numberings and the first batch's tables alike in
    /// every batch, or `None` when a batch had errors (`diagnostics` has them; `warned` the
    /// phases' warnings).
    fn each_batch(
        &self,
        shared: &mut BatchLoads,
        out: &Path,
        diagnostics: &mut Vec<Diagnostic>,
        warned: &mut Vec<Diagnostic>,
    ) -> Result<Option<Staged>, Error> {
        // One build, one set of token counts: every batch renders the global skills again.
        let caches = super::Caches::one_shot();
        // Every batch's cards hold the global skills' texts: their vectors are made once.
        let mut meaning = super::embed::MeaningMemo::default();
        std::thread::scope(|scope| {
            let mut stager = Some(Stager::start(
                scope,
                Merge::new(Stage::create(out)?),
                self.batches,
            ));
            for k in 0..self.batches.len() {
                progress(self.options, "building batches", k, self.batches.len());
                let surveyed = self.digests[k];
                let (mut loaded, found) = checked(self.batches, k, shared, surveyed, self.census)?;
                let failed = found.iter().any(|d| d.severity == Severity::Error);
                if failed || stager.is_none() {
                    // Checked on, to report every batch's errors; nothing more is staged.
                    diagnostics.extend(found);
                    give_up(&mut stager, diagnostics)?;
                    continue;
                }
                hand_on(&mut stager, ToStage::Kept(found))?;
                loaded.texts = Default::default();
                let hash = self.input_hash;
                let laid = tables_of(loaded.workspace, hash, self.options, &caches, self.release);
                let (mut data, warnings, ids) = match laid {
                    Ok(laid) => laid,
                    Err(errors) => {
                        diagnostics.extend(errors);
                        give_up(&mut stager, diagnostics)?;
                        continue;
                    }
                };
                super::embed::attach(
                    &mut data,
                    self.options.embedder,
                    self.root,
                    Some(&mut meaning),
                )
                .map_err(Error::Embed)?;
                warned.extend(warnings);
                hand_on(&mut stager, ToStage::Batch(k, Box::new(data), ids))?;
            }
            stager.map(Stager::finish).transpose()
        })
    }
}

/// The build's diagnostics (`found` and `warned` in memory, `kept` taken back from the stage
/// with their numbers there) sorted as [`crate::diagnostic::sort`] sorts them, the first
/// `details` warnings and every error with their help and source line (all, for `None`).
fn in_order(
    found: Vec<Diagnostic>,
    warned: Vec<Diagnostic>,
    kept: Vec<(Diagnostic, i64)>,
    details: Option<usize>,
    stage: &Stage,
) -> Result<Vec<Diagnostic>, Error> {
    // In the order a whole build gathers them, which the stable sort keeps for equal keys.
    let mut all: Vec<(Diagnostic, Option<i64>)> = (found.into_iter().map(|d| (d, None)))
        .chain(kept.into_iter().map(|(d, n)| (d, Some(n))))
        .chain(warned.into_iter().map(|d| (d, None)))
        .collect();
    all.sort_by(|a, b| a.0.sort_key().cmp(&b.0.sort_key()));
    all.dedup_by(|a, b| a.0 == b.0);
    if let Some(first) = details {
        let mut warnings = 0;
        for (d, n) in &mut all {
            let warning = d.severity != Severity::Error;
            if let Some(n) = n.filter(|_| !warning || warnings < first) {
                stage.detail(n, d)?;
            }
            warnings += usize::from(warning);
        }
    }
    Ok(all.into_iter().map(|(d, _)| d).collect())
}

/// Batch `k` loaded (as the first pass read it: its digest `surveyed`) with the census, and
/// its diagnostics.
fn checked(
    batches: &Batches<'_>,
    k: usize,
    shared: &mut BatchLoads,
    surveyed: u128,
    census: &Arc<Census>,
) -> Result<(Loaded, Vec<Diagnostic>), Error> {
    let mut loaded = batches.load(k, shared)?;
    same_as_surveyed(batches, k, &loaded, surveyed)?;
    super::progress::timing(&"loaded");
    loaded.workspace.census = Some(census.clone());
    let recall = match k {
        0 => Recall::OneShot,
        _ => Recall::LaterBatch,
    };
    let mut found = crate::check::diagnose(&mut loaded, &CheckOptions::default(), recall);
    crate::check::ready_to_show(&mut found, &loaded.texts);
    super::progress::timing(&"checked");
    Ok((loaded, found))
}

/// A batch's workspace through the phases to its tables and warnings, with the identities of
/// its entries (taken before the workspace is freed, ahead of laying out); `Err`: its phases'
/// errors.
fn tables_of(
    ws: Workspace,
    input_hash: &str,
    options: &BuildOptions<'_>,
    caches: &super::Caches,
    release: &Option<String>,
) -> Result<(Data, Vec<Diagnostic>, Vec<u128>), Vec<Diagnostic>> {
    let drawn = super::run_phases(&ws, input_hash, options, caches, None, Mode::OneShot)?;
    let shaped = fit(drawn, options, None, Mode::OneShot)?;
    let ids = entry_identities(&ws, &shaped.drawn.key_index);
    drop(ws);
    let (data, warnings, _) = lay_out(shaped, options, release, Mode::OneShot, None);
    Ok((data, warnings, ids))
}

/// Runs `f` on a thread of rayon's pool and returns what it returns.
fn on_the_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let mut out = None;
    rayon::scope(|s| s.spawn(|_| out = Some(f())));
    out.expect("the scope waits for its task")
}

/// Stops staging: a batch had errors, so nothing will be written (the staging file goes
/// with the stage, once the diagnostics it kept are back in `diagnostics`).
fn give_up(
    stager: &mut Option<Stager<'_>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    if let Some(s) = stager.take() {
        let (m, _) = s.finish()?;
        let kept = m.stage.take_diagnostics(false)?;
        diagnostics.extend(kept.into_iter().map(|(d, _)| d));
    }
    Ok(())
}

/// Hands `handed` to the staging thread; the error it stopped on, if it has.
fn hand_on(stager: &mut Option<Stager<'_>>, handed: ToStage) -> Result<(), Error> {
    if stager.as_ref().is_none_or(|s| s.to.send(handed).is_ok()) {
        return Ok(());
    }
    // The thread stops before its sender is dropped only on an error, which it returns.
    stager.take().map_or(Ok(()), |s| s.finish().map(drop))
}

/// What the staging thread is handed, in order: a batch's diagnostics, then its tables.
enum ToStage {
    /// A batch's diagnostics, kept in the stage until the end of the build.
    Kept(Vec<Diagnostic>),
    /// Batch `k`'s tables and its entries' identities.
    Batch(usize, Box<Data>, Vec<u128>),
}

/// The staging of the batches on a thread of its own, in order, while the next batch is
/// loaded, checked and laid out: staging is SQLite's inserts on one core, and at 5,000 clients
/// the other core was idle for the 1.8 s of a 24 s build they took.
struct Stager<'scope> {
    to: std::sync::mpsc::SyncSender<ToStage>,
    thread: std::thread::ScopedJoinHandle<'scope, Result<Staged, Error>>,
}

/// What staging gives back: the stage with its numberings, and the first batch's tables that
/// every batch has alike.
type Staged = (Merge, Option<Data>);

impl<'scope> Stager<'scope> {
    fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        mut merge: Merge,
        batches: &'env Batches<'env>,
    ) -> Self {
        // One batch waits while another is staged: no more held at once.
        let (to, from) = std::sync::mpsc::sync_channel(0);
        let thread = scope.spawn(move || {
            let mut small = None;
            for handed in from {
                match handed {
                    ToStage::Kept(found) => merge.stage.keep_diagnostics(&found)?,
                    ToStage::Batch(k, data, ids) => {
                        let rest = merge.add(batches, k, *data, &ids)?;
                        small.get_or_insert(rest);
                        super::progress::timing(&format_args!("staged batch {k}"));
                    }
                }
            }
            Ok((merge, small))
        });
        Stager { to, thread }
    }

    /// Waits for every batch handed on to be staged.
    fn finish(self) -> Result<Staged, Error> {
        drop(self.to);
        match self.thread.join() {
            Ok(staged) => staged,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// What the first pass finds: the census, the input hash and distinct source bytes a build
/// of the whole workspace computes, and a digest of each batch's own files.
struct Survey {
    census: Census,
    input_hash: String,
    source_bytes: u64,
    batch_digests: Vec<u128>,
}

/// An input file's path, sha256 and length.
type Input<P> = (P, [u8; 32], u64);

/// Loads every batch once: the census, and the digest of every input file in the order the
/// input hash takes them (text files by path, then the skills' other files skill by skill).
fn survey(
    batches: &Batches<'_>,
    shared: &mut BatchLoads,
    options: &BuildOptions<'_>,
) -> Result<Survey, Error> {
    let mut census = Census::default();
    let mut texts: Vec<Input<Arc<str>>> = Vec::new();
    let mut assets: Vec<Input<String>> = Vec::new();
    let mut batch_digests = Vec::new();
    let mut next = None;
    for k in 0..batches.len() {
        progress(options, "reading batches", k, batches.len());
        let loaded = match next.take() {
            Some(loaded) => loaded,
            None => batches.load(k, shared)?,
        };
        // A batch's census is taken on one core: the next batch is loaded beside it.
        let ((own_texts, own_assets), following) = rayon::join(
            || {
                census.add(&loaded.workspace, k == 0);
                own_inputs(batches, k, &loaded)
            },
            || (k + 1 < batches.len()).then(|| batches.load(k + 1, shared)),
        );
        next = following.transpose()?;
        batch_digests.push(batch_digest(&own_texts, &own_assets));
        texts.extend(own_texts);
        assets.extend(own_assets);
    }
    texts.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let all = texts
        .iter()
        .map(|(p, d, n)| (&**p, *d, *n))
        .chain(assets.iter().map(|(p, d, n)| (p.as_str(), *d, *n)));
    let (input_hash, source_bytes) = fold_inputs(all);
    Ok(Survey {
        census,
        input_hash,
        source_bytes,
        batch_digests,
    })
}

/// Batch `k`'s own input files, hashed: its text files, and its skills' other files.
fn own_inputs(
    batches: &Batches<'_>,
    k: usize,
    loaded: &Loaded,
) -> (Vec<Input<Arc<str>>>, Vec<Input<String>>) {
    let own: Vec<(&Arc<str>, &Arc<str>)> = loaded
        .texts
        .iter()
        .filter(|(path, _)| batches.owns(k, path))
        .collect();
    let texts = own
        .par_iter()
        .map(|(path, text)| ((*path).clone(), sha256(text.as_bytes()), text.len() as u64))
        .collect();
    let skills = loaded.workspace.skills.iter();
    let files: Vec<(String, &crate::model::Asset)> = skills
        .filter(|s| batches.owns(k, &s.file))
        .flat_map(|s| {
            let dir = &s.dir;
            s.assets
                .iter()
                .map(move |a| (format!("{dir}/{}", a.path), a))
        })
        .collect();
    let assets = files
        .into_par_iter()
        .map(|(path, a)| (path, a.data.sha256(), a.size))
        .collect();
    (texts, assets)
}

/// One digest of a batch's own files.
fn batch_digest(texts: &[Input<Arc<str>>], assets: &[Input<String>]) -> u128 {
    let mut h = Sha256::new();
    let all = texts
        .iter()
        .map(|(p, d, _)| (&**p, d))
        .chain(assets.iter().map(|(p, d, _)| (p.as_str(), d)));
    for (path, digest) in all {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(digest);
    }
    digest128(&h.finalize())
}

/// Fails when batch `k` as loaded again is not what the first pass read: a file changed
/// meanwhile, and the census and the input hash would not describe what is built.
fn same_as_surveyed(
    batches: &Batches<'_>,
    k: usize,
    loaded: &Loaded,
    surveyed: u128,
) -> Result<(), Error> {
    let (texts, assets) = own_inputs(batches, k, loaded);
    match batch_digest(&texts, &assets) == surveyed {
        true => Ok(()),
        false => Err(Error::ChangedDuringBuild),
    }
}

fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// A 128-bit digest, to know a row met in an earlier batch by content without holding it.
fn digest128(data: &[u8]) -> u128 {
    let full = Sha256::digest(data);
    let mut first = [0u8; 16];
    first.copy_from_slice(&full[..16]);
    u128::from_le_bytes(first)
}

/// What makes each of a batch's entries (by index) the same entry in every batch: its key,
/// with skills named by file rather than by their place in this batch's workspace.
fn entry_identities(ws: &Workspace, key_index: &FxHashMap<Arc<EntryKey>, usize>) -> Vec<u128> {
    let mut ids = vec![0u128; key_index.len()];
    for (k, &i) in key_index {
        let key = format!(
            "{}\0{}\0{:?}\0{}\0{:?}\0{:?}\0{}",
            ws.skills[k.base].file,
            ws.skills[k.source].file,
            k.locale_file,
            k.compact,
            k.vars,
            k.unavailable,
            k.untrusted
        );
        ids[i] = digest128(key.as_bytes());
    }
    ids
}

/// One numbering of the rows of every batch: ids by content, in order of first appearance.
#[derive(Default)]
struct Numbering<K> {
    ids: FxHashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Numbering<K> {
    /// The id of `key` (from 1) and whether it is new.
    fn id(&mut self, key: K) -> (i64, bool) {
        let next = self.ids.len() as u32;
        let id = *self.ids.entry(key).or_insert(next);
        (id as i64 + 1, id == next)
    }

    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// The staged rows and their numberings.
struct Merge {
    stage: Stage,
    cards: Numbering<u128>,
    entries: Numbering<u128>,
    names: Numbering<String>,
    reasons: Numbering<String>,
    lists: Numbering<u128>,
    /// Embedding vectors by the digest of their text (its 128 bits, not its hex: at 50,000
    /// clients 1.3 million keys, 150 MB as strings).
    vectors: Numbering<u128>,
    bundles: i64,
}

impl Merge {
    fn new(stage: Stage) -> Self {
        Merge {
            stage,
            cards: Numbering::default(),
            entries: Numbering::default(),
            names: Numbering::default(),
            reasons: Numbering::default(),
            lists: Numbering::default(),
            vectors: Numbering::default(),
            bundles: 0,
        }
    }

    /// Stages batch `k`'s new rows, renumbered (`ids`: its entries' identities); returns its
    /// other tables (the same in every batch).
    fn add(
        &mut self,
        batches: &Batches<'_>,
        k: usize,
        mut data: Data,
        ids: &[u128],
    ) -> Result<Data, Error> {
        self.stage.blobs(std::mem::take(&mut data.blobs))?;
        let vectors: std::sync::Arc<_> = std::mem::take(&mut data.vectors);
        let mut card_id = Vec::with_capacity(data.cards.len());
        let routes = std::mem::take(&mut data.card_route);
        for (c, route) in std::mem::take(&mut data.cards).into_iter().zip(routes) {
            let (id, new) = self
                .cards
                .id(digest128(&serde_json::to_vec(&*c.card).unwrap_or_default()));
            // A card's vectors are numbered when it is first staged, as a whole build
            // numbers them in card order.
            let mut fresh = Vec::new();
            let ids = match new {
                true => vector_ids(&c.vectors, |d| {
                    let (vector, first) = self.vectors.id(digest128(d.as_bytes()));
                    if first {
                        fresh.push((vector, d.to_string()));
                    }
                    vector
                }),
                false => String::new(),
            };
            for (vector, d) in fresh {
                let data = vectors.get(&d).map_or(&[][..], Vec::as_slice);
                self.stage.vector(vector, data)?;
            }
            self.stage.card(id, &c, new, &ids, &route)?;
            card_id.push(id);
        }
        let mut entry_id = Vec::with_capacity(ids.len());
        for (mut laid, identity) in
            std::mem::replace(&mut data.entries, Box::new(std::iter::empty())).zip(ids)
        {
            let (id, new) = self.entries.id(*identity);
            if new {
                laid.card = card_id[laid.card] as usize - 1;
                self.stage.entry(id, &laid)?;
            }
            entry_id.push(id);
        }
        let bundles = std::mem::take(&mut data.bundles);
        self.add_bundles(&bundles, k, &entry_id)?;
        for c in std::mem::take(&mut data.clients) {
            self.stage.client(&c)?;
        }
        for a in std::mem::take(&mut data.assets) {
            if batches.owns(k, &a.skill_file) {
                self.stage.asset(&a)?;
            }
        }
        Ok(data)
    }

    /// Stages the bundles of batch `k` (the global ones with the first batch), their slot
    /// lists repacked with the ids of every batch.
    fn add_bundles(&mut self, t: &BundleTables, k: usize, entry_id: &[i64]) -> Result<(), Error> {
        let renumber = |texts: &[String], numbering: &mut Numbering<String>, table| {
            let mut ids = Vec::with_capacity(texts.len());
            for text in texts {
                let (id, new) = numbering.id(text.clone());
                if new {
                    self.stage.text(table, id, text)?;
                }
                ids.push(id);
            }
            Ok::<_, Error>(ids)
        };
        let name_id = renumber(&t.names, &mut self.names, "name")?;
        let reason_id = renumber(&t.reasons, &mut self.reasons, "reason")?;
        for row in t.rows.iter().filter(|b| k == 0 || !b.client.is_empty()) {
            let list = repack(&t.slot_lists[row.slots], |s| BundleSlot {
                name: name_id[s.name] as usize - 1,
                entry: s.entry.map(|e| entry_id[e] as usize - 1),
                reason: s.reason.map(|r| reason_id[r] as usize - 1),
                plain: s.plain,
            });
            let (list_id, new) = self.lists.id(digest128(list.as_bytes()));
            if new {
                self.stage.text("slot_list", list_id, &list)?;
            }
            self.bundles += 1;
            let mut row = row.clone();
            row.slots = list_id as usize - 1;
            self.stage.bundle(self.bundles, &row)?;
        }
        Ok(())
    }

    /// Writes the artifact from the staged rows and `small` (the tables every batch has
    /// alike), with its counts; returns its size and the build's figures.
    fn write(
        self,
        out: &Path,
        mut small: Data,
        diagnostics: &[Diagnostic],
    ) -> Result<(u64, BuildStats), Error> {
        let stats = BuildStats {
            bundles: self.bundles as usize,
            entries: self.entries.len(),
            blobs: self.stage.blob_count()?,
            meaning_bytes: small.meaning.as_ref().map_or(0, MeaningRows::bytes),
            ..BuildStats::default()
        };
        let counts = [
            ("bundles", stats.bundles),
            ("entries", stats.entries),
            ("cards", self.cards.len()),
            ("blobs", stats.blobs),
            ("sources", small.sources.len()),
        ];
        for (key, n) in counts {
            small.manifest.insert(key.to_string(), n.to_string());
        }
        let bytes = self.stage.write(out, small, diagnostics)?;
        Ok((bytes, stats))
    }
}

/// A packed slot list (see `rows::pack_slots`) with each slot's ids changed by `renumber`.
fn repack(list: &str, renumber: impl Fn(BundleSlot) -> BundleSlot) -> String {
    let inner = list
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .unwrap_or_default();
    let id = |field: Option<&str>| field.and_then(|f| f.parse::<usize>().ok()).map(|n| n - 1);
    let slots = inner.split("],[").filter(|s| !s.is_empty()).map(|item| {
        let mut fields = item.trim_matches(['[', ']']).split(',');
        let name = id(fields.next()).unwrap_or_default();
        let (entry, third) = (id(fields.next()), fields.next());
        // After an entry, `1` marks a plain name; after `null`, the reason.
        renumber(BundleSlot {
            name,
            entry,
            reason: entry.is_none().then(|| id(third)).flatten(),
            plain: entry.is_some() && third == Some("1"),
        })
    });
    super::rows::pack_slots(slots)
}
