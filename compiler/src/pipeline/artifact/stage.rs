//! Staging the rows of a build of many clients, batch by batch, and copying the artifact
//! from them.

use crate::diagnostic::{Diagnostic, WholeDiagnostic};
use crate::model::Mode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::Connection;
use skillc_runtime::schema::{self, AssetRow, BundleRow, ClientRow};

use super::insert::{
    copy, insert_asset, insert_bundle, insert_card, insert_client, insert_entry, insert_fragments,
    insert_route, insert_small_tables, insert_tail, insert_text, insert_vectors, VectorRows,
};
use super::{
    beside, close, io, open_writer, put_in_place, sql, Blob, CardRows, Data, Error, LaidEntry, Sql,
};

/// The staging file's own table: diagnostics kept aside (never copied into the artifact).
const KEPT_DIAGNOSTICS: &str =
    "CREATE TABLE kept_diagnostic (n INTEGER PRIMARY KEY, whole TEXT NOT NULL);";

/// The rows of a build of many clients, written batch by batch to a staging file beside the
/// artifact as each batch numbers them (so they are not held in memory), and then copied into
/// the artifact table by table in the order a build of the whole workspace writes them: the
/// two give the same bytes.
pub(crate) struct Stage {
    // Closed before its file is removed (fields drop in this order).
    conn: Connection,
    path: StageFile,
}

/// The staging file, removed however the build ends.
struct StageFile(PathBuf);

impl Drop for StageFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl std::ops::Deref for StageFile {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Stage {
    /// A new staging file for the artifact `out`.
    pub(crate) fn create(out: &Path) -> Result<Stage, Error> {
        let path = StageFile(beside(out, "stage").1);
        let _ = std::fs::remove_file(&*path);
        let conn = open_writer(&path)?;
        conn.execute_batch(schema::DDL)
            .and_then(|_| conn.execute_batch(KEPT_DIAGNOSTICS))
            .and_then(|_| conn.execute_batch("BEGIN"))
            .map_err(sql(&path))?;
        Ok(Stage { conn, path })
    }

    /// Keeps `diagnostics` aside in the staging file until [`Stage::take_diagnostics`]: a
    /// batch's warnings (five a client on the reference workload, with their help and source
    /// line) held in memory until the end made a fifth of the peak at 5,000 clients.
    pub(crate) fn keep_diagnostics(&self, diagnostics: &[Diagnostic]) -> Result<(), Error> {
        let e = sql(&self.path);
        let mut st = self
            .conn
            .prepare_cached("INSERT INTO kept_diagnostic (whole) VALUES (?1)")
            .map_err(&e)?;
        for d in diagnostics {
            let whole = serde_json::to_string(&WholeDiagnostic::of(d)).unwrap_or_default();
            st.execute([whole]).map_err(&e)?;
        }
        Ok(())
    }

    /// The diagnostics kept aside, in the order they were kept, each with its number in the
    /// staging file. `bare`: without their help and source line (a third to a half of a
    /// warning's bytes: 520,000 warnings of 50,000 clients held them at the end of the build),
    /// which [`Stage::detail`] brings back for those that are shown.
    pub(crate) fn take_diagnostics(&self, bare: bool) -> Result<Vec<(Diagnostic, i64)>, Error> {
        let e = sql(&self.path);
        let mut st = self
            .conn
            .prepare("SELECT n, whole FROM kept_diagnostic ORDER BY n")
            .map_err(&e)?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .map_err(&e)?;
        let mut out = Vec::new();
        for row in rows {
            let (n, whole) = row.map_err(&e)?;
            let kept: Option<WholeDiagnostic> = serde_json::from_str(&whole).ok();
            let restored = (kept.and_then(WholeDiagnostic::restore))
                .map(|d| (if bare { d.without_details() } else { d }, n));
            out.extend(restored);
        }
        Ok(out)
    }

    /// Diagnostic `n`'s help and source line, as it was kept, into `d`.
    pub(crate) fn detail(&self, n: i64, d: &mut Diagnostic) -> Result<(), Error> {
        let e = sql(&self.path);
        let whole: String = self
            .conn
            .prepare_cached("SELECT whole FROM kept_diagnostic WHERE n = ?1")
            .and_then(|mut st| st.query_row([n], |r| r.get(0)))
            .map_err(&e)?;
        let kept: Option<WholeDiagnostic> = serde_json::from_str(&whole).ok();
        if let Some(whole) = kept.and_then(WholeDiagnostic::restore) {
            d.help = whole.help;
            d.source_line = whole.source_line;
        }
        Ok(())
    }

    /// Runs `write` with the statement that inserts into `table`.
    fn insert(
        &self,
        table: &str,
        or_ignore: bool,
        write: impl FnOnce(&mut rusqlite::Statement<'_>) -> Sql<()>,
    ) -> Result<(), Error> {
        let e = sql(&self.path);
        let mut st = self
            .conn
            .prepare_cached(schema::insert(table, or_ignore))
            .map_err(&e)?;
        write(&mut st).map_err(&e)
    }

    /// Blobs (a blob staged already is left as it is).
    pub(crate) fn blobs(&self, blobs: BTreeMap<String, Arc<Blob>>) -> Result<(), Error> {
        self.insert("blob", true, |st| {
            for (hash, blob) in blobs {
                super::insert_blob(&self.conn, st, &hash, &blob)?;
            }
            Ok(())
        })
    }

    /// Card `id` (`new`: not staged yet) and its fragments: a card several batches show gets
    /// the fragments of every level any of them cut it to.
    /// `vectors` is its `card.vectors` (numbered by the caller, as [`vector_ids`] says).
    /// `route` is its `card_route` row.
    pub(crate) fn card(
        &self,
        id: i64,
        c: &CardRows,
        new: bool,
        vectors: &str,
        route: &super::CardRoute,
    ) -> Result<(), Error> {
        if new {
            self.insert("card", false, |st| insert_card(st, id, c, vectors))?;
            self.insert("card_route", false, |st| insert_route(st, id, route))?;
        }
        self.insert("card_fragment_cut", true, |st| insert_fragments(st, id, c))
    }

    /// Embedding vector `id`.
    pub(crate) fn vector(&self, id: i64, data: &[u8]) -> Result<(), Error> {
        super::insert::insert_vector(&self.conn, id, data).map_err(sql(&self.path))
    }

    /// Entry `id`.
    pub(crate) fn entry(&self, id: i64, laid: &LaidEntry) -> Result<(), Error> {
        self.insert("entry", false, |st| insert_entry(st, id, laid))
    }

    /// Row `id` of `name`, `reason` or `slot_list`.
    pub(crate) fn text(&self, table: &str, id: i64, text: &str) -> Result<(), Error> {
        self.insert(table, false, |st| insert_text(st, table, id, text))
    }

    /// Bundle `id`.
    pub(crate) fn bundle(&self, id: i64, b: &BundleRow) -> Result<(), Error> {
        self.insert("bundle", false, |st| insert_bundle(st, id, b))
    }

    /// A client.
    pub(crate) fn client(&self, c: &ClientRow) -> Result<(), Error> {
        self.insert("client", false, |st| insert_client(st, c))
    }

    /// An asset.
    pub(crate) fn asset(&self, a: &AssetRow) -> Result<(), Error> {
        self.insert("asset", false, |st| insert_asset(st, a))
    }

    /// Distinct blobs staged.
    pub(crate) fn blob_count(&self) -> Result<usize, Error> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM blob", [], |r| r.get(0))
            .map_err(sql(&self.path))?;
        Ok(n as usize)
    }

    /// Writes the artifact `out` from the staged rows and `d`'s other tables (manifest,
    /// categories, sources, consumers), with `warnings`; the staging file is removed.
    pub(crate) fn write(
        self,
        out: &Path,
        d: Data,
        warnings: &[crate::Diagnostic],
    ) -> Result<u64, Error> {
        let Stage { conn, path } = self;
        let staged = conn
            .execute_batch("COMMIT")
            .map_err(sql(&path))
            .and_then(|_| conn.close().map_err(|(_, err)| sql(&path)(err)));
        let (dir, tmp) = beside(out, "tmp");
        let _ = std::fs::remove_file(&tmp);
        let result = staged
            .and_then(|_| write_from_stage(&tmp, &path, &d, warnings))
            .and_then(|_| put_in_place(&tmp, out, &dir, Mode::OneShot))
            .and_then(|_| Ok(std::fs::metadata(out).map_err(io(out))?.len()));
        drop(path);
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

/// The artifact at `path` from the staging file `stage`, table by table in the order
/// and in the two transactions of the writer of a whole build.
fn write_from_stage(
    path: &Path,
    stage: &Path,
    d: &Data,
    warnings: &[crate::Diagnostic],
) -> Result<(), Error> {
    let e = sql(path);
    let mut conn = open_writer(path)?;
    let stage_path = stage.to_str().unwrap_or_default();
    conn.execute("ATTACH DATABASE ?1 AS old", [stage_path])
        .map_err(&e)?;
    let tx = conn.transaction().map_err(&e)?;
    let prefix = || -> Sql<()> {
        tx.execute_batch(schema::DDL)?;
        copy(&tx, "vector", Some("id"))?;
        // The meaning table (no vector: they are copied).
        insert_vectors(&tx, d, VectorRows::Numbered(&[]))?;
        copy(&tx, "card", None)?;
        copy(&tx, "card_fragment_cut", Some("card, level, format"))?;
        copy(&tx, "name", Some("id"))?;
        copy(&tx, "reason", Some("id"))?;
        copy(&tx, "slot_list", None)?;
        copy(&tx, "bundle", Some("id"))
    };
    prefix().map_err(&e)?;
    tx.commit().map_err(&e)?;
    let tx = conn.transaction().map_err(&e)?;
    let rest = || -> Sql<()> {
        copy(&tx, "blob", Some("hash"))?;
        insert_small_tables(&tx, d, true)?;
        copy(&tx, "entry", None)?;
        copy(&tx, "card_route", Some("card"))?;
        copy(&tx, "asset", Some("skill_file, path"))?;
        insert_tail(&tx, d, warnings, None)
    };
    rest().map_err(&e)?;
    tx.commit().map_err(&e)?;
    conn.execute("DETACH DATABASE old", []).map_err(&e)?;
    close(conn, path)
}
