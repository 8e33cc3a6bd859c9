package dev.skillc.runtime;

import java.util.Map;

/**
 * Which bundle, for which consumer, in which context. A null field means the global bundle,
 * the default locale, the default tier, no consumer.
 *
 * <pre>{@code
 * Request r = Request.global().client("example.com").locale("fr").context(Map.of("turn", 2));
 * }</pre>
 */
public record Request(String client, String locale, String tier, String consumer, Context context) {
    /** The global bundle, default locale and tier, no consumer, no context. */
    public static Request global() {
        return new Request(null, null, null, null, Context.empty());
    }

    public Request client(String client) {
        return new Request(client, locale, tier, consumer, context);
    }

    public Request locale(String locale) {
        return new Request(client, locale, tier, consumer, context);
    }

    public Request tier(String tier) {
        return new Request(client, locale, tier, consumer, context);
    }

    public Request consumer(String consumer) {
        return new Request(client, locale, tier, consumer, context);
    }

    public Request context(Context context) {
        return new Request(client, locale, tier, consumer, context == null ? Context.empty() : context);
    }

    /** The context from a map: {@code page_url}, {@code turn}, {@code <skill>_availability}, any key. */
    public Request context(Map<String, ?> context) {
        return context(Context.of(context));
    }
}
