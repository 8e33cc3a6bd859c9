package dev.skillc.runtime;

/** A context value that cannot be read, such as a turn that is not a number ({@code skillc} exits 2). */
public final class ContextException extends SkillcException {
    private static final long serialVersionUID = 1L;

    ContextException(String message) {
        super(message);
    }
}
