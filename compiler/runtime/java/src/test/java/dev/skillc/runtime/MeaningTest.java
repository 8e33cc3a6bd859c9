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

    /** A table's bytes: its pieces (row order), folds, scales and rows. */
    private static byte[] bytes(List<String> vocab, String folds, float[] scales, byte[][] rows) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("SKILLC-MEANING-1".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(u32(rows[0].length));
        out.writeBytes(u32(vocab.size()));
        byte[] pieces = String.join("\n", vocab).getBytes(StandardCharsets.UTF_8);
        out.writeBytes(u32(pieces.length));
        out.writeBytes(pieces);
        byte[] f = folds.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(u32(f.length));
        out.writeBytes(f);
        ByteBuffer scaled = ByteBuffer.allocate(4 * scales.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float x : scales) scaled.putFloat(x);
        out.writeBytes(scaled.array());
        for (byte[] row : rows) out.writeBytes(row);
        return out.toByteArray();
    }

    /** {@link #VOCAB}'s table: four-number rows, row i {@code [i, 1, 127 - i, -i]} at scale 0.5 (i + 1). */
    private static byte[] bytes(String folds) {
        float[] scales = new float[VOCAB.size()];
        byte[][] rows = new byte[VOCAB.size()][];
        for (int i = 0; i < VOCAB.size(); i++) {
            scales[i] = 0.5f * (i + 1);
            rows[i] = new byte[] {(byte) i, 1, (byte) (127 - i), (byte) -i};
        }
        return bytes(VOCAB, folds, scales, rows);
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
        assertArrayEquals(new double[4], m.vector("nothing known"), 0);
        assertEquals(4, m.dims);
        // a (scale 2) + b (scale 1) + c (scale 0.1 as a 32-bit float, widened): the sum is
        // [254, 5, -3, 7, -4, -1.0000000149]; over 254 times 127: [127, 2.5, -1.5, 3.5, -2,
        // -0.50000000745], rounded half up. Half to even, truncation, a scale of 0.1 as a
        // double or float arithmetic would each give another vector. (The Python runtime's
        // _meaning.vector gives this one.)
        Meaning small = Meaning.parse(bytes(List.of("a", "b", "c"), "", new float[] {2.0f, 1.0f, 0.1f}, new byte[][] {
            {127, 2, -1, 3, -2, 0}, {0, 1, -1, 1, 0, 0}, {0, 0, 0, 0, 0, -10}}));
        assertArrayEquals(new double[] {127, 3, -1, 4, -2, -1}, small.vector("a b c"), 0);
        // Each piece counts as often as it occurs, in order: c c a.
        assertArrayEquals(new double[] {127, 2, -1, 3, -2, -1}, small.vector("c c a"), 0);
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

    @Test
    public void theSmallTalkLeanCountsPairsOfNeighbouringPiecesAsTheRustRuntimeDoes() {
        // The sums of the Rust runtime's test (tests/sample.rs): pairs in the message's order.
        short[] pieces = {1500, -500, 0, 250};
        TalkWeights both = new TalkWeights(pieces,
            new long[] {TalkWeights.pairKey(0, 1), TalkWeights.pairKey(3, 0)}, new short[] {900, -2000});
        assertEquals((1000 + 900) / 4000.0, Router.talkWords(both, new int[] {0, 1, 0, 1}, false), 0);
        assertEquals(1000 / 3000.0, Router.talkWords(both, new int[] {1, 0}, false), 0);
        assertEquals((250 + 1500 - 2000) / 3000.0, Router.talkWords(both, new int[] {3, 0}, false), 0);
        assertEquals(0.0, Router.talkWords(both, new int[] {7}, false), 0);
        assertEquals(0.0, Router.talkWords(both, new int[] {}, false), 0);
        // Without the pairs' row: the pieces alone.
        assertEquals(0.5, Router.talkWords(new TalkWeights(pieces, null, null), new int[] {0, 1, 0, 1}, false), 0);
        assertEquals(4294967295L, TalkWeights.pairKey(65535, 65535));
        assertEquals(-1, TalkWeights.pairKey(65536, 0));
        assertEquals(-1, TalkWeights.pairKey(0, 65536));
        // With the edges (the rules' talk_words_ends): how a message opens and ends counts too,
        // the Rust runtime's sums.
        int edge = TalkWeights.EDGE;
        TalkWeights edges = new TalkWeights(pieces, new long[] {TalkWeights.pairKey(0, 1), TalkWeights.pairKey(1, edge),
            TalkWeights.pairKey(3, 0), TalkWeights.pairKey(edge, 3)}, new short[] {900, -300, -2000, 400});
        assertEquals((1250 - 1100 + 100) / 7000.0, Router.talkWords(edges, new int[] {3, 0, 1}, true), 0);
        assertEquals((1250 - 1100) / 5000.0, Router.talkWords(edges, new int[] {3, 0, 1}, false), 0);
        assertEquals((-500 - 300) / 3000.0, Router.talkWords(edges, new int[] {1}, true), 0);
        assertEquals(0.0, Router.talkWords(edges, new int[] {7}, true), 0);
        assertEquals(0.0, Router.talkWords(edges, new int[] {}, true), 0);
        assertEquals(0.5, Router.talkWords(new TalkWeights(pieces, null, null), new int[] {0, 1, 0, 1}, true), 0);
        assertArrayEquals(new long[] {TalkWeights.pairKey(0, 3), TalkWeights.pairKey(0, edge), TalkWeights.pairKey(3, 0),
            TalkWeights.pairKey(edge, 3)}, TalkWeights.talkPairs(new int[] {3, 0, 3, 0}, true));
    }
}
