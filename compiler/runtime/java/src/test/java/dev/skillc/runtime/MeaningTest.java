package dev.skillc.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/**
 * The built-in meaning table's rules (docs/routing.md, "Meaning") on a hand-made table, as the
 * Rust runtime's tests in compiler/runtime/src/route/meaning.rs state them, and the Java pitfalls
 * besides: characters outside the BMP are one code point each, for lookups and for the cap.
 */
public class MeaningTest {
    /** Row numbers are the positions in this list. */
    private static final List<String> VOCAB = List.of("[UNK]", "price", "##s", "list", "café", "cafe", "価", "格",
        "pri", "l", "##l", "\ud835\udc1a", "##\ud835\udc1a", "\ud840\udc0b", "s", "##ss");

    private static byte[] u32(int n) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(n).array();
    }

    /** A table's bytes: four-number rows, row i {@code [i, 1, 127 - i, -i]} at scale 0.5 (i + 1). */
    private static byte[] bytes(String folds) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("SKILLC-MEANING-1".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(u32(4));
        out.writeBytes(u32(VOCAB.size()));
        byte[] vocab = String.join("\n", VOCAB).getBytes(StandardCharsets.UTF_8);
        out.writeBytes(u32(vocab.length));
        out.writeBytes(vocab);
        byte[] f = folds.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(u32(f.length));
        out.writeBytes(f);
        ByteBuffer scales = ByteBuffer.allocate(4 * VOCAB.size()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < VOCAB.size(); i++) scales.putFloat(0.5f * (i + 1));
        out.writeBytes(scales.array());
        for (int i = 0; i < VOCAB.size(); i++) out.writeBytes(new byte[] {(byte) i, 1, (byte) (127 - i), (byte) -i});
        return out.toByteArray();
    }

    private static Meaning table() throws Meaning.Malformed {
        return Meaning.parse(bytes("é\te\nß\tss\n"));
    }

    private static int id(String piece) {
        return VOCAB.indexOf(piece);
    }

    private static int[] ids(String... pieces) {
        return Arrays.stream(pieces).mapToInt(MeaningTest::id).toArray();
    }

    @Test
    public void wordsSplitIntoTheLongestPiecesAndAWordWithAnUnknownPartHasNone() throws Exception {
        Meaning m = table();
        // Lowercased; the longest piece first (price, not pri), the rest after ##.
        assertArrayEquals(ids("price", "##s", "list"), m.pieces("Prices LIST"));
        assertArrayEquals(ids("pri", "pri"), m.pieces("pri, pri-"));
        // A word with a part no piece holds is left out whole, not as its first pieces.
        assertArrayEquals(ids("list"), m.pieces("pricez list"));
        assertArrayEquals(new int[0], m.pieces(""));
        assertArrayEquals(new int[0], m.pieces("?! unknown"));
    }

    @Test
    public void lettersFoldBeforeTheSplitAndUnspacedScriptsCountEachCharacterAlone() throws Exception {
        Meaning m = table();
        // é folds to e: café is looked up as cafe, not as the piece café.
        assertArrayEquals(ids("cafe"), m.pieces("Café"));
        assertArrayEquals(ids("s", "##ss"), m.pieces("sß"));
        // Each character of an unspaced run alone, those the table lacks skipped (表); a spaced
        // run beside it splits on its own (pdf: unknown).
        assertArrayEquals(ids("価", "格"), m.pieces("価格表"));
        assertArrayEquals(ids("price", "価", "格", "list"), m.pieces("price価格pdf list"));
    }

    @Test
    public void charactersBeyondTheBasicPlaneAreOneCodePointEach() throws Exception {
        Meaning m = table();
        String bold = "\ud835\udc1a"; // U+1D41A, a letter
        assertArrayEquals(ids(bold, "##" + bold, "##" + bold), m.pieces(bold.repeat(3)));
        // 60 such letters are 60 characters (120 UTF-16 units): under the cap of 100.
        assertEquals(60, m.pieces(bold.repeat(60)).length);
        // U+2000B is of an unspaced script; U+2000C is not in the table.
        assertArrayEquals(ids("\ud840\udc0b"), m.pieces("\ud840\udc0b\ud840\udc0c"));
    }

    @Test
    public void aTextHasAtMost256PiecesAndAWordOver100CharactersNone() throws Exception {
        Meaning m = table();
        assertEquals(Meaning.MAX_PIECES, m.pieces("list ".repeat(300)).length);
        // The cap cuts inside a word's pieces: its first ones count.
        int[] cut = m.pieces("list ".repeat(255) + "prices");
        assertEquals(256, cut.length);
        assertEquals(id("price"), cut[255]);
        assertEquals(100, m.pieces("l".repeat(100)).length);
        assertArrayEquals(new int[0], m.pieces("l".repeat(101)));
        // Counted once folded: 60 ß are 120 letters.
        assertArrayEquals(new int[0], m.pieces("ß".repeat(60)));
    }

    @Test
    public void aVectorIsTheScaledSumOfItsRowsInWholeNumbers() throws Exception {
        Meaning m = table();
        // price (scale 1.0, row [1, 1, 126, -1]) + ##s (scale 1.5, row [2, 1, 125, -2]) =
        // [4, 2.5, 313.5, -4]; over 313.5, times 127, plus 0.5, floored.
        assertArrayEquals(new double[] {2, 1, 127, -2}, m.vector("prices"), 0);
        double[] sum = {1 + 3, 1 + 1.5, 126 + 187.5, -1 - 3};
        double[] want = new double[4];
        for (int i = 0; i < 4; i++) want[i] = Math.floor(sum[i] / 313.5 * 127.0 + 0.5);
        assertArrayEquals(want, m.vector("prices"), 0);
        // A piece counts as often as it occurs: list (scale 2.0, row [3, 1, 124, -3]) twice.
        assertArrayEquals(new double[] {3, 1, 127, -3}, m.vector("list list"), 0);
        assertArrayEquals(new double[4], m.vector("nothing known"), 0);
        assertEquals(4, m.dims);
    }

    @Test
    public void bytesThatAreNotATableAreRefusedWithTheReason() {
        assertEquals("the meaning table is cut short",
            assertThrows(Meaning.Malformed.class, () -> Meaning.parse("SKILLC-MEANING-1".getBytes(StandardCharsets.US_ASCII)))
                .getMessage());
        assertThrows(Meaning.Malformed.class, () -> Meaning.parse("other".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("not a meaning table", assertThrows(Meaning.Malformed.class,
            () -> Meaning.parse("SKILLC-MEANING-2 and more bytes".getBytes(StandardCharsets.US_ASCII))).getMessage());
        byte[] whole = bytes("");
        byte[] longer = Arrays.copyOf(whole, whole.length + 1);
        assertEquals("the meaning table's parts disagree in size",
            assertThrows(Meaning.Malformed.class, () -> Meaning.parse(longer)).getMessage());
        assertEquals("the meaning table is cut short",
            assertThrows(Meaning.Malformed.class, () -> Meaning.parse(Arrays.copyOf(whole, whole.length - 1))).getMessage());
    }
}
