package dev.skillc.runtime;

/** A catalog format: as {@code skillc catalog --format} names them. */
public enum Format {
    XML("xml"),
    MARKDOWN("markdown"),
    LIST("list"),
    JSON("json");

    private final String name;

    Format(String name) {
        this.name = name;
    }

    /** The format's name on the command line. */
    public String label() {
        return name;
    }

    /** The format named so, or null. */
    public static Format named(String name) {
        for (Format f : values()) {
            if (f.name.equals(name)) return f;
        }
        return null;
    }
}
