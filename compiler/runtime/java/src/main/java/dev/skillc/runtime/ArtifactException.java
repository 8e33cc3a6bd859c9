package dev.skillc.runtime;

/** The file is missing, is not a skillc artifact, or has another schema version ({@code skillc} exits 2). */
public final class ArtifactException extends SkillcException {
    private static final long serialVersionUID = 1L;

    ArtifactException(String message) {
        super(message);
    }
}
