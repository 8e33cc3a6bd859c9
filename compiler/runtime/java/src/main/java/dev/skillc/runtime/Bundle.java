package dev.skillc.runtime;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A loaded bundle: its skills in catalog order and their indexes. */
final class Bundle {
    final long id;
    final String client;
    final String locale;
    final String tier;
    final String level;
    final List<Entry> skills;
    /** By qualified name, then name, then a plugin skill's plain name where the build stored one. */
    final Map<String, Integer> byName;
    final Map<String, Integer> byQualified;
    /** Names (qualified and short) the build turned off for this bundle's client. */
    final Set<String> disabled;
    /** A stored format's catalog texts: card to (text, tokens). */
    final Map<String, Map<Long, Snapshot.Text>> fragments = new HashMap<>();
    /** The catalog-visible skills with run-time conditions (what a catalog's outcome depends on). */
    List<Entry> conditional;
    /** For each skill, the skills whose {@code augments} name it. */
    List<List<Integer>> augmentedBy;
    /** The routing index and the vectors of its documents, built on first use. */
    Router.Index routeIndex;
    Dense dense;
    /** Routing settings of the bundle's client, and catalog positions by consumer and condition outcome. */
    Map<String, Object> routing;
    final Map<List<String>, Map<Integer, Integer>> positions = new HashMap<>();
    /** Its catalogs, by consumer, format and the outcome of its skills' conditions. */
    final Map<List<Object>, Catalog> catalogs = new HashMap<>();

    Bundle(Snapshot.BundleRow row, List<Entry> skills, Map<String, Integer> byName,
           Map<String, Integer> byQualified, Set<String> disabled) {
        this.id = row.id();
        this.client = row.client();
        this.locale = row.locale();
        this.tier = row.tier();
        this.level = row.level();
        this.skills = skills;
        this.byName = byName;
        this.byQualified = byQualified;
        this.disabled = disabled;
    }
}
