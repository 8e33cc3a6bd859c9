package dev.skillc.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Run-time figures of the Java runtime on one artifact (SPEC 9's runtime questions): opening
 * it, a catalog lookup warm (p50, p99), a prompt for five skills warm and a route warm (the
 * TypeScript target is 1 ms). Not a test: run by hand after {@code build.sh}, e.g. on the
 * reference workload's artifact:
 * <pre>
 * java -cp target/test-classes:target/skillc-runtime-0.1.0.jar:/usr/share/java/sqlite-jdbc.jar \
 *      dev.skillc.runtime.Bench ARTIFACT [CLIENT]
 * </pre>
 */
public final class Bench {
    private Bench() {}

    private static double[] times(Runnable fn, int n) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            fn.run();
            out[i] = (System.nanoTime() - s) / 1e3;
        }
        return out;
    }

    private static String quantiles(double[] us) {
        double[] sorted = us.clone();
        Arrays.sort(sorted);
        return String.format("p50 %.1f us, p99 %.1f us", sorted[sorted.length / 2],
            sorted[Math.min(sorted.length - 1, (int) (0.99 * sorted.length))]);
    }

    public static void main(String[] args) {
        Request r = Request.global().client(args.length > 1 ? args[1] : null);
        long t = System.nanoTime();
        try (Artifact a = Artifact.open(args[0])) {
            double open = (System.nanoTime() - t) / 1e6;
            t = System.nanoTime();
            Catalog first = a.catalog(r);
            double firstCatalog = (System.nanoTime() - t) / 1e6;
            // The JIT compiles what runs often: the first rounds warm it, as a server's first requests would.
            for (int i = 0; i < 3; i++) times(() -> a.catalog(r), 2000);
            double[] catalogs = times(() -> a.catalog(r), 2000);
            List<String> picks = first.skills().stream().limit(5).map(Catalog.Skill::name).toList();
            for (int i = 0; i < 3; i++) times(() -> a.prompt(r, picks), 500);
            double[] prompts = times(() -> a.prompt(r, picks), 500);
            // Messages of a few words of every 50th skill's description, and one matching nothing.
            List<String> messages = new ArrayList<>();
            for (int i = 0; i < first.skills().size(); i += 50) {
                String[] words = first.skills().get(i).description().split("\\s+");
                messages.add(String.join(" ", Arrays.asList(words).subList(0, Math.min(6, words.length))));
            }
            messages.add("bananas and kiwis");
            for (int i = 0; i < 500; i++) messages.forEach(m -> a.route(r, m));
            double[] routes = new double[20 * messages.size()];
            int k = 0;
            for (int i = 0; i < 20; i++) {
                for (String m : messages) routes[k++] = times(() -> a.route(r, m), 1)[0];
            }
            System.out.printf("artifact %s, bundle %s: %d skills in the catalog%n", args[0],
                r.client() == null ? "global" : r.client(), first.skills().size());
            System.out.printf("open: %.1f ms; first catalog (loads the bundle): %.1f ms%n", open, firstCatalog);
            System.out.println("catalog lookup, warm: " + quantiles(catalogs));
            System.out.println("prompt for 5 selected skills, warm: " + quantiles(prompts));
            System.out.println("route, warm (" + messages.size() + " messages, 20 times each): " + quantiles(routes));
        }
    }
}
