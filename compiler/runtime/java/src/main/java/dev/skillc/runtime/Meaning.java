package dev.skillc.runtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece vectors
 * that the artifact carries, read as compiler/runtime/src/route/meaning.rs reads it. A text's
 * vector is the weighted sum of its pieces' rows, scaled so that its largest coordinate is 127
 * and rounded to whole numbers: every cosine is then exact, the same in every runtime whatever
 * the order of its sums.
 */
final class Meaning {
    /** At most this many pieces of a text count (a long message: its first ones). */
    static final int MAX_PIECES = 256;
    /** A word longer than this many characters (code points) has no pieces (WordPiece's own limit). */
    static final int MAX_WORD_CHARS = 100;
    private static final byte[] MAGIC = "SKILLC-MEANING-1".getBytes(StandardCharsets.US_ASCII);

    /** The length of its vectors. */
    final int dims;
    private final Map<String, Integer> ids;
    /** The folds of accented letters, by code point. */
    private final Map<Integer, String> folds;
    /** Each row's scale, widened once from its 32-bit float. */
    private final double[] scales;
    /** Row after row, {@code dims} int8 values each. */
    private final byte[] rows;

    private Meaning(int dims, Map<String, Integer> ids, Map<Integer, String> folds, double[] scales, byte[] rows) {
        this.dims = dims;
        this.ids = ids;
        this.folds = folds;
        this.scales = scales;
        this.rows = rows;
    }

    /** The reason a table's bytes cannot be read (the message completes "its meaning table: "). */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String why) {
            super(why);
        }
    }

    private static int take(ByteBuffer b, int n) throws Malformed {
        if (n < 0 || n > b.remaining()) throw new Malformed("the meaning table is cut short");
        int at = b.position();
        b.position(at + n);
        return at;
    }

    /** A u32 little-endian; one that does not fit an int cannot be a length of these bytes. */
    private static int takeU32(ByteBuffer b) throws Malformed {
        long n = Integer.toUnsignedLong(b.getInt(take(b, 4)));
        return n > Integer.MAX_VALUE ? -1 : (int) n;
    }

    private static String takeText(ByteBuffer b) throws Malformed {
        int n = takeU32(b);
        int at = take(b, n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b.array(), at, n)).toString();
        } catch (CharacterCodingException e) {
            throw new Malformed("the meaning table's text is not UTF-8");
        }
    }

    /**
     * A table from its bytes: {@code SKILLC-MEANING-1}, the vector length and the number of rows
     * (u32 little-endian each), the pieces (u32 length, then one per line, row order), the folds
     * (u32 length, then lines of a letter, a tab and what it folds to), a f32 scale per row, then
     * each row's int8 values.
     */
    static Meaning parse(byte[] bytes) throws Malformed {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magic = take(b, MAGIC.length);
        if (!Arrays.equals(bytes, magic, magic + MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new Malformed("not a meaning table");
        }
        int dims = takeU32(b);
        int count = takeU32(b);
        Map<String, Integer> ids = new HashMap<>();
        int row = 0;
        // Row i is line i; a piece listed twice keeps its last row, as in the Rust runtime.
        for (String piece : takeText(b).split("\n", -1)) ids.put(piece, row++);
        Map<Integer, String> folds = new HashMap<>();
        for (String line : lines(takeText(b))) {
            if (line.isEmpty()) continue;
            int c = line.codePointAt(0);
            int tab = Character.charCount(c);
            if (tab < line.length() && line.charAt(tab) == '\t') folds.put(c, line.substring(tab + 1));
        }
        if (count < 0 || dims < 0 || (long) count * Math.max(dims, 4) > Integer.MAX_VALUE) {
            throw new Malformed("the meaning table is cut short");
        }
        double[] scales = new double[count];
        int at = take(b, count * 4);
        for (int i = 0; i < count; i++) scales[i] = b.getFloat(at + 4 * i);
        byte[] rows = Arrays.copyOfRange(bytes, take(b, count * dims), b.position());
        if (ids.size() != count || b.hasRemaining() || dims == 0) {
            throw new Malformed("the meaning table's parts disagree in size");
        }
        return new Meaning(dims, ids, folds, scales, rows);
    }

    /** Rust's {@code str::lines}: split at {@code \n}, a {@code \r} just before one dropped. */
    private static String[] lines(String text) {
        String[] out = text.split("\n", -1);
        for (int i = 0; i + 1 < out.length; i++) {
            if (out[i].endsWith("\r")) out[i] = out[i].substring(0, out[i].length() - 1);
        }
        return out;
    }

    /** The row of a piece the table holds whole, or null. */
    Integer row(String piece) {
        return ids.get(piece);
    }

    /**
     * A text's pieces (row numbers), in order: its routing words (lowercased runs of word
     * characters, {@link Router#tokens}'s); in a run of an unspaced script each character alone;
     * any other run with its accents folded, then split greedily into the longest pieces the
     * table holds, the first plain and the others after {@code ##} (WordPiece). A run that
     * cannot be split entirely has no pieces. At most {@link #MAX_PIECES}.
     */
    int[] pieces(String text) {
        int[] out = new int[MAX_PIECES];
        int n = 0;
        String lower = Router.lowercase(text);
        int i = 0;
        while (i < lower.length() && n < MAX_PIECES) {
            int start = i;
            while (i < lower.length() && Router.wordChar(lower.codePointAt(i))) i += Character.charCount(lower.codePointAt(i));
            if (i == start) {
                i += Character.charCount(lower.codePointAt(i));
                continue;
            }
            int at = start;
            while (at < i && n < MAX_PIECES) {
                boolean spaced = !Router.unspaced(lower.codePointAt(at));
                int end = at;
                while (end < i && Router.unspaced(lower.codePointAt(end)) != spaced) {
                    end += Character.charCount(lower.codePointAt(end));
                }
                n = spaced ? wordPieces(fold(lower, at, end), out, n) : characters(lower, at, end, out, n);
                at = end;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * The code points of {@code text[from, to)}, each replaced by its fold when it has one, and
     * its marks that no piece is left out: the model's tokenizer drops every nonspacing mark, as
     * the Rust runtime's {@code Meaning::fold}.
     */
    private int[] fold(String text, int from, int to) {
        StringBuilder folded = new StringBuilder(to - from);
        for (int k = from; k < to; ) {
            int c = text.codePointAt(k);
            String f = folds.get(c);
            if (f != null) folded.append(f);
            else if (!Router.mark(c) || ids.containsKey(new String(Character.toChars(c)))) folded.appendCodePoint(c);
            k += Character.charCount(c);
        }
        return folded.codePoints().toArray();
    }

    /** A run of an unspaced script: each character a piece of its own, those the table holds. */
    private int characters(String text, int from, int to, int[] out, int n) {
        for (int k = from; k < to && n < MAX_PIECES; ) {
            int c = text.codePointAt(k);
            Integer id = ids.get(Character.toString(c));
            if (id != null) out[n++] = id;
            k += Character.charCount(c);
        }
        return n;
    }

    /** WordPiece: the longest pieces from the start; nothing at all when a position has none. */
    private int wordPieces(int[] word, int[] out, int n) {
        if (word.length > MAX_WORD_CHARS) return n;
        int[] found = new int[word.length];
        int count = 0;
        for (int start = 0; start < word.length; ) {
            String head = start == 0 ? "" : "##";
            Integer id = null;
            int end = word.length;
            for (; end > start; end--) {
                id = ids.get(head + new String(word, start, end - start));
                if (id != null) break;
            }
            if (id == null) return n;
            found[count++] = id;
            start = end;
        }
        int kept = Math.min(count, MAX_PIECES - n);
        System.arraycopy(found, 0, out, n, kept);
        return n + kept;
    }

    /**
     * A text's vector: the sum of scale times row over its pieces in order (64-bit floats),
     * then each coordinate over the largest magnitude times 127, rounded half up: whole numbers
     * from -127 to 127, all 0 when no piece is known.
     */
    double[] vector(String text) {
        double[] total = new double[dims];
        for (int p : pieces(text)) {
            double scale = scales[p];
            int base = p * dims;
            for (int i = 0; i < dims; i++) total[i] += scale * rows[base + i];
        }
        double largest = 0;
        // Not Math.max: a NaN (a damaged scale) is passed over, as Rust's f64::max does.
        for (double x : total) if (Math.abs(x) > largest) largest = Math.abs(x);
        if (largest == 0) return new double[dims];
        for (int i = 0; i < dims; i++) total[i] = Math.floor(total[i] / largest * 127.0 + 0.5);
        return total;
    }
}
