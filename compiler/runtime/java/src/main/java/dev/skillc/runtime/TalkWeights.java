package dev.skillc.runtime;

/**
 * The weights towards small talk (thousandths) of the meaning table's pieces, by row, and of pairs
 * of neighbouring pieces, by {@link #pairKey} in rising order ({@code pairKeys} and
 * {@code pairWeights} null in an artifact built before them). docs/routing.md, "Small talk".
 */
record TalkWeights(short[] pieces, long[] pairKeys, short[] pairWeights) {
    /** A pair of neighbouring pieces as one number: first × 65,536 + second; -1 when a row is 65,536 or more. */
    static long pairKey(int first, int second) {
        return first >= 0 && first < 65536 && second >= 0 && second < 65536 ? (long) first * 65536 + second : -1;
    }

    /** The row past any table's end that stands for a message's edges (Rust's {@code EDGE}). */
    static final int EDGE = 65535;

    /**
     * A message's distinct pairs of neighbouring pieces by {@link #pairKey}, in rising order; with
     * {@code ends}, its pairs with the edge too: (EDGE, first piece) and (last piece, EDGE).
     */
    static long[] talkPairs(int[] pieces, boolean ends) {
        java.util.stream.LongStream.Builder keys = java.util.stream.LongStream.builder();
        for (int k = 1; k < pieces.length; k++) keys.add(pairKey(pieces[k - 1], pieces[k]));
        if (ends && pieces.length > 0) {
            keys.add(pairKey(EDGE, pieces[0]));
            keys.add(pairKey(pieces[pieces.length - 1], EDGE));
        }
        return keys.build().filter(key -> key >= 0).sorted().distinct().toArray();
    }
}
