package dev.skillc.runtime;

/** What every error of this runtime is: a request, an artifact or a context that cannot be answered. */
public class SkillcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SkillcException(String message) {
        super(message);
    }
}
