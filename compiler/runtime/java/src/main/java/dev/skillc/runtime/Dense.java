package dev.skillc.runtime;

import java.util.List;

/**
 * The stored vectors of a route index's documents (each document's summary, then each trigger
 * example), and the closest one's cosine to a query per document (docs/routing.md, "Hybrid"):
 * the Rust runtime's {@code DenseIndex::similarities}, sums in order in 64-bit floats.
 *
 * <p>The built-in meaning model's vectors are whole numbers from -127 to 127, and so are its
 * queries: then every product and every partial sum of a dot product is a whole number far
 * below 2^53, exact in a double whatever the order, and an int sum gives the very same
 * number. Kept as one int array (5 MB for a 1,000-skill catalog's 5,000 vectors, half the
 * doubles', which are then dropped), the JIT computes those sums with vector instructions: a third of the time of the
 * same sums in doubles, or over bytes, which the JDK 17 compiler does not vectorize.
 */
final class Dense {
    /** The vectors of document d are numbers {@code first[d]} to {@code first[d + 1] - 1}. */
    private final int[] first;
    /** The vectors, when they are not {@link #whole}; else null. */
    private final double[][] vectors;
    private final double[] norms;
    /** Every vector, one after the other, when all are whole numbers from -128 to 127 of one length; else null. */
    private final int[] whole;
    private final int dims;

    private Dense(int[] first, double[][] vectors, double[] norms, int[] whole, int dims) {
        this.first = first;
        this.vectors = vectors;
        this.norms = norms;
        this.whole = whole;
        this.dims = dims;
    }

    /** The index of each document's vectors, in order. */
    static Dense of(List<List<double[]>> perDocument) {
        int[] first = new int[perDocument.size() + 1];
        int count = 0;
        for (int d = 0; d < perDocument.size(); d++) {
            first[d] = count;
            count += perDocument.get(d).size();
        }
        first[perDocument.size()] = count;
        double[][] vectors = new double[count][];
        double[] norms = new double[count];
        int k = 0;
        for (List<double[]> doc : perDocument) {
            for (double[] v : doc) {
                vectors[k] = v;
                norms[k++] = norm(v);
            }
        }
        int dims = count == 0 ? 0 : vectors[0].length;
        int[] whole = wholeOf(vectors, dims);
        return new Dense(first, whole == null ? vectors : null, norms, whole, dims);
    }

    /** The vectors as ints, when they are all whole numbers from -128 to 127 of length {@code dims}; else null. */
    private static int[] wholeOf(double[][] vectors, int dims) {
        if ((long) vectors.length * dims > Integer.MAX_VALUE) return null;
        int[] out = new int[vectors.length * dims];
        for (int k = 0; k < vectors.length; k++) {
            if (vectors[k].length != dims) return null;
            for (int i = 0; i < dims; i++) {
                double x = vectors[k][i];
                if (x != Math.rint(x) || x < -128 || x > 127) return null;
                out[k * dims + i] = (int) x;
            }
        }
        return out;
    }

    /** A vector's length, summed in order (as every runtime sums it). */
    static double norm(double[] v) {
        double total = 0;
        for (double x : v) total += x * x;
        return Math.sqrt(total);
    }

    /**
     * The query as ints when the int path gives its exact dot products: whole numbers, of the
     * vectors' length, small enough that no int sum can overflow; else null.
     */
    private int[] wholeQuery(double[] q) {
        if (whole == null || q.length != dims) return null;
        int[] out = new int[dims];
        double bound = (double) Integer.MAX_VALUE / (128.0 * Math.max(dims, 1));
        for (int i = 0; i < dims; i++) {
            if (q[i] != Math.rint(q[i]) || Math.abs(q[i]) > bound) return null;
            out[i] = (int) q[i];
        }
        return out;
    }

    /** Per document, the largest cosine of the query with its vectors (0 when it has none). */
    double[] best(double[] q) {
        double qNorm = norm(q);
        int docs = first.length - 1;
        double[] best = new double[docs];
        if (qNorm == 0) return best;
        int[] qi = wholeQuery(q);
        for (int d = 0; d < docs; d++) {
            double top = 0;
            for (int k = first[d]; k < first[d + 1]; k++) {
                double c;
                if (norms[k] == 0 || q.length != (whole != null ? dims : vectors[k].length)) c = 0;
                else if (qi != null) c = dotWhole(qi, k) / (qNorm * norms[k]);
                else if (whole != null) c = dot(q, k) / (qNorm * norms[k]);
                else c = dot(q, vectors[k]) / (qNorm * norms[k]);
                top = Math.max(top, c);
            }
            best[d] = top;
        }
        return best;
    }

    /**
     * The largest cosine of the query with each document's first vector (a skill's summary: what
     * the small-talk bar measures, docs/routing.md), 0 at worst.
     */
    double nearestFirst(double[] q) {
        double qNorm = norm(q);
        double best = 0;
        if (qNorm == 0) return best;
        int[] qi = wholeQuery(q);
        for (int d = 0; d + 1 < first.length; d++) {
            int k = first[d];
            if (k == first[d + 1] || norms[k] == 0 || q.length != (whole != null ? dims : vectors[k].length)) continue;
            double c;
            if (qi != null) c = dotWhole(qi, k) / (qNorm * norms[k]);
            else if (whole != null) c = dot(q, k) / (qNorm * norms[k]);
            else c = dot(q, vectors[k]) / (qNorm * norms[k]);
            best = Math.max(best, c);
        }
        return best;
    }

    private static double dot(double[] q, double[] v) {
        double total = 0;
        for (int i = 0; i < q.length; i++) total += q[i] * v[i];
        return total;
    }

    /** The dot product of a query with vector k of {@link #whole}, summed in order as doubles. */
    private double dot(double[] q, int k) {
        int base = k * dims;
        double total = 0;
        for (int i = 0; i < dims; i++) total += q[i] * whole[base + i];
        return total;
    }

    /** The exact dot product of a whole query with vector k. */
    private int dotWhole(int[] q, int k) {
        int[] w = whole;
        int base = k * dims;
        int total = 0;
        for (int i = 0; i < q.length; i++) total += q[i] * w[base + i];
        return total;
    }
}
