package dev.skillc.runtime;

import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

/**
 * The words routing makes of a message (docs/routing.md), on the cases the Rust runtime's
 * {@code words_of_every_script_are_the_reference_of_the_other_runtimes} asserts: Java's own
 * final-sigma rule and its JDK's Unicode version must not show.
 */
public class WordsTest {
    @Test
    public void wordsOfEveryScriptAreTheRustRuntimes() {
        assertEquals(List.of("नमस", "ते", "दुनिया"), Router.tokens("नमस्ते दुनिया"));
        assertEquals(List.of("ασ", "β", "οδος"), Router.tokens("ΑΣ..Β ΟΔΟΣ"));
        assertEquals(List.of("x\u0363y", "ⓐⓑ", "½", "١٢٣"), Router.tokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻"));
        assertEquals(List.of("café", "te", "stanbul"), Router.tokens("café e\u0301te İstanbul"));
    }
}
