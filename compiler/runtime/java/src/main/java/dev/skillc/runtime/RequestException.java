package dev.skillc.runtime;

/** The request names a bundle, consumer or skill that was not built ({@code skillc} exits 1). */
public final class RequestException extends SkillcException {
    private static final long serialVersionUID = 1L;

    RequestException(String message) {
        super(message);
    }
}
