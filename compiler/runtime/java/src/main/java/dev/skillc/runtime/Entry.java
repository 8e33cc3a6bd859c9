package dev.skillc.runtime;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** A skill of a loaded bundle: one row of {@code entry}, with its card's description and triggers. */
final class Entry {
    String name;
    String qualifiedName;
    String resolvedName;
    String category;
    boolean catalogVisible;
    boolean alwaysOn;
    String unavailable;
    String promptPrefix;
    boolean promptBody;
    String promptSuffix;
    long promptTokens;
    String description;
    List<String> triggers;
    long card;
    /** Found by its plain name ({@code <skill>} of {@code <plugin>:<skill>}) in its bundle, as the build decided. */
    boolean plain;
    byte[] bodyHash;
    String rawRecord;
    /** Read on first use. */
    String body;
    Map<String, Object> record;
    List<Predicate<Context>> conditions;
}
