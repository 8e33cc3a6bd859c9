package dev.skillc.runtime;

import static org.junit.Assert.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.Test;

/**
 * The closest vector's cosine per document: the int sums kept for whole-number vectors (the
 * built-in meaning's) give exactly the cosines of the plain sums in doubles, in order.
 */
public class DenseTest {
    /** The reference: each cosine summed in order in doubles, the largest per document. */
    private static double[] plain(List<List<double[]>> docs, double[] q) {
        double[] out = new double[docs.size()];
        double qNorm = Dense.norm(q);
        for (int d = 0; d < docs.size(); d++) {
            for (double[] v : docs.get(d)) {
                double vNorm = Dense.norm(v);
                if (qNorm == 0 || vNorm == 0 || v.length != q.length) continue;
                double dot = 0;
                for (int i = 0; i < q.length; i++) dot += q[i] * v[i];
                out[d] = Math.max(out[d], dot / (qNorm * vNorm));
            }
        }
        return out;
    }

    private static double[] whole(Random r, int dims) {
        double[] v = new double[dims];
        for (int i = 0; i < dims; i++) v[i] = r.nextInt(255) - 127;
        return v;
    }

    private static List<List<double[]>> docs(Random r, int dims) {
        List<List<double[]>> docs = new ArrayList<>();
        for (int d = 0; d < 200; d++) {
            List<double[]> vectors = new ArrayList<>();
            for (int k = d % 7; k > 0; k--) vectors.add(whole(r, dims));
            docs.add(vectors);
        }
        docs.get(3).add(new double[dims]);
        return docs;
    }

    @Test
    public void wholeNumberVectorsGiveTheCosinesOfThePlainSums() {
        Random r = new Random(48);
        List<List<double[]>> docs = docs(r, 256);
        Dense dense = Dense.of(docs);
        for (int n = 0; n < 20; n++) {
            double[] q = whole(r, 256);
            assertArrayEquals(plain(docs, q), dense.best(q), 0);
        }
        // A caller's vector of fractions, and one too large for int sums: summed as doubles.
        double[] fractions = whole(r, 256);
        fractions[0] = 0.25;
        assertArrayEquals(plain(docs, fractions), dense.best(fractions), 0);
        double[] large = whole(r, 256);
        large[5] = 1e9;
        assertArrayEquals(plain(docs, large), dense.best(large), 0);
        assertArrayEquals(new double[docs.size()], dense.best(new double[256]), 0);
    }

    @Test
    public void otherVectorsAreSummedAsDoubles() {
        Random r = new Random(7);
        List<List<double[]>> docs = docs(r, 16);
        docs.get(1).add(new double[] {0.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        docs.get(2).add(new double[] {1, 2, 3});
        Dense dense = Dense.of(docs);
        for (int n = 0; n < 5; n++) {
            double[] q = whole(r, 16);
            assertArrayEquals(plain(docs, q), dense.best(q), 0);
        }
        assertArrayEquals(new double[0], Dense.of(List.of()).best(new double[4]), 0);
    }
}
