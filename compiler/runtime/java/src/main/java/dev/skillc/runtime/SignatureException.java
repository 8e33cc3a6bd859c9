package dev.skillc.runtime;

/** The artifact has no valid signature for the public key it was opened with ({@code skillc} exits 2). */
public final class SignatureException extends SkillcException {
    private static final long serialVersionUID = 1L;

    SignatureException(String message) {
        super(message);
    }
}
