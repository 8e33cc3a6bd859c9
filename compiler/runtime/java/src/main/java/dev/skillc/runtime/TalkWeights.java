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
}
