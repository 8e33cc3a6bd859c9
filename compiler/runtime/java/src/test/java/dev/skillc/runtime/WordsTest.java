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
        // English suffixes, for words of ASCII letters only.
        assertEquals(List.of("deploy", "deploy", "deploy", "run", "call", "carefully", "mp3ing", "café"), Router.tokens("Deploying deployed deployments running called carefully mp3ing café"));
        assertEquals(List.of("much", "pric", "pric", "uk"), Router.tokens("How much are the Prices of pricing-uk?"));
        assertEquals(List.of("being", "tun", "study", "ipv6ing", "größer", "add", "plan"), Router.tokens("being tuned studied ipv6ing größer added planning"));
        // Scripts without spaces: pairs of characters (the Rust runtime's
        // runs_of_unspaced_scripts_become_pairs_of_characters).
        assertEquals(List.of("価格", "格表"), Router.tokens("価格表"));
        assertEquals(List.of("pdf", "の変", "変換", "と", "pric"), Router.tokens("PDFの変換 と Prices"));
        assertEquals(List.of("รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"), Router.tokens("ราคาแพ็กเกจ"));
        assertEquals(List.of("テス", "スト", "ト駆", "駆動"), Router.tokens("テスト駆動"));
        assertEquals(List.of("𠀋𠀌"), Router.tokens("𠀋𠀌 x"));
    }
}
